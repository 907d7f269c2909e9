package dev.cajon.storage.tx;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
    /** The keyspace these watches belong to (each {@link Watch#home}). */
    private final Object home;

    public Watches(Object home) {
        this.home = home;
    }

    /** Whether any key of this keyspace is watched; the writers' fast check. */
    public boolean active() {
        return count.get() != 0;
    }

    /** Registers a new watch on {@code storedKey}; the key's stripe lock is held. */
    public Watch add(byte[] storedKey) {
        Watch w = new Watch(storedKey);
        attach(w);
        return w;
    }

    private void attach(Watch w) {
        w.home(home);
        byKey.computeIfAbsent(new Key(w.storedKey()), k -> ConcurrentHashMap.newKeySet()).add(w);
        count.incrementAndGet();
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

    /**
     * SWAPDB of the two keyspaces these belong to (every stripe of both held), as Redis's
     * touchAllWatchedKeysInDb both ways: a watch on a key that {@code existed} in either db is
     * dirty; any other watch stays clean and moves to the other keyspace, which now holds its
     * logical db, so a later change of its key there still makes it dirty, and a change in the
     * keyspace it left does not.
     */
    public static void swap(Watches a, Watches b, Predicate<byte[]> existed) {
        List<Watch> toB = a.detachClean(existed);
        List<Watch> toA = b.detachClean(existed);
        toB.forEach(b::attach);
        toA.forEach(a::attach);
    }

    private List<Watch> detachClean(Predicate<byte[]> existed) {
        List<Watch> clean = new ArrayList<>();
        byKey.forEach((k, set) -> {
            if (existed.test(k.bytes)) {
                set.forEach(Watch::markDirty);
            } else {
                clean.addAll(set);
            }
        });
        for (Watch w : clean) {
            remove(w);
        }
        return clean;
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
