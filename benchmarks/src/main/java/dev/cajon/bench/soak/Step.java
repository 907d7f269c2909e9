package dev.cajon.bench.soak;

import dev.cajon.bench.storm.RespConn;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One command of the load: how it is written, the reply it must get, and the state it leaves.
 *
 * <p>{@link #apply} is the model of the command: given the keys' states before it (an
 * {@link Overlay} over what was acknowledged) it records their states after it and returns the
 * reply Cajon must give. It is run once when the command is planned (for the reply) and again when
 * the reply arrives ({@code t1} = that moment) or when the server is killed with the command in
 * flight ({@code t1} = the kill), which bounds the deadlines it sets. Nothing in it is random.
 *
 * <p>Replies: {@code "OK"}, a {@link Long}, a {@link Value} (GET of a present key) or null.
 */
sealed interface Step {

    void write(RespConn c);

    Object apply(Overlay o, long t0, long t1, String origin);

    /** The keys it touches. */
    List<String> keys();

    /** The states of keys before a command, read through to what was acknowledged. */
    final class Overlay {
        private final Map<String, KeyState> base;
        final Map<String, KeyState> changes = new LinkedHashMap<>();

        Overlay(Map<String, KeyState> base) {
            this.base = base;
        }

        KeyState get(String key) {
            KeyState s = changes.get(key);
            if (s == null) {
                s = base.get(key);
            }
            return s != null ? s : KeyState.absent("never written");
        }

        void put(String key, KeyState s) {
            changes.put(key, s);
        }
    }

    /** A step on one key. */
    sealed interface OnOneKey extends Step permits Set, IncrBy, Append, Expire, Get {
        String key();

        @Override
        default List<String> keys() {
            return List.of(key());
        }
    }

    /** Starts a command of {@code n} arguments with its name and one key. */
    private static RespConn head(RespConn c, int n, String command, String key) {
        return c.array(n).bulk(b(command)).bulk(b(key));
    }

    /** A new value that keeps the key's TTL, as INCRBY and APPEND do (none if the key was absent). */
    private static KeyState keepTtl(KeyState before, Value v, String origin) {
        return before.present() ? before.withValue(v, origin) : KeyState.of(v, origin);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** SET key value [PX ttl], or with {@code ttlMillis % 1000 == 0} EX; 0 is no TTL. */
    record Set(String key, Value value, long ttlMillis) implements OnOneKey {
        @Override
        public void write(RespConn c) {
            boolean ex = ttlMillis > 0 && ttlMillis % 1000 == 0;
            head(c, ttlMillis > 0 ? 5 : 3, "SET", key).bulk(value.bytes());
            if (ttlMillis > 0) {
                c.bulk(b(ex ? "EX" : "PX")).bulk(ex ? ttlMillis / 1000 : ttlMillis);
            }
        }

        @Override
        public Object apply(Overlay o, long t0, long t1, String origin) {
            KeyState s = KeyState.of(value, origin);
            if (ttlMillis > 0) {
                s = s.withDeadline(t0 + ttlMillis, t1 + ttlMillis, origin);
            }
            o.put(key, s);
            return "OK";
        }
    }

    /** INCRBY key delta. Only ever planned on a key holding an integer (or absent). */
    record IncrBy(String key, long delta) implements OnOneKey {
        @Override
        public void write(RespConn c) {
            head(c, 3, "INCRBY", key).bulk(b(Long.toString(delta)));
        }

        @Override
        public Object apply(Overlay o, long t0, long t1, String origin) {
            KeyState before = o.get(key);
            long v = before.present() ? Long.parseLong(((Value.Text) before.value()).text()) + delta : delta;
            Value nv = new Value.Text(Long.toString(v));
            o.put(key, keepTtl(before, nv, origin));
            return v;
        }
    }

    /** APPEND key text; keeps the TTL. Only planned on text values. */
    record Append(String key, String text) implements OnOneKey {
        @Override
        public void write(RespConn c) {
            head(c, 3, "APPEND", key).bulk(b(text));
        }

        @Override
        public Object apply(Overlay o, long t0, long t1, String origin) {
            KeyState before = o.get(key);
            String old = before.present() ? ((Value.Text) before.value()).text() : "";
            Value nv = new Value.Text(old + text);
            o.put(key, keepTtl(before, nv, origin));
            return (long) nv.length();
        }
    }

    /** DEL key...; the reply counts the keys that existed. */
    record Del(List<String> keys) implements Step {
        @Override
        public void write(RespConn c) {
            c.array(1 + keys.size()).bulk(b("DEL"));
            keys.forEach(k -> c.bulk(b(k)));
        }

        @Override
        public Object apply(Overlay o, long t0, long t1, String origin) {
            long n = 0;
            for (String k : keys) {
                if (o.get(k).present()) {
                    n++;
                }
                o.put(k, KeyState.absent(origin));
            }
            return n;
        }
    }

    /** PEXPIRE key ms, or EXPIRE key s when whole seconds. Reply 1 if the key exists, else 0. */
    record Expire(String key, long ttlMillis) implements OnOneKey {
        @Override
        public void write(RespConn c) {
            boolean s = ttlMillis % 1000 == 0;
            head(c, 3, s ? "EXPIRE" : "PEXPIRE", key).bulk(s ? ttlMillis / 1000 : ttlMillis);
        }

        @Override
        public Object apply(Overlay o, long t0, long t1, String origin) {
            KeyState before = o.get(key);
            if (!before.present()) {
                return 0L;
            }
            o.put(key, before.withDeadline(t0 + ttlMillis, t1 + ttlMillis, origin));
            return 1L;
        }
    }

    /** RENAME src dst: only planned when src exists. The value and its TTL move to dst. */
    record Rename(String src, String dst) implements Step {
        @Override
        public void write(RespConn c) {
            c.array(3).bulk(b("RENAME")).bulk(b(src)).bulk(b(dst));
        }

        @Override
        public Object apply(Overlay o, long t0, long t1, String origin) {
            KeyState s = o.get(src);
            o.put(src, KeyState.absent(origin));
            o.put(dst, new KeyState(s.value(), s.lo(), s.hi(), origin, false));
            return "OK";
        }

        @Override
        public List<String> keys() {
            return List.of(src, dst);
        }
    }

    /** MSET k1 v1 k2 v2 ...: all or nothing, no TTL on any. */
    record Mset(List<String> keys, List<Value> values) implements Step {
        @Override
        public void write(RespConn c) {
            c.array(1 + 2 * keys.size()).bulk(b("MSET"));
            for (int i = 0; i < keys.size(); i++) {
                c.bulk(b(keys.get(i))).bulk(values.get(i).bytes());
            }
        }

        @Override
        public Object apply(Overlay o, long t0, long t1, String origin) {
            for (int i = 0; i < keys.size(); i++) {
                o.put(keys.get(i), KeyState.of(values.get(i), origin));
            }
            return "OK";
        }
    }

    /** GET key: a read, checked against the model during the load. */
    record Get(String key) implements OnOneKey {
        @Override
        public void write(RespConn c) {
            head(c, 2, "GET", key);
        }

        @Override
        public Object apply(Overlay o, long t0, long t1, String origin) {
            return o.get(key).value();
        }
    }
}
