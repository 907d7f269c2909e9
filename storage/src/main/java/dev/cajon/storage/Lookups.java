package dev.cajon.storage;

/**
 * The collection keys this thread looked up, found or not, for INFO's keyspace_hits and
 * keyspace_misses: the server reads and clears them around a read command (Redis counts a read
 * command's lookupKeyRead, a key of another type included, and never a write's lookups). A key of
 * a read-only multi-key command (SINTER, ZUNION ...) counts once per lookup, as in Redis.
 */
public final class Lookups {
    private Lookups() {
    }

    private static final ThreadLocal<long[]> COUNTS = ThreadLocal.withInitial(() -> new long[2]);

    static void found(boolean hit) {
        COUNTS.get()[hit ? 0 : 1]++;
    }

    /** Forgets this thread's counts (before a read command runs). */
    public static void clear() {
        long[] c = COUNTS.get();
        c[0] = 0;
        c[1] = 0;
    }

    /** This thread's counts since {@link #clear}: {hits, misses}, live (the caller must not keep it). */
    public static long[] counts() {
        return COUNTS.get();
    }
}
