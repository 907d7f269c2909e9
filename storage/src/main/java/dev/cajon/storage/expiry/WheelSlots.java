package dev.cajon.storage.expiry;

import dev.cajon.storage.ExpiryListener.RecordSink;
import java.util.ArrayDeque;

/**
 * The slots of the {@link ExpiryWheel} and the wheel's time: where a record is filed, how a slot
 * cascades into the levels below, which level-0 slots have fired, and when the next one will
 * (see the wheel's class comment for the shape and the record format). Not thread-safe: the
 * wheel holds its lock around every call.
 */
final class WheelSlots {
    static final int L0_BITS = 8;
    static final int LN_BITS = 6;
    static final int LEVELS = 6;
    static final int RECORD_HEADER = 16;

    /** Records {@code [from, to)} of a fired level-0 slot's array, due at millisecond {@code at}. */
    record Chunk(byte[] records, int from, int to, long at) {}

    private final byte[][][] slots = new byte[LEVELS][][];
    private final int[][] fill = new int[LEVELS][];
    private final long[] width = new long[LEVELS];
    private final long[] span = new long[LEVELS];
    private final int[] records = new int[LEVELS];
    /** Every deadline up to and including this millisecond has been processed. */
    long current;
    /** Records filed (renewed keys may briefly count twice). */
    long scheduled;
    /** Bytes of slot arrays allocated. */
    long bytes;

    /** {@code current}: the millisecond before the first that may fire. */
    WheelSlots(long current) {
        this.current = current;
        long w = 1;
        for (int i = 0; i < LEVELS; i++) {
            int n = i == 0 ? 1 << L0_BITS : 1 << LN_BITS;
            slots[i] = new byte[n][];
            fill[i] = new int[n];
            width[i] = w;
            span[i] = w * n;
            w = span[i];
        }
    }

    /** Files one record. A deadline already due goes to the next millisecond's slot. */
    void file(int ks, byte[] key, int off, int len, long at) {
        int where = slotOf(at);
        append(where >>> 16, where & 0xFFFF, ks, key, off, len, at);
    }

    /** Where a record for {@code at} is filed now: level in the high 16 bits, slot in the low. */
    private int slotOf(long at) {
        long delta = at - current;
        if (delta < span[0]) {
            long t = delta <= 0 ? current + 1 : at;
            return (int) (t & (span[0] - 1));
        }
        int level = 1;
        while (level < LEVELS - 1 && delta >= span[level]) {
            level++;
        }
        long t = delta >= span[level] ? current + span[level] - 1 : at;
        return level << 16 | (int) ((t / width[level]) & ((1 << LN_BITS) - 1));
    }

    private void append(int level, int slot, int ks, byte[] key, int off, int len, long at) {
        byte[] b = slots[level][slot];
        int f = fill[level][slot];
        int need = f + RECORD_HEADER + len;
        if (b == null || need > b.length) {
            int cap = Math.max(need, b == null ? 64 : b.length + (b.length >> 1));
            byte[] nb = new byte[cap];
            if (b != null) {
                System.arraycopy(b, 0, nb, 0, f);
                bytes -= b.length;
            }
            bytes += cap;
            slots[level][slot] = nb;
            b = nb;
        }
        putInt(b, f, ks);
        putLong(b, f + 4, at);
        putInt(b, f + 12, len);
        System.arraycopy(key, off, b, f + RECORD_HEADER, len);
        fill[level][slot] = need;
        records[level]++;
        scheduled++;
    }

    /**
     * Moves time forward toward {@code target}, detaching fired level-0 slots into
     * {@code pending} as chunks of at most {@link ExpiryWheel#CHUNK_RECORDS} records, until about
     * {@code budget} records are collected (so the wheel's lock is never held for long).
     */
    void collectDue(long target, int budget, ArrayDeque<Chunk> pending) {
        int collected = 0;
        while (current < target && collected < budget) {
            if (scheduled == 0) {
                current = target;
                return;
            }
            int lowest = 0;
            while (lowest < LEVELS && records[lowest] == 0) {
                lowest++;
            }
            long next;
            if (lowest == 0) {
                next = current + 1;
            } else {
                // nothing below `lowest`: jump to the next boundary where it cascades
                next = Math.min(target, (current / width[lowest] + 1) * width[lowest]);
                if (next < current + 1) {
                    next = current + 1;
                }
            }
            current = next;
            cascadeAt(current);
            int s = (int) (current & (span[0] - 1));
            byte[] b = slots[0][s];
            if (b != null && fill[0][s] > 0) {
                int f = fill[0][s];
                int count = 0;
                // split into chunks of at most CHUNK_RECORDS records, without copying
                int from = 0;
                int inChunk = 0;
                for (int p = 0; p < f; p += RECORD_HEADER + getInt(b, p + 12)) {
                    if (inChunk == ExpiryWheel.CHUNK_RECORDS) {
                        pending.add(new Chunk(b, from, p, current));
                        from = p;
                        inChunk = 0;
                    }
                    inChunk++;
                    count++;
                }
                pending.add(new Chunk(b, from, f, current));
                collected += count;
                records[0] -= count;
                scheduled -= count;
                bytes -= b.length;
                slots[0][s] = null;
                fill[0][s] = 0;
            }
        }
    }

    /** At a level boundary, empties the slots of every level whose boundary this is, top down. */
    void cascadeAt(long t) {
        int top = 0;
        for (int i = 1; i < LEVELS; i++) {
            if (t % width[i] == 0) {
                top = i;
            } else {
                break;
            }
        }
        for (int i = top; i >= 1; i--) {
            int s = (int) ((t / width[i]) & ((1 << LN_BITS) - 1));
            byte[] b = slots[i][s];
            int f = fill[i][s];
            if (b == null || f == 0) {
                continue;
            }
            // sized while the slot is still attached: if an allocation fails, its records stay
            // filed (every destination is on another slot: a lower level, or for the top level's
            // far-future records the slot before this one)
            int count = reserve(b, f, t);
            slots[i][s] = null;
            fill[i][s] = 0;
            bytes -= b.length;
            records[i] -= count;
            scheduled -= count;
            for (int p = 0; p < f; ) {
                int ks = getInt(b, p);
                long at = getLong(b, p + 4);
                int len = getInt(b, p + 12);
                int where = cascadeSlotOf(at, t);
                append(where >>> 16, where & 0xFFFF, ks, b, p + RECORD_HEADER, len, at);
                p += RECORD_HEADER + len;
            }
        }
    }

    /** Per level and slot: bytes that a cascade is about to append there ({@link #reserve}). */
    private final int[][] reserving = new int[LEVELS][];
    /** The (level, slot) pairs with bytes in {@link #reserving}, as {@link #slotOf} packs them. */
    private int[] reserved = new int[64];

    /**
     * Where a cascade at {@code t} re-files a record for {@code at}: as {@link #file} would, except
     * that a record due this very millisecond goes to {@code t}'s own level-0 slot, which is
     * collected right after the cascade ({@link #slotOf} would put it in the next one).
     */
    private int cascadeSlotOf(long at, long t) {
        return at <= t ? (int) (t & (span[0] - 1)) : slotOf(at);
    }

    /**
     * Before a cascade re-files the records of {@code b}: grows every slot they will land in to
     * its final size at once, and returns how many records there are. A storm's level-0 slots hold
     * hundreds of records each; grown by half again per append they allocated about three times
     * their size (100 bytes per reclaimed key in ReclaimFloorBenchmark's storm), copied twice over.
     */
    private int reserve(byte[] b, int f, long t) {
        int n = 0;
        int k = 0;
        int count = 0;
        try {
            for (int p = 0; p < f; ) {
                long at = getLong(b, p + 4);
                int size = RECORD_HEADER + getInt(b, p + 12);
                count++;
                int where = cascadeSlotOf(at, t);
                int level = where >>> 16;
                int slot = where & 0xFFFF;
                if (reserving[level] == null) {
                    reserving[level] = new int[slots[level].length];
                }
                if (reserving[level][slot] == 0) {
                    if (n == reserved.length) {
                        reserved = java.util.Arrays.copyOf(reserved, 2 * n);
                    }
                    reserved[n++] = where;
                }
                reserving[level][slot] += size;
                p += size;
            }
            for (; k < n; k++) {
                int level = reserved[k] >>> 16;
                int slot = reserved[k] & 0xFFFF;
                int need = fill[level][slot] + reserving[level][slot];
                byte[] old = slots[level][slot];
                if (old == null || old.length < need) {
                    slots[level][slot] = old == null ? new byte[need] : java.util.Arrays.copyOf(old, need);
                    bytes += need - (old == null ? 0 : old.length);
                }
                reserving[level][slot] = 0;
            }
            return count;
        } finally {
            // only after an allocation failed: the counts left must not size a later cascade
            for (; k < n; k++) {
                reserving[reserved[k] >>> 16][reserved[k] & 0xFFFF] = 0;
            }
        }
    }

    /**
     * The last millisecond through which no filed record is due and no slot cascades: before the
     * first level-0 slot that holds a record, or the start of the first higher slot that holds one;
     * MAX_VALUE when nothing is filed. At most 256 + 5 x 64 slots looked at.
     */
    long quietThrough() {
        if (scheduled == 0) {
            return Long.MAX_VALUE;
        }
        long best = Long.MAX_VALUE;
        if (records[0] > 0) {
            for (long t = current + 1; t <= current + span[0]; t++) {
                if (fill[0][(int) (t & (span[0] - 1))] > 0) {
                    best = t - 1; // fires once the clock passes t
                    break;
                }
            }
        }
        int slotsN = 1 << LN_BITS;
        for (int i = 1; i < LEVELS; i++) {
            if (records[i] == 0) {
                continue;
            }
            long base = current / width[i];
            for (int k = 1; k <= slotsN; k++) {
                long start = (base + k) * width[i];
                if (start - 1 >= best) {
                    break;
                }
                if (fill[i][(int) ((base + k) & (slotsN - 1))] > 0) {
                    best = start - 1; // cascades when time reaches the slot's start
                    break;
                }
            }
        }
        return best;
    }

    /** Every record filed for keyspace {@code ksId} (stale ones included). */
    void list(int ksId, RecordSink sink) {
        for (int level = 0; level < LEVELS; level++) {
            for (int s = 0; s < slots[level].length; s++) {
                if (slots[level][s] != null) {
                    list(slots[level][s], 0, fill[level][s], ksId, sink);
                }
            }
        }
    }

    static void list(byte[] b, int from, int to, int ksId, RecordSink sink) {
        for (int p = from; p < to; ) {
            int len = getInt(b, p + 12);
            if (getInt(b, p) == ksId) {
                sink.record(java.util.Arrays.copyOfRange(b, p + RECORD_HEADER, p + RECORD_HEADER + len), getLong(b, p + 4));
            }
            p += RECORD_HEADER + len;
        }
    }

    static void putInt(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 24);
        b[off + 1] = (byte) (v >>> 16);
        b[off + 2] = (byte) (v >>> 8);
        b[off + 3] = (byte) v;
    }

    static int getInt(byte[] b, int off) {
        return (b[off] & 0xFF) << 24 | (b[off + 1] & 0xFF) << 16 | (b[off + 2] & 0xFF) << 8 | (b[off + 3] & 0xFF);
    }

    static void putLong(byte[] b, int off, long v) {
        putInt(b, off, (int) (v >>> 32));
        putInt(b, off + 4, (int) v);
    }

    static long getLong(byte[] b, int off) {
        return ((long) getInt(b, off) << 32) | (getInt(b, off + 4) & 0xFFFFFFFFL);
    }
}
