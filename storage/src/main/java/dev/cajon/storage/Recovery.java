package dev.cajon.storage;

import dev.cajon.storage.blob.BlobStore;
import dev.cajon.storage.chronicle.BatchJournal;
import dev.cajon.storage.chronicle.CleanState;
import dev.cajon.storage.chronicle.MapFile;
import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.chronicle.WriteJournal;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opening a keyspace: the cheap open of one that was closed cleanly (it stays released), or the
 * full open, which applies the journals' pending writes again, then takes the clean state or
 * scans the map once (keys that expired while down are removed, deadlines are filed into the
 * wheel, orphaned blob and key files are swept).
 */
final class Recovery {
    private static final Logger log = LoggerFactory.getLogger(Keyspace.class);

    private Recovery() {
    }

    /** See {@link Keyspace#open}. */
    static Keyspace open(Path dir, String name, Clock clock, boolean recover, ExpiryListener listener) {
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
            journal = exists(dir, Keyspace.JOURNAL_FILE)
                    ? WriteJournal.open(dir.resolve(Keyspace.JOURNAL_FILE), Keyspace.STRIPES) : null;
            batch = exists(dir, Keyspace.BATCH_FILE)
                    ? BatchJournal.open(dir.resolve(Keyspace.BATCH_FILE), Keyspace.STRIPES) : null;
            tx = exists(dir, Keyspace.TX_FILE) ? BatchJournal.open(dir.resolve(Keyspace.TX_FILE), Keyspace.STRIPES) : null;
            Keyspace ks = new Keyspace(dir, name, clock, f, new BlobStore(dir.resolve("blobs")),
                    new Journals(dir, journal, batch, tx), listener);
            KeyspaceEngine e = ks.engine();
            boolean replayed = replayJournal(e);
            e.journals.drop();
            if (clean != null && !replayed && clean.mapFile.equals(f.file().getFileName().toString())) {
                loadClean(ks, clean);
            } else {
                loadScan(e);
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
     * {@link Keyspace#release}) and has nothing to replay: counts and expiry records come from its
     * clean state and the map stays released, to be mapped by the first command that needs it. So
     * a start with a thousand apps maps none of them, and an app costs no memory or descriptor
     * until it is used. After a crash this holds too for the keyspaces that were released at the
     * time: their map was closed cleanly, and a clean state exists only until the map is mapped
     * again ({@link Idle#wake} deletes it first). Null when the full open must run: no valid clean
     * state, a journal to replay, or a key whose deadline passed while down (the full open
     * removes those before it returns).
     */
    private static Keyspace openReleased(Path dir, String name, Clock clock, ExpiryListener listener) {
        if (exists(dir, Keyspace.JOURNAL_FILE) || exists(dir, Keyspace.BATCH_FILE) || exists(dir, Keyspace.TX_FILE)) {
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
        Keyspace ks = new Keyspace(dir, name, clock, f, new BlobStore(dir.resolve("blobs")),
                new Journals(dir, null, null, null), listener);
        KeyspaceEngine e = ks.engine();
        e.counts.set(clean);
        for (CleanState.Entry r : clean.records) {
            e.expiryListener.file(ks, r.key(), r.at());
        }
        return ks;
    }

    /**
     * Applies again every write that was in flight when the process stopped (see
     * {@link WriteJournal}): whatever Chronicle's recovery made of the entry (dropped it as torn,
     * kept the old value, or kept the new one), the key ends up with the value being written.
     * Runs before the load scan, so the scan counts, files and expires these keys as any other.
     */
    private static boolean replayJournal(KeyspaceEngine e) {
        WriteJournal journal = e.journals.writeOrNull();
        List<WriteJournal.Pending> pending = journal == null ? List.of() : journal.pending();
        for (WriteJournal.Pending p : pending) {
            ValueHeader.checkLayout(p.value());
            e.map().put(p.key(), p.value());
            journal.end(p.slot());
        }
        if (!pending.isEmpty()) {
            log.warn("{}: applied {} write(s) that were in flight when the server stopped", e.name, pending.size());
        }
        // after the single writes: a multi-key write's own overwrites may also be in their slots,
        // with the same values
        BatchJournal batch = e.journals.batchOrNull();
        List<List<BatchJournal.Entry>> batches = batch == null ? List.of() : batch.pending();
        for (List<BatchJournal.Entry> writes : batches) {
            applyJournaled(e, writes);
            log.warn("{}: applied a multi-key write of {} key(s) that was in flight when the server stopped: {}",
                    e.name, writes.size(), writes.size() <= 4 ? writes : writes.subList(0, 4) + "...");
        }
        if (!batches.isEmpty()) {
            batch.clearAll();
        }
        // last: an interrupted EXEC is taken back whole, over whatever of it (its MSETs' batches
        // included) was applied; its undo record holds every key's value from before it
        BatchJournal txJournal = e.journals.txOrNull();
        List<List<BatchJournal.Entry>> undone = txJournal == null ? List.of() : txJournal.pending();
        for (List<BatchJournal.Entry> writes : undone) {
            applyJournaled(e, writes);
            log.warn("{}: took back a transaction of {} key(s) that was in flight when the server stopped", e.name,
                    writes.size());
        }
        if (!undone.isEmpty()) {
            txJournal.clearAll();
        }
        return !pending.isEmpty() || !batches.isEmpty() || !undone.isEmpty();
    }

    /** Puts (or removes) what a pending batch or undo record names, straight into the map. */
    private static void applyJournaled(KeyspaceEngine e, List<BatchJournal.Entry> writes) {
        for (BatchJournal.Entry w : writes) {
            if (w.value() == null) {
                e.map().remove(w.key());
            } else {
                ValueHeader.checkLayout(w.value());
                e.map().put(w.key(), w.value());
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
     * The open after a clean close: the counts and expiry records saved by {@link Keyspace#close}
     * instead of a scan of the whole map (0.4 s for a million keys on 2 cores, most of a restart).
     * Records already due are handled now, so keys whose deadline passed while the server was down
     * are gone before this returns, as after a scan; the expired_keys counter does not count them,
     * as after a scan.
     */
    private static void loadClean(Keyspace ks, CleanState clean) {
        KeyspaceEngine e = ks.engine();
        e.counts.set(clean);
        // the clean state counts keys; every other entry of the map is a collection's page
        e.counts.setPages(Math.max(0, e.map().longSize() - clean.keys));
        long now = e.clock.nowMillis();
        int dead = 0;
        for (CleanState.Entry r : clean.records) {
            long at = r.at();
            if (now > at) {
                // a key lives through its deadline millisecond: this record is due
                long res = ks.reclaimIfDue(r.key(), at);
                if (res == Keyspace.RECLAIMED) {
                    dead++;
                } else if (res > 0) {
                    e.expiryListener.file(ks, r.key(), res);
                }
            } else {
                e.expiryListener.file(ks, r.key(), at);
            }
        }
        e.counts.expired.reset();
        log.debug("{}: opened from its clean-shutdown state: {} keys, {} expiry records", e.name, clean.keys,
                clean.records.size());
        if (dead > 0) {
            log.info("{}: removed {} keys that expired while down", e.name, dead);
        }
    }

    /*
     * Note on Chronicle iteration: e.key().get() and e.value().get() may return an array that
     * Chronicle reuses for the next entry of the same length, so anything kept beyond the visit
     * is cloned.
     */
    private static void loadScan(KeyspaceEngine ks) {
        long now = ks.clock.nowMillis();
        List<byte[]> dead = new ArrayList<>();
        Set<Long> liveBlobs = new HashSet<>();
        Set<String> liveKeyFiles = new HashSet<>();
        long[] count = new long[4];
        // collections: the ids live key entries name, and every page's (collection id, stored key)
        Set<Long> liveCollections = new HashSet<>();
        List<byte[]> pages = new ArrayList<>();
        // headers are read in place: a restart with millions of keys copies no value
        ks.map().forEachEntry(e -> {
            net.openhft.chronicle.hash.Data<byte[]> d = e.value();
            net.openhft.chronicle.bytes.RandomDataInput in = d.bytes();
            long off = d.offset();
            if (d.size() < 4 || in.readByte(off) != ValueHeader.LAYOUT_V1) {
                ValueHeader.checkLayout(d.get()); // throws with the layout it found
            }
            if (KeyCodec.isPage(e.key())) {
                pages.add(e.key().get().clone());
                count[3] += KeyCounts.footprint((int) e.key().size(), d);
                return;
            }
            long at = ValueHeader.expireAt(in, off);
            if (ValueHeader.isPast(at, now)) {
                dead.add(e.key().get().clone());
                return;
            }
            if (ValueHeader.isCollection(in, off)) {
                liveCollections.add(ValueHeader.collectionId(d.get()));
            }
            count[0]++;
            count[3] += KeyCounts.footprint((int) e.key().size(), d);
            byte[] mk = e.key().get();
            if (KeyCodec.isDigest(mk)) {
                liveKeyFiles.add(KeyCodec.fileName(mk));
            }
            if (at != ValueHeader.NO_EXPIRY) {
                count[1]++;
                count[2] += at - KeyCounts.DEADLINE_BASE;
                ks.expiryListener.file(ks.owner, e.key().get(), ValueHeader.wheelAt(in, off));
            }
            long blob = ValueHeader.blobIdOrNone(in, off);
            if (blob != ValueHeader.NO_BLOB) {
                liveBlobs.add(blob);
            }
        });
        for (byte[] k : dead) {
            ks.map().remove(k);
        }
        // Pages no live key entry names: those of collections that expired while down, and those a
        // crash left behind (a DEL of a collection removes its key entry first, then its pages)
        long orphanPages = 0;
        long pageCount = 0;
        for (byte[] pk : pages) {
            if (liveCollections.contains(KeyCodec.pageCollection(pk))) {
                pageCount++;
            } else {
                byte[] v = ks.map().get(pk);
                if (v != null) {
                    ks.map().remove(pk);
                    count[3] -= KeyCounts.footprint(pk, v);
                }
                orphanPages++;
            }
        }
        ks.counts.set(count[0], count[1], count[2], count[3]);
        ks.counts.setPages(pageCount);
        if (orphanPages > 0) {
            log.info("{}: removed {} collection pages no key names any more", ks.name, orphanPages);
        }
        int orphans = ks.blobs.sweep(liveBlobs);
        ks.blobs.sweepKeyFiles(liveKeyFiles);
        if (!dead.isEmpty() || orphans > 0) {
            log.info("{}: removed {} keys that expired while down, {} orphaned blobs", ks.name, dead.size(), orphans);
        }
    }
}
