package dev.cajon.storage;

import dev.cajon.storage.chronicle.CleanState;
import dev.cajon.storage.chronicle.ValueHeader;
import java.util.concurrent.atomic.LongAdder;

/**
 * A keyspace's counts: live keys, keys with a deadline, expired keys, live bytes (the apps' byte
 * quota) and the averages growth sizes a new generation by. Kept by every write and removal
 * (under the key's stripe lock, in {@link KeyspaceEngine#accountWrite} and
 * {@link KeyspaceEngine#accountRemoval}), recounted by growth and the crash scan, saved in the
 * clean state.
 */
final class KeyCounts {
    /** Deadlines are summed relative to this, for INFO's avg_ttl. */
    static final long DEADLINE_BASE = 1_700_000_000_000L;

    final LongAdder keys = new LongAdder();
    /**
     * Collections' page entries: map entries that are not keys (DBSIZE, INFO keyspace and the key
     * quota count {@link #keys}; growth counts both, the byte quota counts the pages' bytes).
     */
    final LongAdder pages = new LongAdder();
    /** Live keys that carry a deadline (INFO keyspace "expires"). */
    final LongAdder volatileKeys = new LongAdder();
    final LongAdder expired = new LongAdder();
    final LongAdder keyBytes = new LongAdder();
    final LongAdder valueBytes = new LongAdder();
    /** What the live keys take: key, stored value and blob bytes ({@link #footprint}); the apps' byte quota. */
    final LongAdder liveBytes = new LongAdder();
    final LongAdder puts = new LongAdder();
    /** Sum of (deadline - DEADLINE_BASE) over volatile keys, for INFO's avg_ttl. */
    final LongAdder deadlineSum = new LongAdder();

    /** What a key takes for the byte quota: its stored key, its map value, and its blob if any. */
    static long footprint(byte[] key, byte[] stored) {
        return key.length + stored.length + (ValueHeader.isBlob(stored) ? ValueHeader.blobLength(stored) : 0);
    }

    /** {@link #footprint(byte[], byte[])} of an entry read in place. */
    static long footprint(int keyLength, net.openhft.chronicle.hash.Data<byte[]> value) {
        return keyLength + value.size() + ValueHeader.blobLengthOrZero(value.bytes(), value.offset());
    }

    /** Sets the counts a walk or a clean state found; only with every stripe held (or before sharing). */
    void set(long live, long withDeadline, long deadlines, long bytes) {
        reset(keys, live);
        reset(volatileKeys, withDeadline);
        reset(deadlineSum, deadlines);
        reset(liveBytes, bytes);
    }

    void set(CleanState clean) {
        set(clean.keys, clean.volatileKeys, clean.deadlineSum, clean.bytes);
    }

    /** Sets the page count (a walk's or the map's entries less its keys). */
    void setPages(long n) {
        reset(pages, n);
    }

    /** Every map entry: keys and pages (what growth sizes the map by). */
    long entries() {
        return keys.sum() + pages.sum();
    }

    private static void reset(LongAdder counter, long value) {
        counter.reset();
        counter.add(value);
    }

    /** Mean time to live of the volatile keys in ms (INFO avg_ttl), 0 when there are none. */
    long averageTtl(long now) {
        long n = volatileKeys.sum();
        if (n <= 0) {
            return 0;
        }
        long mean = deadlineSum.sum() / n + DEADLINE_BASE - now;
        return Math.max(0, mean);
    }
}
