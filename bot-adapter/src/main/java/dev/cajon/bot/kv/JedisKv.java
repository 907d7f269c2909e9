package dev.cajon.bot.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.util.JedisClusterCRC16;
import redis.clients.jedis.util.SafeEncoder;

/**
 * The port over RESP with Jedis: {@link #remote} against one Cajon server or redis-server (a
 * pooled client), {@link #cluster} against a Redis Cluster (JedisCluster).
 *
 * <p>Single commands go through Jedis's unified client, which follows MOVED and ASK in a
 * cluster. A transaction takes one pooled connection (in a cluster, the connection to the
 * master of the first key's slot) and holds it from WATCH to EXEC. WATCH and a GET of each
 * watched key are pipelined, and so are MULTI, the writes and EXEC (by Jedis): a read-modify-write
 * transaction costs two round trips. In a cluster every key of a transaction
 * must map to one slot; the keys the adapter builds share a hash tag, and anything else is
 * refused here before a command is sent.
 *
 * <p>A {@link #pipeline} is written whole on one pooled connection and its replies read after:
 * one round trip, applied in order. The ops sent ahead of a WATCH go on the transaction's
 * connection, in the same round trip. In a cluster, a pipeline, and ops ahead of a WATCH that
 * are not all in the transaction's slot, are sent one command after the other through the
 * unified client instead: in order, and a round trip each.
 */
public final class JedisKv implements Kv {
    private final UnifiedJedis client;
    private final Function<String, Connection> txConnection;
    private final boolean cluster;
    /**
     * How many WATCHes may be held across a handler ({@link Tx#execThenWatch}) at once: half the
     * pool. A holder asks for more connections meanwhile (its sends), so the other half is always
     * left to holders that never wait for a second one, and a full pool cannot deadlock.
     */
    private final java.util.concurrent.Semaphore holds = new java.util.concurrent.Semaphore(POOL / 2);

    private JedisKv(UnifiedJedis client, Function<String, Connection> txConnection, boolean cluster) {
        this.client = client;
        this.txConnection = txConnection;
        this.cluster = cluster;
    }

    static JedisClientConfig config(String user, String password) {
        DefaultJedisClientConfig.Builder b = DefaultJedisClientConfig.builder()
                .resp2() // Redis 7.0 and Cajon both speak it; RESP3 brings nothing the port uses
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED) // CLIENT SETINFO is 7.2
                .timeoutMillis(5_000);
        if (password != null) {
            b.user(user == null ? "default" : user).password(password);
        }
        return b.build();
    }

    /**
     * The pool of each server: a send holds one connection through the provider call (its WATCH,
     * so that markSent is one EXEC), and a message one through its handler (so that done is one
     * EXEC; at most half the pool, see {@link #holds}), so it is larger than Jedis's 8.
     */
    static final int POOL = 64;

    static ConnectionPoolConfig pool() {
        ConnectionPoolConfig p = new ConnectionPoolConfig();
        p.setMaxTotal(POOL);
        p.setMaxIdle(POOL);
        return p;
    }

    /** One server: Cajon (an app's user and password) or a redis-server. */
    public static JedisKv remote(String host, int port, String user, String password) {
        RedisClient c = RedisClient.builder().hostAndPort(host, port).clientConfig(config(user, password))
                .poolConfig(pool()).build();
        return new JedisKv(c, k -> c.getPool().getResource(), false);
    }

    public static JedisKv remote(String host, int port) {
        return remote(host, port, null, null);
    }

    /** A Redis Cluster, found from any of {@code nodes}. */
    public static JedisKv cluster(Set<HostAndPort> nodes, String user, String password) {
        JedisCluster c = JedisCluster.builder().nodes(nodes).clientConfig(config(user, password))
                .poolConfig(pool()).build();
        return new JedisKv(c, k -> c.getConnectionFromSlot(JedisClusterCRC16.getSlot(k)), true);
    }

    private static KvException failed(String what, JedisException e) {
        return new KvException(what + ": " + e.getMessage(), e);
    }

    @Override
    public String get(String key) {
        try {
            return client.get(key);
        } catch (JedisException e) {
            throw failed("GET", e);
        }
    }

    private static SetParams params(SetOptions o) {
        SetParams p = new SetParams();
        if (o.condition() == SetOptions.Condition.NX) {
            p.nx();
        } else if (o.condition() == SetOptions.Condition.XX) {
            p.xx();
        }
        if (o.pxMillis() > 0) {
            p.px(o.pxMillis());
        }
        return p;
    }

    @Override
    public SetReply set(String key, String value, SetOptions o) {
        try {
            if (!o.get()) {
                return client.set(key, value, params(o)) != null ? SetReply.APPLIED : SetReply.NOT_APPLIED;
            }
            String old = client.setGet(key, value, params(o));
            boolean applied = switch (o.condition()) {
                case ALWAYS -> true;
                case NX -> old == null;
                case XX -> old != null;
            };
            return new SetReply(applied, old);
        } catch (JedisException e) {
            throw failed("SET", e);
        }
    }

    private static boolean notInteger(JedisDataException e) {
        String m = e.getMessage();
        return m != null && m.startsWith("ERR value is not an integer");
    }

    @Override
    public Long incr(String key) {
        return incrBy(key, 1);
    }

    private Long incrBy(String key, long by) {
        try {
            return by == 1 ? client.incr(key) : client.incrBy(key, by);
        } catch (JedisDataException e) {
            if (notInteger(e)) {
                return null;
            }
            throw failed("INCR", e);
        } catch (JedisException e) {
            throw failed("INCR", e);
        }
    }

    @Override
    public boolean pexpire(String key, long millis) {
        try {
            return client.pexpire(key, millis) == 1;
        } catch (JedisException e) {
            throw failed("PEXPIRE", e);
        }
    }

    @Override
    public boolean del(String key) {
        try {
            return client.del(key) == 1;
        } catch (JedisException e) {
            throw failed("DEL", e);
        }
    }

    private void sameSlot(String first, List<String> keys) {
        if (!cluster) {
            return;
        }
        int slot = JedisClusterCRC16.getSlot(first);
        for (String k : keys) {
            if (JedisClusterCRC16.getSlot(k) != slot) {
                throw new KvException("CROSSSLOT: " + k + " and " + first
                        + " are in different slots; give a transaction's keys one hash tag");
            }
        }
    }

    @Override
    public List<Object> pipeline(List<Op> ops) {
        if (ops.isEmpty()) {
            return List.of();
        }
        if (cluster) { // keys in several slots: one command after the other, in order
            List<Object> out = new ArrayList<>(ops.size());
            for (Op op : ops) {
                out.add(single(op));
            }
            return out;
        }
        Connection c;
        try {
            c = txConnection.apply(ops.get(0).key());
        } catch (JedisException e) {
            throw failed("pipeline", e);
        }
        try (c) {
            for (Op op : ops) {
                send(c, op);
            }
            return results(ops, c.getMany(ops.size()));
        } catch (JedisException e) {
            throw failed("pipeline", e);
        }
    }

    /** One op through the unified client (which follows MOVED and ASK in a cluster). */
    private Object single(Op op) {
        if (op instanceof Op.Set s) {
            return set(s.key(), s.value(), SetOptions.px(s.pxMillis())).applied();
        } else if (op instanceof Op.SetNx s) {
            return set(s.key(), s.value(), SetOptions.nx(s.pxMillis())).applied();
        } else if (op instanceof Op.Incr i) {
            return incrBy(i.key(), i.by());
        } else if (op instanceof Op.PExpire p) {
            return pexpire(p.key(), p.millis());
        }
        return del(op.key());
    }

    private static void send(Connection c, Op op) {
        if (op instanceof Op.Set s) {
            if (s.pxMillis() > 0) {
                c.sendCommand(Protocol.Command.SET, s.key(), s.value(), "PX", Long.toString(s.pxMillis()));
            } else {
                c.sendCommand(Protocol.Command.SET, s.key(), s.value());
            }
        } else if (op instanceof Op.SetNx s) {
            if (s.pxMillis() > 0) {
                c.sendCommand(Protocol.Command.SET, s.key(), s.value(), "NX", "PX", Long.toString(s.pxMillis()));
            } else {
                c.sendCommand(Protocol.Command.SET, s.key(), s.value(), "NX");
            }
        } else if (op instanceof Op.Incr i) {
            if (i.by() == 1) {
                c.sendCommand(Protocol.Command.INCR, i.key());
            } else {
                c.sendCommand(Protocol.Command.INCRBY, i.key(), Long.toString(i.by()));
            }
        } else if (op instanceof Op.PExpire p) {
            c.sendCommand(Protocol.Command.PEXPIRE, p.key(), Long.toString(p.millis()));
        } else {
            c.sendCommand(Protocol.Command.DEL, op.key());
        }
    }

    /** Raw replies (status and bulk as bytes, integers as Long, errors in place) as the ops' results. */
    private static List<Object> results(List<Op> ops, List<Object> raw) {
        List<Object> out = new ArrayList<>(ops.size());
        for (int i = 0; i < ops.size(); i++) {
            Object r = raw.get(i);
            out.add(result(ops.get(i), r instanceof byte[] b ? SafeEncoder.encode(b) : r));
        }
        return out;
    }

    @Override
    public Tx watch(List<String> keys) {
        return watch(keys, List.of());
    }

    @Override
    public Tx watch(List<String> keys, List<Op> before) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("WATCH needs a key");
        }
        sameSlot(keys.get(0), keys);
        List<Op> ahead = before;
        List<Object> beforeResults = List.of();
        if (cluster && !before.isEmpty() && !inSlot(keys.get(0), before)) {
            beforeResults = pipeline(before); // other nodes: first, on their own
            ahead = List.of();
        }
        Connection c;
        try {
            c = txConnection.apply(keys.get(0));
        } catch (JedisException e) {
            throw failed("WATCH", e);
        }
        Jedis j = new Jedis(c);
        java.util.Map<String, String> read = new java.util.HashMap<>();
        try {
            // the ops ahead, WATCH and a GET of every watched key, pipelined: one round trip
            for (Op op : ahead) {
                send(c, op);
            }
            c.sendCommand(Protocol.Command.WATCH, keys.toArray(new String[0]));
            for (String k : keys) {
                c.sendCommand(Protocol.Command.GET, k);
            }
            List<Object> raw = c.getMany(ahead.size() + 1 + keys.size());
            if (!ahead.isEmpty()) {
                beforeResults = results(ahead, raw.subList(0, ahead.size()));
            }
            if (raw.get(ahead.size()) instanceof JedisDataException e) {
                throw e;
            }
            for (int i = 0; i < keys.size(); i++) {
                Object v = raw.get(ahead.size() + 1 + i);
                if (v instanceof JedisDataException e) {
                    throw e;
                }
                read.put(keys.get(i), v == null ? null : SafeEncoder.encode((byte[]) v));
            }
        } catch (JedisException | KvException e) {
            c.setBroken(); // a WATCH may be left on it: never hand it to the next caller
            c.close();
            throw e instanceof JedisException je ? failed("WATCH", je) : (KvException) e;
        }
        return new JedisTx(keys.get(0), c, j, read, beforeResults);
    }

    /** An op's result from its reply (a status as a String, an integer as a Long, or the error). */
    private static Object result(Op op, Object r) {
        if (r instanceof JedisDataException e) {
            if (op instanceof Op.Incr && notInteger(e)) {
                return null;
            }
            throw failed(op.toString(), e);
        }
        if (op instanceof Op.Set || op instanceof Op.SetNx) {
            return "OK".equals(r);
        }
        if (op instanceof Op.Incr) {
            return (Long) r;
        }
        return ((Long) r) == 1L;
    }

    private boolean inSlot(String first, List<Op> ops) {
        int slot = JedisClusterCRC16.getSlot(first);
        for (Op op : ops) {
            if (JedisClusterCRC16.getSlot(op.key()) != slot) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        client.close();
    }

    private final class JedisTx implements Tx {
        private final String first;
        private final Connection connection;
        private final Jedis jedis;
        private final java.util.Map<String, String> read;
        private final List<Object> before;
        private boolean done;
        private boolean broken;
        /** The connection went on to the transaction {@link #execThenWatch} made. */
        private boolean handedOver;
        private boolean closed;
        /** Whether this transaction holds one of {@link #holds}' permits. */
        boolean permit;

        JedisTx(String first, Connection connection, Jedis jedis, java.util.Map<String, String> read,
                List<Object> before) {
            this.first = first;
            this.connection = connection;
            this.jedis = jedis;
            this.read = read;
            this.before = before;
        }

        @Override
        public List<Object> before() {
            return before;
        }

        @Override
        public String get(String key) {
            if (read.containsKey(key)) {
                return read.get(key); // read right after the WATCH, in its round trip
            }
            sameSlot(first, List.of(key));
            try {
                return jedis.get(key);
            } catch (JedisException e) {
                broken = true;
                throw failed("GET", e);
            }
        }

        @Override
        public List<Object> exec(List<Op> ops) {
            if (done) {
                throw new IllegalStateException("EXEC twice on one WATCH");
            }
            done = true;
            List<String> keys = new ArrayList<>(ops.size());
            for (Op op : ops) {
                keys.add(op.key());
            }
            sameSlot(first, keys);
            // MULTI, the writes and EXEC written together and their replies read after: one round
            // trip. (Jedis's own Transaction reads the QUEUED replies before it sends EXEC: two.)
            Object reply;
            try {
                connection.sendCommand(Protocol.Command.MULTI);
                for (Op op : ops) {
                    send(connection, op);
                }
                connection.sendCommand(Protocol.Command.EXEC);
                List<Object> raw = connection.getMany(ops.size() + 2);
                for (int i = 0; i <= ops.size(); i++) {
                    if (raw.get(i) instanceof JedisDataException e) {
                        throw e; // refused before EXEC: EXEC answers EXECABORT, nothing was written
                    }
                }
                reply = raw.get(ops.size() + 1);
                if (reply instanceof JedisDataException e) {
                    throw e;
                }
            } catch (JedisException e) {
                broken = true;
                throw failed("EXEC", e);
            }
            if (reply == null) {
                return null; // a watched key changed
            }
            @SuppressWarnings("unchecked")
            List<Object> raw = (List<Object>) reply;
            return results(ops, raw);
        }

        @Override
        public Chained execThenWatch(List<Op> ops, List<String> keys) {
            if (!holds.tryAcquire()) {
                return new Chained(exec(ops), null); // the pool's other half: plain EXEC
            }
            boolean kept = false;
            try {
                if (done) {
                    throw new IllegalStateException("EXEC twice on one WATCH");
                }
                done = true;
                List<String> all = new ArrayList<>(ops.size() + keys.size());
                for (Op op : ops) {
                    all.add(op.key());
                }
                all.addAll(keys);
                sameSlot(first, all);
                // MULTI, the writes, EXEC, WATCH and the GETs: one round trip. The WATCH runs
                // after the EXEC on this connection, so the GETs see what the EXEC wrote.
                List<Object> raw;
                try {
                    connection.sendCommand(Protocol.Command.MULTI);
                    for (Op op : ops) {
                        send(connection, op);
                    }
                    connection.sendCommand(Protocol.Command.EXEC);
                    connection.sendCommand(Protocol.Command.WATCH, keys.toArray(new String[0]));
                    for (String k : keys) {
                        connection.sendCommand(Protocol.Command.GET, k);
                    }
                    raw = connection.getMany(ops.size() + 3 + keys.size());
                    for (Object r : raw.subList(0, ops.size() + 1)) {
                        if (r instanceof JedisDataException e) {
                            throw e;
                        }
                    }
                    for (Object r : raw.subList(ops.size() + 1, raw.size())) {
                        if (r instanceof JedisDataException e) {
                            throw e;
                        }
                    }
                } catch (JedisException e) {
                    broken = true;
                    throw failed("EXEC", e);
                }
                Object reply = raw.get(ops.size() + 1);
                if (reply == null) {
                    return new Chained(null, null); // aborted; close() gives the new WATCH back
                }
                @SuppressWarnings("unchecked")
                List<Object> results = results(ops, (List<Object>) reply);
                java.util.Map<String, String> read = new java.util.HashMap<>();
                for (int i = 0; i < keys.size(); i++) {
                    Object v = raw.get(ops.size() + 3 + i);
                    read.put(keys.get(i), v == null ? null : SafeEncoder.encode((byte[]) v));
                }
                JedisTx next = new JedisTx(keys.get(0), connection, jedis, read, results);
                next.permit = true;
                handedOver = true;
                kept = true;
                return new Chained(results, next);
            } finally {
                if (!kept) {
                    holds.release();
                    if (done && !broken) {
                        done = false; // a WATCH may be on the connection (aborted EXEC): UNWATCH it
                    }
                }
            }
        }

        @Override
        public void close() {
            if (closed || handedOver) {
                return;
            }
            closed = true;
            try {
                if (!done && !broken) {
                    jedis.unwatch();
                }
            } catch (JedisException e) {
                broken = true;
            } finally {
                if (broken) {
                    connection.setBroken();
                }
                connection.close();
                if (permit) {
                    holds.release();
                }
            }
        }
    }
}
