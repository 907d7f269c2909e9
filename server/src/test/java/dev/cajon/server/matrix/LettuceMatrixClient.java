package dev.cajon.server.matrix;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.ProtocolVersion;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Lettuce in the client matrix: "default" leaves the protocol to Lettuce (HELLO 3, RESP2 if the
 * server refuses it), "2" and "3" set {@code ClientOptions.protocolVersion}. Values are byte
 * arrays on the wire of one connection (a String-key, byte[]-value codec), so the binary step
 * uses the same connection as the others.
 */
final class LettuceMatrixClient implements JavaScenario.Client {
    private static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);
    private final RedisClient client;

    LettuceMatrixClient(int port, String protocol) {
        client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(port)
                .withTimeout(Duration.ofSeconds(5)).build());
        ClientOptions.Builder o = ClientOptions.builder().autoReconnect(false);
        switch (protocol) {
            case "default" -> { }
            case "2" -> o.protocolVersion(ProtocolVersion.RESP2);
            case "3" -> o.protocolVersion(ProtocolVersion.RESP3);
            default -> throw new IllegalArgumentException(protocol);
        }
        client.setOptions(o.build());
    }

    static String version() {
        return io.lettuce.core.LettuceVersion.getVersion();
    }

    @Override
    public JavaScenario.Conn open() {
        return new Conn(client.connect(CODEC));
    }

    @Override
    public void close() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    private static byte[] b(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Values as text where the scenario expects text. */
    private static Object text(Object v) {
        return v instanceof byte[] bytes ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8) : v;
    }

    private static List<Object> texts(Iterable<?> replies) {
        List<Object> out = new ArrayList<>();
        replies.forEach(x -> out.add(text(x)));
        return out;
    }

    private static final class Conn implements JavaScenario.Conn {
        private final StatefulRedisConnection<String, byte[]> conn;
        private final RedisCommands<String, byte[]> r;

        Conn(StatefulRedisConnection<String, byte[]> conn) {
            this.conn = conn;
            this.r = conn.sync();
        }

        @Override
        public String clientInfo() {
            return r.clientInfo();
        }

        @Override
        public long del(List<String> keys) {
            return r.del(keys.toArray(String[]::new));
        }

        @Override
        public String set(String k, String v) {
            return r.set(k, b(v));
        }

        @Override
        public String setEx(String k, String v, long seconds) {
            return r.set(k, b(v), SetArgs.Builder.ex(seconds));
        }

        @Override
        public String get(String k) {
            byte[] v = r.get(k);
            return v == null ? null : (String) text(v);
        }

        @Override
        public String setBytes(String k, byte[] v) {
            return r.set(k, v);
        }

        @Override
        public byte[] getBytes(String k) {
            return r.get(k);
        }

        @Override
        public long strlen(String k) {
            return r.strlen(k);
        }

        @Override
        public long ttl(String k) {
            return r.ttl(k);
        }

        @Override
        public long incr(String k) {
            return r.incr(k);
        }

        /** Lettuce's pipelining: queue with auto-flush off, flush once, then await every future. */
        private List<Object> pipelined(java.util.function.Function<RedisAsyncCommands<String, byte[]>,
                List<RedisFuture<?>>> commands) {
            conn.setAutoFlushCommands(false);
            List<RedisFuture<?>> fs;
            try {
                fs = commands.apply(conn.async());
                conn.flushCommands();
            } finally {
                conn.setAutoFlushCommands(true);
            }
            List<Object> out = new ArrayList<>();
            for (RedisFuture<?> f : fs) {
                try {
                    out.add(text(f.get(5, TimeUnit.SECONDS)));
                } catch (ExecutionException e) {
                    out.add(e.getCause());
                } catch (InterruptedException | TimeoutException e) {
                    throw new IllegalStateException("pipelined reply: " + e, e);
                }
            }
            return out;
        }

        @Override
        public List<Object> pipeline(String k) {
            return pipelined(a -> List.of(a.set(k, b("1")), a.incr(k), a.incrby(k, 5), a.get(k)));
        }

        @Override
        public List<Object> setMany(List<String> keys) {
            return pipelined(a -> keys.stream().<RedisFuture<?>>map(k -> a.set(k, b("x"))).toList());
        }

        @Override
        public List<Object> transaction(String k) {
            r.multi();
            r.set(k, b("1"));
            r.incr(k);
            r.get(k);
            return result(r.exec());
        }

        @Override
        public List<Object> execError(String k) {
            r.multi();
            r.set(k, b("abc"));
            r.incr(k);
            return result(r.exec()); // a failed command's reply is a RedisCommandExecutionException
        }

        private static List<Object> result(TransactionResult t) {
            return t.wasDiscarded() ? null : texts(t);
        }

        @Override
        public void watch(String k) {
            r.watch(k);
        }

        @Override
        public List<Object> watchedSet(String k, String v) {
            r.multi();
            r.set(k, b(v));
            return result(r.exec()); // wasDiscarded() when a watched key changed
        }

        @Override
        public Map<String, Object> types(String p) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("hset", r.hset(p + "h", Map.of("a", b("1"), "b", b("2"))));
            Map<String, String> h = new java.util.TreeMap<>();
            r.hgetall(p + "h").forEach((f, v) -> h.put(f, new String(v, java.nio.charset.StandardCharsets.UTF_8)));
            m.put("hgetall", h);
            m.put("rpush", r.rpush(p + "l", b("x"), b("y"), b("z")));
            m.put("lrange", r.lrange(p + "l", 0, -1).stream()
                    .map(v -> new String(v, java.nio.charset.StandardCharsets.UTF_8)).toList());
            m.put("sadd", r.sadd(p + "s", b("m"), b("n")));
            m.put("smembers", r.smembers(p + "s").stream()
                    .map(v -> new String(v, java.nio.charset.StandardCharsets.UTF_8)).sorted().toList());
            m.put("zadd", r.zadd(p + "z", io.lettuce.core.ScoredValue.just(1.5, b("a")),
                    io.lettuce.core.ScoredValue.just(2.0, b("b"))));
            m.put("zrange", r.zrangeWithScores(p + "z", 0, -1).stream()
                    .map(t -> List.<Object>of(new String(t.getValue(), java.nio.charset.StandardCharsets.UTF_8),
                            t.getScore())).toList());
            m.put("zscore", r.zscore(p + "z", b("a")));
            return m;
        }

        @Override
        public Map.Entry<String, List<String>> scan(String cursor, String match, int count) {
            KeyScanCursor<String> c = r.scan(ScanCursor.of(cursor), ScanArgs.Builder.matches(match).limit(count));
            return new AbstractMap.SimpleEntry<>(c.getCursor(), c.getKeys());
        }

        @Override
        public void close() {
            conn.close();
        }
    }
}
