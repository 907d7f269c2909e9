package dev.cajon.storage;

/**
 * The sizes at which a collection leaves Redis's compact encoding for its big one, as OBJECT
 * ENCODING reports it (Redis's {@code hash-max-listpack-entries} and the others, which CONFIG SET
 * changes at run time). Process-wide, as Redis's own settings are: the server has one store.
 *
 * <p>Only the encoding's name follows these. Cajon's layout is the same either way (a small
 * collection stays inline in its key's entry while it fits, see {@code CountedTree}); what is
 * decided here is the flag in the collection's state that says it took the big encoding, which
 * Redis never takes back either. A change applies to the next write of each collection, as in
 * Redis, whose conversions also happen only on writes.
 */
public final class EncodingLimits {
    private EncodingLimits() {
    }

    /** Redis 7.0's defaults. */
    public static final long HASH_ENTRIES = 512;
    public static final long HASH_VALUE = 64;
    public static final long SET_INTSET_ENTRIES = 512;
    public static final long ZSET_ENTRIES = 128;
    public static final long ZSET_VALUE = 64;

    private static volatile long hashEntries = HASH_ENTRIES;
    private static volatile long hashValue = HASH_VALUE;
    private static volatile long setIntsetEntries = SET_INTSET_ENTRIES;
    private static volatile long zsetEntries = ZSET_ENTRIES;
    private static volatile long zsetValue = ZSET_VALUE;

    /** hash-max-listpack-entries: a hash of more fields is "hashtable". */
    public static long hashEntries() {
        return hashEntries;
    }

    /** hash-max-listpack-value: a hash given a longer field or value is "hashtable". */
    public static long hashValue() {
        return hashValue;
    }

    /** set-max-intset-entries: a set of integers with more members is "hashtable". */
    public static long setIntsetEntries() {
        return setIntsetEntries;
    }

    /** zset-max-listpack-entries: a sorted set of more members is "skiplist". */
    public static long zsetEntries() {
        return zsetEntries;
    }

    /** zset-max-listpack-value: a sorted set given a longer member is "skiplist". */
    public static long zsetValue() {
        return zsetValue;
    }

    public static void hashEntries(long n) {
        hashEntries = n;
    }

    public static void hashValue(long n) {
        hashValue = n;
    }

    public static void setIntsetEntries(long n) {
        setIntsetEntries = n;
    }

    public static void zsetEntries(long n) {
        zsetEntries = n;
    }

    public static void zsetValue(long n) {
        zsetValue = n;
    }

    /** Back to Redis 7.0's defaults (a new server; tests that changed them). */
    public static void reset() {
        hashEntries = HASH_ENTRIES;
        hashValue = HASH_VALUE;
        setIntsetEntries = SET_INTSET_ENTRIES;
        zsetEntries = ZSET_ENTRIES;
        zsetValue = ZSET_VALUE;
    }
}
