package dev.cajon.server.matrix;

import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Jedis in the client matrix: "default" is {@code DefaultJedisClientConfig.builder().build()}
 * (RESP2, no HELLO), "2" and "3" set {@code protocol(RedisProtocol.RESPn)}, which sends HELLO n.
 */
final class JedisMatrixClient implements JavaScenario.Client {
    private final HostAndPort address;
    private final DefaultJedisClientConfig config;

    JedisMatrixClient(int port, String protocol) {
        this.address = new HostAndPort("127.0.0.1", port);
        DefaultJedisClientConfig.Builder b = DefaultJedisClientConfig.builder().timeoutMillis(5_000);
        switch (protocol) {
            case "default" -> { }
            case "2" -> b.protocol(RedisProtocol.RESP2);
            case "3" -> b.protocol(RedisProtocol.RESP3);
            default -> throw new IllegalArgumentException(protocol);
        }
        this.config = b.build();
    }

    /** Jedis's version, from the pom.properties it ships beside its classes. */
    static String version() {
        try (java.io.InputStream in = Jedis.class.getResourceAsStream("pom.properties")) {
            java.util.Properties p = new java.util.Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "?");
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    @Override
    public JavaScenario.Conn open() {
        Jedis j = new Jedis(address, config);
        j.connect(); // Jedis connects lazily: connect now, so a failed handshake fails "connect"
        return new Conn(j);
    }

    @Override
    public void close() {
    }

    private static final class Conn implements JavaScenario.Conn {
        private final Jedis j;

        Conn(Jedis j) {
            this.j = j;
        }

        @Override
        public String clientInfo() {
            return j.clientInfo();
        }

        @Override
        public long del(List<String> keys) {
            return j.del(keys.toArray(String[]::new));
        }

        @Override
        public String set(String k, String v) {
            return j.set(k, v);
        }

        @Override
        public String setEx(String k, String v, long seconds) {
            return j.set(k, v, SetParams.setParams().ex(seconds));
        }

        @Override
        public String get(String k) {
            return j.get(k);
        }

        @Override
        public String setBytes(String k, byte[] v) {
            return j.set(k.getBytes(StandardCharsets.UTF_8), v);
        }

        @Override
        public byte[] getBytes(String k) {
            return j.get(k.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public long strlen(String k) {
            return j.strlen(k);
        }

        @Override
        public long ttl(String k) {
            return j.ttl(k);
        }

        @Override
        public long incr(String k) {
            return j.incr(k);
        }

        @Override
        public List<Object> pipeline(String k) {
            Pipeline p = j.pipelined();
            p.set(k, "1");
            p.incr(k);
            p.incrBy(k, 5);
            p.get(k);
            return p.syncAndReturnAll();
        }

        @Override
        public List<Object> setMany(List<String> keys) {
            Pipeline p = j.pipelined();
            List<Response<String>> rs = keys.stream().map(k -> p.set(k, "x")).toList();
            p.sync();
            return rs.stream().map(r -> (Object) r.get()).toList();
        }

        @Override
        public List<Object> transaction(String k) {
            Transaction t = j.multi();
            t.set(k, "1");
            t.incr(k);
            t.get(k);
            return t.exec();
        }

        @Override
        public List<Object> execError(String k) {
            Transaction t = j.multi();
            t.set(k, "abc");
            t.incr(k);
            return t.exec(); // a failed command's reply is the JedisDataException, in its place
        }

        @Override
        public void watch(String k) {
            j.watch(k);
        }

        @Override
        public List<Object> watchedSet(String k, String v) {
            Transaction t = j.multi();
            t.set(k, v);
            return t.exec(); // null when a watched key changed
        }

        @Override
        public Map<String, Object> types(String p) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("hset", j.hset(p + "h", Map.of("a", "1", "b", "2")));
            m.put("hgetall", new java.util.TreeMap<>(j.hgetAll(p + "h")));
            m.put("rpush", j.rpush(p + "l", "x", "y", "z"));
            m.put("lrange", j.lrange(p + "l", 0, -1));
            m.put("sadd", j.sadd(p + "s", "m", "n"));
            m.put("smembers", new java.util.TreeSet<>(j.smembers(p + "s")).stream().toList());
            m.put("zadd", j.zadd(p + "z", Map.of("a", 1.5, "b", 2.0)));
            m.put("zrange", j.zrangeWithScores(p + "z", 0, -1).stream()
                    .map(t -> List.<Object>of(t.getElement(), t.getScore())).toList());
            m.put("zscore", j.zscore(p + "z", "a"));
            return m;
        }

        @Override
        public Map.Entry<String, List<String>> scan(String cursor, String match, int count) {
            ScanResult<String> r = j.scan(cursor, new ScanParams().match(match).count(count));
            return new AbstractMap.SimpleEntry<>(r.getCursor(), r.getResult());
        }

        @Override
        public void close() {
            j.close();
        }
    }
}
