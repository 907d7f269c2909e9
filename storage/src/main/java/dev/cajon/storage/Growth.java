package dev.cajon.storage;

import dev.cajon.storage.chronicle.MapFile;
import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.durability.DiskFull;
import dev.cajon.storage.durability.Durability;
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
    /** Chronicle's bytes per entry beside its key and value (sizes, checksum, hash slot), about. */
    private static final int ENTRY_OVERHEAD = 24;
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Growth.class);

    /**
     * After a write: grows when the keys outnumber the capacity, or when Chronicle chained an
     * extra tier to a map of under a million entries (see {@link MapFile#tierAdded}; a bigger
     * map's tiers come from uneven segments, and copying millions of keys for one is worse).
     */
    static void ifNeeded(KeyspaceEngine e, boolean needed) {
        if (!needed) {
            return;
        }
        dev.cajon.storage.durability.DiskSpace disk = Durability.forFile(e.dir).disk();
        if (System.nanoTime() - e.growRefusedUntil < 0 && disk.usable() <= e.growRefusedFree) {
            return; // refused for want of disk within the last second, and no room came since
        }
        try {
            grow(e, false, 0);
        } catch (DiskFull full) {
            // the command that asked has finished, and its reply must not become an error: the
            // map still has Chronicle's spare room, and a write that runs out of it grows forced,
            // failing with -MISCONF while the disk stays full. Not asked again for a second unless
            // room comes: every write would otherwise pay a statvfs and a throw
            e.growRefusedUntil = System.nanoTime() + 1_000_000_000L;
            e.growRefusedFree = disk.usable();
            logDiskFull(e, full);
        }
    }

    /**
     * About what a new generation's copy writes: the live entries' bytes, with Chronicle's
     * per-entry overhead and a chunk's rounding each, and room for {@code incoming} more.
     */
    static long copyBytes(KeyspaceEngine e, long incoming) {
        long live = e.counts.entries();
        return (long) (e.counts.liveBytes.sum() * 1.1) + (live + incoming) * (ENTRY_OVERHEAD + 64) + incoming * 512;
    }

    private static final java.util.concurrent.atomic.AtomicLong lastDiskFullLog = new java.util.concurrent.atomic.AtomicLong();

    /** At most one line every 10 s: a full disk must not also fill with the log. */
    static void logDiskFull(KeyspaceEngine e, DiskFull full) {
        long now = System.nanoTime();
        long last = lastDiskFullLog.get();
        if ((last == 0 || now - last > 10_000_000_000L) && lastDiskFullLog.compareAndSet(last, now)) {
            log.warn("{} cannot grow: {}", e.name, full.getMessage());
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
        // the new generation is a sparse file: the disk is asked for blocks as the copy writes
        // them, so the room for the copy is checked first, before every stripe is taken, and a
        // full disk is -MISCONF here rather than a SIGBUS in the middle of the copy
        Durability.forFile(e.dir).disk().require(copyBytes(e, incoming), e.name + " growing");
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
