package dev.cajon.bot.kv;

/**
 * A write queued between MULTI and EXEC, or sent alone in a {@link Kv#pipeline}. The result of
 * each: {@link Set}, {@link SetNx}, {@link PExpire} and {@link Del} give a Boolean (whether it
 * wrote, or whether the key existed), {@link Incr} a Long (null when the value is not an
 * integer).
 */
public sealed interface Op {
    String key();

    /** The Java type of this op's result in {@link Kv.Tx#exec}'s list. */
    Class<?> resultType();

    /** SET key value [PX ms] (no condition: a watched transaction decides before MULTI). */
    record Set(String key, String value, long pxMillis) implements Op {
        public Class<?> resultType() {
            return Boolean.class;
        }
    }

    /** SET key value NX [PX ms]: true when it wrote (the key was absent). */
    record SetNx(String key, String value, long pxMillis) implements Op {
        public Class<?> resultType() {
            return Boolean.class;
        }
    }

    /** INCRBY key by (INCR when {@code by} is 1): the new value. */
    record Incr(String key, long by) implements Op {
        public Incr(String key) {
            this(key, 1);
        }

        public Class<?> resultType() {
            return Long.class;
        }
    }

    record PExpire(String key, long millis) implements Op {
        public Class<?> resultType() {
            return Boolean.class;
        }
    }

    record Del(String key) implements Op {
        public Class<?> resultType() {
            return Boolean.class;
        }
    }
}
