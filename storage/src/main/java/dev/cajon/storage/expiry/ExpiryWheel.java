package dev.cajon.storage.expiry;

import dev.cajon.storage.Clock;
import dev.cajon.storage.ExpiryListener;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.expiry.WheelSlots.Chunk;
import java.util.ArrayDeque;
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
 * operation O(1): each record moves down at most five times. The slots, their cascades and the
 * wheel's time live in {@link WheelSlots}, under this class's lock.
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
 * detaches due slots under the wheel lock, split into chunks of at most {@value #CHUNK_RECORDS}
 * records (a queue of array ranges, nothing copied), and reclaims keys chunk by chunk after
 * releasing it, so the two locks are never taken in the opposite order. The reaper threads
 * advance the wheel; in a backlog the event loops also take chunks ({@link #assist}).
 */
public final class ExpiryWheel implements ExpiryListener {
    static final int L0_BITS = WheelSlots.L0_BITS;

    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    /** The slots, their records and the wheel's time (under the lock). */
    private final WheelSlots slots;
    /** Keyspaces by id, copy-on-write so the reclaiming loop reads it without the lock. */
    private volatile Keyspace[] keyspaces = new Keyspace[0];
    /**
     * Every deadline up to this millisecond has been taken for reclaiming: the slots' time ({@code WheelSlots.current}), or
     * just before the oldest chunk still in {@link #pending}. Readable without the lock
     * ({@link #behindMillis}).
     */
    private volatile long takenThrough;
    /** Detached due records not yet taken by a reclaiming thread, oldest first (under the lock). */
    private final ArrayDeque<Chunk> pending = new ArrayDeque<>();
    /** Most records in one {@link Chunk}, the unit an event loop takes in {@link #assist}. */
    public static final int CHUNK_RECORDS = 16;
    /** An event loop helps ({@link #assist}) when the wheel is more than this far behind the clock. */
    public static final long ASSIST_AFTER_MILLIS = 10;
    /** One more chunk per {@link #assist} call for every this many ms further behind. */
    public static final long ASSIST_STEP_MILLIS = 10;
    /** Chunks per {@link #assist} call just past the threshold. */
    public static final int MIN_ASSIST_CHUNKS = 4;
    /** Beyond this far behind, one more chunk per {@link #RUSH_STEP_MILLIS}: the 100 ms bound is near. */
    public static final long RUSH_AFTER_MILLIS = 50;
    public static final long RUSH_STEP_MILLIS = 2;
    /** Most chunks per {@link #assist} call (reached 100 ms behind). */
    public static final int MAX_ASSIST_CHUNKS = 32;
    private final ReclaimStats stats = new ReclaimStats();
    /** Chunks taken from {@link #pending} whose reclaiming has not finished (see {@link #records}). */
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
    /** Reclaimed keys by lag in whole milliseconds; the last bucket holds every lag beyond it. */
    static final int LAG_BUCKETS = ReclaimStats.LAG_BUCKETS;
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
        this.slots = new WheelSlots(clock.nowMillis() - 1);
        this.takenThrough = slots.current;
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
        slots.file(ks, key, off, len, at);
        if (at <= quietThrough) {
            quietThrough = at - 1; // the record is due once the clock passes at
        }
        if (at + 1 < sleeperWakesAt) {
            // the primary reaper sleeps past this deadline: it must plan again
            sleeperWakesAt = Long.MIN_VALUE;
            java.util.concurrent.locks.LockSupport.unpark(sleeper);
        }
    }

    // ------------------------------------------------------------------ advancing

    /**
     * Processes every deadline before the clock's now: cascades and fires due slots, then reclaims
     * their keys. Returns the number of keys reclaimed. Called by the reaper threads (or by tests,
     * after moving a manual clock).
     */
    public int advance() {
        // a key lives through its deadline millisecond: records for time t are due once now > t
        long target = clock.nowMillis() - 1;
        int n = 0;
        for (;;) {
            Chunk c = takeChunk(target);
            if (c == null) {
                return n;
            }
            n += reclaimTaken(c, target);
        }
    }

    /**
     * An event loop's share of a backlog: when the wheel is more than {@link #ASSIST_AFTER_MILLIS}
     * behind the clock, reclaims a few chunks of due records, oldest first, and returns how many
     * keys it reclaimed; otherwise, or when another thread holds the wheel's lock, returns 0 at
     * the cost of a clock read. The share grows with the lag: {@value #MIN_ASSIST_CHUNKS} chunks of
     * {@value #CHUNK_RECORDS} records just past the threshold, one more per
     * {@value #ASSIST_STEP_MILLIS} ms, and past {@value #RUSH_AFTER_MILLIS} ms behind one more per
     * {@value #RUSH_STEP_MILLIS} ms, at most {@value #MAX_ASSIST_CHUNKS} (512 keys, about 0.5 ms,
     * from 100 ms behind). The steeper part came after a storm on a busy machine reached 192 ms at
     * p99 (the event loops then took at most 8 chunks a call): with a CPU hog beside the storm,
     * 4 runs each, p99 559, 26, 604, 223 ms before and 28, 33, 349, 32 ms after.
     * (Starting at one chunk, storms ran further behind: p99 lag over 100 ms in 5 runs of 8,
     * against 0 of 6 with 64 keys a call, at no better foreground throughput.)
     *
     * <p>Why the event loops help: in an expiry storm the reapers compete for the cores with the
     * event loops and the load generator, and the scheduler gives them a share that does not
     * depend on how far behind they are; on 2 cores they fell 100-500 ms behind in the storm
     * benchmark. The event loops run most of the time, so a few chunks after each read batch,
     * only while there is a backlog, put the deletions where the CPU is (as Redis runs its active
     * expiry cycle in its one event loop). An earlier version that took whole slots stopped the
     * foreground for half a second at a cold storm's start.
     */
    public int assist() {
        long behind = behindMillis();
        if (behind <= ASSIST_AFTER_MILLIS) {
            return 0;
        }
        int chunks = assistChunks(behind);
        long target = clock.nowMillis() - 1;
        int n = 0;
        for (int i = 0; i < chunks; i++) {
            // never park an event loop on the wheel lock: whoever holds it is collecting or filing
            if (!lock.tryLock()) {
                break;
            }
            Chunk c;
            try {
                c = takeChunkLocked(target, 4 * CHUNK_RECORDS);
            } finally {
                lock.unlock();
            }
            if (c == null) {
                break;
            }
            n += reclaimTaken(c, target);
        }
        stats.assisted(n);
        return n;
    }

    /** Reclaims a chunk taken from {@link #pending}, which then no longer counts as in flight. */
    private int reclaimTaken(Chunk c, long now) {
        try {
            return reclaim(c, now);
        } finally {
            inFlight.decrementAndGet();
        }
    }

    /** How many chunks one {@link #assist} call takes when the wheel is {@code behind} ms behind. */
    static int assistChunks(long behind) {
        if (behind <= ASSIST_AFTER_MILLIS) {
            return 0;
        }
        long n = MIN_ASSIST_CHUNKS + (behind - ASSIST_AFTER_MILLIS - 1) / ASSIST_STEP_MILLIS;
        if (behind > RUSH_AFTER_MILLIS) {
            n += (behind - RUSH_AFTER_MILLIS - 1) / RUSH_STEP_MILLIS;
        }
        return (int) Math.min(MAX_ASSIST_CHUNKS, n);
    }

    /** The oldest detached chunk of due records, collecting more due slots when none is left. */
    private Chunk takeChunk(long target) {
        lock.lock();
        try {
            return takeChunkLocked(target, 4096);
        } finally {
            lock.unlock();
        }
    }

    /** Takes the oldest pending chunk; first collects about {@code budget} due records if none is left. */
    private Chunk takeChunkLocked(long target, int budget) {
        if (pending.isEmpty()) {
            slots.collectDue(target, budget, pending);
        }
        Chunk c = pending.poll();
        if (c != null) {
            inFlight.incrementAndGet();
        }
        publishProgress();
        return c;
    }

    /** What {@link #behindMillis} reads: every deadline up to this has been taken for reclaiming. */
    private void publishProgress() {
        Chunk head = pending.peek();
        takenThrough = head == null ? slots.current : Math.min(slots.current, head.at() - 1);
    }

    /** Reclaims the keys of one chunk of a fired slot; re-files those that were renewed. */
    private int reclaim(Chunk c, long now) {
        byte[] b = c.records();
        int n = 0;
        long worstLag = 0;
        int[] lags = ReclaimStats.chunkLags();
        byte[][] scratch = SCRATCH_KEYS.get();
        try {
            for (int p = c.from(); p < c.to(); ) {
                int ksId = WheelSlots.getInt(b, p);
                long at = WheelSlots.getLong(b, p + 4);
                int len = WheelSlots.getInt(b, p + 12);
                byte[] key = len <= SCRATCH_KEY_MAX ? scratch[len] : new byte[len];
                if (key == null) {
                    key = new byte[len];
                    scratch[len] = key;
                }
                System.arraycopy(b, p + WheelSlots.RECORD_HEADER, key, 0, len);
                p += WheelSlots.RECORD_HEADER + len;
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
                    lags[ReclaimStats.bucket(lag)]++;
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
            stats.publish(n, worstLag, lags); // once per chunk
        }
        return n;
    }


    /**
     * Every record filed for {@code ks}, stale ones included (they are dropped when they fire, as
     * they would have been here). False, and nothing listed, while any chunk is being reclaimed:
     * its records are in no slot and could be missed.
     */
    @Override
    public boolean records(Keyspace ks, RecordSink sink) {
        lock.lock();
        try {
            if (inFlight.get() != 0) {
                return false;
            }
            int id = ks.id();
            slots.list(id, sink);
            for (Chunk c : pending) {
                WheelSlots.list(c.records(), c.from(), c.to(), id, sink);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ sleeping while nothing is due

    /*
     * A reaper that ticked every few ms whatever the wheel held cost an idle server 1.7 % of a
     * core in wake-ups (two reapers, 400 wake-ups a second, about 40 us each on this VM). So a
     * reaper asks, before it parks, how long nothing can be due (planSleep): until the first
     * level-0 slot that holds a record, or the start of the first higher-level slot that holds
     * one (where it cascades), whichever comes first. That bound is published (quietThrough), so
     * neither the helpers nor the event loops take the sleep for a backlog, and filing a record
     * due earlier lowers it again and unparks the primary reaper if it would wake too late. While
     * records are due within a tick, nothing changes: the reapers tick as before.
     */

    /** The primary reaper, once it has planned a sleep ({@link #planSleep}). Under the lock. */
    private Thread sleeper;
    /** When the primary reaper wakes by itself from a sleep longer than its tick; MIN_VALUE otherwise. Under the lock. */
    private long sleeperWakesAt = Long.MIN_VALUE;
    /**
     * No filed record is due, and no cascade is needed, through this millisecond: a lower bound
     * kept by {@link #planSleep} and {@link #file}, read without the lock by {@link #behindMillis}.
     */
    private volatile long quietThrough = Long.MIN_VALUE;

    /**
     * For a reaper about to park: how many milliseconds may pass before the wheel has work, at
     * least {@code tickMillis} (work may be due now) and at most {@code maxMillis}. {@code primary}:
     * the primary reaper's own thread, which filing an earlier deadline then unparks; null for a
     * helper.
     */
    public long planSleep(long tickMillis, long maxMillis, Thread primary) {
        lock.lock();
        try {
            long now = clock.nowMillis();
            // chunks waiting to be reclaimed: work now
            long quiet = !pending.isEmpty() || inFlight.get() != 0 ? Long.MIN_VALUE : slots.quietThrough();
            quietThrough = quiet;
            long sleep;
            if (quiet == Long.MIN_VALUE) {
                sleep = tickMillis;
            } else if (quiet == Long.MAX_VALUE) {
                sleep = maxMillis;
            } else {
                // advance() has work once its target (now - 1) passes quiet
                sleep = Math.max(tickMillis, Math.min(maxMillis, quiet + 2 - now));
            }
            if (primary != null) {
                sleeper = primary;
                sleeperWakesAt = sleep > tickMillis ? now + sleep : Long.MIN_VALUE;
            }
            return sleep;
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ introspection

    /**
     * How far the wheel's time is behind the clock, in milliseconds: 0 when every deadline before
     * now has been taken by a reclaiming thread. Read without the lock; a helper reaper and
     * {@link #assist} use it to decide to help.
     */
    public long behindMillis() {
        return Math.max(0, clock.nowMillis() - 1 - Math.max(takenThrough, quietThrough));
    }

    /** Records currently filed (renewed keys may briefly count twice). */
    public long scheduled() {
        lock.lock();
        try {
            return slots.scheduled;
        } finally {
            lock.unlock();
        }
    }

    /** Bytes of slot arrays currently allocated (the wheel's whole per-key memory). */
    public long bytes() {
        lock.lock();
        try {
            return slots.bytes;
        } finally {
            lock.unlock();
        }
    }

    public long reclaimedCount() {
        return stats.reclaimed();
    }

    /**
     * CONFIG RESETSTAT: the reclaimed and assisted counts and the lag histogram start again from
     * zero (the records and bytes filed are state, not counters, and stay). A reclaim running
     * concurrently may land on either side of the reset.
     */
    public void resetStats() {
        stats.reset();
    }

    /** Of {@link #reclaimedCount}, the keys that event loops reclaimed in a backlog ({@link #assist}). */
    public long assistedCount() {
        return stats.assisted();
    }

    /**
     * The lag (milliseconds after its deadline) within which the fraction {@code q} of all keys
     * reclaimed so far were reclaimed, e.g. 0.99 for the 99th percentile; 0 before any.
     * {@value #LAG_BUCKETS} - 1 means that many milliseconds or more.
     */
    public long lagPercentileMillis(double q) {
        return stats.lagPercentile(q);
    }

    /** The largest gap seen between a key's deadline and its reclamation, in ms. */
    public long maxLagMillis() {
        return stats.maxLag();
    }


}
