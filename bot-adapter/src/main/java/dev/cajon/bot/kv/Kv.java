package dev.cajon.bot.kv;

import java.util.List;

/**
 * The port: the only primitives the bot adapter uses, on strings, counters and TTLs. Each is a
 * Redis 7.0 command with Redis's meaning, so any Redis 7 (and a Redis Cluster) can stand behind
 * it, and so can Cajon's storage in the same JVM.
 *
 * <p>What must stay true for every implementation (the contract suite checks it):
 * <ul>
 *   <li>every single call is atomic and linearizable on its key;</li>
 *   <li>{@link #watch} followed by {@link Tx#exec} is Redis's WATCH/MULTI/EXEC: the writes are
 *       applied all together, or not at all when a watched key changed since the WATCH;</li>
 *   <li>the keys of one transaction share one hash tag ({@code {...}}): a cluster refuses
 *       anything else, and the other implementations must not be relied on to accept it.</li>
 * </ul>
 * Values are UTF-8 strings. TTLs are relative milliseconds, counted by the store's clock.
 */
public interface Kv extends AutoCloseable {

    /** GET: the value, or null when the key is absent. */
    String get(String key);

    /** SET with NX / XX / PX / GET. */
    SetReply set(String key, String value, SetOptions options);

    /** SET key value (no condition, no TTL, the old TTL is cleared). */
    default void set(String key, String value) {
        set(key, value, SetOptions.PLAIN);
    }

    /**
     * INCR: the new value, or null when the stored value is not an integer (Redis's "ERR value
     * is not an integer or out of range"), in which case nothing changed.
     */
    Long incr(String key);

    /** PEXPIRE: whether the key existed and got the TTL. */
    boolean pexpire(String key, long millis);

    /** DEL of one key: whether it existed. */
    boolean del(String key);

    /**
     * Single commands sent together: one round trip for a remote backend. They are applied one
     * after the other in this order, each atomic on its own and not together (a crash may
     * leave a prefix applied). Returns one result per op, as {@link Tx#exec} does.
     */
    List<Object> pipeline(List<Op> ops);

    /**
     * WATCH {@code keys}, and GET each of them right after the WATCH (a remote backend pipelines
     * the WATCH and the GETs: one round trip). Read them through {@link Tx#get}, then
     * {@link Tx#exec} the writes. The transaction must be closed (try-with-resources), executed
     * or not.
     */
    Tx watch(List<String> keys);

    /**
     * {@link #pipeline}({@code before}), then {@link #watch}({@code keys}): one round trip for a
     * remote backend when {@code before} stays in the slot of the watched keys (or off a
     * cluster). Their results are in {@link Tx#before}; {@link Tx#get} sees what they wrote.
     */
    Tx watch(List<String> keys, List<Op> before);

    /** Releases the connections (or nothing, for the embedded store that the caller owns). */
    @Override
    void close();

    /** WATCH ... MULTI ... EXEC on one connection (or one keyspace). */
    interface Tx extends AutoCloseable {
        /** The results of the ops sent ahead of the WATCH ({@link Kv#watch(List, List)}). */
        default List<Object> before() {
            return List.of();
        }

        /** GET between WATCH and MULTI; for a watched key, the value read with the WATCH. */
        String get(String key);

        /**
         * MULTI, the writes, EXEC. Returns one result per op ({@link Op#resultType()}), or null
         * when a watched key changed and nothing was written. At most one exec per watch.
         */
        List<Object> exec(List<Op> ops);

        /**
         * {@link #exec}({@code ops}), then WATCH {@code keys} and GET each of them right after the
         * EXEC, on the same connection: one round trip for a remote backend. Lets a caller keep
         * fencing what it just wrote without another round trip: when the values read after the
         * EXEC are what it wrote, the watch covers everything since (see docs/BOT-ADAPTER.md,
         * "the done commit"). This transaction is finished either way.
         *
         * @return the EXEC's results ({@link Chained#results} null: a watched key changed and
         *         nothing was written or watched), and the transaction holding the new WATCH, or
         *         null in {@link Chained#next} when the backend declined to hold one (a remote
         *         pool keeps most of its connections for the others); the caller closes it
         */
        Chained execThenWatch(List<Op> ops, List<String> keys);

        /** UNWATCH if nothing was executed; gives the connection back. Closing twice does nothing. */
        @Override
        void close();
    }

    /**
     * What {@link Tx#execThenWatch} did: the EXEC's results (null when it aborted) and the
     * transaction that holds the WATCH taken after it (null when none is held).
     */
    record Chained(List<Object> results, Tx next) {
    }
}
