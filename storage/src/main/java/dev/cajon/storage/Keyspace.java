package dev.cajon.storage;

import dev.cajon.storage.blob.BlobStore;
import dev.cajon.storage.chronicle.BatchJournal;
import dev.cajon.storage.chronicle.CleanState;
import dev.cajon.storage.chronicle.MapFile;
import dev.cajon.storage.chronicle.WriteJournal;
import dev.cajon.storage.chronicle.ValueHeader;
import java.io.Closeable;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import net.openhft.chronicle.map.ChronicleMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One keyspace: the keys of one (app, db), persisted in one growable Chronicle Map plus a blob
 * directory for large values. This is the storage API the command families call; it speaks in
 * byte arrays and {@link OpStatus}, never in RESP.
 *
 * <h2>Concurrency</h2>
 * Commands run on several event-loop threads. Every operation on a key holds that key's stripe
 * lock (one of {@value #STRIPES}); multi-key operations take their stripes in index order, so
 * they cannot deadlock. Chronicle's own segment locks make each single map call atomic; the stripe
 * lock makes read-modify-write sequences (INCR, APPEND, SET NX GET, RENAME) atomic. A key's stripe
 * is picked by the same hash bits as its Chronicle segment ({@link #stripeOf}), so in a big map
 * threads on different stripes never contend for a segment lock. Growth takes every stripe, so
 * while any stripe is held the map reference cannot change.
 *
 * <h2>Expiry</h2>
 * A deadline lives in the value header. Every read goes through {@link #readLive}, which treats a
 * value whose deadline has passed as absent and deletes it on the spot (the lazy check), so no
 * read ever returns an expired value whatever the active reclaimer is doing.
 *
 * <h2>Capacity</h2>
 * Chronicle's capacity is fixed per file. When the live key count passes the generation's
 * capacity, or a put fails for want of a segment tier, the keyspace grows into a new generation
 * (see {@link MapFile}); callers never see Chronicle's capacity errors.
 */
public final class Keyspace implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(Keyspace.class);

    /** Redis's proto-max-bulk-len: the largest string a client may build. */
    public static final long MAX_STRING_LENGTH = 512L * 1024 * 1024;
    /** Values longer than this live in a blob file instead of the map entry. */
    public static final int BLOB_THRESHOLD = 16 * 1024;
    static final int STRIPES = 1024;

    private final String name;
    private final Clock clock;
    private final MapFile file;
    private final BlobStore blobs;
    /**
     * Overwrites in flight, one slot per stripe: a crash mid-overwrite cannot lose the key.
     * Created by the first overwrite (see {@link #writeJournal}); null while there is none.
     */
    private volatile WriteJournal journal;
    /**
     * Multi-key writes in flight (MSET, MSETNX, RENAME): a crash cannot leave one half applied.
     * Created by the first such write (see {@link #batchJournal}).
     */
    private volatile BatchJournal batch;

    private final LongAdder keys = new LongAdder();
    /** Live keys that carry a deadline (INFO keyspace "expires"). */
    private final LongAdder volatileKeys = new LongAdder();
    private final LongAdder expired = new LongAdder();
    private final LongAdder keyBytes = new LongAdder();
    private final LongAdder valueBytes = new LongAdder();
    /** What the live keys take: key, stored value and blob bytes ({@link #footprint}); the apps' byte quota. */
    private final LongAdder liveBytes = new LongAdder();
    private final LongAdder puts = new LongAdder();
    /** Sum of (deadline - DEADLINE_BASE) over volatile keys, for INFO's avg_ttl. */
    private final LongAdder deadlineSum = new LongAdder();
    private static final long DEADLINE_BASE = 1_700_000_000_000L;
    private static final java.util.concurrent.atomic.AtomicInteger IDS = new java.util.concurrent.atomic.AtomicInteger();
    private final int id = IDS.getAndIncrement();
    /** Changes whenever the map is replaced (growth, FLUSHDB), which invalidates SCAN cursors. */
    private volatile int epoch = java.util.concurrent.ThreadLocalRandom.current().nextInt(1, 1 << 15);
    private volatile boolean closed;
    private final ExpiryListener expiryListener;
    /**
     * Held shared by whole-map walks (SCAN, KEYS, RANDOMKEY) and exclusively when the map is
     * replaced (growth, FLUSHDB, close), so a walk never touches a closed map.
     */
    private final java.util.concurrent.locks.ReentrantReadWriteLock mapLock =
            new java.util.concurrent.locks.ReentrantReadWriteLock();
    /** The stripe locks, made on first use, and the map lock's writer holding them all. */
    private final StripeLocks locks = new StripeLocks(STRIPES, mapLock);
    /**
     * Transactions against keyspace-wide readers (see {@link #atomically}): held shared by an EXEC
     * that locks only its keys' stripes, exclusively by one that locks the whole keyspace and by
     * DBSIZE, SCAN, KEYS and RANDOMKEY, which therefore never see an EXEC half done.
     */
    private final java.util.concurrent.locks.ReentrantReadWriteLock txGate =
            new java.util.concurrent.locks.ReentrantReadWriteLock();
    /** The keys clients WATCH here; every change of a key goes through {@link #touched}. */
    private final dev.cajon.storage.tx.Watches watches = new dev.cajon.storage.tx.Watches();
    /** The atomic section this thread runs on this keyspace, if any (see {@link #atomically}). */
    private final ThreadLocal<Section> section = new ThreadLocal<>();
    /** Transactions in flight (their undo records); opened on the first EXEC that needs one. */
    private volatile BatchJournal txJournal;
    private final Path dir;

    private Keyspace(Path dir, String name, Clock clock, MapFile file, BlobStore blobs, WriteJournal journal,
                     BatchJournal batch, BatchJournal txJournal, ExpiryListener listener) {
        this.dir = dir;
        this.txJournal = txJournal;
        this.journal = journal;
        this.batch = batch;
        this.expiryListener = listener == null ? ExpiryListener.NONE : listener;
        this.name = name;
        this.clock = clock;
        this.file = file;
        this.blobs = blobs;
    }

    /**
     * Opens the keyspace stored in {@code dir}, creating it if needed. With {@code recover}, the
     * map is reopened through Chronicle's recovery (the caller holds the directory exclusively).
     * Keys whose deadline passed while the server was down are removed before this returns, and
     * orphaned blob files are swept.
     */
    public static Keyspace open(Path dir, String name, Clock clock, boolean recover, ExpiryListener listener) {
        Keyspace released = openReleased(dir, name, clock, listener);
        if (released != null) {
            return released;
        }
        // read (and delete) before the map is opened, which may touch its file
        CleanState clean = takeCleanState(dir, name);
        if (recover) {
            clean = null;
        }
        MapFile f = MapFile.open(dir, name, recover);
        WriteJournal journal = null;
        BatchJournal batch = null;
        BatchJournal tx = null;
        try {
            // journals exist only where writes were in flight or a crash left them: replayed,
            // then deleted; the first write that needs one creates it again
            journal = exists(dir, JOURNAL_FILE) ? WriteJournal.open(dir.resolve(JOURNAL_FILE), STRIPES) : null;
            batch = exists(dir, BATCH_FILE) ? BatchJournal.open(dir.resolve(BATCH_FILE), STRIPES) : null;
            tx = exists(dir, TX_FILE) ? BatchJournal.open(dir.resolve(TX_FILE), STRIPES) : null;
            Keyspace ks = new Keyspace(dir, name, clock, f, new BlobStore(dir.resolve("blobs")), journal, batch, tx,
                    listener);
            boolean replayed = ks.replayJournal();
            ks.dropJournals();
            if (clean != null && !replayed && clean.mapFile.equals(f.file().getFileName().toString())) {
                ks.loadClean(clean);
            } else {
                ks.loadScan();
            }
            return ks;
        } catch (RuntimeException | Error e) {
            // a keyspace that cannot open leaves no map or journal file open behind it
            try {
                f.close();
                if (batch != null) {
                    batch.close();
                }
                if (tx != null) {
                    tx.close();
                }
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private static boolean exists(Path dir, String file) {
        return java.nio.file.Files.exists(dir.resolve(file));
    }

    /**
     * The cheap open of a keyspace that was closed cleanly (a clean shutdown or an idle
     * {@link #release}) and has nothing to replay: counts and expiry records come from its clean
     * state and the map stays released, to be mapped by the first command that needs it. So a
     * start with a thousand apps maps none of them, and an app costs no memory or descriptor
     * until it is used. After a crash this holds too for the keyspaces that were released at the
     * time: their map was closed cleanly, and a clean state exists only until the map is mapped
     * again ({@link #wake} deletes it first). Null when the full open must run: no valid clean
     * state, a journal to replay, or a key whose deadline passed while down (the full open
     * removes those before it returns).
     */
    private static Keyspace openReleased(Path dir, String name, Clock clock, ExpiryListener listener) {
        if (exists(dir, JOURNAL_FILE) || exists(dir, BATCH_FILE) || exists(dir, TX_FILE)) {
            return null;
        }
        CleanState clean;
        try {
            clean = CleanState.peek(dir);
        } catch (IOException | RuntimeException e) {
            return null;
        }
        if (clean == null) {
            return null;
        }
        long now = clock.nowMillis();
        for (CleanState.Entry e : clean.records) {
            if (now > e.at()) {
                return null;
            }
        }
        MapFile f = MapFile.locate(dir, name);
        if (f == null || !clean.mapFile.equals(f.file().getFileName().toString())) {
            return null;
        }
        Keyspace ks = new Keyspace(dir, name, clock, f, new BlobStore(dir.resolve("blobs")), null, null, null,
                listener);
        reset(ks.keys, clean.keys);
        reset(ks.volatileKeys, clean.volatileKeys);
        reset(ks.deadlineSum, clean.deadlineSum);
        reset(ks.liveBytes, clean.bytes);
        for (CleanState.Entry e : clean.records) {
            ks.expiryListener.file(ks, e.key(), e.at());
        }
        return ks;
    }

    /** The file of the in-flight write journal, beside the map generations. */
    public static final String JOURNAL_FILE = "inflight.journal";
    /** The file of the multi-key writes in flight, beside the map generations. */
    public static final String BATCH_FILE = "inflight.batch";
    /** The file of the transactions in flight (undo records), beside the map generations. */
    public static final String TX_FILE = "inflight.tx";

    /**
     * Applies again every write that was in flight when the process stopped (see
     * {@link WriteJournal}): whatever Chronicle's recovery made of the entry (dropped it as torn,
     * kept the old value, or kept the new one), the key ends up with the value being written.
     * Runs before the load scan, so the scan counts, files and expires these keys as any other.
     */
    private boolean replayJournal() {
        List<WriteJournal.Pending> pending = journal == null ? List.of() : journal.pending();
        for (WriteJournal.Pending p : pending) {
            ValueHeader.checkLayout(p.value());
            map().put(p.key(), p.value());
            journal.end(p.slot());
        }
        if (!pending.isEmpty()) {
            log.warn("{}: applied {} write(s) that were in flight when the server stopped", name, pending.size());
        }
        // after the single writes: a multi-key write's own overwrites may also be in their slots,
        // with the same values
        List<List<BatchJournal.Entry>> batches = batch == null ? List.of() : batch.pending();
        for (List<BatchJournal.Entry> writes : batches) {
            applyJournaled(writes);
            log.warn("{}: applied a multi-key write of {} key(s) that was in flight when the server stopped: {}",
                    name, writes.size(), writes.size() <= 4 ? writes : writes.subList(0, 4) + "...");
        }
        if (!batches.isEmpty()) {
            batch.clearAll();
        }
        // last: an interrupted EXEC is taken back whole, over whatever of it (its MSETs' batches
        // included) was applied; its undo record holds every key's value from before it
        List<List<BatchJournal.Entry>> undone = txJournal == null ? List.of() : txJournal.pending();
        for (List<BatchJournal.Entry> writes : undone) {
            applyJournaled(writes);
            log.warn("{}: took back a transaction of {} key(s) that was in flight when the server stopped", name,
                    writes.size());
        }
        if (!undone.isEmpty()) {
            txJournal.clearAll();
        }
        return !pending.isEmpty() || !batches.isEmpty() || !undone.isEmpty();
    }

    /** Puts (or removes) what a pending batch or undo record names, straight into the map. */
    private void applyJournaled(List<BatchJournal.Entry> writes) {
        for (BatchJournal.Entry w : writes) {
            if (w.value() == null) {
                map().remove(w.key());
            } else {
                ValueHeader.checkLayout(w.value());
                map().put(w.key(), w.value());
            }
        }
    }

    private static CleanState takeCleanState(Path dir, String name) {
        try {
            return CleanState.take(dir);
        } catch (IOException | RuntimeException e) {
            log.warn("{}: ignoring its clean-shutdown state ({}); scanning the map instead", name, e.toString());
            return null;
        }
    }

    /**
     * The open after a clean close: the counts and expiry records saved by {@link #close} instead
     * of a scan of the whole map (0.4 s for a million keys on 2 cores, most of a restart). Records
     * already due are handled now, so keys whose deadline passed while the server was down are
     * gone before this returns, as after a scan; the expired_keys counter does not count them,
     * as after a scan.
     */
    private void loadClean(CleanState clean) {
        reset(keys, clean.keys);
        reset(volatileKeys, clean.volatileKeys);
        reset(deadlineSum, clean.deadlineSum);
        reset(liveBytes, clean.bytes);
        long now = clock.nowMillis();
        int dead = 0;
        for (CleanState.Entry e : clean.records) {
            long at = e.at();
            if (now > at) {
                // a key lives through its deadline millisecond: this record is due
                long r = reclaimIfDue(e.key(), at);
                if (r == RECLAIMED) {
                    dead++;
                } else if (r > 0) {
                    expiryListener.file(this, e.key(), r);
                }
            } else {
                expiryListener.file(this, e.key(), at);
            }
        }
        expired.reset();
        log.debug("{}: opened from its clean-shutdown state: {} keys, {} expiry records", name, clean.keys,
                clean.records.size());
        if (dead > 0) {
            log.info("{}: removed {} keys that expired while down", name, dead);
        }
    }

    /*
     * Note on Chronicle iteration: e.key().get() and e.value().get() may return an array that
     * Chronicle reuses for the next entry of the same length, so anything kept beyond the visit
     * is cloned.
     */
    private void loadScan() {
        long now = clock.nowMillis();
        List<byte[]> dead = new ArrayList<>();
        Set<Long> liveBlobs = new HashSet<>();
        Set<String> liveKeyFiles = new HashSet<>();
        long[] count = new long[4];
        // headers are read in place: a restart with millions of keys copies no value
        map().forEachEntry(e -> {
            net.openhft.chronicle.hash.Data<byte[]> d = e.value();
            net.openhft.chronicle.bytes.RandomDataInput in = d.bytes();
            long off = d.offset();
            if (d.size() < 4 || in.readByte(off) != ValueHeader.LAYOUT_V1) {
                ValueHeader.checkLayout(d.get()); // throws with the layout it found
            }
            long at = ValueHeader.expireAt(in, off);
            if (ValueHeader.isPast(at, now)) {
                dead.add(e.key().get().clone());
                return;
            }
            count[0]++;
            count[3] += footprint((int) e.key().size(), d);
            byte[] mk = e.key().get();
            if (KeyCodec.isDigest(mk)) {
                liveKeyFiles.add(KeyCodec.fileName(mk));
            }
            if (at != ValueHeader.NO_EXPIRY) {
                count[1]++;
                count[2] += at - DEADLINE_BASE;
                expiryListener.file(this, e.key().get(), ValueHeader.wheelAt(in, off));
            }
            long blob = ValueHeader.blobIdOrNone(in, off);
            if (blob != ValueHeader.NO_BLOB) {
                liveBlobs.add(blob);
            }
        });
        for (byte[] k : dead) {
            map().remove(k);
        }
        reset(keys, count[0]);
        reset(volatileKeys, count[1]);
        reset(deadlineSum, count[2]);
        reset(liveBytes, count[3]);
        int orphans = blobs.sweep(liveBlobs);
        blobs.sweepKeyFiles(liveKeyFiles);
        if (!dead.isEmpty() || orphans > 0) {
            log.info("{}: removed {} keys that expired while down, {} orphaned blobs", name, dead.size(), orphans);
        }
    }

    public String name() {
        return name;
    }

    public Clock clock() {
        return clock;
    }

    /** A process-unique number (the expiry wheel files records by it). */
    public int id() {
        return id;
    }

    public boolean isClosed() {
        return closed;
    }

    private ChronicleMap<byte[], byte[]> map() {
        ChronicleMap<byte[], byte[]> m = file.map();
        if (m == null) {
            m = wake();
        }
        if (!used) {
            used = true;
        }
        return m;
    }

    // ------------------------------------------------------------------ idle close

    /*
     * An idle keyspace gives back what it costs: release() closes its map (its memory and its file
     * descriptor) and deletes its journals, and keeps everything else: its counts, its watches,
     * its place in the expiry wheel, and this object, which every caller keeps using. The first
     * operation that needs the map maps it again (wake(); a few ms from a cold page cache). release() holds
     * every stripe and the map lock, so no operation is inside the map meanwhile; every path to
     * the map goes through map(), with a stripe or the map lock held, and wake() is serialised.
     */

    /** Set by every use of the map; the store's idle sweep reads and clears it. */
    private boolean used = true;
    /** When the idle sweep last saw this keyspace used (clock millis). */
    private volatile long lastUsed;
    /** Told when the map is mapped again; the store counts open maps. */
    private volatile Runnable onWake;

    void onWake(Runnable r) {
        this.onWake = r;
    }

    /**
     * Maps the released map again. The clean state goes first: from now on the map may change, and
     * a crash must lead to a scan.
     */
    private synchronized ChronicleMap<byte[], byte[]> wake() {
        ChronicleMap<byte[], byte[]> m = file.map();
        if (m != null) {
            return m;
        }
        if (closed) {
            throw new IllegalStateException("keyspace " + name + " is closed");
        }
        try {
            CleanState.discard(dir);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        m = file.reopen();
        Runnable r = onWake;
        if (r != null) {
            r.run();
        }
        return m;
    }

    /** Whether the map is mapped now (false: released, or closed). */
    public boolean isMapped() {
        return !closed && file.isOpen();
    }

    /**
     * The idle sweep's look at this keyspace: notes a use since the last look at {@code now}, and
     * returns when it was last seen used.
     */
    long sweepLastUsed(long now) {
        if (used) {
            used = false;
            lastUsed = now;
        }
        return lastUsed;
    }

    /**
     * Closes the map and deletes the journals of a keyspace nobody is using (see the prose
     * above); returns whether it did. With no key that has a deadline it also writes a clean
     * state, so a restart, even after a crash, opens it released without a scan. (With such keys
     * the clean state needs their expiry records, which only a walk of the whole wheel lists: a
     * crash restart scans such a keyspace, a clean shutdown writes its state as before.)
     */
    public boolean release() {
        lockAll();
        try {
            if (closed || !file.isOpen()) {
                return false;
            }
            dropJournals();
            file.release();
            if (volatileKeys.sum() == 0) {
                writeCleanState(List.of());
            }
            return true;
        } finally {
            unlockAll();
        }
    }

    private void writeCleanState(List<CleanState.Entry> records) {
        try {
            CleanState.write(dir, file.file(), keys.sum(), volatileKeys.sum(), deadlineSum.sum(), liveBytes.sum(),
                    records);
        } catch (IOException | RuntimeException e) {
            log.warn("{}: could not save its clean-shutdown state ({}); the next open scans the map", name,
                    e.toString());
        }
    }

    // ------------------------------------------------------------------ locking

    /** Chronicle's hash of a stored key: its low bits pick the key's segment. */
    private static long segmentHash(byte[] key) {
        return dev.cajon.storage.chronicle.ByteArrayAccess.xxHash64(key);
    }

    /**
     * The stripe of {@code key}: the low bits of Chronicle's own hash of it, which are also its
     * segment index (Chronicle's segment counts are powers of two). So in a map of at least
     * {@value #STRIPES} segments (2M entries and up) a segment's keys all share one stripe, and
     * two threads that hold different stripes never meet on a segment lock; in a smaller map a
     * segment's keys spread over {@value #STRIPES} / segments stripes. Why it matters:
     * Chronicle's segment locks spin, and on 2 cores a thread that took one and was then
     * descheduled kept whoever wanted that segment spinning through its time slice (an expiry
     * storm's reapers against the event loops, in a 4M-entry map); stripe locks park.
     */
    static int stripeOf(byte[] key) {
        return (int) segmentHash(key) & (STRIPES - 1);
    }

    /** Locks the stripe of {@code key} and returns its index. */
    private int lockStripe(byte[] key) {
        int s = stripeOf(key);
        lockIndex(s);
        return s;
    }

    /** Stripe {@code i}'s lock as it is now; null if never used (then nobody holds it). */
    private ReentrantLock stripe(int i) {
        return locks.get(i);
    }

    /** Whether this thread holds stripe {@code i}. */
    private boolean holds(int i) {
        return locks.holds(i);
    }

    /** Takes stripe {@code i}'s lock (see {@link StripeLocks#lock}). */
    private ReentrantLock lockIndex(int i) {
        return locks.lock(i);
    }

    /** For tests: the stripes of the stored keys, by the Chronicle segment that holds them. */
    java.util.Map<Integer, java.util.Set<Integer>> stripesBySegment() {
        lockAll();
        try {
            java.util.Map<Integer, java.util.Set<Integer>> out = new java.util.TreeMap<>();
            ChronicleMap<byte[], byte[]> m = map();
            for (int seg = 0; seg < m.segments(); seg++) {
                java.util.Set<Integer> stripesOfSeg = new java.util.TreeSet<>();
                try (var ctx = m.segmentContext(seg)) {
                    ctx.forEachSegmentEntry(e -> stripesOfSeg.add(stripeOf(e.key().get())));
                }
                if (!stripesOfSeg.isEmpty()) {
                    out.put(seg, stripesOfSeg);
                }
            }
            return out;
        } finally {
            unlockAll();
        }
    }

    /** For tests: the current map's segment count. */
    int segments() {
        return map().segments();
    }

    /** Signals that the map ran out of room mid-operation; the operation is retried after growth. */
    private static final class CapacityExhausted extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /**
         * A multi-key write that could not be taken back entirely: part of it stays applied, and
         * its retry must complete it rather than decide again (MSETNX).
         */
        boolean partlyApplied;

        CapacityExhausted(Throwable cause) {
            super(null, cause, false, false);
        }
    }

    private <T> T locked(byte[] key, Supplier<T> op) {
        return locked(key, key, op);
    }

    /**
     * Runs {@code op} under the stripe lock of {@code key} (a stored key), growing the map and
     * retrying if it ran out of room. {@code userKey} is the client's key: when it differs (a
     * digest key, see {@link KeyCodec}), its key file is brought in line before the lock is let go.
     */
    private <T> T locked(byte[] key, byte[] userKey, Supplier<T> op) {
        for (int attempt = 0; ; attempt++) {
            ReentrantLock l = stripe(lockStripe(key));
            try {
                return op.get();
            } catch (CapacityExhausted e) {
                retryOrGiveUp(e, attempt);
            } finally {
                syncKeyFile(key, userKey);
                l.unlock();
                if (!l.isHeldByCurrentThread()) {
                    growIfNeeded(); // not inside an atomic section, which grows when it ends
                }
            }
            grow(true);
        }
    }

    private <T> T locked(byte[][] keyList, Supplier<T> op) {
        return locked(keyList, keyList, op);
    }

    /** {@link #locked(byte[], byte[], Supplier)} for several keys, locked in stripe order. */
    private <T> T locked(byte[][] keyList, byte[][] userKeys, Supplier<T> op) {
        int[] idx = new int[keyList.length];
        for (int i = 0; i < keyList.length; i++) {
            idx[i] = stripeOf(keyList[i]);
        }
        Arrays.sort(idx);
        // shared with transactions: DBSIZE, KEYS, SCAN and RANDOMKEY (exclusive) never see an
        // MSET, a DEL of several keys or a RENAME half done
        boolean gated = idx[0] != idx[idx.length - 1];
        for (int attempt = 0; ; attempt++) {
            int taken = 0;
            if (gated) {
                txGate.readLock().lock();
            }
            try {
                for (int i = 0; i < idx.length; i++) {
                    if (i == 0 || idx[i] != idx[i - 1]) {
                        lockIndex(idx[i]);
                    }
                    taken = i + 1;
                }
                return op.get();
            } catch (CapacityExhausted e) {
                retryOrGiveUp(e, attempt);
            } finally {
                if (taken == idx.length) {
                    for (int i = 0; i < keyList.length; i++) {
                        syncKeyFile(keyList[i], userKeys[i]);
                    }
                }
                for (int i = taken - 1; i >= 0; i--) {
                    if (i == 0 || idx[i] != idx[i - 1]) {
                        stripe(idx[i]).unlock();
                    }
                }
                if (gated) {
                    txGate.readLock().unlock();
                }
                if (!holds(idx[0])) {
                    growIfNeeded();
                }
            }
            Runnable hook = beforeRetry;
            if (hook != null) {
                hook.run();
            }
            grow(true, keyList.length);
        }
    }

    /**
     * A locked operation ran out of room: it is retried after growth, unless it runs inside an
     * atomic section that holds only some stripes (growing needs all of them, and other threads
     * may wait for ours while holding theirs), which is taken back and retried whole instead.
     */
    private void retryOrGiveUp(CapacityExhausted e, int attempt) {
        Section s = section.get();
        if (s != null && !s.whole) {
            s.outOfRoom = true; // the section sees it even if a caller turns the exception into a reply
            throw e;
        }
        if (attempt >= MAX_GROW_RETRIES) {
            throw new IllegalStateException("keyspace " + name + " cannot grow", e.getCause());
        }
    }

    /**
     * For tests: runs when a multi-key command ran out of room, after it let its stripes go and
     * before the map grows for its retry; the one moment another client could see the keyspace
     * between the two attempts.
     */
    volatile Runnable beforeRetry;

    /**
     * For tests: how many writes a take-back restores before it acts as if putting an old value
     * back ran out of room (the rare case {@link #takeBack} stops part way).
     */
    volatile int takeBackRoom = Integer.MAX_VALUE;

    /** Every stripe plus the map lock: nothing else runs on this keyspace meanwhile. */
    private void lockAll() {
        locks.lockAll();
    }

    private void unlockAll() {
        locks.unlockAll();
    }

    // ------------------------------------------------------------------ transactions

    /*
     * Atomic sections: how EXEC is isolated and crash-atomic.
     *
     * EXEC knows every key its queued commands touch (the command table's key positions), so it
     * runs them as one section that holds those keys' stripes, in stripe order like any multi-key
     * command, plus txGate shared. Commands inside re-enter the stripe locks (they are
     * reentrant). Nothing else can touch those keys meanwhile, and DBSIZE, SCAN, KEYS and
     * RANDOMKEY take txGate exclusively, so they wait for the section to end: no client observes
     * a transaction half done. Transactions on disjoint keys run in parallel on different event
     * loops. A transaction whose commands are keyspace-wide (FLUSHDB, DBSIZE, KEYS ...) runs with
     * the whole keyspace held instead (`whole`): every stripe, the map lock and txGate.
     *
     * Growth needs every stripe. Inside a keyed section it cannot wait for them (another thread
     * may hold one while waiting for ours), so growth is put off until the section ends, and a
     * write that finds the map full marks the section: its writes are taken back from the
     * snapshot, the stripes are let go, the map grows and the whole section runs again. A whole
     * section holds everything, so it grows in place.
     *
     * Crash atomicity: before the first command runs, the section writes every key's stored value
     * (or "absent") to the transaction journal as an undo record and marks it pending; it ends
     * the record once the last command is done. Opening the keyspace applies a pending undo
     * record after every other journal, so an interrupted EXEC is there completely (it ended) or
     * not at all. For the undo record to stay true, files are not deleted inside a section:
     * blobs and long-key files that commands let go are deleted only after the record ends.
     */

    /** For tests: false makes a keyed section meet a full map in the middle instead of growing first. */
    volatile boolean growBeforeSection = true;

    /** For tests: the capacity of the current generation. */
    long capacity() {
        return file.capacity();
    }

    /** What a section defers until it ends. */
    private static final class Section {
        final boolean whole;
        final List<Long> deadBlobs = new ArrayList<>();
        final List<String> deadKeyFiles = new ArrayList<>();
        /** A write ran out of room inside a keyed section: take back, grow and run again. */
        boolean outOfRoom;

        Section(boolean whole) {
            this.whole = whole;
        }
    }

    /** Deletes a blob file now, or when this thread's atomic section ends. */
    private void dropBlob(long id) {
        Section s = section.get();
        if (s != null) {
            s.deadBlobs.add(id);
        } else {
            blobs.delete(id);
        }
    }

    /** Deletes a long key's file now, or when this thread's atomic section ends. */
    private void dropKeyFile(String fileName) {
        Section s = section.get();
        if (s != null) {
            s.deadKeyFiles.add(fileName);
        } else {
            blobs.deleteKeyFile(fileName);
        }
    }

    /** A key changed: the watches on it are dirty. The key's stripe lock is held. */
    private void touched(byte[] key) {
        if (watches.active()) {
            watches.touched(key);
        }
    }

    /**
     * Runs {@code op} as one atomic section over {@code userKeys} (every key it may touch), or
     * over the whole keyspace: no other command on this keyspace sees part of what it does (see
     * the prose above). With {@code undo}, a crash during {@code op} leaves none of its writes
     * after the restart. {@code op} may run more than once (after growth) and must start afresh
     * each time. Sections on several keyspaces nest, taken in db order; only whole ones may nest.
     */
    public <T> T atomically(byte[][] userKeys, boolean whole, boolean undo, Supplier<T> op) {
        if (section.get() != null) {
            throw new IllegalStateException("an atomic section is already running on " + name);
        }
        byte[][] stored = new byte[userKeys.length][];
        for (int i = 0; i < stored.length; i++) {
            stored[i] = KeyCodec.mapKey(userKeys[i]);
        }
        int[] idx = whole ? null : distinctStripes(stored);
        if (!whole && growBeforeSection && stored.length > 0 && keys.sum() + stored.length > file.capacity()) {
            grow(true, stored.length); // room first: a keyed section cannot grow in the middle
        }
        for (int attempt = 0; ; attempt++) {
            Section s = new Section(whole);
            enter(s, idx);
            Undo before = null;
            int token = NO_BATCH;
            boolean retry = false;
            try {
                if (undo && stored.length > 0) {
                    before = snapshot(stored);
                    token = txJournal().begin(whole ? 0 : idx[0], undoRecord(before));
                }
                section.set(s);
                T result = null;
                try {
                    result = op.get();
                } catch (CapacityExhausted e) {
                    if (!s.outOfRoom) {
                        throw e;
                    } // else op let it through instead of turning it into a reply: retried below
                }
                if (!s.outOfRoom) {
                    return result;
                }
                if (attempt >= MAX_GROW_RETRIES) {
                    throw new IllegalStateException("keyspace " + name + " cannot grow");
                }
                if (before != null) {
                    restore(before, s, idx);
                }
                retry = true;
            } finally {
                section.remove();
                if (token != NO_BATCH) {
                    txJournal.end(token);
                }
                exit(s, idx);
                // only now that the undo record is ended may the files it names go
                finish(s, userKeys, stored, retry ? before : null);
            }
            grow(true, stored.length);
        }
    }

    private static int[] distinctStripes(byte[][] keys) {
        int[] idx = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            idx[i] = stripeOf(keys[i]);
        }
        return Arrays.stream(idx).sorted().distinct().toArray();
    }

    private void enter(Section s, int[] idx) {
        if (s.whole) {
            txGate.writeLock().lock();
            lockAll();
            return;
        }
        txGate.readLock().lock();
        for (int i : idx) {
            lockIndex(i);
        }
    }

    private void exit(Section s, int[] idx) {
        if (s.whole) {
            unlockAll();
            txGate.writeLock().unlock();
            return;
        }
        for (int i = idx.length - 1; i >= 0; i--) {
            stripe(idx[i]).unlock();
        }
        txGate.readLock().unlock();
    }

    /** Every key's stored bytes as the section starts (null: absent), each key once. */
    private Undo snapshot(byte[][] keys) {
        Undo u = new Undo();
        Set<java.nio.ByteBuffer> seen = new HashSet<>();
        for (byte[] k : keys) {
            if (seen.add(java.nio.ByteBuffer.wrap(k))) {
                u.written(k, map().get(k), ValueHeader.NO_BLOB);
            }
        }
        return u;
    }

    private static List<BatchJournal.Entry> undoRecord(Undo u) {
        List<BatchJournal.Entry> record = new ArrayList<>(u.keys.size());
        for (int i = 0; i < u.keys.size(); i++) {
            record.add(new BatchJournal.Entry(u.keys.get(i), u.before.get(i)));
        }
        return record;
    }

    /**
     * Puts every key of a keyed section back as the snapshot has it. Putting an old value back
     * can itself run out of room; then the map grows (the stripes let go meanwhile) and the
     * take-back goes on, so the section never runs again on top of part of itself.
     */
    private void restore(Undo before, Section s, int[] idx) {
        for (int round = 0; ; round++) {
            takeBack(before);
            if (before.applied == 0) {
                break;
            }
            if (round >= MAX_GROW_RETRIES) {
                throw new IllegalStateException("keyspace " + name + " cannot grow to take a transaction back");
            }
            exit(s, idx);
            try {
                grow(true);
            } finally {
                enter(s, idx);
            }
        }
        s.deadBlobs.addAll(before.deadBlobs);
        before.deadBlobs.clear();
    }

    /**
     * After a section: deletes the files it let go (those its snapshot names stay when it was
     * taken back), brings long keys' files in line, and grows the map if it passed its capacity.
     */
    private void finish(Section s, byte[][] userKeys, byte[][] keys, Undo takenBack) {
        Set<Long> named = new HashSet<>();
        if (takenBack != null) {
            for (byte[] v : takenBack.before) {
                if (v != null && ValueHeader.isBlob(v)) {
                    named.add(ValueHeader.blobId(v));
                }
            }
        }
        for (long id : s.deadBlobs) {
            if (!named.contains(id)) {
                blobs.delete(id);
            }
        }
        if (!s.deadKeyFiles.isEmpty() || takenBack != null) {
            for (int i = 0; i < keys.length; i++) {
                int st = stripeOf(keys[i]);
                ReentrantLock l = lockIndex(st);
                try {
                    syncKeyFile(keys[i], userKeys[i]);
                } finally {
                    l.unlock();
                }
            }
        }
        growIfNeeded();
    }

    /** The write journal, created by the first overwrite since the keyspace opened or woke. */
    private WriteJournal writeJournal() {
        WriteJournal j = journal;
        if (j == null) {
            synchronized (this) {
                j = journal;
                if (j == null) {
                    j = WriteJournal.open(dir.resolve(JOURNAL_FILE), STRIPES);
                    journal = j;
                }
            }
        }
        return j;
    }

    /**
     * Ends the write of {@code slot} if one was begun. Without a journal none was: the slot's
     * stripe holder would have created it.
     */
    private void endWrite(int slot) {
        WriteJournal j = journal;
        if (j != null) {
            j.end(slot);
        }
    }

    /** The batch journal, created by the first multi-key write (see {@link #writeJournal}). */
    private BatchJournal batchJournal() {
        BatchJournal j = batch;
        if (j == null) {
            synchronized (this) {
                j = batch;
                if (j == null) {
                    j = BatchJournal.open(dir.resolve(BATCH_FILE), STRIPES);
                    batch = j;
                }
            }
        }
        return j;
    }

    /**
     * Unmaps and deletes every journal; nothing is in flight (every stripe is held, or the
     * journals were just replayed). They are created again by the first write that needs one.
     */
    private void dropJournals() {
        WriteJournal j = journal;
        BatchJournal b = batch;
        BatchJournal t = txJournal;
        journal = null;
        batch = null;
        txJournal = null;
        if (j != null) {
            j.closeAndDelete();
        }
        if (b != null) {
            b.closeAndDelete();
        }
        if (t != null) {
            t.closeAndDelete();
        }
    }

    private BatchJournal txJournal() {
        BatchJournal j = txJournal;
        if (j == null) {
            synchronized (this) {
                j = txJournal;
                if (j == null) {
                    j = BatchJournal.open(dir.resolve(TX_FILE), STRIPES);
                    txJournal = j;
                }
            }
        }
        return j;
    }

    /** WATCH: the key's changes from now on make {@link #changed} true. */
    public dev.cajon.storage.tx.Watch watch(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return locked(key, userKey, () -> {
            readLive(key); // a key already past its deadline goes now: its removal is no change
            return watches.add(key);
        });
    }

    /** UNWATCH (also EXEC, DISCARD and a closed connection) of one watch. */
    public void unwatch(dev.cajon.storage.tx.Watch w) {
        int st = lockStripe(w.storedKey());
        try {
            watches.remove(w);
        } finally {
            stripe(st).unlock();
        }
    }

    /**
     * Whether a watched key changed since WATCH, including by passing its deadline (the lazy
     * check runs now). Call inside an atomic section that holds the key.
     */
    public boolean changed(dev.cajon.storage.tx.Watch w) {
        if (!holds(stripeOf(w.storedKey()))) {
            throw new IllegalStateException("changed() outside an atomic section holding the key");
        }
        readLive(w.storedKey());
        return w.dirty();
    }

    /** DBSIZE: the live key count, never counting part of a transaction. */
    public long dbsize() {
        txGate.writeLock().lock();
        try {
            return keys.sum();
        } finally {
            txGate.writeLock().unlock();
        }
    }

    // ------------------------------------------------------------------ growth

    /**
     * After a write: grows when the keys outnumber the capacity, or when Chronicle chained an
     * extra tier to a map of under a million entries (see {@link MapFile#tierAdded}; a bigger
     * map's tiers come from uneven segments, and copying millions of keys for one is worse).
     */
    private void growIfNeeded() {
        if (keys.sum() > file.capacity() || tierGrowth()) {
            grow(false);
        }
    }

    private boolean tierGrowth() {
        return file.capacity() < TIER_GROWTH_MAX && file.tierAdded();
    }

    private static final long TIER_GROWTH_MAX = 1L << 20;

    /**
     * Moves every live key into a new generation four times the old capacity while that is
     * under 4M entries, then twice (and at least twice the live count). Holds every stripe, so
     * all commands on this keyspace wait for it (a few hundred ms per million keys).
     */
    private void grow(boolean forced) {
        grow(forced, 0);
    }

    /**
     * An operation that ran out of room is retried after growth this many times: each growth at
     * least quadruples a small map, and also makes room for every key the operation names, so
     * only values far larger than the average so far need more than one.
     */
    private static final int MAX_GROW_RETRIES = 5;

    /** {@link #grow(boolean)} with room for {@code incoming} more keys (a multi-key command's). */
    private void grow(boolean forced, long incoming) {
        lockAll();
        try {
            map(); // a released map is mapped (and its clean state dropped) before it changes
            long live = keys.sum();
            if (!forced && live <= file.capacity() && !tierGrowth()) {
                return; // someone else grew it
            }
            // quadruple while small (fewer stop-the-world copies on the way up), then double
            long factor = file.capacity() < (1 << 22) ? 4 : 2;
            long target = Math.max(file.capacity() * factor, (live + incoming) * 2);
            long n = Math.max(1, puts.sum());
            int avgKey = (int) Math.max(8, Math.min(4096, keyBytes.sum() / n + 1));
            int avgValue = (int) Math.max(8, Math.min(ValueHeader.headerLength(0) + BLOB_THRESHOLD,
                    valueBytes.sum() / n + 1));
            long now = clock.nowMillis();
            long[] kept = new long[4];
            List<Long> deadBlobs = new ArrayList<>();
            file.grow(target, avgKey, avgValue, (k, v) -> {
                if (ValueHeader.isExpired(v, now)) {
                    touched(k);
                    if (ValueHeader.isBlob(v)) {
                        deadBlobs.add(ValueHeader.blobId(v));
                    }
                    expired.increment();
                    return false;
                }
                kept[0]++;
                kept[3] += footprint(k, v);
                long at = ValueHeader.expireAt(v);
                if (at != ValueHeader.NO_EXPIRY) {
                    kept[1]++;
                    kept[2] += at - DEADLINE_BASE;
                }
                return true;
            });
            reset(keys, kept[0]);
            reset(volatileKeys, kept[1]);
            reset(deadlineSum, kept[2]);
            reset(liveBytes, kept[3]);
            epoch++;
            deadBlobs.forEach(blobs::delete);
        } finally {
            unlockAll();
        }
    }

    // ------------------------------------------------------------------ primitives (stripe held)

    /** The stored bytes of a live key, or null. Deletes the key if its deadline has passed. */
    private byte[] readLive(byte[] key) {
        byte[] v = map().get(key);
        if (v == null) {
            return null;
        }
        if (ValueHeader.isExpired(v, clock.nowMillis())) {
            removeStored(key, v);
            expired.increment();
            return null;
        }
        return v;
    }

    /** Whether a walked entry is past its deadline, read in place (no copy of the value). */
    private static boolean isExpired(net.openhft.chronicle.hash.Data<byte[]> value, long now) {
        return ValueHeader.isExpired(value.bytes(), value.offset(), now);
    }

    private void removeStored(byte[] key, byte[] stored) {
        map().remove(key);
        touched(key);
        if (KeyCodec.isDigest(key)) {
            dropKeyFile(KeyCodec.fileName(key));
        }
        accountRemoval(ValueHeader.expireAt(stored), ValueHeader.isBlob(stored) ? ValueHeader.blobId(stored)
                : ValueHeader.NO_BLOB, footprint(key, stored));
    }

    /** What a key takes for the byte quota: its stored key, its map value, and its blob if any. */
    private static long footprint(byte[] key, byte[] stored) {
        return key.length + stored.length + (ValueHeader.isBlob(stored) ? ValueHeader.blobLength(stored) : 0);
    }

    /** {@link #footprint(byte[], byte[])} of an entry read in place. */
    private static long footprint(int keyLength, net.openhft.chronicle.hash.Data<byte[]> value) {
        return keyLength + value.size() + ValueHeader.blobLengthOrZero(value.bytes(), value.offset());
    }

    /**
     * Writes {@code stored} over {@code old} (null when the key is new), keeps the counts, and
     * keeps the expiry wheel's invariant: a key with a deadline has exactly one valid wheel record,
     * the one filed for the time its header's wheel-at names, and that time is not after the
     * deadline. Other records for the key are stale and are dropped when they fire.
     * <ul>
     *   <li>The valid record fires no later than the new deadline (an extension, or an unchanged
     *       deadline): nothing is filed and the wheel-at is carried over. When it fires, the
     *       record re-files itself at the then-current deadline. A sliding session keeps one
     *       record however often it is renewed.</li>
     *   <li>Otherwise (a new TTL, or a shortened one) a record is filed at the new deadline and
     *       becomes the valid one; an earlier record, if any, is now stale.</li>
     * </ul>
     */
    private void put(byte[] key, byte[] stored, byte[] old) {
        long oldAt = old == null ? ValueHeader.NO_EXPIRY : ValueHeader.expireAt(old);
        long oldWheel = old == null ? ValueHeader.NO_EXPIRY : ValueHeader.wheelAt(old);
        long at = ValueHeader.expireAt(stored);
        boolean fileRecord = needsRecord(at, oldWheel);
        stored = withWheel(stored, at, oldWheel, fileRecord);
        // only an overwrite needs the journal: a torn insert is dropped by recovery, which is
        // the state before the (unacknowledged) write
        int slot = old != null ? stripeOf(key) : -1;
        if (slot >= 0) {
            writeJournal().begin(slot, key, stored);
        }
        try {
            map().put(key, stored);
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new CapacityExhausted(e);
        } finally {
            if (slot >= 0) {
                endWrite(slot);
            }
        }
        touched(key);
        accountWrite(key, stored, old != null, old == null ? 0 : footprint(key, old), oldAt, at, fileRecord);
    }

    /** Whether a write with deadline {@code at} needs a new wheel record (see {@link #put}). */
    private static boolean needsRecord(long at, long oldWheel) {
        return at != ValueHeader.NO_EXPIRY && (oldWheel == ValueHeader.NO_EXPIRY || oldWheel > at);
    }

    /** The value to store: with the key's valid record time as its wheel-at. */
    private static byte[] withWheel(byte[] stored, long at, long oldWheel, boolean fileRecord) {
        return at == ValueHeader.NO_EXPIRY ? stored : ValueHeader.withWheelAt(stored, fileRecord ? at : oldWheel);
    }

    /** The counts and the wheel after a write; {@code existed}: the key was live before it. */
    private void accountWrite(byte[] key, byte[] stored, boolean existed, long oldBytes, long oldAt, long at,
                              boolean fileRecord) {
        if (!existed) {
            keys.increment();
        }
        liveBytes.add(footprint(key, stored) - oldBytes);
        boolean wasVolatile = oldAt != ValueHeader.NO_EXPIRY;
        boolean isVolatile = at != ValueHeader.NO_EXPIRY;
        if (wasVolatile != isVolatile) {
            volatileKeys.add(isVolatile ? 1 : -1);
        }
        if (oldAt != at) {
            deadlineSum.add((isVolatile ? at - DEADLINE_BASE : 0) - (wasVolatile ? oldAt - DEADLINE_BASE : 0));
        }
        keyBytes.add(key.length);
        valueBytes.add(stored.length);
        puts.increment();
        if (fileRecord) {
            expiryListener.file(this, key, at);
        }
    }

    /** Sets a counter; only with every stripe held (or before the keyspace is shared). */
    private static void reset(LongAdder counter, long value) {
        counter.reset();
        counter.add(value);
    }

    /** A key found past its deadline was removed or overwritten: the counts, expired_keys, its blob. */
    private void accountExpired(long at, long blobId, long bytes) {
        accountRemoval(at, blobId, bytes);
        expired.increment();
    }

    /** The counts after a live key was removed; deletes its blob. */
    private void accountRemoval(long oldAt, long blobId, long bytes) {
        keys.decrement();
        liveBytes.add(-bytes);
        if (oldAt != ValueHeader.NO_EXPIRY) {
            volatileKeys.decrement();
            deadlineSum.add(-(oldAt - DEADLINE_BASE));
        }
        if (blobId != ValueHeader.NO_BLOB) {
            dropBlob(blobId);
        }
    }

    /** Encodes a new string value, spilling to a blob file when it is large. */
    private byte[] encode(byte[] value, int off, int len, long expireAt) {
        if (len > BLOB_THRESHOLD) {
            long id = blobs.create(value, off, len);
            return ValueHeader.blob(id, len, expireAt);
        }
        return ValueHeader.raw(value, off, len, expireAt);
    }

    /** Puts a freshly encoded value; on failure the new blob (if any) is removed again. */
    private void putEncoded(byte[] key, byte[] stored, byte[] old) {
        putEncoded(key, stored, old, null);
    }

    /** {@link #putEncoded} as one write of a batch that may have to be taken back ({@code undo}). */
    private void putEncoded(byte[] key, byte[] stored, byte[] old, Undo undo) {
        try {
            put(key, stored, old);
        } catch (CapacityExhausted e) {
            long unwritten = blobLeftBy(stored, old);
            if (unwritten != ValueHeader.NO_BLOB) {
                if (undo != null) {
                    undo.deadBlobs.add(unwritten); // named by the batch journal until it ends
                } else {
                    dropBlob(unwritten);
                }
            }
            throw e;
        }
        long oldBlob = blobLeftBy(old, stored);
        if (undo != null) {
            undo.written(key, old, oldBlob);
        } else if (oldBlob != ValueHeader.NO_BLOB) {
            dropBlob(oldBlob);
        }
    }

    /**
     * The blob file of {@code gone} that nothing names once {@code kept} is the key's value (same
     * blob: none); NO_BLOB when {@code gone} is null or not a blob.
     */
    private static long blobLeftBy(byte[] gone, byte[] kept) {
        if (gone == null || !ValueHeader.isBlob(gone)) {
            return ValueHeader.NO_BLOB;
        }
        long id = ValueHeader.blobId(gone);
        return kept != null && ValueHeader.isBlob(kept) && ValueHeader.blobId(kept) == id ? ValueHeader.NO_BLOB : id;
    }

    /** A readable view of a stored string; blob values get their own open channel. */
    private StringValue view(byte[] stored) {
        if (ValueHeader.isBlob(stored)) {
            return StringValue.blob(blobs.open(ValueHeader.blobId(stored)), 0, ValueHeader.blobLength(stored));
        }
        int off = ValueHeader.payloadOffset(stored);
        return StringValue.of(stored, off, stored.length - off);
    }

    /** The string's bytes on the heap (bounded callers only: counters, APPEND to small values). */
    private byte[] bytesOf(byte[] stored) {
        if (ValueHeader.isBlob(stored)) {
            long len = ValueHeader.blobLength(stored);
            return blobs.read(ValueHeader.blobId(stored), 0, (int) len);
        }
        int off = ValueHeader.payloadOffset(stored);
        return Arrays.copyOfRange(stored, off, stored.length);
    }

    // ------------------------------------------------------------------ keys too long for the map

    /**
     * For a digest key (see {@link KeyCodec}): the file holding the client's key exists exactly
     * while the key does. Called with the key's stripe lock held, after every operation on it.
     */
    private void syncKeyFile(byte[] key, byte[] userKey) {
        if (key == userKey || !KeyCodec.isDigest(key)) {
            return;
        }
        String name = KeyCodec.fileName(key);
        if (map().containsKey(key)) {
            blobs.ensureKeyFile(name, userKey);
        } else if (section.get() == null) {
            blobs.deleteKeyFile(name);
        } // in an atomic section the file stays until it ends: its undo record may name the key
    }

    /**
     * For a multi-key write: a long (digest) key gets its key file before the map is written, so
     * that a batch applied again after a crash finds it (SCAN and KEYS name digest keys through
     * it). If the command does not complete, the next open sweeps the file with the other orphans.
     */
    private void ensureKeyFileFirst(byte[] key, byte[] userKey) {
        if (key != userKey && KeyCodec.isDigest(key)) {
            blobs.ensureKeyFile(KeyCodec.fileName(key), userKey);
        }
    }

    private static byte[][] mapKeys(byte[][] userKv) {
        byte[][] kv = userKv.clone();
        for (int i = 0; i < kv.length; i += 2) {
            kv[i] = KeyCodec.mapKey(kv[i]);
        }
        return kv;
    }

    /** The client's key for a stored key, or null if a digest key's file is missing. */
    private byte[] userKeyOf(byte[] mapKey) {
        if (KeyCodec.isDigest(mapKey)) {
            return blobs.readKeyFile(KeyCodec.fileName(mapKey));
        }
        return KeyCodec.userKey(mapKey);
    }

    // ------------------------------------------------------------------ strings

    /** GET: the value, or null when the key is absent. */
    public StringValue get(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return locked(key, userKey, () -> {
            byte[] v = readLive(key);
            return v == null ? null : view(v);
        });
    }

    /**
     * MGET: the values of {@code userKeys[from..]} (null where absent), read with all their
     * stripes held, so that the reply is one moment of the keyspace (a transaction or an MSET is
     * seen whole or not at all).
     */
    public StringValue[] getAll(byte[][] userKeys, int from) {
        int n = userKeys.length - from;
        byte[][] uk = Arrays.copyOfRange(userKeys, from, userKeys.length);
        byte[][] ks = new byte[n][];
        for (int i = 0; i < n; i++) {
            ks[i] = KeyCodec.mapKey(uk[i]);
        }
        return locked(ks, uk, () -> {
            StringValue[] out = new StringValue[n];
            for (int i = 0; i < n; i++) {
                byte[] v = readLive(ks[i]);
                out[i] = v == null ? null : view(v);
            }
            return out;
        });
    }

    /** Receives a string value's bytes; the array is reused once the call returns. */
    @FunctionalInterface
    public interface ValueReader {
        void read(byte[] array, int off, int len);
    }

    /** {@link #readInto}: the reader received the value. */
    public static final int READ = 1;
    /** {@link #readInto}: no such key. */
    public static final int ABSENT = 0;
    /** {@link #readInto}: not a plain small value (a blob, a digest key, just expired): use {@link #get}. */
    public static final int USE_GET = -1;

    /** Per-thread copy buffer of {@link #readInto}; grows to the largest inline value read. */
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[256]);

    /**
     * GET without garbage: the value's bytes are copied straight from the map entry into a
     * per-thread buffer and handed to {@code reader} (after every lock is let go), with no
     * {@code byte[]} or view allocated per call. Handles the common case only; anything else
     * (a blob value, a key stored by digest, a key past its deadline that must be removed)
     * returns {@link #USE_GET} without calling the reader.
     */
    public int readInto(byte[] userKey, ValueReader reader) {
        if (KeyCodec.mapKey(userKey) != userKey) {
            return USE_GET;
        }
        byte[] key = userKey;
        int len;
        byte[] scratch;
        ReentrantLock l = stripe(lockStripe(key));
        try (net.openhft.chronicle.map.ExternalMapQueryContext<byte[], byte[], ?> q = map().queryContext(key)) {
            q.readLock().lock();
            net.openhft.chronicle.map.MapEntry<byte[], byte[]> e = q.entry();
            if (e == null) {
                return ABSENT;
            }
            net.openhft.chronicle.hash.Data<byte[]> d = e.value();
            net.openhft.chronicle.bytes.RandomDataInput in = d.bytes();
            long off = d.offset();
            long at = ValueHeader.expireAt(in, off);
            if (ValueHeader.isPast(at, clock.nowMillis()) || ValueHeader.blobIdOrNone(in, off) != ValueHeader.NO_BLOB) {
                return USE_GET;
            }
            int h = ValueHeader.headerLength(in, off);
            len = (int) (d.size() - h);
            scratch = SCRATCH.get();
            if (scratch.length < len) {
                scratch = new byte[Math.max(len, scratch.length * 2)];
                SCRATCH.set(scratch);
            }
            in.read(off + h, scratch, 0, len);
        } catch (IllegalStateException e) {
            return USE_GET; // a closed map, for one: the general path reports it properly
        } finally {
            l.unlock();
        }
        reader.read(scratch, 0, len);
        return READ;
    }

    /** STRLEN: 0 when absent. */
    public long strlen(byte[] userKey) {
        return Math.max(0, strlenOrAbsent(userKey));
    }

    /** The string's length, or -1 when the key is absent (STRLEN counts a keyspace miss then). */
    public long strlenOrAbsent(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return locked(key, userKey, () -> {
            byte[] v = readLive(key);
            return v == null ? -1L : ValueHeader.stringLength(v);
        });
    }

    /** Deadline meaning "keep the key's current TTL" (SET ... KEEPTTL). */
    public static final long KEEP_TTL = -2L;

    /**
     * SET and its variants.
     *
     * @param expireAt absolute deadline in ms, {@link ValueHeader#NO_EXPIRY} to clear the TTL, or
     *                 {@link #KEEP_TTL}. A given deadline at or before now deletes the key.
     * @param wantOld  return the previous value (SET ... GET, GETSET)
     */
    public SetResult set(byte[] userKey, byte[] value, SetCondition cond, long expireAt, boolean wantOld) {
        byte[] key = KeyCodec.mapKey(userKey);
        if (!wantOld && value.length <= BLOB_THRESHOLD
                && (expireAt == ValueHeader.NO_EXPIRY || expireAt == KEEP_TTL || expireAt > clock.nowMillis())) {
            return locked(key, userKey, () -> setInPlace(key, value, null, cond, expireAt));
        }
        return locked(key, userKey, () -> {
            byte[] old = readLive(key);
            if (cond == SetCondition.IF_ABSENT && old != null
                    || cond == SetCondition.IF_PRESENT && old == null) {
                return wantOld && old != null ? new SetResult(OpStatus.NOT_APPLIED, view(old))
                        : SetResult.NOT_APPLIED;
            }
            StringValue prev = wantOld && old != null ? view(old) : null;
            long at = expireAt == KEEP_TTL ? (old == null ? ValueHeader.NO_EXPIRY : ValueHeader.expireAt(old)) : expireAt;
            // a deadline this write gives that is not in the future deletes the key (Redis's
            // checkAlreadyExpired); a deadline KEEPTTL carries over is still live at now
            if (expireAt != KEEP_TTL && at != ValueHeader.NO_EXPIRY && at <= clock.nowMillis()) {
                if (old != null) {
                    removeStored(key, old);
                }
            } else {
                putEncoded(key, encode(value, 0, value.length, at), old);
            }
            return prev == null ? SetResult.OK : new SetResult(OpStatus.OK, prev);
        });
    }

    /**
     * The common SET (small value, no GET option, no deadline in the past) in one Chronicle
     * lookup: the old entry's header is read in place through a query context and the new value
     * written through the same context, instead of a get (copying the old value) and a put
     * (looking the key up again). Same semantics and bookkeeping as the general path.
     */
    private SetResult setInPlace(byte[] key, byte[] value, byte[] encoded, SetCondition cond, long expireAt) {
        return setInPlace(key, value, encoded, cond, expireAt, null);
    }

    /** {@link #setInPlace} as one write of a batch that may have to be taken back ({@code undo}). */
    private SetResult setInPlace(byte[] key, byte[] value, byte[] encoded, SetCondition cond, long expireAt,
                                 Undo undo) {
        int slot = stripeOf(key);
        try {
            return setInContext(key, value, encoded, cond, expireAt, slot, undo);
        } finally {
            // after the context closed: Chronicle stores the entry's checksum on close
            endWrite(slot);
        }
    }

    /**
     * {@code encoded}: {@code ValueHeader.raw(value, expireAt)} when the caller already built it
     * (MSET, which journals it), else null; never with KEEP_TTL, whose deadline is the old entry's.
     */
    private SetResult setInContext(byte[] key, byte[] value, byte[] encoded, SetCondition cond, long expireAt,
                                   int slot, Undo undo) {
        long now = clock.nowMillis();
        try (net.openhft.chronicle.map.ExternalMapQueryContext<byte[], byte[], ?> q = map().queryContext(key)) {
            q.updateLock().lock();
            net.openhft.chronicle.map.MapEntry<byte[], byte[]> e = q.entry();
            boolean live = false;
            long oldAt = ValueHeader.NO_EXPIRY;
            long oldWheel = ValueHeader.NO_EXPIRY;
            long oldBlob = ValueHeader.NO_BLOB;
            byte[] before = null;
            // an entry past its deadline is gone, exactly as readLive would have removed it; it is
            // accounted for once this context has removed or replaced it (not if the write fails)
            long expiredAt = ValueHeader.NO_EXPIRY;
            long expiredBlob = ValueHeader.NO_BLOB;
            long oldBytes = 0;
            if (e != null) {
                net.openhft.chronicle.hash.Data<byte[]> d = e.value();
                net.openhft.chronicle.bytes.RandomDataInput in = d.bytes();
                long off = d.offset();
                oldBytes = footprint(key.length, d);
                oldAt = ValueHeader.expireAt(in, off);
                oldBlob = ValueHeader.blobIdOrNone(in, off);
                if (ValueHeader.isPast(oldAt, now)) {
                    expiredAt = oldAt;
                    expiredBlob = oldBlob;
                    oldAt = ValueHeader.NO_EXPIRY;
                    oldBlob = ValueHeader.NO_BLOB;
                } else {
                    live = true;
                    oldWheel = ValueHeader.wheelAt(in, off);
                    if (undo != null) {
                        before = d.getUsing(null);
                    }
                }
            }
            if (cond == SetCondition.IF_ABSENT && live || cond == SetCondition.IF_PRESENT && !live) {
                if (e != null && !live) {
                    q.remove(e);
                    touched(key);
                    accountExpired(expiredAt, expiredBlob, oldBytes);
                }
                return SetResult.NOT_APPLIED;
            }
            long at = expireAt == KEEP_TTL ? oldAt : expireAt;
            boolean fileRecord = needsRecord(at, oldWheel);
            byte[] raw = encoded != null && expireAt != KEEP_TTL ? encoded : ValueHeader.raw(value, at);
            byte[] stored = withWheel(raw, at, oldWheel, fileRecord);
            writeThrough(q, e, key, stored, slot);
            touched(key);
            if (e != null && !live) {
                accountExpired(expiredAt, expiredBlob, oldBytes);
            }
            accountWrite(key, stored, live, live ? oldBytes : 0, oldAt, at, fileRecord);
            if (undo != null) {
                undo.written(key, before, oldBlob);
            } else if (oldBlob != ValueHeader.NO_BLOB) {
                dropBlob(oldBlob);
            }
            return SetResult.OK;
        } catch (IllegalStateException | IllegalArgumentException ex) {
            throw new CapacityExhausted(ex);
        }
    }

    /**
     * Stores {@code stored} through an open query context: over {@code e}, or as a new entry when
     * {@code e} is null. An overwrite is journaled first (see {@link WriteJournal}); the caller
     * ends the journal slot once the context is closed, when Chronicle has stored the checksum.
     */
    private void writeThrough(net.openhft.chronicle.map.ExternalMapQueryContext<byte[], byte[], ?> q,
                              net.openhft.chronicle.map.MapEntry<byte[], byte[]> e, byte[] key, byte[] stored, int slot) {
        net.openhft.chronicle.hash.Data<byte[]> nd = q.wrapValueAsData(stored);
        if (e != null) {
            writeJournal().begin(slot, key, stored);
            q.replaceValue(e, nd);
        } else {
            q.insert(q.absentEntry(), nd);
        }
    }

    /** MSET: sets every pair atomically. {@code kv} alternates key, value. */
    public void mset(byte[][] userKv) {
        byte[][] kv = mapKeys(userKv);
        byte[][] ks = keysOf(kv);
        locked(ks, keysOf(userKv), () -> {
            setAll(kv, userKv);
            return null;
        });
    }

    /**
     * MSET's writes, with every stripe held: all of them or (after a crash) none is applied, see
     * {@link BatchJournal}. Large values go to their blob files first, so the batch names them.
     */
    private void setAll(byte[][] kv, byte[][] userKv) {
        byte[][] stored = new byte[kv.length / 2][];
        for (int i = 0; i < kv.length; i += 2) {
            // a long key's file must exist before the batch: a replayed batch writes map entries only
            ensureKeyFileFirst(kv[i], userKv[i]);
        }
        for (int i = 0; i < kv.length; i += 2) {
            byte[] v = kv[i + 1];
            stored[i / 2] = v.length <= BLOB_THRESHOLD ? ValueHeader.raw(v, ValueHeader.NO_EXPIRY)
                    : encode(v, 0, v.length, ValueHeader.NO_EXPIRY);
        }
        int token = beginBatch(kv, stored);
        Undo undo = kv.length > 2 ? new Undo() : null;
        CapacityExhausted failed = null;
        int i = 0;
        try {
            for (; i < kv.length; i += 2) {
                if (kv[i + 1].length <= BLOB_THRESHOLD) {
                    setInPlace(kv[i], kv[i + 1], stored[i / 2], SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, undo);
                } else {
                    byte[] old = readLive(kv[i]);
                    // an expired long key's file went with it; the pending batch names the key
                    ensureKeyFileFirst(kv[i], userKv[i]);
                    putEncoded(kv[i], stored[i / 2], old, undo);
                }
            }
        } catch (CapacityExhausted e) {
            if (undo == null) {
                throw e; // a single pair: nothing was written
            }
            failed = e;
            // the pairs after the failed one were never written, but their blob files exist
            for (int j = i + 2; j < kv.length; j += 2) {
                if (ValueHeader.isBlob(stored[j / 2])) {
                    undo.deadBlobs.add(ValueHeader.blobId(stored[j / 2]));
                }
            }
            takeBack(undo);
            failed.partlyApplied = undo.applied > 0;
        } finally {
            if (token != NO_BATCH) {
                batch.end(token);
            }
        }
        // Files go only now: until the batch is ended, a crash replays all of it, and every blob
        // and key file it names must still be there.
        if (undo != null) {
            undo.deleteFiles(this::dropBlob, failed == null);
        }
        if (failed != null) {
            throw failed;
        }
    }

    /**
     * What a multi-key write has changed so far. If the map runs out of room part way, the writes
     * are taken back before the stripes are let go, so that no client sees part of the command and
     * its retry after growth starts from the state before it (MSETNX must not find its own keys).
     * Overwritten blob files are deleted only once every write is in.
     */
    private static final class Undo {
        final List<byte[]> keys = new ArrayList<>();
        /** The stored bytes before each write; null when the key was absent. */
        final List<byte[]> before = new ArrayList<>();
        /** The blob each write overwrote, or NO_BLOB. */
        final List<Long> oldBlobs = new ArrayList<>();
        /** Blobs that nothing names any more once the writes are taken back. */
        final List<Long> deadBlobs = new ArrayList<>();
        /** After {@link #takeBack}: how many writes (the first ones) are still applied. */
        int applied;

        void written(byte[] key, byte[] old, long oldBlob) {
            keys.add(key);
            before.add(old);
            oldBlobs.add(oldBlob);
        }

        /** Deletes the blob files the command left unnamed: {@code done}, it went through. */
        void deleteFiles(java.util.function.LongConsumer drop, boolean done) {
            int overwritten = done ? oldBlobs.size() : applied;
            for (int w = 0; w < overwritten; w++) {
                if (oldBlobs.get(w) != ValueHeader.NO_BLOB) {
                    drop.accept(oldBlobs.get(w));
                }
            }
            if (!done) {
                deadBlobs.forEach(drop::accept);
            }
        }
    }

    /**
     * Restores what {@code undo} recorded, last write first (so a key written twice gets its
     * first value back). Every key's stripe is still held. Deletes no file: the blobs it unnames
     * go to {@code undo.deadBlobs}, and a long key's file is brought in line by the caller's
     * {@code syncKeyFile} once the batch journal is ended.
     *
     * <p>A removal never needs room; putting back an old value could, but only when it is larger
     * than the one written and the space it freed has been taken meanwhile (by a key of another
     * stripe in the same segment). Then the take-back stops there ({@code undo.applied} writes
     * stay) and the command is retried after growth, which completes it: MSETNX's retry does not
     * decide again (it would find its own keys). Other clients can see the part applied until then.
     */
    private void takeBack(Undo undo) {
        int room = takeBackRoom;
        for (int k = undo.keys.size() - 1; k >= 0; k--) {
            byte[] key = undo.keys.get(k);
            byte[] old = undo.before.get(k);
            byte[] now = map().get(key);
            if (Arrays.equals(now, old)) {
                continue; // unchanged (or already put back by an earlier round)
            }
            if (room-- <= 0) {
                undo.applied = k + 1; // a test's stand-in for running out of room here
                return;
            }
            try {
                if (old == null) {
                    if (now != null) {
                        map().remove(key);
                        touched(key);
                        accountRemoval(ValueHeader.expireAt(now), ValueHeader.NO_BLOB, footprint(key, now));
                    }
                } else {
                    put(key, old, now);
                }
            } catch (CapacityExhausted e) {
                undo.applied = k + 1;
                return;
            }
            long unnamed = blobLeftBy(now, old);
            if (unnamed != ValueHeader.NO_BLOB) {
                undo.deadBlobs.add(unnamed);
            }
        }
        undo.applied = 0;
    }

    private static final int NO_BATCH = Integer.MIN_VALUE;

    /**
     * Records MSET's writes in the batch journal, in the slot of the lowest stripe the command
     * holds; NO_BATCH (nothing recorded) for a single pair, which the single-write journal covers.
     * A key given twice is recorded twice, in order: applied again, the last value wins, as it did.
     */
    private int beginBatch(byte[][] kv, byte[][] stored) {
        if (kv.length <= 2) {
            return NO_BATCH;
        }
        List<BatchJournal.Entry> writes = new ArrayList<>(kv.length / 2);
        int lowest = Integer.MAX_VALUE;
        for (int i = 0; i < kv.length; i += 2) {
            writes.add(new BatchJournal.Entry(kv[i], stored[i / 2]));
            lowest = Math.min(lowest, stripeOf(kv[i]));
        }
        return batchJournal().begin(lowest, writes);
    }

    /** MSETNX: sets every pair only if none of the keys exists. Returns whether it did. */
    public boolean msetnx(byte[][] userKv) {
        byte[][] kv = mapKeys(userKv);
        byte[][] ks = keysOf(kv);
        // set when a take-back stopped part way: the keys were all absent when the command
        // decided, part of it is applied, and the retry after growth completes it
        boolean[] decided = {false};
        return locked(ks, keysOf(userKv), () -> {
            if (!decided[0]) {
                for (byte[] k : ks) {
                    if (readLive(k) != null) {
                        return false;
                    }
                }
            }
            try {
                setAll(kv, userKv);
            } catch (CapacityExhausted e) {
                decided[0] |= e.partlyApplied;
                throw e;
            }
            return true;
        });
    }

    private static byte[][] keysOf(byte[][] kv) {
        byte[][] ks = new byte[kv.length / 2][];
        for (int i = 0; i < ks.length; i++) {
            ks[i] = kv[2 * i];
        }
        return ks;
    }

    /** GETDEL: the value (or null) and the key is gone. */
    public StringValue getDel(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return locked(key, userKey, () -> {
            byte[] v = readLive(key);
            if (v == null) {
                return null;
            }
            StringValue out = view(v);
            removeStored(key, v);
            return out;
        });
    }

    /**
     * GETEX: the value, with the TTL changed. {@code expireAt}: a deadline, NO_EXPIRY (PERSIST)
     * or KEEP_TTL (no option). A deadline in the past deletes the key after reading it.
     */
    public StringValue getEx(byte[] userKey, long expireAt) {
        byte[] key = KeyCodec.mapKey(userKey);
        return locked(key, userKey, () -> {
            byte[] v = readLive(key);
            if (v == null) {
                return null;
            }
            StringValue out = view(v);
            if (expireAt != KEEP_TTL) {
                applyDeadline(key, v, expireAt);
            }
            return out;
        });
    }

    /** APPEND: the new length, or TOO_LARGE. */
    public LengthResult append(byte[] userKey, byte[] value) {
        byte[] key = KeyCodec.mapKey(userKey);
        return locked(key, userKey, () -> {
            byte[] old = readLive(key);
            if (old == null) {
                putEncoded(key, encode(value, 0, value.length, ValueHeader.NO_EXPIRY), null);
                return new LengthResult(OpStatus.OK, value.length);
            }
            long oldLen = ValueHeader.stringLength(old);
            long newLen = oldLen + value.length;
            if (newLen > MAX_STRING_LENGTH) {
                return new LengthResult(OpStatus.TOO_LARGE, 0);
            }
            long at = ValueHeader.expireAt(old);
            if (ValueHeader.isBlob(old)) {
                // write past the published end first, then publish the new length
                long id = ValueHeader.blobId(old);
                blobs.writeAt(id, oldLen, value, 0, value.length);
                put(key, ValueHeader.blob(id, newLen, at), old);
            } else {
                byte[] joined = Arrays.copyOfRange(old, ValueHeader.payloadOffset(old),
                        ValueHeader.payloadOffset(old) + (int) newLen);
                System.arraycopy(value, 0, joined, (int) oldLen, value.length);
                putEncoded(key, encode(joined, 0, joined.length, at), old);
            }
            return new LengthResult(OpStatus.OK, newLen);
        });
    }

    /** SETRANGE: the new length, or TOO_LARGE. {@code offset} is non-negative. */
    public LengthResult setRange(byte[] userKey, long offset, byte[] value) {
        byte[] key = KeyCodec.mapKey(userKey);
        return locked(key, userKey, () -> {
            byte[] old = readLive(key);
            long oldLen = old == null ? 0 : ValueHeader.stringLength(old);
            if (value.length == 0) {
                return new LengthResult(OpStatus.OK, oldLen);
            }
            // offset can be up to Long.MAX_VALUE: compare without overflowing offset + length
            if (offset > MAX_STRING_LENGTH - value.length) {
                return new LengthResult(OpStatus.TOO_LARGE, 0);
            }
            long newLen = Math.max(oldLen, offset + value.length);
            long at = old == null ? ValueHeader.NO_EXPIRY : ValueHeader.expireAt(old);
            if (newLen > BLOB_THRESHOLD) {
                // copy-on-write: bytes inside a published blob are never overwritten
                long id;
                if (old != null && ValueHeader.isBlob(old)) {
                    id = blobs.copyFrom(blobs, ValueHeader.blobId(old), oldLen);
                } else {
                    byte[] cur = old == null ? new byte[0] : bytesOf(old);
                    id = blobs.create(cur, 0, cur.length);
                }
                if (offset > oldLen) {
                    // zero padding: a sparse write past the end reads back as zeros
                    blobs.writeAt(id, newLen - 1, new byte[1], 0, 1);
                }
                blobs.writeAt(id, offset, value, 0, value.length);
                putEncoded(key, ValueHeader.blob(id, newLen, at), old);
            } else {
                byte[] buf = new byte[(int) newLen];
                if (old != null) {
                    System.arraycopy(old, ValueHeader.payloadOffset(old), buf, 0, (int) oldLen);
                }
                System.arraycopy(value, 0, buf, (int) offset, value.length);
                putEncoded(key, ValueHeader.raw(buf, at), old);
            }
            return new LengthResult(OpStatus.OK, newLen);
        });
    }

    // ------------------------------------------------------------------ counters

    /** INCRBY / DECRBY / INCR / DECR. Keeps the key's TTL. */
    public CounterResult incrBy(byte[] userKey, long delta) {
        byte[] key = KeyCodec.mapKey(userKey);
        return locked(key, userKey, () -> incrInPlace(key, delta));
    }

    /**
     * INCRBY in one Chronicle lookup (see {@link #setInPlace}): the counter's digits are read in
     * place, the new value is written through the same query context, and the TTL is kept.
     */
    private CounterResult incrInPlace(byte[] key, long delta) {
        int slot = stripeOf(key);
        try {
            return incrInContext(key, delta, slot);
        } finally {
            endWrite(slot);
        }
    }

    /** Per thread: the digits of the counter being incremented (a long has at most 20). */
    private static final ThreadLocal<byte[]> DIGITS = ThreadLocal.withInitial(() -> new byte[20]);

    private CounterResult incrInContext(byte[] key, long delta, int slot) {
        long now = clock.nowMillis();
        try (net.openhft.chronicle.map.ExternalMapQueryContext<byte[], byte[], ?> q = map().queryContext(key)) {
            q.updateLock().lock();
            net.openhft.chronicle.map.MapEntry<byte[], byte[]> e = q.entry();
            boolean live = false;
            long cur = 0;
            long at = ValueHeader.NO_EXPIRY;
            long wheel = ValueHeader.NO_EXPIRY;
            // past its deadline: gone, as readLive would do; accounted once this context removed
            // or replaced it (not if the write fails for want of room)
            long expiredAt = ValueHeader.NO_EXPIRY;
            long expiredBlob = ValueHeader.NO_BLOB;
            long oldBytes = 0;
            if (e != null) {
                net.openhft.chronicle.hash.Data<byte[]> d = e.value();
                net.openhft.chronicle.bytes.RandomDataInput in = d.bytes();
                long off = d.offset();
                oldBytes = footprint(key.length, d);
                at = ValueHeader.expireAt(in, off);
                long blob = ValueHeader.blobIdOrNone(in, off);
                if (ValueHeader.isPast(at, now)) {
                    expiredAt = at;
                    expiredBlob = blob;
                    at = ValueHeader.NO_EXPIRY;
                } else {
                    live = true;
                    if (blob != ValueHeader.NO_BLOB) {
                        return new CounterResult(OpStatus.NOT_INTEGER, 0);
                    }
                    int h = ValueHeader.headerLength(in, off);
                    long len = d.size() - h;
                    if (len > 20) {
                        return new CounterResult(OpStatus.NOT_INTEGER, 0);
                    }
                    byte[] digits = DIGITS.get();
                    in.read(off + h, digits, 0, (int) len);
                    if (!Numbers.isLong(digits, 0, (int) len)) {
                        return new CounterResult(OpStatus.NOT_INTEGER, 0);
                    }
                    cur = Numbers.parseLong(digits, 0, (int) len);
                    wheel = ValueHeader.wheelAt(in, off);
                }
            }
            if (delta < 0 && cur < 0 && delta < Long.MIN_VALUE - cur
                    || delta > 0 && cur > 0 && delta > Long.MAX_VALUE - cur) {
                if (e != null && !live) {
                    q.remove(e);
                    touched(key);
                    accountExpired(expiredAt, expiredBlob, oldBytes);
                }
                return new CounterResult(OpStatus.OVERFLOW, 0);
            }
            long next = cur + delta;
            // the deadline is unchanged, so a live key keeps its wheel record as it is
            byte[] stored = ValueHeader.withWheelAt(ValueHeader.rawLong(next, at), wheel);
            writeThrough(q, e, key, stored, slot);
            touched(key);
            if (e != null && !live) {
                accountExpired(expiredAt, expiredBlob, oldBytes);
            }
            accountWrite(key, stored, live, live ? oldBytes : 0, at, at, false);
            return new CounterResult(OpStatus.OK, next);
        } catch (IllegalStateException | IllegalArgumentException ex) {
            throw new CapacityExhausted(ex);
        }
    }

    /** INCRBYFLOAT with Redis's long double arithmetic. Keeps the key's TTL. */
    public BytesResult incrByFloat(byte[] userKey, BigDecimal incr) {
        byte[] key = KeyCodec.mapKey(userKey);
        return locked(key, userKey, () -> {
            byte[] old = readLive(key);
            BigDecimal cur = BigDecimal.ZERO;
            long at = ValueHeader.NO_EXPIRY;
            if (old != null) {
                if (ValueHeader.isBlob(old)) {
                    return new BytesResult(OpStatus.NOT_FLOAT, null);
                }
                int off = ValueHeader.payloadOffset(old);
                cur = Numbers.parseLongDouble(old, off, old.length - off);
                if (cur == null) {
                    return new BytesResult(OpStatus.NOT_FLOAT, null);
                }
                at = ValueHeader.expireAt(old);
            }
            if (Numbers.isInfinite(cur) || Numbers.isInfinite(incr)) {
                return new BytesResult(OpStatus.NAN_OR_INFINITY, null);
            }
            BigDecimal sum = Numbers.roundToLongDouble(cur.add(incr));
            if (sum == null) {
                return new BytesResult(OpStatus.NAN_OR_INFINITY, null);
            }
            byte[] out = Numbers.formatLongDouble(sum);
            put(key, ValueHeader.raw(out, at), old);
            return new BytesResult(OpStatus.OK, out);
        });
    }

    // ------------------------------------------------------------------ keys

    /** DEL / UNLINK of one key: whether it existed. */
    public boolean del(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return locked(key, userKey, () -> {
            byte[] v = readLive(key);
            if (v == null) {
                return false;
            }
            removeStored(key, v);
            return true;
        });
    }

    /**
     * DEL / UNLINK of several keys at one moment (all their stripes held): how many existed. A key
     * named twice counts once, as in Redis; no other command sees part of the deletion.
     */
    public long delAll(byte[][] userKeys, int from) {
        byte[][] uk = Arrays.copyOfRange(userKeys, from, userKeys.length);
        byte[][] ks = new byte[uk.length][];
        for (int i = 0; i < uk.length; i++) {
            ks[i] = KeyCodec.mapKey(uk[i]);
        }
        return locked(ks, uk, () -> {
            long n = 0;
            for (byte[] key : ks) {
                byte[] v = readLive(key);
                if (v != null) {
                    removeStored(key, v);
                    n++;
                }
            }
            return n;
        });
    }

    /**
     * EXISTS / TOUCH of several keys at one moment: which exist (a key named twice counts each
     * time, as in Redis).
     */
    public boolean[] existsAll(byte[][] userKeys, int from) {
        byte[][] uk = Arrays.copyOfRange(userKeys, from, userKeys.length);
        byte[][] ks = new byte[uk.length][];
        for (int i = 0; i < uk.length; i++) {
            ks[i] = KeyCodec.mapKey(uk[i]);
        }
        return locked(ks, uk, () -> {
            boolean[] out = new boolean[ks.length];
            for (int i = 0; i < ks.length; i++) {
                out[i] = readLive(ks[i]) != null;
            }
            return out;
        });
    }

    /** EXISTS / TOUCH of one key. */
    public boolean exists(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return locked(key, userKey, () -> readLive(key) != null);
    }

    /** TYPE: "string", or "none" when absent. */
    public String type(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return locked(key, userKey, () -> {
            byte[] v = readLive(key);
            return v == null ? "none" : "string";
        });
    }

    /**
     * RENAME / RENAMENX. NOT_FOUND when the source is absent; NOT_APPLIED when {@code nx} and the
     * destination exists. The TTL moves with the key.
     */
    public OpStatus rename(byte[] userSrc, byte[] userDst, boolean nx) {
        byte[] src = KeyCodec.mapKey(userSrc);
        byte[] dst = KeyCodec.mapKey(userDst);
        return locked(new byte[][] {src, dst}, new byte[][] {userSrc, userDst}, () -> {
            byte[] v = readLive(src);
            if (v == null) {
                return OpStatus.NOT_FOUND;
            }
            if (Arrays.equals(src, dst)) {
                return nx ? OpStatus.NOT_APPLIED : OpStatus.OK;
            }
            byte[] old = readLive(dst);
            if (nx && old != null) {
                return OpStatus.NOT_APPLIED;
            }
            // both names change together: after a crash the value is under one of them, never both
            // (they would share one blob file) and never neither
            ensureKeyFileFirst(dst, userDst);
            int token = batchJournal().begin(Math.min(stripeOf(src), stripeOf(dst)),
                    List.of(new BatchJournal.Entry(dst, v), new BatchJournal.Entry(src, null)));
            try {
                put(dst, v, old);
                map().remove(src);
                touched(src);
            } finally {
                batch.end(token);
            }
            // the blob moved with the key: put() counted it for dst
            accountRemoval(ValueHeader.expireAt(v), ValueHeader.NO_BLOB, footprint(src, v));
            if (old != null && ValueHeader.isBlob(old)) {
                dropBlob(ValueHeader.blobId(old));
            }
            return OpStatus.OK;
        });
    }

    /**
     * COPY within this keyspace or into {@code target}. NOT_FOUND when the source is absent,
     * NOT_APPLIED when the destination exists and {@code replace} is false.
     */
    public OpStatus copy(byte[] userSrc, Keyspace target, byte[] userDst, boolean replace) {
        byte[] src = KeyCodec.mapKey(userSrc);
        byte[] dst = KeyCodec.mapKey(userDst);
        if (target == this) {
            return locked(new byte[][] {src, dst}, new byte[][] {userSrc, userDst}, () -> {
                byte[] v = readLive(src);
                if (v == null) {
                    return OpStatus.NOT_FOUND;
                }
                return copyInto(v, dst, replace);
            });
        }
        byte[] snapshot = locked(src, () -> {
            byte[] v = readLive(src);
            if (v == null || !ValueHeader.isBlob(v)) {
                return v;
            }
            // the target gets its own copy of the blob file
            long id = target.blobs.copyFrom(blobs, ValueHeader.blobId(v), ValueHeader.blobLength(v));
            return ValueHeader.blob(id, ValueHeader.blobLength(v), ValueHeader.expireAt(v));
        });
        if (snapshot == null) {
            return OpStatus.NOT_FOUND;
        }
        return target.adoptCopy(snapshot, dst, userDst, replace);
    }

    private OpStatus copyInto(byte[] v, byte[] dst, boolean replace) {
        byte[] old = readLive(dst);
        if (old != null && !replace) {
            return OpStatus.NOT_APPLIED;
        }
        byte[] stored = v;
        if (ValueHeader.isBlob(v)) {
            long id = blobs.copyFrom(blobs, ValueHeader.blobId(v), ValueHeader.blobLength(v));
            stored = ValueHeader.blob(id, ValueHeader.blobLength(v), ValueHeader.expireAt(v));
        }
        putEncoded(dst, stored, old);
        return OpStatus.OK;
    }

    /** Receives a value copied from another keyspace; a blob payload is already in our store. */
    private OpStatus adoptCopy(byte[] stored, byte[] dst, byte[] userDst, boolean replace) {
        byte[] fin = stored;
        OpStatus st = locked(dst, userDst, () -> {
            byte[] old = readLive(dst);
            if (old != null && !replace) {
                return OpStatus.NOT_APPLIED;
            }
            if (ValueHeader.isExpired(fin, clock.nowMillis())) {
                if (old != null) {
                    removeStored(dst, old);
                }
                return OpStatus.OK;
            }
            putEncoded(dst, fin, old);
            return OpStatus.OK;
        });
        if (st != OpStatus.OK && ValueHeader.isBlob(fin)) {
            dropBlob(ValueHeader.blobId(fin));
        }
        return st;
    }

    /** RANDOMKEY: a live key chosen at random, or null when the keyspace is empty. */
    public byte[] randomKey() {
        txGate.writeLock().lock();
        mapLock.readLock().lock();
        try {
            byte[] k = randomKeyLocked();
            return k == null ? null : userKeyOf(k);
        } finally {
            mapLock.readLock().unlock();
            txGate.writeLock().unlock();
        }
    }

    private byte[] randomKeyLocked() {
        ChronicleMap<byte[], byte[]> m = map();
        int segs = m.segments();
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 4 * segs + 16 && keys.sum() > 0; attempt++) {
            // liveness is judged from the entry itself: calling a locked operation here could
            // start a growth, which needs the map lock this walk holds shared
            byte[] k = randomKeyIn(m, rnd.nextInt(segs), rnd, clock.nowMillis());
            if (k != null) {
                return k;
            }
        }
        // sparse keyspace: walk everything once
        byte[][] found = new byte[1][];
        m.forEachEntryWhile(e -> {
            byte[] v = e.value().get();
            if (!ValueHeader.isExpired(v, clock.nowMillis())) {
                found[0] = e.key().get().clone();
                return false;
            }
            return true;
        });
        return found[0];
    }

    private static byte[] randomKeyIn(ChronicleMap<byte[], byte[]> m, int seg, ThreadLocalRandom rnd, long now) {
        try (var ctx = m.segmentContext(seg)) {
            long n = ctx.size();
            if (n == 0) {
                return null;
            }
            long[] skip = {rnd.nextLong(n)};
            byte[][] out = new byte[1][];
            ctx.forEachSegmentEntryWhile(e -> {
                if (skip[0]-- == 0) {
                    if (!isExpired(e.value(), now)) {
                        out[0] = e.key().get().clone();
                    }
                    return false;
                }
                return true;
            });
            return out[0];
        }
    }

    // ------------------------------------------------------------------ expiry

    /**
     * EXPIRE family with an absolute deadline. Returns whether the TTL was set (Redis's 1 / 0).
     * A deadline not in the future deletes the key and counts as set.
     */
    public boolean expireAt(byte[] userKey, long at, int cond) {
        byte[] key = KeyCodec.mapKey(userKey);
        return locked(key, userKey, () -> {
            byte[] v = readLive(key);
            if (v == null) {
                return false;
            }
            long cur = ValueHeader.expireAt(v);
            boolean hasTtl = cur != ValueHeader.NO_EXPIRY;
            if ((cond & ExpireCondition.NX) != 0 && hasTtl
                    || (cond & ExpireCondition.XX) != 0 && !hasTtl
                    || (cond & ExpireCondition.GT) != 0 && (!hasTtl || at <= cur)
                    || (cond & ExpireCondition.LT) != 0 && hasTtl && at >= cur) {
                return false;
            }
            if (at <= clock.nowMillis()) {
                // every past deadline deletes, including -1 and -2, which must not be read as
                // NO_EXPIRY or KEEP_TTL (PEXPIREAT k -1 deletes k in Redis)
                removeStored(key, v);
            } else {
                applyDeadline(key, v, at);
            }
            return true;
        });
    }

    private void applyDeadline(byte[] key, byte[] stored, long at) {
        if (at != ValueHeader.NO_EXPIRY && at <= clock.nowMillis()) {
            removeStored(key, stored);
            return;
        }
        put(key, ValueHeader.withExpiry(stored, at), stored);
    }

    /** PERSIST: whether a TTL was removed. */
    public boolean persist(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return locked(key, userKey, () -> {
            byte[] v = readLive(key);
            if (v == null || ValueHeader.expireAt(v) == ValueHeader.NO_EXPIRY) {
                return false;
            }
            put(key, ValueHeader.withExpiry(v, ValueHeader.NO_EXPIRY), v);
            return true;
        });
    }

    /** Result of {@link #deadline}: the key is absent. */
    public static final long NO_KEY = -2L;
    /** Result of {@link #deadline}: the key has no TTL. */
    public static final long NO_TTL = -1L;

    /** The key's absolute deadline in ms, {@link #NO_TTL} or {@link #NO_KEY}. */
    public long deadline(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return locked(key, userKey, () -> {
            byte[] v = readLive(key);
            if (v == null) {
                return NO_KEY;
            }
            long at = ValueHeader.expireAt(v);
            return at == ValueHeader.NO_EXPIRY ? NO_TTL : at;
        });
    }

    /** {@link #reclaimIfDue}: the key was expired and has been removed. */
    public static final long RECLAIMED = 0L;
    /** {@link #reclaimIfDue}: the key is gone or has no deadline any more. */
    public static final long NOTHING_DUE = -1L;

    /**
     * Called by the expiry wheel when a record filed for {@code key} at {@code recordAt} fires.
     * The record is only acted on if it is the key's valid one (its time equals the header's
     * wheel-at); stale records (the key was deleted, persisted, or its deadline shortened since)
     * are dropped. A valid record deletes the key if its deadline has passed; if the deadline was
     * extended, the header's wheel-at moves to the new deadline and that deadline is returned so
     * the wheel re-files the record there. Returns {@link #RECLAIMED}, {@link #NOTHING_DUE} or the
     * time to re-file at. Checking under the key's lock makes a concurrent renewal safe.
     */
    public long reclaimIfDue(byte[] key, long recordAt) {
        // the reaper's hot path: the stripe lock taken directly (no lambda, one hash); a removal
        // or a same-size header rewrite never needs the growth and key-file steps of locked()
        int slot = stripeOf(key);
        ReentrantLock l = lockIndex(slot);
        try {
            return reclaimInContext(key, recordAt, slot);
        } catch (CapacityExhausted e) {
            // re-filing rewrites the header, which can grow by its wheel-at: locked() grows the
            // map and retries
        } finally {
            endWrite(slot);
            l.unlock();
        }
        return locked(key, () -> {
            try {
                return reclaimInContext(key, recordAt, slot);
            } finally {
                endWrite(slot);
            }
        });
    }

    private long reclaimInContext(byte[] key, long recordAt, int slot) {
        // One Chronicle lookup: read the header in place and remove through the same context
        // (the reaper's hot path, up to hundreds of thousands of keys a second in a storm).
        try (net.openhft.chronicle.map.ExternalMapQueryContext<byte[], byte[], ?> q = map().queryContext(key)) {
            q.updateLock().lock();
            net.openhft.chronicle.map.MapEntry<byte[], byte[]> e = q.entry();
            if (e == null) {
                return NOTHING_DUE;
            }
            net.openhft.chronicle.hash.Data<byte[]> data = e.value();
            net.openhft.chronicle.bytes.RandomDataInput in = data.bytes();
            long off = data.offset();
            long at = ValueHeader.expireAt(in, off);
            if (at == ValueHeader.NO_EXPIRY || ValueHeader.wheelAt(in, off) != recordAt) {
                return NOTHING_DUE;
            }
            if (at >= clock.nowMillis()) {
                writeThrough(q, e, key, ValueHeader.withWheelAt(data.getUsing(null), at), slot);
                return at;
            }
            long blobId = ValueHeader.blobIdOrNone(in, off);
            long bytes = footprint(key.length, data);
            q.remove(e);
            touched(key);
            accountExpired(at, blobId, bytes);
            if (KeyCodec.isDigest(key)) {
                dropKeyFile(KeyCodec.fileName(key));
            }
            return RECLAIMED;
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new CapacityExhausted(e);
        }
    }

    /** {@link #reclaimIfDue(byte[], long)} for whatever record is valid (tests and tools). */
    public long reclaimIfDue(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        byte[] v = locked(key, () -> map().get(key));
        return v == null ? NOTHING_DUE : reclaimIfDue(key, ValueHeader.wheelAt(v));
    }

    // ------------------------------------------------------------------ whole keyspace

    /** Live key count (keys past their deadline count until reclaimed, as in Redis). */
    public long size() {
        return keys.sum();
    }

    /** Mean time to live of the volatile keys in ms (INFO avg_ttl), 0 when there are none. */
    public long averageTtl() {
        long n = volatileKeys.sum();
        if (n <= 0) {
            return 0;
        }
        long mean = deadlineSum.sum() / n + DEADLINE_BASE - clock.nowMillis();
        return Math.max(0, mean);
    }

    /** What the live keys take in bytes: keys, stored values and blobs (the apps' byte quota). */
    public long liveBytes() {
        return liveBytes.sum();
    }

    /** Live keys with a deadline. */
    public long volatileSize() {
        return volatileKeys.sum();
    }

    /** Keys removed because their deadline passed (INFO expired_keys). */
    public long expiredCount() {
        return expired.sum();
    }

    /** Off-heap bytes Chronicle uses for this keyspace's map. */
    public long mapBytes() {
        ChronicleMap<byte[], byte[]> m = file.map();
        return m == null ? 0 : m.offHeapMemoryUsed();
    }

    public int generation() {
        return file.generation();
    }

    /** FLUSHDB: every key and blob is gone. */
    public void flush() {
        lockAll();
        try {
            map(); // mapped first: a released map's clean state goes before its file does
            if (watches.active()) {
                watches.touchedAll(k -> map().containsKey(k));
            }
            file.reset();
            blobs.deleteAll();
            reset(keys, 0);
            reset(volatileKeys, 0);
            reset(deadlineSum, 0);
            reset(liveBytes, 0);
            epoch++;
        } finally {
            unlockAll();
        }
    }

    // ------------------------------------------------------------------ SCAN and KEYS

    private static final int SEGMENT_BITS = 24;

    /**
     * One SCAN step. Visits every live key of whole Chronicle segments, starting where
     * {@code cursor} points, until at least {@code count} keys were visited or the map is done,
     * and returns the next cursor (0 when the walk is complete).
     *
     * <p>Why whole segments: a key always lives in the same segment of a given map, and a segment
     * is read in one go under its lock, so a key that exists for the whole scan is seen when its
     * segment is read, however entries move inside the segment between calls. Cursor layout:
     * {@code epoch << 24 | next segment}. When the map was replaced since the cursor was issued
     * (growth or FLUSHDB change the epoch), the walk restarts on the new map: some keys may be
     * returned twice, which SCAN allows, but none that existed throughout is missed.
     */
    public long scan(long cursor, int count, java.util.function.Consumer<byte[]> visitor) {
        txGate.writeLock().lock(); // never part of a transaction (see atomically)
        mapLock.readLock().lock();
        try {
            ChronicleMap<byte[], byte[]> m = map();
            int segs = m.segments();
            int seg = 0;
            int ep = epoch;
            if (cursor != 0) {
                long cEpoch = cursor >>> SEGMENT_BITS;
                seg = (int) (cursor & ((1 << SEGMENT_BITS) - 1));
                if (cEpoch != ep || seg >= segs) {
                    seg = 0;
                }
            }
            long now = clock.nowMillis();
            int[] seen = {0};
            while (seg < segs && seen[0] < count) {
                try (var ctx = m.segmentContext(seg)) {
                    ctx.forEachSegmentEntry(e -> {
                        byte[] uk = isExpired(e.value(), now) ? null : userKeyOf(e.key().get().clone());
                        if (uk != null) {
                            visitor.accept(uk);
                            seen[0]++;
                        }
                    });
                }
                seg++;
            }
            return seg >= segs ? 0 : ((long) ep << SEGMENT_BITS) | seg;
        } finally {
            mapLock.readLock().unlock();
            txGate.writeLock().unlock();
        }
    }

    /** KEYS: visits every live key. The visitor must not call back into this keyspace. */
    public void forEachLiveKey(java.util.function.Consumer<byte[]> visitor) {
        txGate.writeLock().lock();
        mapLock.readLock().lock();
        try {
            long now = clock.nowMillis();
            map().forEachEntry(e -> {
                byte[] uk = isExpired(e.value(), now) ? null : userKeyOf(e.key().get().clone());
                if (uk != null) {
                    visitor.accept(uk);
                }
            });
        } finally {
            mapLock.readLock().unlock();
            txGate.writeLock().unlock();
        }
    }

    @Override
    public void close() {
        lockAll();
        try {
            if (closed) {
                return;
            }
            closed = true;
            List<CleanState.Entry> records = new ArrayList<>();
            long vol = volatileKeys.sum();
            // with keys that have a deadline, their records must all be listed, or the next open scans
            boolean listed = vol == 0 || expiryListener.records(this, (k, at) -> records.add(new CleanState.Entry(k, at)));
            try {
                file.close();
            } finally {
                dropJournals();
            }
            if (listed) {
                writeCleanState(records);
            }
        } finally {
            unlockAll();
        }
    }
}
