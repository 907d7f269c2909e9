package dev.cajon.storage;

import dev.cajon.storage.chronicle.MapFile;
import dev.cajon.storage.chronicle.ValueHeader;
import java.util.ArrayList;
import java.util.List;

/**
 * Growth of a keyspace's map. Chronicle's capacity is fixed per file: when the live key count
 * passes the generation's capacity, or a put fails for want of a segment tier, the keyspace grows
 * into a new generation (see {@link MapFile}); callers never see Chronicle's capacity errors.
 */
final class Growth {
    private Growth() {
    }

    /**
     * An operation that ran out of room is retried after growth this many times: each growth at
     * least quadruples a small map, and also makes room for every key the operation names, so
     * only values far larger than the average so far need more than one.
     */
    static final int MAX_GROW_RETRIES = 5;

    private static final long TIER_GROWTH_MAX = 1L << 20;

    /**
     * After a write: grows when the keys outnumber the capacity, or when Chronicle chained an
     * extra tier to a map of under a million entries (see {@link MapFile#tierAdded}; a bigger
     * map's tiers come from uneven segments, and copying millions of keys for one is worse).
     */
    static void ifNeeded(KeyspaceEngine e, boolean needed) {
        if (needed) {
            grow(e, false, 0);
        }
    }

    /**
     * Whether {@link #ifNeeded} will grow. Asked while the caller still holds a stripe (or the
     * whole keyspace): the tier check reads the map's own memory, and a release, which needs
     * every stripe, could otherwise unmap it in between (a JVM crash, SIGSEGV in Chronicle's
     * {@code getExtraTiersInUse}, seen in {@code IdleKeyspaceTest}).
     */
    static boolean needed(KeyspaceEngine e) {
        return e.counts.entries() > e.file.capacity() || tierGrowth(e);
    }

    private static boolean tierGrowth(KeyspaceEngine e) {
        return e.file.capacity() < TIER_GROWTH_MAX && e.file.tierAdded();
    }

    /**
     * Moves every live key into a new generation four times the old capacity while that is
     * under 4M entries, then twice (and at least twice the live count plus {@code incoming}, a
     * multi-key command's keys). Holds every stripe, so all commands on this keyspace wait for it
     * (a few hundred ms per million keys). Not {@code forced}: only if still needed once every
     * stripe is held (someone else may have grown it).
     */
    static void grow(KeyspaceEngine e, boolean forced, long incoming) {
        MapFile file = e.file;
        KeyCounts c = e.counts;
        e.lockAll();
        try {
            e.map(); // a released map is mapped (and its clean state dropped) before it changes
            long live = c.entries(); // keys and collections' pages: both are map entries
            if (!forced && live <= file.capacity() && !tierGrowth(e)) {
                return; // someone else grew it
            }
            // quadruple while small (fewer stop-the-world copies on the way up), then double
            long factor = file.capacity() < (1 << 22) ? 4 : 2;
            long target = Math.max(file.capacity() * factor, (live + incoming) * 2);
            long n = Math.max(1, c.puts.sum());
            int avgKey = (int) Math.max(8, Math.min(4096, c.keyBytes.sum() / n + 1));
            int avgValue = (int) Math.max(8, Math.min(ValueHeader.headerLength(0) + Keyspace.BLOB_THRESHOLD,
                    c.valueBytes.sum() / n + 1));
            long now = e.clock.nowMillis();
            long[] kept = new long[5];
            List<Long> deadBlobs = new ArrayList<>();
            file.grow(target, avgKey, avgValue, (k, v) -> {
                if (KeyCodec.isPage(k)) {
                    kept[4]++; // a page never expires: its collection's key entry does
                    kept[3] += KeyCounts.footprint(k, v);
                    return true;
                }
                // an expired collection is kept as it is: dropping its key entry here would orphan
                // its pages; the wheel's record (or the next read) removes it with them
                if (ValueHeader.isExpired(v, now) && !ValueHeader.isCollection(v)) {
                    e.touched(k);
                    if (ValueHeader.isBlob(v)) {
                        deadBlobs.add(ValueHeader.blobId(v));
                    }
                    c.expired.increment();
                    return false;
                }
                kept[0]++;
                kept[3] += KeyCounts.footprint(k, v);
                long at = ValueHeader.expireAt(v);
                if (at != ValueHeader.NO_EXPIRY) {
                    kept[1]++;
                    kept[2] += at - KeyCounts.DEADLINE_BASE;
                }
                return true;
            });
            c.set(kept[0], kept[1], kept[2], kept[3]);
            c.setPages(kept[4]);
            e.epoch++;
            deadBlobs.forEach(e.blobs::delete);
        } finally {
            e.unlockAll();
        }
    }
}
