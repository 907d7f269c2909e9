package dev.cajon.storage;

import dev.cajon.storage.chronicle.BatchJournal;
import dev.cajon.storage.chronicle.ValueHeader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Atomic sections: how EXEC is isolated and crash-atomic.
 *
 * <p>EXEC knows every key its queued commands touch (the command table's key positions), so it
 * runs them as one section that holds those keys' stripes, in stripe order like any multi-key
 * command, plus txGate shared. Commands inside re-enter the stripe locks (they are
 * reentrant). Nothing else can touch those keys meanwhile, and DBSIZE, SCAN, KEYS and
 * RANDOMKEY take txGate exclusively, so they wait for the section to end: no client observes
 * a transaction half done. Transactions on disjoint keys run in parallel on different event
 * loops. A transaction whose commands are keyspace-wide (FLUSHDB, DBSIZE, KEYS ...) runs with
 * the whole keyspace held instead ({@code whole}): every stripe, the map lock and txGate.
 *
 * <p>Growth needs every stripe. Inside a keyed section it cannot wait for them (another thread
 * may hold one while waiting for ours), so growth is put off until the section ends, and a
 * write that finds the map full marks the section: its writes are taken back from the
 * snapshot, the stripes are let go, the map grows and the whole section runs again. A whole
 * section holds everything, so it grows in place.
 *
 * <p>Crash atomicity: before the first command runs, the section writes every key's stored value
 * (or "absent") to the transaction journal as an undo record and marks it pending; it ends
 * the record once the last command is done. Opening the keyspace applies a pending undo
 * record after every other journal, so an interrupted EXEC is there completely (it ended) or
 * not at all. For the undo record to stay true, files are not deleted inside a section:
 * blobs and long-key files that commands let go are deleted only after the record ends.
 */
final class Sections {
    private Sections() {
    }

    /** What a section defers until it ends. */
    static final class Section {
        final boolean whole;
        final List<Long> deadBlobs = new ArrayList<>();
        final List<String> deadKeyFiles = new ArrayList<>();
        /** Collections ({key, stored}) commands let go: their pages are freed when the section ends. */
        final List<byte[][]> deadCollections = new ArrayList<>();
        /**
         * The section's snapshot (null without undo): collection writes add every page's previous
         * value to it, so that a take-back restores pages with their key entries.
         */
        Undo undo;
        /** The undo record as written, where it is pending (journal, token, slot), what it names. */
        BatchJournal undoJournal;
        int undoToken = Journals.NO_BATCH;
        int undoSlot;
        List<BatchJournal.Entry> undoRecord;
        final Set<java.nio.ByteBuffer> recorded = new HashSet<>();
        /** Whether this section holds {@link Journals#largeUndo}. */
        boolean holdsLargeUndo;
        /** A write ran out of room inside a keyed section: take back, grow and run again. */
        boolean outOfRoom;

        Section(boolean whole) {
            this.whole = whole;
        }
    }

    /** See {@link Keyspace#atomically}. */
    static <T> T atomically(KeyspaceEngine e, byte[][] userKeys, boolean whole, boolean undo, Supplier<T> op) {
        if (e.section.get() != null) {
            throw new IllegalStateException("an atomic section is already running on " + e.name);
        }
        byte[][] stored = new byte[userKeys.length][];
        for (int i = 0; i < stored.length; i++) {
            stored[i] = KeyCodec.mapKey(userKeys[i]);
        }
        int[] idx = whole ? null : distinctStripes(stored);
        if (!whole && e.owner.growBeforeSection && stored.length > 0
                && e.counts.keys.sum() + stored.length > e.file.capacity()) {
            Growth.grow(e, true, stored.length); // room first: a keyed section cannot grow in the middle
        }
        for (int attempt = 0; ; attempt++) {
            Section s = new Section(whole);
            enter(e, s, idx);
            Undo before = null;
            int token = Journals.NO_BATCH;
            boolean retry = false;
            try {
                if (undo && stored.length > 0) {
                    before = snapshot(e, stored);
                    List<BatchJournal.Entry> record = undoRecord(before);
                    if (!BatchJournal.fitsSlot(record)) {
                        e.journals.largeUndo.lock();
                        s.holdsLargeUndo = true;
                    }
                    token = e.journals.tx().begin(whole ? 0 : idx[0], record);
                    s.undoJournal = e.journals.tx();
                    s.undoToken = token;
                    s.undoSlot = whole ? 0 : idx[0];
                    s.undoRecord = record;
                    for (BatchJournal.Entry en : record) {
                        s.recorded.add(java.nio.ByteBuffer.wrap(en.key()));
                    }
                }
                s.undo = before;
                e.section.set(s);
                T result = null;
                try {
                    result = op.get();
                } catch (CapacityExhausted ex) {
                    if (!s.outOfRoom) {
                        throw ex;
                    } // else op let it through instead of turning it into a reply: retried below
                }
                if (!s.outOfRoom) {
                    return result;
                }
                if (attempt >= Growth.MAX_GROW_RETRIES) {
                    throw new IllegalStateException("keyspace " + e.name + " cannot grow");
                }
                if (before != null) {
                    restore(e, before, s, idx);
                }
                retry = true;
            } finally {
                e.section.remove();
                if (s.undoToken != Journals.NO_BATCH) {
                    s.undoJournal.end(s.undoToken);
                }
                if (s.holdsLargeUndo) {
                    e.journals.largeUndo.unlock();
                }
                boolean grow = Growth.needed(e); // while the section still holds its stripes
                exit(e, s, idx);
                // only now that the undo record is ended may the files it names go
                finish(e, s, userKeys, stored, retry ? before : null, grow);
            }
            Growth.grow(e, true, stored.length);
        }
    }

    /**
     * A collection write inside a section with an undo record is about to change {@code befores}'
     * entries (their values now, null: absent): the ones the record does not name yet are added
     * to it first, so that a kill during the section takes its pages back too. The grown record is
     * written complete and pending in the other of the two transaction files before the old one
     * is cleared, so one complete record is always pending; every record holds only values from
     * before the section, so two pending at once agree.
     */
    static void recordBefore(KeyspaceEngine e, Section s, List<BatchJournal.Entry> befores) {
        if (s.undoToken == Journals.NO_BATCH) {
            return;
        }
        List<BatchJournal.Entry> fresh = new ArrayList<>();
        for (BatchJournal.Entry b : befores) {
            if (s.recorded.add(java.nio.ByteBuffer.wrap(b.key()))) {
                fresh.add(b);
            }
        }
        if (fresh.isEmpty()) {
            return;
        }
        List<BatchJournal.Entry> next = new ArrayList<>(s.undoRecord.size() + fresh.size());
        next.addAll(s.undoRecord);
        next.addAll(fresh);
        if (!s.holdsLargeUndo && !BatchJournal.fitsSlot(next)) {
            e.journals.largeUndo.lock();
            s.holdsLargeUndo = true;
        }
        BatchJournal other = s.undoJournal == e.journals.txOrNull() ? e.journals.tx2() : e.journals.tx();
        int token = other.begin(s.undoSlot, next);
        s.undoJournal.end(s.undoToken);
        s.undoJournal = other;
        s.undoToken = token;
        s.undoRecord = next;
    }

    /**
     * The keys' stripes, sorted and without repeats (the order every multi-stripe lock takes). A
     * plain sort and one pass: the stream this was (sorted().distinct()) was 3-4 % of an event
     * loop's samples on the bot path, where every EXEC comes here.
     */
    static int[] distinctStripes(byte[][] keys) {
        int[] idx = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            idx[i] = KeyspaceEngine.stripeOf(keys[i]);
        }
        Arrays.sort(idx);
        int n = 0;
        for (int i = 0; i < idx.length; i++) {
            if (n == 0 || idx[i] != idx[n - 1]) {
                idx[n++] = idx[i];
            }
        }
        return n == idx.length ? idx : Arrays.copyOf(idx, n);
    }

    private static void enter(KeyspaceEngine e, Section s, int[] idx) {
        if (s.whole) {
            e.txGate.writeLock().lock();
            e.lockAll();
            return;
        }
        e.txGate.readLock().lock();
        for (int i : idx) {
            e.lockIndex(i);
        }
    }

    private static void exit(KeyspaceEngine e, Section s, int[] idx) {
        if (s.whole) {
            e.unlockAll();
            e.txGate.writeLock().unlock();
            return;
        }
        for (int i = idx.length - 1; i >= 0; i--) {
            e.stripe(idx[i]).unlock();
        }
        e.txGate.readLock().unlock();
    }

    /** Every key's stored bytes as the section starts (null: absent), each key once. */
    private static Undo snapshot(KeyspaceEngine e, byte[][] keys) {
        Undo u = new Undo();
        Set<java.nio.ByteBuffer> seen = new HashSet<>();
        for (byte[] k : keys) {
            if (seen.add(java.nio.ByteBuffer.wrap(k))) {
                u.written(k, e.map().get(k), ValueHeader.NO_BLOB);
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
    private static void restore(KeyspaceEngine e, Undo before, Section s, int[] idx) {
        for (int round = 0; ; round++) {
            before.takeBack(e);
            if (before.applied == 0) {
                break;
            }
            if (round >= Growth.MAX_GROW_RETRIES) {
                throw new IllegalStateException("keyspace " + e.name + " cannot grow to take a transaction back");
            }
            exit(e, s, idx);
            try {
                Growth.grow(e, true, 0);
            } finally {
                enter(e, s, idx);
            }
        }
        s.deadBlobs.addAll(before.deadBlobs);
        before.deadBlobs.clear();
    }

    /**
     * After a section: deletes the files it let go (those its snapshot names stay when it was
     * taken back), brings long keys' files in line, and grows the map if it passed its capacity.
     */
    /**
     * Frees the pages of the collections the section let go, each under its key's stripe, except
     * those its taken-back snapshot names again.
     */
    private static void releaseCollections(KeyspaceEngine e, Section s, Undo takenBack) {
        if (s.deadCollections.isEmpty()) {
            return;
        }
        Set<Long> named = new HashSet<>();
        if (takenBack != null) {
            for (byte[] v : takenBack.before) {
                if (v != null && ValueHeader.isCollection(v)) {
                    named.add(ValueHeader.collectionId(v));
                }
            }
        }
        for (byte[][] c : s.deadCollections) {
            if (named.contains(ValueHeader.collectionId(c[1]))) {
                continue;
            }
            ReentrantLock l = e.lockIndex(KeyspaceEngine.stripeOf(c[0]));
            try {
                KeyCollections.release(e, c[1]);
            } finally {
                l.unlock();
            }
        }
    }

    private static void finish(KeyspaceEngine e, Section s, byte[][] userKeys, byte[][] keys, Undo takenBack,
            boolean grow) {
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
                e.blobs.delete(id);
            }
        }
        releaseCollections(e, s, takenBack);
        if (!s.deadKeyFiles.isEmpty() || takenBack != null) {
            for (int i = 0; i < keys.length; i++) {
                int st = KeyspaceEngine.stripeOf(keys[i]);
                ReentrantLock l = e.lockIndex(st);
                try {
                    e.syncKeyFile(keys[i], userKeys[i]);
                } finally {
                    l.unlock();
                }
            }
        }
        Growth.ifNeeded(e, grow);
    }
}
