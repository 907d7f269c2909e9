package dev.cajon.server.matrix;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.StringJoiner;
import java.util.stream.IntStream;

/**
 * The client matrix's app scenario for the Java clients, step for step the one in
 * {@code clients/node/scenario.mjs} and {@code clients/python/scenario.py}: the same step names,
 * the same keys, the same expectations, and the same output, one JSON line per step, so that
 * {@link ClientRun} reads every client's run the same way.
 *
 * <p>Each client gives a {@link Conn}: one app-level operation per method, written the way that
 * client's documentation writes it (Jedis: {@code multi()}/{@code exec()} giving null when a
 * watched key changed; Lettuce: {@code TransactionResult.wasDiscarded()}).
 */
final class JavaScenario {
    static final String NOT_INTEGER = "ERR value is not an integer or out of range";
    static final int SCAN_KEYS = 300;
    static final List<String> STEPS = List.of("connect", "ttl", "pipeline", "transaction", "watch-ok",
            "watch-conflict", "scan", "binary", "error", "exec-error", "types");
    private static final byte[] BINARY = new byte[256];

    static {
        for (int i = 0; i < 256; i++) {
            BINARY[i] = (byte) i;
        }
    }

    /** One connection of the client under test. */
    interface Conn extends AutoCloseable {
        String clientInfo();

        long del(List<String> keys);

        String set(String k, String v);

        String setEx(String k, String v, long seconds);

        String get(String k);

        String setBytes(String k, byte[] v);

        byte[] getBytes(String k);

        long strlen(String k);

        long ttl(String k);

        long incr(String k);

        /** SET k 1, INCR k, INCRBY k 5, GET k in one pipeline (no MULTI). */
        List<Object> pipeline(String k);

        /** SET each key to "x" in one pipeline. */
        List<Object> setMany(List<String> keys);

        /** MULTI, SET k 1, INCR k, GET k, EXEC. */
        List<Object> transaction(String k);

        /** MULTI, SET k abc, INCR k, EXEC: the per-command replies, the error inside. */
        List<Object> execError(String k);

        void watch(String k);

        /** MULTI, SET k v, EXEC after a {@link #watch}: null if the server aborted it. */
        List<Object> watchedSet(String k, String v);

        /**
         * The data types the way the client's documentation writes them, each reply turned into
         * plain values: HSET h a 1 b 2 and HGETALL h (sorted by field), RPUSH l x y z and LRANGE,
         * SADD s m n and SMEMBERS (sorted), ZADD z 1.5 a 2 b, ZRANGE z 0 -1 WITHSCORES as
         * [member, score] pairs, ZSCORE z a. Keys: {@code prefix} + h, l, s, z.
         */
        Map<String, Object> types(String prefix);

        /** One SCAN call: the next cursor, then the keys. */
        Map.Entry<String, List<String>> scan(String cursor, String match, int count);

        @Override
        void close();
    }

    /** Opens connections of one client in one protocol mode. */
    interface Client extends AutoCloseable {
        Conn open();

        @Override
        void close();
    }

    private final Client client;
    private final String protocol;
    private final String prefix;
    private final List<String> lines = new ArrayList<>();

    private JavaScenario(Client client, String protocol, String prefix) {
        this.client = client;
        this.protocol = protocol;
        this.prefix = prefix;
    }

    /** Runs every step and returns the output lines, the summary last. */
    static List<String> run(Client client, String clientName, String version, String protocol, String prefix) {
        JavaScenario s = new JavaScenario(client, protocol, prefix);
        s.runAll();
        List<String> failed = new ArrayList<>();
        for (String line : s.lines) {
            ClientRun.Step st = ClientRun.Step.parse(line);
            if (!st.ok()) {
                failed.add(Json.render(st.name()));
            }
        }
        s.lines.add("{\"summary\":{\"client\":" + Json.render(clientName) + ",\"version\":" + Json.render(version)
                + ",\"protocol\":" + Json.render(protocol) + ",\"passed\":" + (s.lines.size() - failed.size())
                + ",\"failed\":[" + String.join(",", failed) + "]}}");
        return s.lines;
    }

    private String k(String s) {
        return prefix + s;
    }

    private interface Body {
        Object run() throws Exception;
    }

    private void step(String name, Body body) {
        try {
            lines.add("{\"step\":" + Json.render(name) + ",\"ok\":true,\"observed\":" + Json.render(body.run()) + "}");
        } catch (Throwable e) {
            String msg = e instanceof Failed ? e.getMessage() : describe(e);
            lines.add("{\"step\":" + Json.render(name) + ",\"ok\":false,\"error\":" + Json.render(msg) + "}");
        }
    }

    /** An exception and its causes (Lettuce hides the server's reply to HELLO in a cause). */
    private static String describe(Throwable e) {
        StringBuilder b = new StringBuilder(e.getClass().getSimpleName() + ": " + e.getMessage());
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            b.append(" / caused by ").append(c.getClass().getSimpleName()).append(": ").append(c.getMessage());
        }
        return b.toString();
    }

    /** A failed expectation (as opposed to an exception from the client). */
    static final class Failed extends RuntimeException {
        Failed(String message) {
            super(message);
        }
    }

    private static void expectEqual(String what, Object actual, Object expected) {
        String a = Json.render(actual);
        String e = Json.render(expected);
        if (!a.equals(e)) {
            throw new Failed(what + ": expected " + e + ", got " + a);
        }
    }

    private void runAll() {
        List<String> scanKeys = IntStream.range(0, SCAN_KEYS).mapToObj(i -> k("scan:" + i)).toList();
        Conn[] c = new Conn[2];
        try {
            step("connect", () -> {
                c[0] = client.open();
                String info = c[0].clientInfo();
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?:^| )resp=(\\d)").matcher(info);
                if (!m.find()) {
                    throw new Failed("CLIENT INFO has no resp= field: " + info);
                }
                int resp = Integer.parseInt(m.group(1));
                if (!protocol.equals("default") && resp != Integer.parseInt(protocol)) {
                    throw new Failed("asked for RESP" + protocol + ", the connection is RESP" + resp);
                }
                List<String> all = new ArrayList<>(List.of(k("ttl"), k("pipe"), k("tx"), k("watch:ok"),
                        k("watch:conflict"), k("bin"), k("err"), k("txerr"), k("t:h"), k("t:l"), k("t:s"), k("t:z")));
                all.addAll(scanKeys);
                c[0].del(all);
                return Map.of("resp", resp);
            });
            if (c[0] == null) {
                for (String name : STEPS.subList(1, STEPS.size())) {
                    lines.add("{\"step\":" + Json.render(name)
                            + ",\"ok\":false,\"error\":\"not run: the client could not connect\"}");
                }
                return;
            }
            Conn r = c[0];
            step("ttl", () -> {
                String set = r.setEx(k("ttl"), "v", 100);
                expectEqual("SET EX", set, "OK");
                String get = r.get(k("ttl"));
                expectEqual("GET", get, "v");
                long ttl = r.ttl(k("ttl"));
                if (!(ttl > 0 && ttl <= 100)) {
                    throw new Failed("TTL: expected 1..100, got " + ttl);
                }
                return Json.object("set", set, "get", get, "ttlInRange", true);
            });
            step("pipeline", () -> {
                List<Object> out = r.pipeline(k("pipe"));
                expectEqual("pipeline SET, INCR, INCRBY 5, GET", out, List.of("OK", 2L, 7L, "7"));
                return out;
            });
            step("transaction", () -> {
                List<Object> out = r.transaction(k("tx"));
                expectEqual("MULTI SET, INCR, GET, EXEC", out, List.of("OK", 2L, "2"));
                expectEqual("GET after EXEC", r.get(k("tx")), "2");
                return out;
            });
            step("watch-ok", () -> {
                r.watch(k("watch:ok"));
                List<Object> out = r.watchedSet(k("watch:ok"), "mine");
                expectEqual("EXEC with an untouched watched key", out, List.of("OK"));
                expectEqual("GET", r.get(k("watch:ok")), "mine");
                return out;
            });
            step("watch-conflict", () -> {
                c[1] = client.open();
                r.watch(k("watch:conflict"));
                c[1].set(k("watch:conflict"), "theirs");
                List<Object> out = r.watchedSet(k("watch:conflict"), "mine");
                expectEqual("EXEC after another connection wrote the watched key", out, null);
                String after = r.get(k("watch:conflict"));
                expectEqual("GET", after, "theirs");
                return Json.object("exec", out, "after", after);
            });
            step("scan", () -> {
                List<Object> sets = r.setMany(scanKeys);
                if (sets.size() != SCAN_KEYS || !sets.stream().allMatch("OK"::equals)) {
                    String s = Json.render(sets);
                    throw new Failed("pipelined SETs: " + s.substring(0, Math.min(200, s.length())));
                }
                Set<String> seen = new HashSet<>();
                String cursor = "0";
                int round = 0;
                do {
                    if (++round > 10_000) {
                        throw new Failed("SCAN did not come back to cursor 0 within 10000 calls");
                    }
                    Map.Entry<String, List<String>> page = r.scan(cursor, k("scan:*"), 50);
                    seen.addAll(page.getValue());
                    cursor = page.getKey();
                } while (!cursor.equals("0"));
                List<String> missing = scanKeys.stream().filter(x -> !seen.contains(x)).toList();
                Set<String> wanted = new HashSet<>(scanKeys);
                List<String> foreign = seen.stream().filter(x -> !wanted.contains(x)).toList();
                if (!missing.isEmpty() || !foreign.isEmpty()) {
                    throw new Failed("SCAN MATCH: " + missing.size() + " keys missing "
                            + missing.subList(0, Math.min(3, missing.size())) + ", " + foreign.size()
                            + " unexpected " + foreign.subList(0, Math.min(3, foreign.size())));
                }
                return Map.of("keys", seen.size());
            });
            step("binary", () -> {
                expectEqual("SET", r.setBytes(k("bin"), BINARY), "OK");
                byte[] back = r.getBytes(k("bin"));
                if (!Arrays.equals(back, BINARY)) {
                    throw new Failed("GET of the 256 byte values: got " + Json.render(back));
                }
                expectEqual("STRLEN", r.strlen(k("bin")), 256L);
                return Json.object("length", back.length, "hex", HexFormat.of().formatHex(back));
            });
            step("error", () -> {
                r.set(k("err"), "abc");
                long got;
                try {
                    got = r.incr(k("err"));
                } catch (RuntimeException e) {
                    if (!NOT_INTEGER.equals(e.getMessage())) {
                        throw new Failed("INCR of a non-integer: expected the error \"" + NOT_INTEGER + "\", got "
                                + e.getClass().getSimpleName() + " \"" + e.getMessage() + "\"");
                    }
                    return Map.of("error", e.getMessage());
                }
                throw new Failed("INCR of a non-integer: expected the error \"" + NOT_INTEGER + "\", got the reply " + got);
            });
            step("exec-error", () -> {
                List<Object> out = r.execError(k("txerr"));
                expectEqual("MULTI SET abc, INCR, EXEC", out, List.of("OK", new RuntimeException(NOT_INTEGER)));
                return out;
            });
            step("types", () -> {
                Map<String, Object> got = r.types(k("t:"));
                expectEqual("hashes, lists, sets, sorted sets", got, expectedTypes());
                return got;
            });
        } finally {
            for (Conn x : c) {
                if (x != null) {
                    try {
                        x.close();
                    } catch (RuntimeException e) {
                        // already gone
                    }
                }
            }
        }
    }

    /** What {@link Conn#types} must observe, on every client and server. */
    static Map<String, Object> expectedTypes() {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("hset", 2L);
        m.put("hgetall", new java.util.TreeMap<>(Map.of("a", "1", "b", "2")));
        m.put("rpush", 3L);
        m.put("lrange", List.of("x", "y", "z"));
        m.put("sadd", 2L);
        m.put("smembers", List.of("m", "n"));
        m.put("zadd", 2L);
        m.put("zrange", List.of(List.of("a", 1.5), List.of("b", 2.0)));
        m.put("zscore", 1.5);
        return m;
    }

    /** Renders replies as the scripts do: byte[] as {"hex"}, exceptions as {"error"}, null as null. */
    static final class Json {
        private Json() {
        }

        static Map<String, Object> object(Object... kv) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            for (int i = 0; i < kv.length; i += 2) {
                m.put((String) kv[i], kv[i + 1]);
            }
            return m;
        }

        static String render(Object v) {
            if (v == null) {
                return "null";
            }
            if (v instanceof String s) {
                return quote(s);
            }
            if (v instanceof Number || v instanceof Boolean) {
                return v.toString();
            }
            if (v instanceof byte[] b) {
                return "{\"hex\":" + quote(HexFormat.of().formatHex(b)) + "}";
            }
            if (v instanceof Throwable t) {
                return "{\"error\":" + quote(Objects.toString(t.getMessage())) + "}";
            }
            if (v instanceof Map<?, ?> m) {
                StringJoiner j = new StringJoiner(",", "{", "}");
                m.forEach((key, x) -> j.add(quote(String.valueOf(key)) + ":" + render(x)));
                return j.toString();
            }
            if (v instanceof Iterable<?> it) {
                StringJoiner j = new StringJoiner(",", "[", "]");
                it.forEach(x -> j.add(render(x)));
                return j.toString();
            }
            return quote(v.getClass().getName() + ":" + v);
        }

        static String quote(String s) {
            StringBuilder b = new StringBuilder("\"");
            for (int i = 0; i < s.length(); i++) {
                char ch = s.charAt(i);
                switch (ch) {
                    case '"' -> b.append("\\\"");
                    case '\\' -> b.append("\\\\");
                    case '\n' -> b.append("\\n");
                    case '\r' -> b.append("\\r");
                    case '\t' -> b.append("\\t");
                    default -> {
                        if (ch < 0x20) {
                            b.append(String.format("\\u%04x", (int) ch));
                        } else {
                            b.append(ch);
                        }
                    }
                }
            }
            return b.append('"').toString();
        }
    }
}
