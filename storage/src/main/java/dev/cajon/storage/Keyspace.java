package dev.cajon.storage;

import dev.cajon.storage.blob.BlobStore;
import dev.cajon.storage.chronicle.MapFile;
import dev.cajon.storage.chronicle.ValueHeader;
import java.io.Closeable;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.Supplier;
import net.openhft.chronicle.map.ChronicleMap;

/**
 * One keyspace: the keys of one (app, db), persisted in one growable Chronicle Map plus a blob
 * directory for large values. This is the storage API the command families call; it speaks in
 * byte arrays and {@link OpStatus}, never in RESP.
 *
 * <h2>Layers</h2>
 * A keyspace is an engine that knows nothing of Redis's types, with one operations file per type
 * on top of it:
 * <ul>
 *   <li>{@link KeyspaceEngine}: the stripe locks and the primitives every type is written with
 *       (a read-modify-write of one key under its lock, the same for several keys at one moment,
 *       the lazy expiry, the typed read that gives WRONGTYPE, the journaled put and removal).
 *       Beside it, package-private: {@link Journals} (write, batch and transaction journals),
 *       {@link Recovery} (opening: replay, clean state, scan), {@link Growth}, {@link Idle}
 *       (release and wake), {@link Sections} (EXEC's atomic sections) with {@link Undo},
 *       {@link KeyWalks} (SCAN, KEYS, RANDOMKEY), {@link Reclaim} (the wheel's hook),
 *       {@link KeyMoves} (RENAME, COPY) and {@link KeyCounts}.</li>
 *   <li>This class: opening and closing, the counts, watches, atomic sections, and the key
 *       commands that hold for every type because they only look at the value header or move
 *       stored bytes as they are (DEL, EXISTS, TYPE, RENAME, COPY, the TTL family, RANDOMKEY,
 *       SCAN, KEYS, FLUSHDB).</li>
 *   <li>One operations file per type: {@link #strings()} ({@link StringOps}). The string methods
 *       here ({@link #get}, {@link #set}, ...) only delegate to it, for tests and tools.</li>
 * </ul>
 *
 * <h2>Adding a type</h2>
 * A new type (say hashes) is one file, {@code HashOps}, made here like {@link #strings()} and
 * written on the engine alone: each operation maps its keys with {@link KeyCodec#mapKey}, runs
 * its body in {@code engine.locked(key, userKey, () -> ...)} (or the multi-key form), reads with
 * {@code engine.readLive(key, TYPE_HASH)} and answers {@link OpStatus#WRONG_TYPE} when that
 * returns {@code KeyspaceEngine.WRONG_TYPE}, and writes with {@code engine.put} /
 * {@code engine.removeStored}; a write of several entries records them with
 * {@code journals.beginBatch} first. The engine then journals overwrites, keeps the counts,
 * watches and wheel records, grows the map and retries the body. Nothing in the engine changes;
 * the type's header byte is a new, append-only {@link ValueHeader} code, and {@link #typeName}
 * names it. The string operations read with {@code readLive(key, TYPE_STRING)}.
 *
 * <p>A collection type (hash, set, sorted set, list) is written on {@link #collections()} instead
 * ({@link KeyCollections}: a key entry plus pages in this map, whole-or-nothing writes, release
 * on DEL, expiry and overwrite, O(1) RENAME, COPY by the type's copy), so that the key commands
 * here hold for it unchanged.
 *
 * <h2>Expiry</h2>
 * A deadline lives in the value header. Every read goes through the engine's {@code readLive},
 * which treats a value whose deadline has passed as absent and deletes it on the spot (the lazy
 * check), so no read ever returns an expired value whatever the active reclaimer is doing.
 */
public final class Keyspace implements Closeable {
    /** Redis's proto-max-bulk-len: the largest string a client may build. */
    public static final long MAX_STRING_LENGTH = 512L * 1024 * 1024;
    /** Values longer than this live in a blob file instead of the map entry. */
    public static final int BLOB_THRESHOLD = 16 * 1024;
    static final int STRIPES = 1024;
    /** The file of the in-flight write journal, beside the map generations. */
    public static final String JOURNAL_FILE = "inflight.journal";
    /** The file of the multi-key writes in flight, beside the map generations. */
    public static final String BATCH_FILE = "inflight.batch";
    /** The file of the collection writes in flight (see {@link Journals}), beside the map generations. */
    public static final String COLLECTIONS_FILE = "inflight.collections";
    /** The second file of transaction undo records (see {@link Sections#recordBefore}). */
    public static final String TX2_FILE = "inflight.tx2";
    /** The file of the transactions in flight (undo records), beside the map generations. */
    public static final String TX_FILE = "inflight.tx";
    /** Deadline meaning "keep the key's current TTL" (SET ... KEEPTTL). */
    public static final long KEEP_TTL = -2L;
    /** {@link StringOps#readInto}: the reader received the value. */
    public static final int READ = 1;
    /** {@link StringOps#readInto}: no such key. */
    public static final int ABSENT = 0;
    /** {@link StringOps#readInto}: not a plain small value (a blob, a digest key, just expired): use {@link #get}. */
    public static final int USE_GET = -1;
    /** Result of {@link #deadline}: the key is absent. */
    public static final long NO_KEY = -2L;
    /** Result of {@link #deadline}: the key has no TTL. */
    public static final long NO_TTL = -1L;
    /** {@link #reclaimIfDue}: the key was expired and has been removed. */
    public static final long RECLAIMED = 0L;
    /** {@link #reclaimIfDue}: the key is gone or has no deadline any more. */
    public static final long NOTHING_DUE = -1L;

    /** Receives a string value's bytes; the array is reused once the call returns. */
    @FunctionalInterface
    public interface ValueReader {
        void read(byte[] array, int off, int len);
    }

    private final KeyspaceEngine e;
    private final StringOps strings;

    /**
     * For tests: runs when a multi-key command ran out of room, after it let its stripes go and
     * before the map grows for its retry; the one moment another client could see the keyspace
     * between the two attempts.
     */
    volatile Runnable beforeRetry;
    /**
     * For tests: how many writes a take-back restores before it acts as if putting an old value
     * back ran out of room (the rare case {@link Undo#takeBack} stops part way).
     */
    volatile int takeBackRoom = Integer.MAX_VALUE;
    /** For tests: false makes a keyed section meet a full map in the middle instead of growing first. */
    volatile boolean growBeforeSection = true;

    Keyspace(Path dir, String name, Clock clock, MapFile file, BlobStore blobs, Journals journals,
             ExpiryListener listener) {
        this.e = new KeyspaceEngine(this, dir, name, clock, file, blobs, journals, listener);
        this.strings = new StringOps(e);
        this.bits = new BitOps(e);
        this.lcs = new Lcs(e);
        this.collections = new KeyCollections(e);
        this.hashes = new HashOps(collections);
        this.sets = new SetOps(collections);
        this.zsets = new ZSetOps(collections);
        this.lists = new ListOps(collections);
    }

    private final dev.cajon.storage.collection.CollectionAccess collections;
    private final HashOps hashes;
    private final SetOps sets;
    private final ZSetOps zsets;
    private final ListOps lists;

    /** The collections service the type operations are written on (see storage/collection). */
    public dev.cajon.storage.collection.CollectionAccess collections() {
        return collections;
    }

    private final BitOps bits;

    /** The bit operations on strings (SETBIT, BITCOUNT, BITFIELD, LCS ...). */
    public BitOps bits() {
        return bits;
    }

    private final Lcs lcs;

    /** LCS. */
    public Lcs lcs() {
        return lcs;
    }

    /** The hash operations (HSET, HGET ...). */
    public HashOps hashes() {
        return hashes;
    }

    /** The set operations (SADD, SMEMBERS ...). */
    public SetOps sets() {
        return sets;
    }

    /** The sorted-set operations (ZADD, ZRANGE ...). */
    public ZSetOps zsets() {
        return zsets;
    }

    /** The list operations (LPUSH, LRANGE ...). */
    public ListOps lists() {
        return lists;
    }

    KeyspaceEngine engine() {
        return e;
    }

    /**
     * Opens the keyspace stored in {@code dir}, creating it if needed. With {@code recover}, the
     * map is reopened through Chronicle's recovery (the caller holds the directory exclusively).
     * Keys whose deadline passed while the server was down are removed before this returns, and
     * orphaned blob files are swept.
     */
    public static Keyspace open(Path dir, String name, Clock clock, boolean recover, ExpiryListener listener) {
        return Recovery.open(dir, name, clock, recover, listener);
    }

    public String name() {
        return e.name;
    }

    public Clock clock() {
        return e.clock;
    }

    /** A process-unique number (the expiry wheel files records by it). */
    public int id() {
        return e.id;
    }

    public boolean isClosed() {
        return e.closed;
    }

    /** The string operations (GET, SET, MSET, APPEND, INCR ...). */
    public StringOps strings() {
        return strings;
    }

    // ------------------------------------------------------------------ idle release

    void onWake(Runnable r) {
        e.onWake = r;
    }

    /** Whether the map is mapped now (false: released, or closed). */
    public boolean isMapped() {
        return !e.closed && e.file.isOpen();
    }

    /** See {@link Idle#sweepLastUsed}. */
    long sweepLastUsed(long now) {
        return Idle.sweepLastUsed(e, now);
    }

    /**
     * Closes the map and deletes the journals of a keyspace nobody is using; the next operation
     * maps it again (see {@link Idle}). Returns whether it did.
     */
    public boolean release() {
        return Idle.release(e);
    }

    @Override
    public void close() {
        try {
            LazyFree.drain(e); // no orphan page may outlive a clean close (see LazyFree)
        } finally {
            Idle.close(e);
        }
    }

    // ------------------------------------------------------------------ for tests

    /** For tests: the stripes of the stored keys, by the Chronicle segment that holds them. */
    java.util.Map<Integer, java.util.Set<Integer>> stripesBySegment() {
        e.lockAll();
        try {
            java.util.Map<Integer, java.util.Set<Integer>> out = new java.util.TreeMap<>();
            ChronicleMap<byte[], byte[]> m = e.map();
            for (int seg = 0; seg < m.segments(); seg++) {
                java.util.Set<Integer> stripesOfSeg = new java.util.TreeSet<>();
                try (var ctx = m.segmentContext(seg)) {
                    ctx.forEachSegmentEntry(en -> stripesOfSeg.add(KeyspaceEngine.stripeOf(en.key().get())));
                }
                if (!stripesOfSeg.isEmpty()) {
                    out.put(seg, stripesOfSeg);
                }
            }
            return out;
        } finally {
            e.unlockAll();
        }
    }

    /** For tests: the current map's segment count. */
    int segments() {
        return e.map().segments();
    }

    /** For tests: the capacity of the current generation. */
    long capacity() {
        return e.file.capacity();
    }

    // ------------------------------------------------------------------ strings (delegates)

    /** See {@link StringOps#get}. */
    public StringValue get(byte[] userKey) {
        return strings.get(userKey);
    }

    /** See {@link StringOps#getAll}. */
    public StringValue[] getAll(byte[][] userKeys, int from) {
        return strings.getAll(userKeys, from);
    }

    /** See {@link StringOps#readInto}. */
    public int readInto(byte[] userKey, ValueReader reader) {
        return strings.readInto(userKey, reader);
    }

    /** See {@link StringOps#strlen}. */
    public long strlen(byte[] userKey) {
        return strings.strlen(userKey);
    }

    /** See {@link StringOps#strlenOrAbsent}. */
    public long strlenOrAbsent(byte[] userKey) {
        return strings.strlenOrAbsent(userKey);
    }

    /** See {@link StringOps#set}. */
    public SetResult set(byte[] userKey, byte[] value, SetCondition cond, long expireAt, boolean wantOld) {
        return strings.set(userKey, value, cond, expireAt, wantOld);
    }

    /** See {@link StringOps#mset}. */
    public void mset(byte[][] userKv) {
        strings.mset(userKv);
    }

    /** See {@link StringOps#msetnx}. */
    public boolean msetnx(byte[][] userKv) {
        return strings.msetnx(userKv);
    }

    /** See {@link StringOps#getDel}. */
    public StringValue getDel(byte[] userKey) {
        return strings.getDel(userKey);
    }

    /** See {@link StringOps#getEx}. */
    public StringValue getEx(byte[] userKey, long expireAt) {
        return strings.getEx(userKey, expireAt);
    }

    /** See {@link StringOps#append}. */
    public LengthResult append(byte[] userKey, byte[] value) {
        return strings.append(userKey, value);
    }

    /** See {@link StringOps#setRange}. */
    public LengthResult setRange(byte[] userKey, long offset, byte[] value) {
        return strings.setRange(userKey, offset, value);
    }

    /** See {@link StringOps#incrBy}. */
    public CounterResult incrBy(byte[] userKey, long delta) {
        return strings.incrBy(userKey, delta);
    }

    /** See {@link StringOps#incrByFloat}. */
    public BytesResult incrByFloat(byte[] userKey, BigDecimal incr) {
        return strings.incrByFloat(userKey, incr);
    }

    // ------------------------------------------------------------------ transactions

    /**
     * Runs {@code op} as one atomic section over {@code userKeys} (every key it may touch), or
     * over the whole keyspace: no other command on this keyspace sees part of what it does (see
     * {@link Sections}). With {@code undo}, a crash during {@code op} leaves none of its writes
     * after the restart. {@code op} may run more than once (after growth) and must start afresh
     * each time. Sections on several keyspaces nest, taken in db order; only whole ones may nest.
     */
    public <T> T atomically(byte[][] userKeys, boolean whole, boolean undo, Supplier<T> op) {
        return Sections.atomically(e, userKeys, whole, undo, op);
    }

    /** WATCH: the key's changes from now on make {@link #changed} true. */
    public dev.cajon.storage.tx.Watch watch(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            e.readLive(key); // a key already past its deadline goes now: its removal is no change
            return e.watches.add(key);
        });
    }

    /** UNWATCH (also EXEC, DISCARD and a closed connection) of one watch. */
    public void unwatch(dev.cajon.storage.tx.Watch w) {
        for (;;) {
            if (w.home() != this) { // a SWAPDB moved it with its db
                ((Keyspace) w.home()).unwatch(w);
                return;
            }
            int st = e.lockStripe(w.storedKey());
            try {
                if (w.home() == this) { // not moved meanwhile (a swap holds every stripe)
                    e.watches.remove(w);
                    return;
                }
            } finally {
                e.stripe(st).unlock();
            }
        }
    }

    /**
     * Whether a watched key changed since WATCH, including by passing its deadline (the lazy
     * check runs now). Call inside an atomic section that holds the key.
     */
    public boolean changed(dev.cajon.storage.tx.Watch w) {
        if (w.dirty()) {
            return true;
        }
        if (w.home() != this) {
            // a SWAPDB moved the clean watch to the keyspace that now holds its db, which the
            // EXEC's section holds (it takes the watched keys' dbs as they are now); one that
            // moved again since the section began is taken as changed
            Keyspace h = (Keyspace) w.home();
            return !h.e.holds(KeyspaceEngine.stripeOf(w.storedKey())) || h.changed(w);
        }
        if (!e.holds(KeyspaceEngine.stripeOf(w.storedKey()))) {
            throw new IllegalStateException("changed() outside an atomic section holding the key");
        }
        e.readLive(w.storedKey());
        return w.dirty();
    }

    /** DBSIZE: the live key count, never counting part of a transaction. */
    public long dbsize() {
        e.txGate.writeLock().lock();
        try {
            return e.counts.keys.sum();
        } finally {
            e.txGate.writeLock().unlock();
        }
    }

    // ------------------------------------------------------------------ keys (every type)

    /** DEL / UNLINK of one key: whether it existed. */
    public boolean del(byte[] userKey) {
        return del(userKey, false);
    }

    /** DEL ({@code lazy} false) or UNLINK (true: a big collection's pages are freed later, see {@link LazyFree}). */
    public boolean del(byte[] userKey, boolean lazy) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] v = e.readLive(key);
            if (v == null) {
                return false;
            }
            e.removeStored(key, v, lazy);
            return true;
        });
    }

    /**
     * DEL / UNLINK of several keys at one moment (all their stripes held): how many existed. A key
     * named twice counts once, as in Redis; no other command sees part of the deletion.
     */
    public long delAll(byte[][] userKeys, int from) {
        return delAll(userKeys, from, false);
    }

    /** {@link #delAll(byte[][], int)}; {@code lazy}: UNLINK (see {@link #del(byte[], boolean)}). */
    public long delAll(byte[][] userKeys, int from, boolean lazy) {
        byte[][] uk = Arrays.copyOfRange(userKeys, from, userKeys.length);
        byte[][] ks = KeyspaceEngine.mapKeys(uk, 0);
        return e.locked(ks, uk, () -> {
            long n = 0;
            for (byte[] key : ks) {
                byte[] v = e.readLive(key);
                if (v != null) {
                    e.removeStored(key, v, lazy);
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
        byte[][] ks = KeyspaceEngine.mapKeys(uk, 0);
        return e.locked(ks, uk, () -> {
            boolean[] out = new boolean[ks.length];
            for (int i = 0; i < ks.length; i++) {
                out[i] = e.readLive(ks[i]) != null;
            }
            return out;
        });
    }

    /** EXISTS / TOUCH of one key. */
    public boolean exists(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> e.readLive(key) != null);
    }


    /** TYPE: the type's Redis name from the value header ("string"), or "none" when absent. */
    public String type(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] v = e.readLive(key);
            return v == null ? "none" : typeName(ValueHeader.type(v));
        });
    }

    /** The Redis name of a value header's type code (TYPE, SCAN ... TYPE). */
    static String typeName(byte type) {
        if (type == ValueHeader.TYPE_STRING) {
            return "string";
        }
        dev.cajon.storage.collection.CollectionType t = dev.cajon.storage.collection.CollectionTypes.of(type);
        if (t == null) {
            throw new IllegalStateException("unknown value type " + type);
        }
        return t.name();
    }

    /**
     * The value-header type code of a Redis type name (SCAN ... TYPE), case-insensitive; -1 for a
     * name no type has (then no key matches, as in Redis 7.0).
     */
    public static byte typeCode(String name) {
        if (name.equalsIgnoreCase("string")) {
            return ValueHeader.TYPE_STRING;
        }
        for (byte code = 0; code < 64; code++) {
            dev.cajon.storage.collection.CollectionType t = dev.cajon.storage.collection.CollectionTypes.of(code);
            if (t != null && t.name().equalsIgnoreCase(name)) {
                return code;
            }
        }
        return -1;
    }

    /**
     * OBJECT ENCODING: Redis's name for how the key's value is stored ("embstr", "int", "raw",
     * or what the collection's type answers), or null when the key is absent.
     */
    public String encoding(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] v = e.readLive(key);
            if (v == null) {
                return null;
            }
            if (ValueHeader.isCollection(v)) {
                dev.cajon.storage.collection.CollectionType t =
                        dev.cajon.storage.collection.CollectionTypes.of(ValueHeader.type(v));
                return t == null ? "unknown" : t.encoding(ValueHeader.collectionState(v));
            }
            long len = ValueHeader.stringLength(v);
            if (!ValueHeader.isBlob(v) && len <= 20 && Numbers.isLong(v, ValueHeader.payloadOffset(v), (int) len)) {
                return "int";
            }
            return len <= 44 ? "embstr" : "raw";
        });
    }

    /**
     * RENAME / RENAMENX. NOT_FOUND when the source is absent; NOT_APPLIED when {@code nx} and the
     * destination exists. The TTL moves with the key.
     */
    public OpStatus rename(byte[] userSrc, byte[] userDst, boolean nx) {
        return KeyMoves.rename(e, userSrc, userDst, nx);
    }

    /**
     * COPY within this keyspace or into {@code target}. NOT_FOUND when the source is absent,
     * NOT_APPLIED when the destination exists and {@code replace} is false.
     */
    public OpStatus copy(byte[] userSrc, Keyspace target, byte[] userDst, boolean replace) {
        return KeyMoves.copy(e, userSrc, target.e, userDst, replace);
    }

    /**
     * MOVE: the key goes to {@code target} (another db) under the same name, with its TTL; false
     * when it is absent here or exists there. See {@link KeyMoves#move} for what is not atomic.
     */
    public boolean move(byte[] userKey, Keyspace target) {
        return KeyMoves.move(e, userKey, target.e);
    }

    /** RANDOMKEY: a live key chosen at random, or null when the keyspace is empty. */
    public byte[] randomKey() {
        return KeyWalks.randomKey(e);
    }

    // ------------------------------------------------------------------ expiry

    /**
     * EXPIRE family with an absolute deadline. Returns whether the TTL was set (Redis's 1 / 0).
     * A deadline not in the future deletes the key and counts as set.
     */
    public boolean expireAt(byte[] userKey, long at, int cond) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] v = e.readLive(key);
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
            if (at <= e.clock.nowMillis()) {
                // every past deadline deletes, including -1 and -2, which must not be read as
                // NO_EXPIRY or KEEP_TTL (PEXPIREAT k -1 deletes k in Redis)
                e.removeStored(key, v);
            } else {
                e.applyDeadline(key, v, at);
            }
            return true;
        });
    }

    /** PERSIST: whether a TTL was removed. */
    public boolean persist(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] v = e.readLive(key);
            if (v == null || ValueHeader.expireAt(v) == ValueHeader.NO_EXPIRY) {
                return false;
            }
            e.put(key, ValueHeader.withExpiry(v, ValueHeader.NO_EXPIRY), v);
            return true;
        });
    }

    /** The key's absolute deadline in ms, {@link #NO_TTL} or {@link #NO_KEY}. */
    public long deadline(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] v = e.readLive(key);
            if (v == null) {
                return NO_KEY;
            }
            long at = ValueHeader.expireAt(v);
            return at == ValueHeader.NO_EXPIRY ? NO_TTL : at;
        });
    }

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
        return Reclaim.reclaimIfDue(e, key, recordAt);
    }

    /** {@link #reclaimIfDue(byte[], long)} for whatever record is valid (tests and tools). */
    public long reclaimIfDue(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        byte[] v = e.locked(key, () -> e.map().get(key));
        return v == null ? NOTHING_DUE : reclaimIfDue(key, ValueHeader.wheelAt(v));
    }

    // ------------------------------------------------------------------ whole keyspace

    /** Live key count (keys past their deadline count until reclaimed, as in Redis). */
    public long size() {
        return e.counts.keys.sum();
    }

    /** Mean time to live of the volatile keys in ms (INFO avg_ttl), 0 when there are none. */
    public long averageTtl() {
        return e.counts.averageTtl(e.clock.nowMillis());
    }

    /** What the live keys take in bytes: keys, stored values and blobs (the apps' byte quota). */
    public long liveBytes() {
        return e.counts.liveBytes.sum();
    }

    /** Live keys with a deadline. */
    public long volatileSize() {
        return e.counts.volatileKeys.sum();
    }

    /** Keys removed because their deadline passed (INFO expired_keys). */
    public long expiredCount() {
        return e.counts.expired.sum();
    }

    /** Off-heap bytes Chronicle uses for this keyspace's map. */
    public long mapBytes() {
        ChronicleMap<byte[], byte[]> m = e.file.map();
        return m == null ? 0 : m.offHeapMemoryUsed();
    }

    public int generation() {
        return e.file.generation();
    }

    /**
     * SWAPDB's part in the keyspaces: the watches of {@code a} and {@code b} as Redis's
     * touchAllWatchedKeysInDb both ways (see {@link dev.cajon.storage.tx.Watches#swap}). The
     * caller holds both whole ({@link #atomically}); the keyspaces themselves change nothing,
     * the store maps each to the other's db.
     */
    static void swapWatches(Keyspace a, Keyspace b) {
        if (a.e.watches.active() || b.e.watches.active()) {
            dev.cajon.storage.tx.Watches.swap(a.e.watches, b.e.watches,
                    k -> a.e.map().containsKey(k) || b.e.map().containsKey(k));
        }
    }

    /** Every stripe and the map lock (reentrant: an EXEC holding the keyspace whole may call it). */
    void lockWhole() {
        e.lockAll();
        e.map(); // mapped: the swap reads it (watches), and a release waits for us now
    }

    void unlockWhole() {
        e.unlockAll();
    }

    /** FLUSHDB: every key and blob is gone. */
    public void flush() {
        e.lockAll();
        try {
            e.map(); // mapped first: a released map's clean state goes before its file does
            if (e.watches.active()) {
                e.watches.touchedAll(k -> e.map().containsKey(k));
            }
            e.file.reset();
            e.blobs.deleteAll();
            e.counts.set(0, 0, 0, 0);
            e.counts.setPages(0);
            e.epoch++;
        } finally {
            e.unlockAll();
        }
    }

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
    public long scan(long cursor, int count, Consumer<byte[]> visitor) {
        return KeyWalks.scan(e, cursor, count, visitor);
    }

    /**
     * SCAN ... TYPE: {@link #scan} visiting only keys whose value-header type is {@code type}
     * (see {@link #typeCode}; 0: every type, -1: none).
     */
    public long scan(long cursor, int count, byte type, Consumer<byte[]> visitor) {
        if (type == -1) {
            return KeyWalks.scan(e, cursor, count, (byte) 0, k -> { });
        }
        return KeyWalks.scan(e, cursor, count, type, visitor);
    }

    /** Map entries that are collections' pages, not keys (for tests and INFO). */
    public long pageCount() {
        return e.counts.pages.sum();
    }

    /** KEYS: visits every live key. The visitor must not call back into this keyspace. */
    public void forEachLiveKey(Consumer<byte[]> visitor) {
        KeyWalks.forEachLiveKey(e, visitor);
    }
}
