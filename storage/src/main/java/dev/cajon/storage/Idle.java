package dev.cajon.storage;

import dev.cajon.storage.chronicle.CleanState;
import java.io.IOException;
import java.util.List;
import net.openhft.chronicle.map.ChronicleMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An idle keyspace gives back what it costs: {@link #release} closes its map (its memory and its
 * file descriptor) and deletes its journals, and keeps everything else: its counts, its watches,
 * its place in the expiry wheel, and the {@link Keyspace} object, which every caller keeps
 * using. The first operation that needs the map maps it again ({@link #wake}; a few ms from a
 * cold page cache). {@code release} holds every stripe and the map lock, so no operation is inside
 * the map meanwhile; every path to the map goes through {@link KeyspaceEngine#map}, with a stripe
 * or the map lock held, and {@code wake} is serialised.
 */
final class Idle {
    private static final Logger log = LoggerFactory.getLogger(Keyspace.class);

    private Idle() {
    }

    /**
     * Maps the released map again. The clean state goes first: from now on the map may change, and
     * a crash must lead to a scan.
     */
    static ChronicleMap<byte[], byte[]> wake(KeyspaceEngine e) {
        synchronized (e) {
            ChronicleMap<byte[], byte[]> m = e.file.map();
            if (m != null) {
                return m;
            }
            if (e.closed) {
                throw new IllegalStateException("keyspace " + e.name + " is closed");
            }
            try {
                CleanState.discard(e.dir);
            } catch (IOException ex) {
                throw new java.io.UncheckedIOException(ex);
            }
            m = e.file.reopen();
            // a keyspace opened released knows its keys, not its collections' pages: the rest
            e.counts.setPages(Math.max(0, m.longSize() - e.counts.keys.sum()));
            Runnable r = e.onWake;
            if (r != null) {
                r.run();
            }
            return m;
        }
    }

    /**
     * The idle sweep's look at this keyspace: notes a use since the last look at {@code now}, and
     * returns when it was last seen used.
     */
    static long sweepLastUsed(KeyspaceEngine e, long now) {
        if (e.used) {
            e.used = false;
            e.lastUsed = now;
        }
        return e.lastUsed;
    }

    /**
     * Closes the map and deletes the journals of a keyspace nobody is using (see the prose
     * above); returns whether it did. With no key that has a deadline it also writes a clean
     * state, so a restart, even after a crash, opens it released without a scan. (With such keys
     * the clean state needs their expiry records, which only a walk of the whole wheel lists: a
     * crash restart scans such a keyspace, a clean shutdown writes its state as before.)
     */
    static boolean release(KeyspaceEngine e) {
        e.lockAll();
        try {
            if (e.closed || !e.file.isOpen() || e.lazyFrees.get() > 0 || e.lazyOrphans) {
                return false; // with unlinked pages still to free, its clean state would name orphans
            }
            e.journals.drop();
            e.file.release();
            if (e.counts.volatileKeys.sum() == 0) {
                writeCleanState(e, List.of());
            }
            return true;
        } finally {
            e.unlockAll();
        }
    }

    /** Closes the keyspace for good, saving its clean state when the wheel can list its records. */
    static void close(KeyspaceEngine e) {
        e.lockAll();
        try {
            if (e.closed) {
                return;
            }
            e.closed = true;
            List<CleanState.Entry> records = new java.util.ArrayList<>();
            long vol = e.counts.volatileKeys.sum();
            // with keys that have a deadline, their records must all be listed, or the next open scans
            boolean listed = vol == 0
                    || e.expiryListener.records(e.owner, (k, at) -> records.add(new CleanState.Entry(k, at)));
            try {
                e.file.close();
            } finally {
                e.journals.drop();
            }
            // unlinked pages still to free, or left by a failed free: the next open must sweep
            if (listed && e.lazyFrees.get() == 0 && !e.lazyOrphans) {
                writeCleanState(e, records);
            }
        } finally {
            e.unlockAll();
        }
    }

    private static void writeCleanState(KeyspaceEngine e, List<CleanState.Entry> records) {
        KeyCounts c = e.counts;
        try {
            CleanState.write(e.dir, e.file.file(), c.keys.sum(), c.volatileKeys.sum(), c.deadlineSum.sum(),
                    c.liveBytes.sum(), records);
        } catch (IOException | RuntimeException ex) {
            log.warn("{}: could not save its clean-shutdown state ({}); the next open scans the map", e.name,
                    ex.toString());
        }
    }
}
