package dev.cajon.storage;

import dev.cajon.storage.blob.BlobStore;
import dev.cajon.storage.chronicle.MapFile;
import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.tx.Watches;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

/**
 * The keyspace engine: everything about storing a key that knows nothing of Redis's types. It
 * holds the map generations, the stripe locks, the journals, the counts, the watches and the
 * expiry wheel's hooks, and gives the per-type operations files ({@link StringOps}, and the
 * hash, list and sorted-set ones to come) the primitives they are written with.
 *
 * <h2>What an operations file uses</h2>
 * An ops file works on stored keys ({@link KeyCodec#mapKey}) and stored values (a
 * {@link ValueHeader} plus the type's payload), never on Chronicle or the journals directly:
 * <ul>
 *   <li>{@link #locked(byte[], byte[], Supplier)}: a read-modify-write of one key under its stripe
 *       lock. The body may run more than once (after growth) and must start afresh each time; it
 *       lets {@link CapacityExhausted} through. Growth, the long key's file and the retry are the
 *       engine's.</li>
 *   <li>{@link #locked(byte[][], byte[][], Supplier)}: the same for several keys at one moment
 *       (stripes in index order, shared with transactions). A write of two or more keys records
 *       them first with {@link Journals#beginBatch} (see {@code StringOps.setAll}, and
 *       {@link Undo} to take it back when the map runs out of room part way).</li>
 *   <li>{@link #readLive} (the lazy expiry: a key past its deadline is removed, never returned),
 *       {@link #readLive(byte[], byte)} (the same with the type check: {@link #WRONG_TYPE} for a
 *       key of another type, which the ops file returns as {@link OpStatus#WRONG_TYPE}),
 *       {@link #put} and {@link #putEncoded} (journaled overwrite, counts, watches and the
 *       wheel's record), {@link #removeStored}, {@link #applyDeadline}.</li>
 *   <li>For a hot path, {@link #map()} with a query context and {@link #writeThrough}, ending the
 *       journal slot with {@link Journals#endWrite} once the context is closed (see
 *       {@code StringsInPlace.set}); then {@link #touched} and {@link #accountWrite} are the
 *       caller's.</li>
 * </ul>
 * A collection type does not use these directly: it is written on {@link KeyCollections} (the
 * {@code CollectionAccess} of {@code Keyspace.collections()}), which keeps a key entry and pages
 * in this map with these primitives; {@link #removeStored} and {@link #putEncoded} free a
 * collection's pages through {@link #dropCollection} when its key entry goes or is overwritten.
 *
 * Every method here except the lock-taking ones expects the key's stripe lock held.
 *
 * <h2>Concurrency</h2>
 * Every operation on a key holds that key's stripe lock (one of {@value Keyspace#STRIPES});
 * multi-key operations take their stripes in index order, so they cannot deadlock. Chronicle's
 * own segment locks make each single map call atomic; the stripe lock makes read-modify-write
 * sequences atomic. A key's stripe is picked by the same hash bits as its Chronicle segment
 * ({@link #stripeOf}), so in a big map threads on different stripes never contend for a segment
 * lock. Growth takes every stripe, so while any stripe is held the map reference cannot change.
 */
final class KeyspaceEngine {
    final Keyspace owner;
    final String name;
    final Clock clock;
    final MapFile file;
    final BlobStore blobs;
    final Path dir;
    final Journals journals;
    final KeyCounts counts = new KeyCounts();
    final ExpiryListener expiryListener;

    private static final AtomicInteger IDS = new AtomicInteger();
    final int id = IDS.getAndIncrement();
    /** Changes whenever the map is replaced (growth, FLUSHDB), which invalidates SCAN cursors. */
    volatile int epoch = java.util.concurrent.ThreadLocalRandom.current().nextInt(1, 1 << 15);
    volatile boolean closed;
    /** Unlinked collections whose pages the lazyfree thread has not removed yet ({@link LazyFree}). */
    final java.util.concurrent.atomic.AtomicInteger lazyFrees = new java.util.concurrent.atomic.AtomicInteger();
    /** A lazyfree job failed: pages no key names are in the map, so no clean state may be written. */
    volatile boolean lazyOrphans;
    /** Growth was refused for want of disk: {@link Growth#ifNeeded} does not try again before this (nanoTime). */
    volatile long growRefusedUntil;
    /** The free disk space when growth was last refused ({@link #growRefusedUntil}). */
    volatile long growRefusedFree;
    /**
     * Held shared by whole-map walks (SCAN, KEYS, RANDOMKEY) and exclusively when the map is
     * replaced (growth, FLUSHDB, close), so a walk never touches a closed map.
     */
    final ReentrantReadWriteLock mapLock = new ReentrantReadWriteLock();
    /** The stripe locks, made on first use, and the map lock's writer holding them all. */
    final StripeLocks locks = new StripeLocks(Keyspace.STRIPES, mapLock);
    /**
     * Transactions against keyspace-wide readers (see {@link Sections}): held shared by an EXEC
     * that locks only its keys' stripes, exclusively by one that locks the whole keyspace and by
     * DBSIZE, SCAN, KEYS and RANDOMKEY, which therefore never see an EXEC half done.
     */
    final ReentrantReadWriteLock txGate = new ReentrantReadWriteLock();
    /** The keys clients WATCH here; every change of a key goes through {@link #touched}. */
    final Watches watches;
    /** The atomic section this thread runs on this keyspace, if any (see {@link Sections}). */
    final ThreadLocal<Sections.Section> section = new ThreadLocal<>();

    /** Set by every use of the map; the store's idle sweep reads and clears it (see {@link Idle}). */
    boolean used = true;
    /** When the idle sweep last saw this keyspace used (clock millis). */
    volatile long lastUsed;
    /** Told when the map is mapped again; the store counts open maps. */
    volatile Runnable onWake;

    KeyspaceEngine(Keyspace owner, Path dir, String name, Clock clock, MapFile file, BlobStore blobs,
                   Journals journals, ExpiryListener listener) {
        this.owner = owner;
        this.watches = new Watches(owner);
        this.dir = dir;
        this.name = name;
        this.clock = clock;
        this.file = file;
        this.blobs = blobs;
        this.journals = journals;
        this.expiryListener = listener == null ? ExpiryListener.NONE : listener;
    }

    /** The map, mapped again first if it was released ({@link Idle#wake}). */
    ChronicleMap<byte[], byte[]> map() {
        ChronicleMap<byte[], byte[]> m = file.map();
        if (m == null) {
            m = Idle.wake(this);
        }
        if (!used) {
            used = true;
        }
        return m;
    }

    // ------------------------------------------------------------------ locking

    /**
     * The stripe of {@code key}: the low bits of Chronicle's own hash of it, which are also its
     * segment index (Chronicle's segment counts are powers of two). So in a map of at least
     * {@value Keyspace#STRIPES} segments (2M entries and up) a segment's keys all share one stripe,
     * and two threads that hold different stripes never meet on a segment lock; in a smaller map a
     * segment's keys spread over {@value Keyspace#STRIPES} / segments stripes. Why it matters:
     * Chronicle's segment locks spin, and on 2 cores a thread that took one and was then
     * descheduled kept whoever wanted that segment spinning through its time slice (an expiry
     * storm's reapers against the event loops, in a 4M-entry map); stripe locks park.
     */
    static int stripeOf(byte[] key) {
        return (int) dev.cajon.storage.chronicle.ByteArrayAccess.xxHash64(key) & (Keyspace.STRIPES - 1);
    }

    /** Locks the stripe of {@code key} and returns its index. */
    int lockStripe(byte[] key) {
        int s = stripeOf(key);
        lockIndex(s);
        return s;
    }

    /** Stripe {@code i}'s lock as it is now; null if never used (then nobody holds it). */
    ReentrantLock stripe(int i) {
        return locks.get(i);
    }

    /** Whether this thread holds stripe {@code i}. */
    boolean holds(int i) {
        return locks.holds(i);
    }

    /** Takes stripe {@code i}'s lock (see {@link StripeLocks#lock}). */
    ReentrantLock lockIndex(int i) {
        return locks.lock(i);
    }

    /** Stripe {@code i}'s lock if free now, else null (see {@link StripeLocks#tryLock}). */
    ReentrantLock tryLockIndex(int i) {
        return locks.tryLock(i);
    }

    /** Every stripe plus the map lock: nothing else runs on this keyspace meanwhile. */
    void lockAll() {
        HeldViews.release();
        locks.lockAll();
    }

    void unlockAll() {
        locks.unlockAll();
    }

    <T> T locked(byte[] key, Supplier<T> op) {
        return locked(key, key, op);
    }

    /**
     * Runs {@code op} under the stripe lock of {@code key} (a stored key), growing the map and
     * retrying if it ran out of room. {@code userKey} is the client's key: when it differs (a
     * digest key, see {@link KeyCodec}), its key file is brought in line before the lock is let go.
     */
    <T> T locked(byte[] key, byte[] userKey, Supplier<T> op) {
        HeldViews.release(); // a thread holding a view never waits for a lock (see HeldViews)
        for (int attempt = 0; ; attempt++) {
            ReentrantLock l = stripe(lockStripe(key));
            try {
                return op.get();
            } catch (CapacityExhausted e) {
                retryOrGiveUp(e, attempt);
            } finally {
                syncKeyFile(key, userKey);
                // not inside an atomic section, which grows when it ends; asked under the stripe
                boolean grow = l.getHoldCount() == 1 && Growth.needed(this);
                l.unlock();
                Growth.ifNeeded(this, grow);
            }
            Growth.grow(this, true, 0);
        }
    }

    /** {@link #locked(byte[], byte[], Supplier)} for several keys, locked in stripe order. */
    <T> T locked(byte[][] keyList, byte[][] userKeys, Supplier<T> op) {
        HeldViews.release();
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
                // asked while the stripes are held (see Growth.needed); not inside an atomic section
                boolean grow = taken == idx.length && stripe(idx[0]).getHoldCount() == 1 && Growth.needed(this);
                for (int i = taken - 1; i >= 0; i--) {
                    if (i == 0 || idx[i] != idx[i - 1]) {
                        stripe(idx[i]).unlock();
                    }
                }
                if (gated) {
                    txGate.readLock().unlock();
                }
                Growth.ifNeeded(this, grow);
            }
            Runnable hook = owner.beforeRetry;
            if (hook != null) {
                hook.run();
            }
            Growth.grow(this, true, keyList.length);
        }
    }

    /**
     * A locked operation ran out of room: it is retried after growth, unless it runs inside an
     * atomic section that holds only some stripes (growing needs all of them, and other threads
     * may wait for ours while holding theirs), which is taken back and retried whole instead.
     */
    private void retryOrGiveUp(CapacityExhausted e, int attempt) {
        Sections.Section s = section.get();
        if (s != null && !s.whole) {
            s.outOfRoom = true; // the section sees it even if a caller turns the exception into a reply
            throw e;
        }
        if (attempt >= Growth.MAX_GROW_RETRIES) {
            throw new IllegalStateException("keyspace " + name + " cannot grow", e.getCause());
        }
    }

    // ------------------------------------------------------------------ primitives (stripe held)

    /** {@link #readLive(byte[], byte)}: the key holds a value of another type. */
    static final byte[] WRONG_TYPE = new byte[0];

    /** The stored bytes of a live key, or null. Deletes the key if its deadline has passed. */
    byte[] readLive(byte[] key) {
        byte[] v = map().get(key);
        if (v == null) {
            return null;
        }
        if (ValueHeader.isExpired(v, clock.nowMillis())) {
            removeStored(key, v);
            counts.expired.increment();
            return null;
        }
        return v;
    }

    /**
     * {@link #readLive(byte[])} for an operation of one type: null when absent, the identical
     * {@link #WRONG_TYPE} array (compare with {@code ==}) when the key holds another type.
     */
    byte[] readLive(byte[] key, byte type) {
        byte[] v = readLive(key);
        return v == null || ValueHeader.type(v) == type ? v : WRONG_TYPE;
    }

    /** Whether a walked entry is past its deadline, read in place (no copy of the value). */
    static boolean isExpired(net.openhft.chronicle.hash.Data<byte[]> value, long now) {
        return ValueHeader.isExpired(value.bytes(), value.offset(), now);
    }

    /** Removes a live key; a collection's pages go too (after its key entry, see {@link #dropCollection}). */
    void removeStored(byte[] key, byte[] stored) {
        removeStored(key, stored, false);
    }

    /** {@link #removeStored(byte[], byte[])}; {@code lazy}: a big collection's pages go later (UNLINK, {@link LazyFree}). */
    void removeStored(byte[] key, byte[] stored, boolean lazy) {
        removeEntry(key, stored);
        if (ValueHeader.isCollection(stored)) {
            if (lazy && section.get() == null) {
                LazyFree.release(this, stripeOf(key), stored);
            } else {
                dropCollection(key, stored);
            }
        }
    }

    /** Removes a live key's entry and keeps the counts; a collection's pages stay (the caller's). */
    void removeEntry(byte[] key, byte[] stored) {
        map().remove(key);
        touched(key);
        if (KeyCodec.isDigest(key)) {
            dropKeyFile(KeyCodec.fileName(key));
        }
        accountRemoval(ValueHeader.expireAt(stored), ValueHeader.isBlob(stored) ? ValueHeader.blobId(stored)
                : ValueHeader.NO_BLOB, KeyCounts.footprint(key, stored));
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
    void put(byte[] key, byte[] stored, byte[] old) {
        long oldAt = old == null ? ValueHeader.NO_EXPIRY : ValueHeader.expireAt(old);
        long oldWheel = old == null ? ValueHeader.NO_EXPIRY : ValueHeader.wheelAt(old);
        long at = ValueHeader.expireAt(stored);
        boolean fileRecord = needsRecord(at, oldWheel);
        stored = withWheel(stored, at, oldWheel, fileRecord);
        // only an overwrite needs the journal: a torn insert is dropped by recovery, which is
        // the state before the (unacknowledged) write
        int slot = old != null ? stripeOf(key) : -1;
        if (slot >= 0) {
            journals.write().begin(slot, key, stored);
        }
        try {
            map().put(key, stored);
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new CapacityExhausted(e);
        } finally {
            if (slot >= 0) {
                journals.endWrite(slot);
            }
        }
        touched(key);
        accountWrite(key, stored, old != null, old == null ? 0 : KeyCounts.footprint(key, old), oldAt, at,
                fileRecord);
    }

    /** Whether a write with deadline {@code at} needs a new wheel record (see {@link #put}). */
    static boolean needsRecord(long at, long oldWheel) {
        return at != ValueHeader.NO_EXPIRY && (oldWheel == ValueHeader.NO_EXPIRY || oldWheel > at);
    }

    /** The value to store: with the key's valid record time as its wheel-at. */
    static byte[] withWheel(byte[] stored, long at, long oldWheel, boolean fileRecord) {
        return at == ValueHeader.NO_EXPIRY ? stored : ValueHeader.withWheelAt(stored, fileRecord ? at : oldWheel);
    }

    /** The counts and the wheel after a write; {@code existed}: the key was live before it. */
    void accountWrite(byte[] key, byte[] stored, boolean existed, long oldBytes, long oldAt, long at,
                      boolean fileRecord) {
        // the counts' arithmetic stays inline here (not a KeyCounts method): this is at the bottom of
        // SET's and INCR's call chain, and one more level pushed LongAdder's CAS past C2's inlining depth
        KeyCounts c = counts;
        if (!existed) {
            c.keys.increment();
        }
        c.liveBytes.add(KeyCounts.footprint(key, stored) - oldBytes);
        boolean wasVolatile = oldAt != ValueHeader.NO_EXPIRY;
        boolean isVolatile = at != ValueHeader.NO_EXPIRY;
        if (wasVolatile != isVolatile) {
            c.volatileKeys.add(isVolatile ? 1 : -1);
        }
        if (oldAt != at) {
            c.deadlineSum.add((isVolatile ? at - KeyCounts.DEADLINE_BASE : 0)
                    - (wasVolatile ? oldAt - KeyCounts.DEADLINE_BASE : 0));
        }
        c.keyBytes.add(key.length);
        c.valueBytes.add(stored.length);
        c.puts.increment();
        if (fileRecord) {
            expiryListener.file(owner, key, at);
        }
    }

    /** A key found past its deadline was removed or overwritten: the counts, expired_keys, its blob. */
    void accountExpired(long at, long blobId, long bytes) {
        accountRemoval(at, blobId, bytes);
        counts.expired.increment();
    }

    /** The counts after a live key was removed; deletes its blob. */
    void accountRemoval(long oldAt, long blobId, long bytes) {
        KeyCounts c = counts;
        c.keys.decrement();
        c.liveBytes.add(-bytes);
        if (oldAt != ValueHeader.NO_EXPIRY) {
            c.volatileKeys.decrement();
            c.deadlineSum.add(-(oldAt - KeyCounts.DEADLINE_BASE));
        }
        if (blobId != ValueHeader.NO_BLOB) {
            dropBlob(blobId);
        }
    }

    /** A new deadline for a live key: a deadline not in the future deletes it. */
    void applyDeadline(byte[] key, byte[] stored, long at) {
        if (at != ValueHeader.NO_EXPIRY && at <= clock.nowMillis()) {
            removeStored(key, stored);
            return;
        }
        put(key, ValueHeader.withExpiry(stored, at), stored);
    }

    /** Puts a freshly encoded value; on failure the new blob (if any) is removed again. */
    void putEncoded(byte[] key, byte[] stored, byte[] old) {
        putEncoded(key, stored, old, null);
    }

    /** {@link #putEncoded} as one write of a batch that may have to be taken back ({@code undo}). */
    void putEncoded(byte[] key, byte[] stored, byte[] old, Undo undo) {
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
        if (collectionLeftBy(old, stored)) {
            if (undo != null) {
                undo.deadCollections.add(new byte[][] {key, old});
            } else {
                dropCollection(key, old);
            }
        }
    }

    /** Whether {@code gone} is a collection that {@code kept} (the key's new value) does not name. */
    static boolean collectionLeftBy(byte[] gone, byte[] kept) {
        return gone != null && ValueHeader.isCollection(gone) && (kept == null || !ValueHeader.isCollection(kept)
                || ValueHeader.collectionId(kept) != ValueHeader.collectionId(gone));
    }

    /**
     * A collection's key entry ({@code stored}, under {@code key}) was removed or overwritten: its
     * pages are freed now, or when this thread's atomic section ends (its undo record may still
     * name the collection). The key's stripe lock is held.
     */
    void dropCollection(byte[] key, byte[] stored) {
        Sections.Section s = section.get();
        if (s != null) {
            s.deadCollections.add(new byte[][] {key, stored});
        } else {
            KeyCollections.release(this, stored);
        }
    }

    /**
     * The blob file of {@code gone} that nothing names once {@code kept} is the key's value (same
     * blob: none); NO_BLOB when {@code gone} is null or not a blob.
     */
    static long blobLeftBy(byte[] gone, byte[] kept) {
        if (gone == null || !ValueHeader.isBlob(gone)) {
            return ValueHeader.NO_BLOB;
        }
        long id = ValueHeader.blobId(gone);
        return kept != null && ValueHeader.isBlob(kept) && ValueHeader.blobId(kept) == id ? ValueHeader.NO_BLOB : id;
    }

    /**
     * Stores {@code stored} through an open query context: over {@code e}, or as a new entry when
     * {@code e} is null. An overwrite is journaled first (see {@link Journals}); the caller
     * ends the journal slot once the context is closed, when Chronicle has stored the checksum.
     */
    void writeThrough(ExternalMapQueryContext<byte[], byte[], ?> q, MapEntry<byte[], byte[]> e, byte[] key,
                      byte[] stored, int slot) {
        net.openhft.chronicle.hash.Data<byte[]> nd = q.wrapValueAsData(stored);
        if (e != null) {
            journals.write().begin(slot, key, stored);
            q.replaceValue(e, nd);
        } else {
            q.insert(q.absentEntry(), nd);
        }
    }

    /** A key changed: the watches on it are dirty. The key's stripe lock is held. */
    void touched(byte[] key) {
        if (watches.active()) {
            watches.touched(key);
        }
    }

    /** Deletes a blob file now, or when this thread's atomic section ends. */
    void dropBlob(long id) {
        Sections.Section s = section.get();
        if (s != null) {
            s.deadBlobs.add(id);
        } else {
            blobs.delete(id);
        }
    }

    /** Deletes a long key's file now, or when this thread's atomic section ends. */
    void dropKeyFile(String fileName) {
        Sections.Section s = section.get();
        if (s != null) {
            s.deadKeyFiles.add(fileName);
        } else {
            blobs.deleteKeyFile(fileName);
        }
    }

    // ------------------------------------------------------------------ keys too long for the map

    /**
     * For a digest key (see {@link KeyCodec}): the file holding the client's key exists exactly
     * while the key does. Called with the key's stripe lock held, after every operation on it.
     */
    void syncKeyFile(byte[] key, byte[] userKey) {
        if (key == userKey || !KeyCodec.isDigest(key)) {
            return;
        }
        String fileName = KeyCodec.fileName(key);
        if (map().containsKey(key)) {
            blobs.ensureKeyFile(fileName, userKey);
        } else if (section.get() == null) {
            blobs.deleteKeyFile(fileName);
        } // in an atomic section the file stays until it ends: its undo record may name the key
    }

    /**
     * For a multi-key write: a long (digest) key gets its key file before the map is written, so
     * that a batch applied again after a crash finds it (SCAN and KEYS name digest keys through
     * it). If the command does not complete, the next open sweeps the file with the other orphans.
     */
    void ensureKeyFileFirst(byte[] key, byte[] userKey) {
        if (key != userKey && KeyCodec.isDigest(key)) {
            blobs.ensureKeyFile(KeyCodec.fileName(key), userKey);
        }
    }

    /** The stored keys of {@code userKeys[from..]}. */
    static byte[][] mapKeys(byte[][] userKeys, int from) {
        byte[][] ks = new byte[userKeys.length - from][];
        for (int i = 0; i < ks.length; i++) {
            ks[i] = KeyCodec.mapKey(userKeys[from + i]);
        }
        return ks;
    }

    /** The client's key for a stored key, or null if a digest key's file is missing. */
    byte[] userKeyOf(byte[] mapKey) {
        if (KeyCodec.isDigest(mapKey)) {
            return blobs.readKeyFile(KeyCodec.fileName(mapKey));
        }
        return KeyCodec.userKey(mapKey);
    }
}
