package dev.cajon.storage.expiry;

import dev.cajon.storage.Clock;
import dev.cajon.storage.ExpiryListener;
import dev.cajon.storage.Keyspace;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A hierarchical timing wheel with millisecond resolution that reclaims expired keys on time,
 * whether or not anybody reads them.
 *
 * <h2>Shape</h2>
 * Level 0 has 256 slots of 1 ms; levels 1 to 5 have 64 slots each, every slot as wide as a whole
 * turn of the level below (256 ms, 16.4 s, 17.5 min, 18.6 h, 49.7 days), so the wheel spans 8.7
 * years; later deadlines park in the last slot and are re-filed when it comes round. A deadline
 * {@code d} is filed at the lowest level whose span still reaches it, in slot
 * {@code (d / width) mod slots}. When time crosses a slot boundary of level {@code i >= 1}, that
 * slot is emptied into the levels below ("cascade"); a level-0 slot fires when its millisecond
 * has passed (a key lives through its deadline millisecond). Cascading is what keeps every
 * operation O(1): each record moves down at most five times.
 *
 * <h2>No heap object per key</h2>
 * A slot is a growable {@code byte[]} of packed records {@code [keyspace id: 4][deadline: 8]
 * [key length: 4][key]}: 16 bytes plus the key, with no per-key object for the GC to trace.
 *
 * <h2>Renewal and cancellation are lazy</h2>
 * Nothing is ever removed from a slot. The keyspace decides when to file: each key with a deadline
 * has one valid record, whose time its value header records (wheel-at). An extension files
 * nothing; the valid record fires first and, finding a later deadline under the key's lock
 * ({@link Keyspace#reclaimIfDue}), is re-filed there. A shortened TTL files a new valid record;
 * the old one is stale and is dropped when it fires, as are records of deleted or persisted keys.
 * So a sliding session renewed on every message keeps exactly one record, and stale records live
 * at most until their own time comes.
 *
 * <h2>Threads</h2>
 * Writers file records under the wheel lock while holding a key's stripe lock. {@link #advance}
 * detaches due slots under the wheel lock and reclaims keys after releasing it, so the two locks
 * are never taken in the opposite order.
 */
public final class ExpiryWheel implements ExpiryListener {
    static final int L0_BITS = 8;
    static final int LN_BITS = 6;
    static final int LEVELS = 6;
    private static final int RECORD_HEADER = 16;

    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final byte[][][] slots = new byte[LEVELS][][];
    private final int[][] fill = new int[LEVELS][];
    private final long[] width = new long[LEVELS];
    private final long[] span = new long[LEVELS];
    private final int[] records = new int[LEVELS];
    /** Keyspaces by id, copy-on-write so the reclaiming loop reads it without the lock. */
    private volatile Keyspace[] keyspaces = new Keyspace[0];
    /** Every deadline up to and including this millisecond has been processed. */
    private long current;
    /** {@link #current} as last published, readable without the lock ({@link #behindMillis}). */
    private volatile long currentView;
    private long scheduled;
    private long bytes;
    private final AtomicLong reclaimed = new AtomicLong();
    private final AtomicLong lagMax = new AtomicLong();
    /** Reclaimed keys by lag in whole milliseconds; the last bucket holds every lag beyond it. */
    static final int LAG_BUCKETS = 1024;
    private final java.util.concurrent.atomic.AtomicLongArray lagCounts =
            new java.util.concurrent.atomic.AtomicLongArray(LAG_BUCKETS);
    /** Per reaper thread: the lags of one slot, added to {@link #lagCounts} once per slot. */
    private static final ThreadLocal<int[]> SLOT_LAGS = ThreadLocal.withInitial(() -> new int[LAG_BUCKETS]);
    /** Keys up to this long are copied out of a fired slot into a per-thread array of their length. */
    static final int SCRATCH_KEY_MAX = 256;
    /**
     * Per reaper thread, by length: the array a fired record's key is copied into. Chronicle wants
     * a key as a whole {@code byte[]}, and nothing keeps it after {@link Keyspace#reclaimIfDue}
     * returns (re-filing copies it into a slot), so a storm's million keys need no million arrays.
     */
    private static final ThreadLocal<byte[][]> SCRATCH_KEYS =
            ThreadLocal.withInitial(() -> new byte[SCRATCH_KEY_MAX + 1][]);

    public ExpiryWheel(Clock clock) {
        this.clock = clock;
        // deadlines at now are not due yet (a key lives through its deadline millisecond)
        this.current = clock.nowMillis() - 1;
        this.currentView = current;
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

    // ------------------------------------------------------------------ filing

    @Override
    public void file(Keyspace ks, byte[] key, long at) {
        lock.lock();
        try {
            file(idOf(ks), key, 0, key.length, at);
        } finally {
            lock.unlock();
        }
    }

    private int idOf(Keyspace ks) {
        int id = ks.id();
        Keyspace[] cur = keyspaces;
        if (id >= cur.length || cur[id] != ks) {
            Keyspace[] next = java.util.Arrays.copyOf(cur, Math.max(cur.length, id + 1));
            next[id] = ks;
            keyspaces = next;
        }
        return id;
    }

    /** Files one record; the caller holds the lock. A deadline already due goes to the next tick. */
    private void file(int ks, byte[] key, int off, int len, long at) {
        long delta = at - current;
        int level;
        int slot;
        if (delta < span[0]) {
            long t = delta <= 0 ? current + 1 : at;
            level = 0;
            slot = (int) (t & (span[0] - 1));
        } else {
            level = 1;
            while (level < LEVELS - 1 && delta >= span[level]) {
                level++;
            }
            long t = delta >= span[level] ? current + span[level] - 1 : at;
            slot = (int) ((t / width[level]) & ((1 << LN_BITS) - 1));
        }
        append(level, slot, ks, key, off, len, at);
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

    // ------------------------------------------------------------------ advancing

    /**
     * Processes every deadline before the clock's now: cascades and fires due slots, then reclaims
     * their keys. Returns the number of keys reclaimed. Called by the reaper thread (or by tests,
     * after moving a manual clock).
     */
    public int advance() {
        // a key lives through its deadline millisecond: records for time t are due once now > t
        long target = clock.nowMillis() - 1;
        int n = 0;
        for (;;) {
            List<byte[]> due = new ArrayList<>();
            List<Integer> dueFill = new ArrayList<>();
            lock.lock();
            try {
                collectDue(target, due, dueFill, 4096);
            } finally {
                lock.unlock();
            }
            if (due.isEmpty()) {
                return n;
            }
            for (int i = 0; i < due.size(); i++) {
                n += reclaim(due.get(i), dueFill.get(i), target);
            }
        }
    }

    /**
     * Moves time forward toward {@code target}, detaching fired level-0 slots into {@code due}
     * until about {@code budget} records are collected (so the lock is never held for long).
     */
    private void collectDue(long target, List<byte[]> due, List<Integer> dueFill, int budget) {
        try {
            collectDue0(target, due, dueFill, budget);
        } finally {
            currentView = current;
        }
    }

    private void collectDue0(long target, List<byte[]> due, List<Integer> dueFill, int budget) {
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
                int count = countRecords(b, f);
                due.add(b);
                dueFill.add(f);
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
    private void cascadeAt(long t) {
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
            slots[i][s] = null;
            fill[i][s] = 0;
            bytes -= b.length;
            int count = countRecords(b, f);
            records[i] -= count;
            scheduled -= count;
            for (int p = 0; p < f; ) {
                int ks = getInt(b, p);
                long at = getLong(b, p + 4);
                int len = getInt(b, p + 12);
                if (at <= t) {
                    // due this very millisecond, whose level-0 slot is collected right after the
                    // cascade; file() would put it in the next one (it files due records there)
                    append(0, (int) (t & (span[0] - 1)), ks, b, p + RECORD_HEADER, len, at);
                } else {
                    file(ks, b, p + RECORD_HEADER, len, at);
                }
                p += RECORD_HEADER + len;
            }
        }
    }

    private static int countRecords(byte[] b, int f) {
        int n = 0;
        for (int p = 0; p < f; p += RECORD_HEADER + getInt(b, p + 12)) {
            n++;
        }
        return n;
    }

    /** Reclaims the keys of one fired slot; re-files those that were renewed. */
    private int reclaim(byte[] b, int f, long now) {
        int n = 0;
        long worstLag = 0;
        int[] lags = SLOT_LAGS.get();
        byte[][] scratch = SCRATCH_KEYS.get();
        try {
            for (int p = 0; p < f; ) {
                int ksId = getInt(b, p);
                long at = getLong(b, p + 4);
                int len = getInt(b, p + 12);
                byte[] key = len <= SCRATCH_KEY_MAX ? scratch[len] : new byte[len];
                if (key == null) {
                    key = new byte[len];
                    scratch[len] = key;
                }
                System.arraycopy(b, p + RECORD_HEADER, key, 0, len);
                p += RECORD_HEADER + len;
                Keyspace[] all = keyspaces;
                Keyspace ks = ksId < all.length ? all[ksId] : null;
                if (ks == null || ks.isClosed()) {
                    continue;
                }
                long r = ks.reclaimIfDue(key, at);
                if (r == Keyspace.RECLAIMED) {
                    n++;
                    long lag = Math.max(0, now - at);
                    worstLag = Math.max(worstLag, lag);
                    lags[(int) Math.min(LAG_BUCKETS - 1, lag)]++;
                } else if (r > 0) {
                    lock.lock();
                    try {
                        file(ksId, key, 0, len, r);
                    } finally {
                        lock.unlock();
                    }
                }
            }
        } finally {
            // published once per slot: several reapers would otherwise contend on these per key
            reclaimed.addAndGet(n);
            lagMax.accumulateAndGet(worstLag, Math::max);
            for (int i = 0, top = (int) Math.min(LAG_BUCKETS - 1, worstLag); n > 0 && i <= top; i++) {
                if (lags[i] != 0) {
                    lagCounts.addAndGet(i, lags[i]);
                    lags[i] = 0;
                }
            }
        }
        return n;
    }

    // ------------------------------------------------------------------ introspection

    /**
     * How far the wheel's time is behind the clock, in milliseconds: 0 when every deadline before
     * now has been collected. Read without the lock; a reaper uses it to decide to help.
     */
    public long behindMillis() {
        return Math.max(0, clock.nowMillis() - 1 - currentView);
    }

    /** Records currently filed (renewed keys may briefly count twice). */
    public long scheduled() {
        lock.lock();
        try {
            return scheduled;
        } finally {
            lock.unlock();
        }
    }

    /** Bytes of slot arrays currently allocated (the wheel's whole per-key memory). */
    public long bytes() {
        lock.lock();
        try {
            return bytes;
        } finally {
            lock.unlock();
        }
    }

    public long reclaimedCount() {
        return reclaimed.get();
    }

    /** The largest gap seen between a key's deadline and its reclamation, in ms. */
    /**
     * The lag (milliseconds after its deadline) within which the fraction {@code q} of all keys
     * reclaimed so far were reclaimed, e.g. 0.99 for the 99th percentile; 0 before any.
     * {@value #LAG_BUCKETS} - 1 means that many milliseconds or more.
     */
    public long lagPercentileMillis(double q) {
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

    public long maxLagMillis() {
        return lagMax.get();
    }

    private static void putInt(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 24);
        b[off + 1] = (byte) (v >>> 16);
        b[off + 2] = (byte) (v >>> 8);
        b[off + 3] = (byte) v;
    }

    private static int getInt(byte[] b, int off) {
        return (b[off] & 0xFF) << 24 | (b[off + 1] & 0xFF) << 16 | (b[off + 2] & 0xFF) << 8 | (b[off + 3] & 0xFF);
    }

    private static void putLong(byte[] b, int off, long v) {
        putInt(b, off, (int) (v >>> 32));
        putInt(b, off + 4, (int) v);
    }

    private static long getLong(byte[] b, int off) {
        return ((long) getInt(b, off) << 32) | (getInt(b, off + 4) & 0xFFFFFFFFL);
    }
}
