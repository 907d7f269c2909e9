package dev.cajon.storage.durability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.ExpiryListener;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.ManualClock;
import dev.cajon.storage.OpStatus;
import dev.cajon.storage.SetCondition;
import dev.cajon.storage.Store;
import dev.cajon.storage.chronicle.ValueHeader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fsync policy on a real store, with the system calls recorded: which files each pass syncs,
 * in which order, and that {@code no} makes none. The once-a-second pass is driven by the test
 * ({@link Durability#tick}); no thread runs.
 */
class FsyncPolicyTest {
    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(1_700_000_000_000L);
    final RecordingSync rec = new RecordingSync();

    private Store open(FsyncPolicy p) {
        Store s = Store.open(dir, clock, ExpiryListener.NONE, p, false);
        s.durability().fileSync(rec);
        return s;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void set(Keyspace ks, String k, byte[] v) {
        assertEquals(OpStatus.OK, ks.set(b(k), v, SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false).status());
    }

    private static void set(Keyspace ks, String k, String v) {
        set(ks, k, b(v));
    }

    private Path db(int n) {
        return dir.resolve(Store.DEFAULT_APP).resolve("db" + n);
    }

    @Test
    void everysecSyncsOnlyTheKeyspacesWrittenSinceTheLastPass() {
        try (Store s = open(FsyncPolicy.EVERYSEC)) {
            Keyspace a = s.keyspace(Store.DEFAULT_APP, 0);
            Keyspace b = s.keyspace(Store.DEFAULT_APP, 1);
            set(a, "k", "v");
            set(b, "k", "v");
            s.durability().tick();
            rec.clear();

            set(a, "k2", "v"); // an insert: no journal, only the map
            assertEquals(List.of(), rec.calls(), "a write never waits for a sync under everysec");
            s.durability().tick();
            assertTrue(rec.syncedUnder(db(0)), "db0 was written: " + rec.calls());
            assertFalse(rec.syncedUnder(db(1)), "db1 was not written since the last pass: " + rec.calls());
            assertEquals(1, rec.fileNames().stream().filter(RecordingSync::isMap).count(), rec.calls().toString());

            rec.clear();
            s.durability().tick();
            assertEquals(List.of(), rec.calls(), "nothing written, nothing synced");

            assertTrue(b.del(b("k")));
            s.durability().tick();
            assertTrue(rec.syncedUnder(db(1)), "a DEL dirties the map: " + rec.calls());
            assertFalse(rec.syncedUnder(db(0)), rec.calls().toString());
        }
    }

    @Test
    void anOverwriteSyncsItsJournalBeforeTheMap() {
        try (Store s = open(FsyncPolicy.EVERYSEC)) {
            Keyspace a = s.keyspace(Store.DEFAULT_APP, 0);
            set(a, "k", "v1");
            s.durability().tick();
            rec.clear();
            set(a, "k", "v2");
            s.durability().tick();
            List<String> names = rec.fileNames();
            assertEquals(2, names.size(), names.toString());
            assertEquals(Keyspace.JOURNAL_FILE, names.get(0), "the journal first: " + names);
            assertTrue(RecordingSync.isMap(names.get(1)), names.toString());
        }
    }

    @Test
    void msetSyncsTheBatchJournalBeforeTheMap() {
        try (Store s = open(FsyncPolicy.EVERYSEC)) {
            Keyspace a = s.keyspace(Store.DEFAULT_APP, 0);
            a.mset(new byte[][] {b("x"), b("1"), b("y"), b("2")});
            s.durability().tick();
            List<String> names = rec.fileNames();
            assertTrue(names.indexOf(Keyspace.BATCH_FILE) >= 0, names.toString());
            int map = names.indexOf(names.stream().filter(RecordingSync::isMap).findFirst().orElse("none"));
            assertTrue(map > names.indexOf(Keyspace.BATCH_FILE), "the batch journal before the map: " + names);
        }
    }

    /** SAVE syncs every file of the store, whatever the policy: the map, its journals, blobs, and directories. */
    @Test
    void saveSyncsEveryFileEvenUnderNo() throws Exception {
        try (Store s = open(FsyncPolicy.NO)) {
            Keyspace a = s.keyspace(Store.DEFAULT_APP, 0);
            set(a, "k", "v");
            set(a, "k", "again"); // an overwrite: the write journal exists
            set(a, "big", new byte[Keyspace.BLOB_THRESHOLD + 1]);
            assertEquals(List.of(), rec.calls(), "the policy itself syncs nothing");
            int files = s.save();
            List<String> names = rec.fileNames();
            assertEquals(files, names.size());
            assertTrue(names.stream().anyMatch(RecordingSync::isMap), names.toString());
            assertTrue(names.contains(Keyspace.JOURNAL_FILE), names.toString());
            try (java.util.stream.Stream<Path> blobs = java.nio.file.Files.list(db(0).resolve("blobs"))) {
                String blob = blobs.findFirst().orElseThrow().getFileName().toString();
                assertTrue(names.contains(blob), "the blob file: " + names);
            }
            assertTrue(rec.calls().stream().anyMatch(c -> c.directory() && c.path().equals(db(0).toAbsolutePath().normalize())),
                    "the keyspace's directory too");
            assertEquals(rec.calls().size(), s.durability().syncs(), "each counted in fsyncs_total");
        }
    }

    @Test
    void noSyncsNothing() {
        try (Store s = open(FsyncPolicy.NO)) {
            Keyspace a = s.keyspace(Store.DEFAULT_APP, 0);
            for (int i = 0; i < 300; i++) { // past the first generation's 256 entries: it grows
                set(a, "k" + i, "v");
            }
            set(a, "big", new byte[Keyspace.BLOB_THRESHOLD + 1]);
            set(a, "k1", "again");
            a.mset(new byte[][] {b("x"), b("1"), b("y"), b("2")});
            s.durability().tick();
            s.durability().beforeReply();
            assertEquals(List.of(), rec.calls());
            assertEquals(0, s.durability().syncs());
        }
        assertEquals(List.of(), rec.calls(), "not even at close");
    }

    @Test
    void alwaysSyncsOncePerBatchBeforeTheReplies() {
        try (Store s = open(FsyncPolicy.ALWAYS)) {
            Keyspace a = s.keyspace(Store.DEFAULT_APP, 0);
            rec.clear(); // creating the keyspace synced its first generation
            for (int i = 0; i < 5; i++) {
                set(a, "k" + i, "v");
            }
            assertEquals(List.of(), rec.calls(), "the batch's writes themselves do not sync");
            s.durability().beforeReply();
            assertEquals(1, rec.fileNames().stream().filter(RecordingSync::isMap).count(),
                    "one sync of the map for the whole batch: " + rec.calls());
            rec.clear();
            a.get(b("k1"));
            s.durability().beforeReply();
            assertEquals(List.of(), rec.calls(), "a batch that wrote nothing syncs nothing");
            assertEquals(1, s.durability().passes());
        }
    }

    @Test
    void alwaysPutsABlobOnTheDiskBeforeTheMapEntryPointsAtIt() {
        try (Store s = open(FsyncPolicy.ALWAYS)) {
            Keyspace a = s.keyspace(Store.DEFAULT_APP, 0);
            rec.clear(); // creating the keyspace synced its first generation
            set(a, "big", new byte[Keyspace.BLOB_THRESHOLD + 1]);
            List<RecordingSync.Call> calls = rec.calls();
            // the blob file and its directory entry, synced inside the write (the map's sync waits for the reply)
            assertEquals(2, calls.size(), calls.toString());
            assertEquals(db(0).resolve("blobs").toAbsolutePath().normalize(), calls.get(0).path().getParent());
            assertTrue(calls.get(1).directory(), calls.toString());
            s.durability().beforeReply();
            assertTrue(RecordingSync.isMap(rec.fileNames().get(rec.fileNames().size() - 1)), rec.calls().toString());
        }
    }

    @Test
    void everysecSyncsBlobsFirstInThePass() {
        try (Store s = open(FsyncPolicy.EVERYSEC)) {
            Keyspace a = s.keyspace(Store.DEFAULT_APP, 0);
            rec.clear(); // creating the keyspace synced its first generation
            set(a, "big", new byte[Keyspace.BLOB_THRESHOLD + 1]);
            assertEquals(List.of(), rec.calls(), "under everysec the blob waits for the pass");
            s.durability().tick();
            List<RecordingSync.Call> calls = rec.calls();
            assertEquals(db(0).resolve("blobs").toAbsolutePath().normalize(), calls.get(0).path().getParent(),
                    "the blob first: " + calls);
            assertTrue(RecordingSync.isMap(calls.get(calls.size() - 1).path().getFileName().toString()), calls.toString());
        }
    }

    @Test
    void aNewGenerationIsOnTheDiskBeforeTheOldOneIsDeleted() {
        try (Store s = open(FsyncPolicy.EVERYSEC)) {
            Keyspace a = s.keyspace(Store.DEFAULT_APP, 0);
            set(a, "k0", "v");
            rec.clear();
            for (int i = 1; i < 300; i++) { // past 256 entries: generation 2
                set(a, "k" + i, "v");
            }
            List<RecordingSync.Call> calls = rec.calls();
            int tmp = -1;
            for (int i = 0; i < calls.size(); i++) {
                if (calls.get(i).path().getFileName().toString().startsWith("keys.g2.") && calls.get(i).path().toString().endsWith(".tmp")) {
                    tmp = i;
                }
            }
            assertTrue(tmp >= 0, "generation 2 synced under its .tmp name during the write: " + calls);
            assertTrue(tmp + 1 < calls.size() && calls.get(tmp + 1).directory()
                    && calls.get(tmp + 1).path().equals(db(0).toAbsolutePath().normalize()),
                    "then the directory holding its new name: " + calls);
        }
    }

    @Test
    void switchingFromNoToEverysecSyncsTheNextWrites() {
        try (Store s = open(FsyncPolicy.NO)) {
            Keyspace a = s.keyspace(Store.DEFAULT_APP, 0);
            set(a, "k", "v");
            s.durability().tick();
            assertEquals(List.of(), rec.calls());
            s.durability().policy(FsyncPolicy.EVERYSEC);
            set(a, "k2", "v");
            s.durability().tick();
            assertTrue(rec.syncedUnder(db(0)), rec.calls().toString());
        }
    }

    @Test
    void aCleanCloseSyncsWhatIsStillDirty() {
        Store s = open(FsyncPolicy.EVERYSEC);
        set(s.keyspace(Store.DEFAULT_APP, 0), "k", "v");
        s.close();
        assertTrue(rec.syncedUnder(db(0)), "the last pass at close: " + rec.calls());
    }
}
