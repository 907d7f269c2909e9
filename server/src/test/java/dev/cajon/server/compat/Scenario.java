package dev.cajon.server.compat;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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
 *     .fresh("*abc\r\n", 1)                       // malformed input on a new connection
 *     .run();
 * }</pre>
 *
 * Every step runs even after a mismatch, and {@link #run()} then fails once, listing each step
 * that differed with both replies shown readably. An I/O failure (timeout, closed connection)
 * stops the scenario, since the two conversations are no longer in step.
 */
final class Scenario {
    private final String name;
    private final String redisVersion;
    private final int redisPort;
    private final int cajonPort;
    private final List<Step> steps = new ArrayList<>();

    /** One step; returns a description of the difference, or null. */
    private interface Step {
        String describe();

        String run(RespClient redis, RespClient cajon) throws IOException;
    }

    Scenario(String name, String redisVersion, int redisPort, int cajonPort) {
        this.name = name;
        this.redisVersion = redisVersion;
        this.redisPort = redisPort;
        this.cajonPort = cajonPort;
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
        byte[][] copy = argv.clone();
        steps.add(new Step() {
            @Override
            public String describe() {
                return describeArgv(copy);
            }

            @Override
            public String run(RespClient redis, RespClient cajon) throws IOException {
                redis.send(copy);
                cajon.send(copy);
                return compare(check, readN("redis", redis, 1), readN("cajon", cajon, 1));
            }
        });
        return this;
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
            public String run(RespClient redis, RespClient cajon) throws IOException {
                redis.sendRaw(data);
                cajon.sendRaw(data);
                return compare(Check.EXACT, readN("redis", redis, replies), readN("cajon", cajon, replies));
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
            public String run(RespClient redis, RespClient cajon) throws IOException {
                for (byte x : data) {
                    redis.sendRaw(new byte[] {x});
                    cajon.sendRaw(new byte[] {x});
                }
                return compare(Check.EXACT, readN("redis", redis, replies), readN("cajon", cajon, replies));
            }
        });
        return this;
    }

    /**
     * Waits. Real Redis cannot take an injected clock, so a scenario about expired keys sets
     * them with a 1 ms TTL and pauses a little longer than that; nothing else should pause.
     */
    Scenario pause(long millis) {
        steps.add(new Step() {
            @Override
            public String describe() {
                return "pause " + millis + " ms";
            }

            @Override
            public String run(RespClient redis, RespClient cajon) {
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
     * touched): the {@code replies} replies must be byte-identical, and afterwards both servers
     * must agree on whether the connection is still open. For protocol errors.
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
            public String run(RespClient ignoredRedis, RespClient ignoredCajon) throws IOException {
                try (RespClient redis = RespClient.connect(redisPort); RespClient cajon = RespClient.connect(cajonPort)) {
                    redis.sendRaw(data);
                    cajon.sendRaw(data);
                    List<Reply> r = readN("redis", redis, replies);
                    List<Reply> c;
                    try {
                        c = readN("cajon", cajon, replies);
                    } catch (IOException e) {
                        return "\n    redis: " + r + "\n    cajon: " + e;
                    }
                    String diff = compare(Check.EXACT, r, c);
                    String rs = redis.probe();
                    String cs = cajon.probe();
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
     * differences (HELLO 3) and commands Redis 7.0 lacks (CLIENT SETINFO).
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
            public String run(RespClient redis, RespClient cajon) throws IOException {
                Reply c = cajon.call(a);
                return Arrays.equals(want, c.raw()) ? null
                        : "\n    expected: " + Reply.show(want) + "\n    cajon:    " + c;
            }
        });
        return this;
    }

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

    /** Runs every step against both servers and fails listing every difference. */
    void run() throws IOException {
        List<String> diffs = new ArrayList<>();
        try (RespClient redis = RespClient.connect(redisPort); RespClient cajon = RespClient.connect(cajonPort)) {
            requireOk("redis", redis.call("FLUSHALL"));
            requireOk("cajon", cajon.call("FLUSHALL"));
            for (int i = 0; i < steps.size(); i++) {
                Step s = steps.get(i);
                String d;
                try {
                    d = s.run(redis, cajon);
                } catch (IOException e) {
                    diffs.add("[step " + (i + 1) + "] " + s.describe() + "\n    failed: " + e
                            + "\n    (scenario stopped: the connections are out of step)");
                    break;
                }
                if (d != null) {
                    diffs.add("[step " + (i + 1) + "] " + s.describe() + d);
                }
            }
        }
        if (!diffs.isEmpty()) {
            String report = name + ": " + diffs.size() + " of " + steps.size() + " steps differ between Redis " + redisVersion + " and Cajon\n"
                    + String.join("\n", diffs);
            System.out.println(report);
            fail(report);
        }
    }

    private static void requireOk(String server, Reply r) {
        if (!"+OK\r\n".equals(new String(r.raw(), StandardCharsets.ISO_8859_1))) {
            fail(server + " did not accept FLUSHALL: " + r);
        }
    }
}
