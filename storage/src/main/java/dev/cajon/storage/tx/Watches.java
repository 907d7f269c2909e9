package dev.cajon.storage.tx;

import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * The watched keys of one keyspace, and the signal every change of a key sends them (Redis's
 * {@code touchWatchedKey}).
 *
 * <p>What must stay true: {@link #touched} is called by every path that changes a key, with the
 * key's stripe lock held, and {@link #add} and {@link #remove} are called under the same lock, so
 * a WATCH and a concurrent write are ordered, the write is never missed, and one key's set of
 * watches is only ever changed by one thread at a time. When nobody watches anything in
 * the keyspace, a write pays one volatile read ({@link #active}).
 */
public final class Watches {
    private final ConcurrentHashMap<Key, Set<Watch>> byKey = new ConcurrentHashMap<>();
    private final AtomicInteger count = new AtomicInteger();

    /** Whether any key of this keyspace is watched; the writers' fast check. */
    public boolean active() {
        return count.get() != 0;
    }

    /** Registers a new watch on {@code storedKey}; the key's stripe lock is held. */
    public Watch add(byte[] storedKey) {
        Watch w = new Watch(storedKey);
        byKey.computeIfAbsent(new Key(storedKey), k -> ConcurrentHashMap.newKeySet()).add(w);
        count.incrementAndGet();
        return w;
    }

    /** Drops a watch (UNWATCH, EXEC, DISCARD, a closed connection); the key's stripe lock is held. */
    public void remove(Watch w) {
        Key k = new Key(w.storedKey());
        byKey.computeIfPresent(k, (key, set) -> {
            if (set.remove(w)) {
                count.decrementAndGet();
            }
            return set.isEmpty() ? null : set;
        });
    }

    /** The key was changed: every watch on it is dirty. Called with the key's stripe lock held. */
    public void touched(byte[] storedKey) {
        Set<Watch> set = byKey.get(new Key(storedKey));
        if (set != null) {
            set.forEach(Watch::markDirty);
        }
    }

    /**
     * FLUSHDB (every stripe held): the watches on keys that {@code existed} are dirty. As in
     * Redis, a watched key that did not exist is not changed by emptying the database.
     */
    public void touchedAll(Predicate<byte[]> existed) {
        byKey.forEach((k, set) -> {
            if (existed.test(k.bytes)) {
                set.forEach(Watch::markDirty);
            }
        });
    }

    /** A byte[] with value equality, for the map. */
    private static final class Key {
        final byte[] bytes;
        final int hash;

        Key(byte[] bytes) {
            this.bytes = bytes;
            this.hash = Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.hash == hash && Arrays.equals(k.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
