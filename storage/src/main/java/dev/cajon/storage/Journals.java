package dev.cajon.storage;

import dev.cajon.storage.chronicle.BatchJournal;
import dev.cajon.storage.chronicle.WriteJournal;
import java.nio.file.Path;
import java.util.List;

/**
 * A keyspace's three journals, each made on first use and unmapped and deleted when the keyspace
 * is released or closed (every stripe held, so nothing is in flight):
 * <ul>
 *   <li>the write journal ({@link WriteJournal}): the overwrite in flight per stripe, so a crash
 *       mid-overwrite cannot lose the key;</li>
 *   <li>the batch journal ({@link BatchJournal}): the multi-key write in flight (MSET, MSETNX,
 *       RENAME), in the slot of the lowest stripe it holds, so a crash cannot leave one half
 *       applied;</li>
 *   <li>the collections journal: the same as the batch journal for collection writes
 *       ({@link KeyCollections}), whose few pages of 1-2 KiB each do not fit a 2 KiB slot: fewer,
 *       larger slots ({@value #COLLECTION_SLOTS} of {@value #COLLECTION_SLOT_SIZE} bytes, 1 MiB of
 *       sparse file), each shared by the stripes equal modulo {@value #COLLECTION_SLOTS} and
 *       taken with a lock of its own. Measured (CollectionJournalMeasureTest, one thread, 50k
 *       writes of three pages and the state, warm, on the shared 2-core machine): pages of
 *       1.5 KiB went to the large area's file channel with 2 KiB slots, 37-41 us a write; in a
 *       16 KiB slot 3.9-14 us across runs (pages of 300 bytes, which fit either: 2.6-7.5 us);
 *       the machine is shared, so only the ratio means much;</li>
 *   <li>the transaction journal: the undo record of an EXEC in flight (see {@link Sections}).</li>
 * </ul>
 * Opening a keyspace applies what is pending in them, in that order ({@link Recovery}).
 */
final class Journals {
    /** {@link #beginBatch}: nothing was recorded. */
    static final int NO_BATCH = Integer.MIN_VALUE;

    private final Path dir;
    private volatile WriteJournal write;
    private volatile BatchJournal batch;
    private volatile BatchJournal tx;
    private volatile BatchJournal collections;
    private volatile BatchJournal tx2;
    /**
     * Held by an atomic section whose undo record is in a large area (of the transaction journal
     * or its second file) until it ends: two sections that each held one large area and wanted
     * the other's would deadlock.
     */
    final java.util.concurrent.locks.ReentrantLock largeUndo = new java.util.concurrent.locks.ReentrantLock();

    /** Slots of the collections journal, and their size. */
    static final int COLLECTION_SLOTS = 64;
    static final int COLLECTION_SLOT_SIZE = 16 * 1024;
    private final java.util.concurrent.locks.ReentrantLock[] collectionSlots =
            new java.util.concurrent.locks.ReentrantLock[COLLECTION_SLOTS];

    Journals(Path dir, WriteJournal write, BatchJournal batch, BatchJournal tx) {
        this(dir, write, batch, tx, null);
    }

    Journals(Path dir, WriteJournal write, BatchJournal batch, BatchJournal tx, BatchJournal collections) {
        this.dir = dir;
        this.write = write;
        this.batch = batch;
        this.tx = tx;
        this.collections = collections;
        for (int i = 0; i < COLLECTION_SLOTS; i++) {
            collectionSlots[i] = new java.util.concurrent.locks.ReentrantLock();
        }
    }

    BatchJournal tx2OrNull() {
        return tx2;
    }

    /** Recovery: the second undo file found on open. */
    void adoptTx2(BatchJournal j) {
        tx2 = j;
    }

    /** The second transaction journal (an undo record that grows moves between the two). */
    BatchJournal tx2() {
        BatchJournal j = tx2;
        if (j == null) {
            synchronized (this) {
                j = tx2;
                if (j == null) {
                    j = BatchJournal.open(dir.resolve(Keyspace.TX2_FILE), Keyspace.STRIPES);
                    tx2 = j;
                }
            }
        }
        return j;
    }

    BatchJournal collectionsOrNull() {
        return collections;
    }

    /** Opens the collections journal at {@code file} (recovery, or its first use). */
    static BatchJournal openCollections(Path file) {
        return BatchJournal.open(file, COLLECTION_SLOTS, COLLECTION_SLOT_SIZE);
    }

    private BatchJournal collections() {
        BatchJournal j = collections;
        if (j == null) {
            synchronized (this) {
                j = collections;
                if (j == null) {
                    j = openCollections(dir.resolve(Keyspace.COLLECTIONS_FILE));
                    collections = j;
                }
            }
        }
        return j;
    }

    /**
     * Records a collection write of several map entries (see {@link #beginBatch}) in the slot
     * of {@code lowestStripe} modulo {@value #COLLECTION_SLOTS}, held until {@link #endCollections}
     * (the caller holds its stripes and never waits for one while a slot is held).
     */
    int beginCollections(int lowestStripe, List<BatchJournal.Entry> writes) {
        int slot = lowestStripe % COLLECTION_SLOTS;
        BatchJournal j = collections();
        collectionSlots[slot].lock();
        try {
            int token = j.begin(slot, writes);
            return token == slot ? slot : COLLECTION_SLOTS + slot; // else the large area's
        } catch (RuntimeException | Error e) {
            collectionSlots[slot].unlock();
            throw e;
        }
    }

    /** Ends what {@link #beginCollections} began; NO_BATCH: nothing to end. */
    void endCollections(int token) {
        if (token == NO_BATCH) {
            return;
        }
        int slot = token % COLLECTION_SLOTS;
        try {
            collections.end(token >= COLLECTION_SLOTS ? -1 : slot);
        } finally {
            collectionSlots[slot].unlock();
        }
    }

    /** The write journal as it is now (null: none since the keyspace opened or woke). */
    WriteJournal writeOrNull() {
        return write;
    }

    BatchJournal batchOrNull() {
        return batch;
    }

    BatchJournal txOrNull() {
        return tx;
    }

    /** The write journal, created by the first overwrite since the keyspace opened or woke. */
    WriteJournal write() {
        WriteJournal j = write;
        if (j == null) {
            synchronized (this) {
                j = write;
                if (j == null) {
                    j = WriteJournal.open(dir.resolve(Keyspace.JOURNAL_FILE), Keyspace.STRIPES);
                    write = j;
                }
            }
        }
        return j;
    }

    /**
     * Ends the write of {@code slot} if one was begun. Without a journal none was: the slot's
     * stripe holder would have created it.
     */
    void endWrite(int slot) {
        WriteJournal j = write;
        if (j != null) {
            j.end(slot);
        }
    }

    /** The batch journal, created by the first multi-key write (see {@link #write}). */
    BatchJournal batch() {
        BatchJournal j = batch;
        if (j == null) {
            synchronized (this) {
                j = batch;
                if (j == null) {
                    j = BatchJournal.open(dir.resolve(Keyspace.BATCH_FILE), Keyspace.STRIPES);
                    batch = j;
                }
            }
        }
        return j;
    }

    /** The transaction journal, created by the first EXEC that needs an undo record. */
    BatchJournal tx() {
        BatchJournal j = tx;
        if (j == null) {
            synchronized (this) {
                j = tx;
                if (j == null) {
                    j = BatchJournal.open(dir.resolve(Keyspace.TX_FILE), Keyspace.STRIPES);
                    tx = j;
                }
            }
        }
        return j;
    }

    /**
     * Records a multi-key write in the batch journal, in the slot of {@code lowestStripe} (the
     * lowest stripe the command holds, so concurrent commands never share one), and returns the
     * token to {@link #endBatch} with once every write is in. A key given twice is recorded twice,
     * in order: applied again, the last value wins, as it did.
     */
    int beginBatch(int lowestStripe, List<BatchJournal.Entry> writes) {
        return batch().begin(lowestStripe, writes);
    }

    /** Ends a batch {@link #beginBatch} began; NO_BATCH: nothing to end. */
    void endBatch(int token) {
        if (token != NO_BATCH) {
            batch.end(token);
        }
    }

    /**
     * Unmaps and deletes every journal; nothing is in flight (every stripe is held, or the
     * journals were just replayed). They are created again by the first write that needs one.
     */
    void drop() {
        WriteJournal j = write;
        BatchJournal b = batch;
        BatchJournal t = tx;
        BatchJournal c = collections;
        BatchJournal t2 = tx2;
        tx2 = null;
        if (t2 != null) {
            t2.closeAndDelete();
        }
        write = null;
        batch = null;
        tx = null;
        collections = null;
        if (c != null) {
            c.closeAndDelete();
        }
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
}
