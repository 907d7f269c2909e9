package dev.cajon.storage.expiry;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the {@link ExpiryWheel} has reclaimed, for INFO: the count, the event loops' share of it,
 * and the lag of each key (milliseconds after its deadline) in a histogram of whole milliseconds.
 * A reclaiming thread counts one chunk's lags in a per-thread array and publishes them once per
 * chunk ({@link #publish}): several reapers would otherwise contend on these counters per key.
 */
final class ReclaimStats {
    /** Reclaimed keys by lag in whole milliseconds; the last bucket holds every lag beyond it. */
    static final int LAG_BUCKETS = 1024;

    private final AtomicLong reclaimed = new AtomicLong();
    private final LongAdder assisted = new LongAdder();
    private final AtomicLong lagMax = new AtomicLong();
    private final AtomicLongArray lagCounts = new AtomicLongArray(LAG_BUCKETS);
    /** Per reclaiming thread: the lags of one chunk, added to {@link #lagCounts} by {@link #publish}. */
    private static final ThreadLocal<int[]> CHUNK_LAGS = ThreadLocal.withInitial(() -> new int[LAG_BUCKETS]);

    /** This thread's array of one chunk's lags, by bucket; {@link #publish} empties it. */
    static int[] chunkLags() {
        return CHUNK_LAGS.get();
    }

    static int bucket(long lag) {
        return (int) Math.min(LAG_BUCKETS - 1, lag);
    }

    /** A chunk's {@code n} reclaimed keys, the worst lag among them, and their lags by bucket. */
    void publish(int n, long worstLag, int[] lags) {
        reclaimed.addAndGet(n);
        lagMax.accumulateAndGet(worstLag, Math::max);
        for (int i = 0, top = bucket(worstLag); n > 0 && i <= top; i++) {
            if (lags[i] != 0) {
                lagCounts.addAndGet(i, lags[i]);
                lags[i] = 0;
            }
        }
    }

    void assisted(int n) {
        assisted.add(n);
    }

    long reclaimed() {
        return reclaimed.get();
    }

    long assisted() {
        return assisted.sum();
    }

    long maxLag() {
        return lagMax.get();
    }

    /** See {@link ExpiryWheel#lagPercentileMillis}. */
    long lagPercentile(double q) {
        long total = 0;
        long[] c = new long[LAG_BUCKETS];
        for (int i = 0; i < LAG_BUCKETS; i++) {
            c[i] = lagCounts.get(i);
            total += c[i];
        }
        if (total == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(q * total);
        long seen = 0;
        for (int i = 0; i < LAG_BUCKETS; i++) {
            seen += c[i];
            if (seen >= rank) {
                return i;
            }
        }
        return LAG_BUCKETS - 1;
    }

    /** CONFIG RESETSTAT; a reclaim running concurrently may land on either side of it. */
    void reset() {
        reclaimed.set(0);
        assisted.reset();
        lagMax.set(0);
        for (int i = 0; i < LAG_BUCKETS; i++) {
            lagCounts.set(i, 0);
        }
    }
}
