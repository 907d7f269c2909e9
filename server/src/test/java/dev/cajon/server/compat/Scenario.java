package dev.cajon.server.compat;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The comparison DSL: a list of steps, each sent to Redis and to Cajon over one connection per
 * server (so SELECT and CLIENT SETNAME carry over from step to step), after a FLUSHALL on both.
 *
 * <pre>{@code
 * scenario("set with expire")
 *     .cmd("SET", "k", "v", "EX", "0")            // replies must be byte-identical
 *     .check(Check.within(100, 1), "TTL", "k")    // a looser comparison
 *     .shape("TIME")                              // type and element count only
 *     .raw("GET k\n")                             // inline command, raw bytes
 *     .other("SET", "k", "w")                     // on a second connection to each server
 *     .until(":-2\r\n", "PTTL", "k")              // repeated until both answer this (bounded)
 *     .fresh("*abc\r\n", 1)                       // malformed input on a new connection
 *     .run();
 * }</pre>
 *
 * A scenario runs in one {@link Protocol}. In RESP3 every connection it opens (its own, the
 * second one of {@link #other}, each {@link #fresh} one) first sends {@code HELLO 3} to both
 * servers; Cajon's answer must have the shape of Redis's (the id differs), else the run stops
 * there, saying so, since every later reply would differ for that one reason. RESP2 sends nothing
 * extra. Reports name the protocol: {@code "GET [RESP3]: ..."}.
 *
 * <p>Every step runs even after a mismatch, and {@link #run()} then fails once, listing each step
 * that differed with both replies shown readably. An I/O failure (timeout, closed connection)
 * stops the scenario, since the two conversations are no longer in step.
 */
final class Scenario {
    /**
     * {@code -Dcompat.transcript=true}: every scenario prints each step with Redis's replies, to
     * read what Redis really answers (e.g. with {@code -Dcompat.redisVsRedis=true}).
     */
    private static final boolean TRANSCRIPT = Boolean.getBoolean("compat.transcript");

    /** How long {@link #until} keeps asking before it gives up. */
    private static final long POLL_LIMIT_MS = 5_000;

    private final String name;
    private final String redisVersion;
    private final int redisPort;
    private final int cajonPort;
    private final Protocol protocol;
    private final List<Step> steps = new ArrayList<>();

    /** One step; returns a description of the difference, or null. */
    private interface Step {
        String describe();

        String run(Session s) throws IOException;
    }

    /** One connection to each server. */
    private record Pair(RespClient redis, RespClient cajon) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            try {
                redis.close();
            } finally {
                cajon.close();
            }
        }
    }

    /** Which of a scenario's two connection pairs a step uses. */
    private enum Conn {
        MAIN(""),
        OTHER("[other connection] ");

        final String prefix;

        Conn(String prefix) {
            this.prefix = prefix;
        }
    }

    /**
     * Cajon did not answer {@code HELLO 3} the way Redis did, so a RESP3 run cannot go on: every
     * later reply would differ for that one reason.
     */
    static final class HandshakeFailed extends IOException {
        HandshakeFailed(String message) {
            super(message);
        }
    }

    /** The connections of one run: the scenario's own pair, and the second pair once a step asks for it. */
    private final class Session implements AutoCloseable {
        private Pair main;
        private Pair other;

        Pair pair(Conn c) throws IOException {
            if (c == Conn.MAIN) {
                return main;
            }
            if (other == null) {
                other = open();
            }
            return other;
        }

        @Override
        public void close() throws IOException {
            try {
                if (main != null) {
                    main.close();
                }
            } finally {
                if (other != null) {
                    other.close();
                }
            }
        }
    }

    Scenario(String name, String redisVersion, int redisPort, int cajonPort, Protocol protocol) {
        this.name = name;
        this.redisVersion = redisVersion;
        this.redisPort = redisPort;
        this.cajonPort = cajonPort;
        this.protocol = protocol;
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Raw bytes from a string whose chars are all below 256 (so "\u00ff" is the byte 0xFF). */
    static byte[] latin1(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[][] utf8(String... argv) {
        byte[][] a = new byte[argv.length][];
        for (int i = 0; i < argv.length; i++) {
            a[i] = b(argv[i]);
        }
        return a;
    }

    static String describeArgv(byte[][] argv) {
        StringBuilder sb = new StringBuilder();
        for (byte[] a : argv) {
            if (sb.length() > 0) {
                sb.append(' ');
            }
            if (a.length > 200) {
                sb.append(Reply.show(Arrays.copyOf(a, 24))).append("...(").append(a.length).append(" bytes)");
                continue;
            }
            boolean plain = a.length > 0;
            for (byte x : a) {
                plain &= x > ' ' && x < 0x7F && x != '"' && x != '\\';
            }
            sb.append(plain ? new String(a, StandardCharsets.US_ASCII) : Reply.show(a));
        }
        return sb.toString();
    }

    // ---------------------------------------------------------------- connections

    /** A new connection to each server, switched to this run's protocol. */
    private Pair open() throws IOException {
        RespClient redis = RespClient.connect(redisPort);
        RespClient cajon;
        try {
            cajon = RespClient.connect(cajonPort);
        } catch (IOException e) {
            redis.close();
            throw e;
        }
        Pair p = new Pair(redis, cajon);
        try {
            if (protocol == Protocol.RESP3) {
                hello3(redis, cajon);
            }
            return p;
        } catch (IOException | RuntimeException e) {
            p.close();
            throw e;
        }
    }

    /**
     * Switches both connections to RESP3 with {@code HELLO 3}. Redis must answer with its map;
     * Cajon's answer must have the same fields in the same order, the same {@code proto}, and
     * values of the same types ({@link Check#HELLO}); otherwise {@link HandshakeFailed}.
     */
    static void hello3(RespClient redis, RespClient cajon) throws IOException {
        Reply r = redis.call("HELLO", "3");
        if (r.type() != '%') {
            throw new IOException("redis did not switch to RESP3: HELLO 3 answered " + r);
        }
        Reply c;
        try {
            c = cajon.call("HELLO", "3");
        } catch (IOException e) {
            throw new HandshakeFailed("HELLO 3 (the RESP3 handshake) got no answer from cajon: " + e
                    + "\n    redis: " + r);
        }
        String d = Check.HELLO.compare(r, c);
        if (d != null) {
            throw new HandshakeFailed("HELLO 3 (the RESP3 handshake) differs (" + d + ")"
                    + "\n    redis: " + r + "\n    cajon: " + c);
        }
    }

    // ---------------------------------------------------------------- steps

    /** A command whose replies must be byte-identical. */
    Scenario cmd(String... argv) {
        return check(Check.EXACT, argv);
    }

    /** A binary-safe command whose replies must be byte-identical. */
    Scenario cmd(byte[]... argv) {
        return check(Check.EXACT, argv);
    }

    /** A command whose replies are compared by type and element count only. */
    Scenario shape(String... argv) {
        return check(Check.SHAPE, argv);
    }

    Scenario check(Check check, String... argv) {
        return check(check, utf8(argv));
    }

    Scenario check(Check check, byte[]... argv) {
        return command(Conn.MAIN, check, argv);
    }

    /**
     * A command on a second connection to each server (opened at its first use, in the run's
     * protocol, db 0): for what another client does meanwhile, e.g. a write to a WATCHed key.
     * The replies must be byte-identical.
     */
    Scenario other(String... argv) {
        return command(Conn.OTHER, Check.EXACT, utf8(argv));
    }

    Scenario other(byte[]... argv) {
        return command(Conn.OTHER, Check.EXACT, argv);
    }

    private Scenario command(Conn conn, Check check, byte[][] argv) {
        byte[][] copy = argv.clone();
        steps.add(new Step() {
            @Override
            public String describe() {
                return conn.prefix + describeArgv(copy);
            }

            @Override
            public String run(Session s) throws IOException {
                Pair p = s.pair(conn);
                p.redis.send(copy);
                p.cajon.send(copy);
                return compare(check, readN("redis", p.redis, 1), readN("cajon", p.cajon, 1));
            }
        });
        return this;
    }

    /**
     * A command repeated on each server until that server answers exactly {@code expected}, at
     * most {@value #POLL_LIMIT_MS} ms: waits for something the servers do in their own time (a
     * TTL running out) without guessing how long it takes. The step fails if either server never
     * gets there.
     */
    Scenario until(String expected, String... argv) {
        return poll(Conn.MAIN, expected, argv);
    }

    /** {@link #until} on the second connection. */
    Scenario otherUntil(String expected, String... argv) {
        return poll(Conn.OTHER, expected, argv);
    }

    private Scenario poll(Conn conn, String expected, String... argv) {
        byte[][] a = utf8(argv);
        byte[] want = latin1(expected);
        steps.add(new Step() {
            @Override
            public String describe() {
                return conn.prefix + describeArgv(a) + "  (repeated until it answers " + Reply.show(want) + ")";
            }

            @Override
            public String run(Session s) throws IOException {
                Pair p = s.pair(conn);
                String r = pollOne("redis", p.redis, a, want);
                String c = pollOne("cajon", p.cajon, a, want);
                return r == null && c == null ? null
                        : (r == null ? "" : "\n    " + r) + (c == null ? "" : "\n    " + c);
            }
        });
        return this;
    }

    private static String pollOne(String server, RespClient client, byte[][] argv, byte[] want) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(POLL_LIMIT_MS);
        Reply last;
        int tries = 0;
        do {
            last = client.call(argv);
            tries++;
            if (Arrays.equals(want, last.raw())) {
                return null;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        } while (System.nanoTime() < deadline);
        return server + " never answered " + Reply.show(want) + " (" + tries + " tries in " + POLL_LIMIT_MS
                + " ms); last: " + last;
    }

    /** Raw bytes (an inline command) on the scenario's connections; one reply expected. */
    Scenario raw(String bytes) {
        return raw(bytes, 1);
    }

    /** Raw bytes on the scenario's connections, answered by {@code replies} replies. */
    Scenario raw(String bytes, int replies) {
        return raw(latin1(bytes), replies);
    }

    /** Raw bytes (e.g. a pipeline of encoded commands), answered by {@code replies} replies. */
    Scenario raw(byte[] data, int replies) {
        steps.add(new Step() {
            @Override
            public String describe() {
                return "raw " + Reply.show(data);
            }

            @Override
            public String run(Session s) throws IOException {
                Pair p = s.main;
                p.redis.sendRaw(data);
                p.cajon.sendRaw(data);
                return compare(Check.EXACT, readN("redis", p.redis, replies), readN("cajon", p.cajon, replies));
            }
        });
        return this;
    }

    /**
     * Raw bytes written one byte per write (TCP_NODELAY is on, so the servers see them in many
     * small reads), answered by {@code replies} replies: exercises command boundaries that fall
     * anywhere in a read.
     */
    Scenario trickle(byte[] data, int replies) {
        steps.add(new Step() {
            @Override
            public String describe() {
                return "trickled byte by byte " + Reply.show(data);
            }

            @Override
            public String run(Session s) throws IOException {
                Pair p = s.main;
                for (byte x : data) {
                    p.redis.sendRaw(new byte[] {x});
                    p.cajon.sendRaw(new byte[] {x});
                }
                return compare(Check.EXACT, readN("redis", p.redis, replies), readN("cajon", p.cajon, replies));
            }
        });
        return this;
    }

    /**
     * Waits. Real Redis cannot take an injected clock, so a scenario about expired keys sets
     * them with a 1 ms TTL and pauses a little longer than that; nothing else should pause
     * (prefer {@link #until}, which waits only as long as needed).
     */
    Scenario pause(long millis) {
        steps.add(new Step() {
            @Override
            public String describe() {
                return "pause " + millis + " ms";
            }

            @Override
            public String run(Session s) {
                try {
                    Thread.sleep(millis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return null;
            }
        });
        return this;
    }

    /**
     * Raw bytes on a new connection to each server (the scenario's own connections are not
     * touched; in RESP3 the new ones send HELLO 3 first): the {@code replies} replies must be
     * byte-identical, and afterwards both servers must agree on whether the connection is still
     * open. For protocol errors, and for commands that close the connection.
     */
    Scenario fresh(String bytes, int replies) {
        return fresh(latin1(bytes), replies);
    }

    Scenario fresh(byte[] data, int replies) {
        steps.add(new Step() {
            @Override
            public String describe() {
                return "new connection, raw " + Reply.show(data);
            }

            @Override
            public String run(Session s) throws IOException {
                try (Pair p = open()) {
                    p.redis.sendRaw(data);
                    p.cajon.sendRaw(data);
                    List<Reply> r = readN("redis", p.redis, replies);
                    List<Reply> c;
                    try {
                        c = readN("cajon", p.cajon, replies);
                    } catch (IOException e) {
                        return "\n    redis: " + r + "\n    cajon: " + e;
                    }
                    String diff = compare(Check.EXACT, r, c);
                    String rs = p.redis.probe();
                    String cs = p.cajon.probe();
                    if (!rs.equals(cs)) {
                        diff = (diff == null ? "" : diff) + "\n    connection afterwards: redis " + rs + ", cajon " + cs;
                    }
                    return diff;
                }
            }
        });
        return this;
    }

    /**
     * A command sent to Cajon only, whose reply must be exactly {@code expected}: for deliberate
     * differences and commands Redis 7.0 lacks (CLIENT SETINFO).
     */
    Scenario cajonOnly(String expected, String... argv) {
        byte[][] a = utf8(argv);
        byte[] want = latin1(expected);
        steps.add(new Step() {
            @Override
            public String describe() {
                return describeArgv(a) + "  (Cajon only)";
            }

            @Override
            public String run(Session s) throws IOException {
                Reply c = s.main.cajon.call(a);
                return Arrays.equals(want, c.raw()) ? null
                        : "\n    expected: " + Reply.show(want) + "\n    cajon:    " + c;
            }
        });
        return this;
    }

    // ---------------------------------------------------------------- running

    /** Redis's replies of the running step, for the transcript. */
    private static final ThreadLocal<List<Reply>> HEARD = ThreadLocal.withInitial(ArrayList::new);

    /** Reads n replies; a failure names the server it happened on. */
    private static List<Reply> readN(String server, RespClient c, int n) throws IOException {
        List<Reply> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            try {
                out.add(c.read());
            } catch (IOException e) {
                throw new IOException(server + " (reply " + (i + 1) + " of " + n + "): " + e, e);
            }
        }
        if (TRANSCRIPT && server.equals("redis")) {
            HEARD.get().addAll(out);
        }
        return out;
    }

    private static String compare(Check check, List<Reply> redis, List<Reply> cajon) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < redis.size(); i++) {
            String d = check.compare(redis.get(i), cajon.get(i));
            if (d != null) {
                String n = redis.size() > 1 ? " #" + (i + 1) : "";
                sb.append("\n    redis").append(n).append(": ").append(redis.get(i))
                        .append("\n    cajon").append(n).append(": ").append(cajon.get(i));
                if (check != Check.EXACT) {
                    sb.append("\n    (").append(d).append(')');
                }
            }
        }
        return sb.length() == 0 ? null : sb.toString();
    }

    /** The scenario's name with its protocol: {@code "GET [RESP3]"}. */
    String title() {
        return name + " " + protocol.label();
    }

    /** Runs every step against both servers and fails listing every difference. */
    void run() throws IOException {
        List<String> diffs = new ArrayList<>();
        StringBuilder transcript = new StringBuilder(title()).append(" (transcript: Redis's replies)");
        HEARD.get().clear();
        try (Session s = new Session()) {
            try {
                s.main = open();
            } catch (HandshakeFailed e) {
                String report = title() + ": Cajon did not switch to RESP3 as Redis " + redisVersion
                        + " does, so none of the " + steps.size() + " steps ran\n    " + e.getMessage();
                System.out.println(report);
                fail(report);
            }
            requireOk("redis", s.main.redis.call("FLUSHALL"));
            requireOk("cajon", s.main.cajon.call("FLUSHALL"));
            for (int i = 0; i < steps.size(); i++) {
                Step step = steps.get(i);
                String d;
                try {
                    d = step.run(s);
                } catch (HandshakeFailed e) {
                    diffs.add("[step " + (i + 1) + "] " + step.describe() + "\n    failed on a new connection: "
                            + e.getMessage() + "\n    (scenario stopped: Cajon did not switch to RESP3)");
                    break;
                } catch (IOException e) {
                    diffs.add("[step " + (i + 1) + "] " + step.describe() + "\n    failed: " + e
                            + "\n    (scenario stopped: the connections are out of step)");
                    break;
                }
                if (d != null) {
                    diffs.add("[step " + (i + 1) + "] " + step.describe() + d);
                }
                if (TRANSCRIPT) {
                    transcript.append("\n  ").append(step.describe()).append("\n      ").append(HEARD.get());
                    HEARD.get().clear();
                }
            }
        } finally {
            if (TRANSCRIPT) {
                System.out.println(transcript);
            }
        }
        if (!diffs.isEmpty()) {
            String report = title() + ": " + diffs.size() + " of " + steps.size() + " steps differ between Redis "
                    + redisVersion + " and Cajon\n" + String.join("\n", diffs);
            System.out.println(report);
            fail(report);
        }
    }

    private void requireOk(String server, Reply r) {
        if (!"+OK\r\n".equals(new String(r.raw(), StandardCharsets.ISO_8859_1))) {
            fail(title() + ": " + server + " did not accept FLUSHALL: " + r);
        }
    }
}
