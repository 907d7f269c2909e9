package dev.cajon.storage.tx;

/**
 * One client's WATCH on one key of one keyspace. Writers mark it {@linkplain #dirty() dirty}
 * under the key's stripe lock whenever they change the key (a write, a delete, an expiry, a
 * FLUSHDB that finds it); EXEC reads the mark under the same lock, so a change on any event loop
 * is seen. The owner drops it with UNWATCH, EXEC, DISCARD or when the connection closes.
 */
public final class Watch {
    private final byte[] storedKey;
    private volatile boolean dirty;
    /**
     * The keyspace whose {@link Watches} holds this watch now: the one WATCH ran on, until a
     * SWAPDB moves a clean watch with its logical db (see {@link Watches#swap}).
     */
    private volatile Object home;

    Watch(byte[] storedKey) {
        this.storedKey = storedKey;
    }

    /** The key as the map stores it (see KeyCodec). */
    public byte[] storedKey() {
        return storedKey;
    }

    /** Whether the key was changed since the WATCH. */
    public boolean dirty() {
        return dirty;
    }

    void markDirty() {
        dirty = true;
    }

    /** The keyspace that holds this watch now. */
    public Object home() {
        return home;
    }

    void home(Object h) {
        home = h;
    }
}
