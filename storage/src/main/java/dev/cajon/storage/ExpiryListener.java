package dev.cajon.storage;

/**
 * Receives the expiry records a keyspace files: "look at this key at time {@code at}". Called
 * while the key's stripe lock is held: implementations must be quick and must not call back into
 * the keyspace. The keyspace decides when a record is needed (see {@code KeyspaceEngine.put}); the
 * listener (the expiry wheel) only files it.
 */
public interface ExpiryListener {
    ExpiryListener NONE = (keyspace, key, at) -> { };

    void file(Keyspace keyspace, byte[] key, long at);

    /**
     * Hands every record filed for {@code keyspace} to {@code sink} (a clean close saves them, see
     * {@code CleanState}), or returns false when it cannot list them all, e.g. while some are being
     * reclaimed; the next open then scans the map instead.
     */
    default boolean records(Keyspace keyspace, RecordSink sink) {
        return false;
    }

    /** Receives one record: a stored key (a copy the sink may keep) and the time it was filed at. */
    @FunctionalInterface
    interface RecordSink {
        void record(byte[] key, long at);
    }
}
