package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static dev.cajon.storage.TestData.str;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.BatchJournal;
import dev.cajon.storage.chronicle.MapFile;
import dev.cajon.storage.chronicle.ValueHeader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process killed in the middle of a command that writes several keys (MSET, MSETNX, RENAME):
 * after the restart the command is applied whole, never in part.
 *
 * <p>A kill cannot be produced in-process, so each test stops cleanly and puts back what the kill
 * leaves: some of the command's writes in the map, the others not, and its batch still marked
 * pending in {@code inflight.batch}.
 */
class MultiKeyCrashRecoveryTest {
    private static final long NO_EXPIRY = ValueHeader.NO_EXPIRY;

    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(T0);

    private Path db0() {
        return dir.resolve(Store.DEFAULT_APP).resolve("db0");
    }

    private static void set(Keyspace ks, String k, String v) {
        assertEquals(OpStatus.OK, ks.set(b(k), b(v), SetCondition.ALWAYS, NO_EXPIRY, false).status());
    }

    /** Leaves {@code writes} marked in flight, as a kill after BatchJournal.begin does. */
    private void batchInFlight(BatchJournal.Entry... writes) {
        try (BatchJournal j = BatchJournal.open(db0().resolve(Keyspace.BATCH_FILE), Keyspace.STRIPES)) {
            j.begin(17, List.of(writes));
        }
    }

    private static BatchJournal.Entry put(String key, byte[] stored) {
        return new BatchJournal.Entry(KeyCodec.mapKey(b(key)), stored);
    }

    private static BatchJournal.Entry removed(String key) {
        return new BatchJournal.Entry(KeyCodec.mapKey(b(key)), null);
    }

    @Test
    void anMsetCutShortAfterItsFirstKeysIsAppliedWhole() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace db0 = store.keyspace(Store.DEFAULT_APP, 0);
            set(db0, "a", "old-a");
            set(db0, "b", "old-b");
            set(db0, "c", "old-c");
            // MSET a new-a b new-b c new-c d new-d: the kill came after a and b were written
            set(db0, "a", "new-a");
            set(db0, "b", "new-b");
        }
        batchInFlight(put("a", ValueHeader.raw(b("new-a"), NO_EXPIRY)), put("b", ValueHeader.raw(b("new-b"), NO_EXPIRY)),
                put("c", ValueHeader.raw(b("new-c"), NO_EXPIRY)), put("d", ValueHeader.raw(b("new-d"), NO_EXPIRY)));
        try (Store store = Store.open(dir, clock)) {
            Keyspace db0 = store.keyspace(Store.DEFAULT_APP, 0);
            for (String k : new String[] {"a", "b", "c", "d"}) {
                assertEquals("new-" + k, str(db0.get(b(k))), k);
            }
            assertEquals(4, db0.size(), "counted once each");
        }
        try (Store store = Store.open(dir, clock)) {
            Keyspace db0 = store.keyspace(Store.DEFAULT_APP, 0);
            set(db0, "c", "later");
        }
        try (Store store = Store.open(dir, clock)) {
            assertEquals("later", str(store.keyspace(Store.DEFAULT_APP, 0).get(b("c"))),
                    "an applied batch is not applied again at the next start");
        }
    }

    @Test
    void aRenameCutShortNeverLeavesTheValueUnderBothNames() throws Exception {
        byte[] big = TestData.pattern(Keyspace.BLOB_THRESHOLD + 100, 4); // a blob file: shared if under both names
        try (Store store = Store.open(dir, clock)) {
            Keyspace db0 = store.keyspace(Store.DEFAULT_APP, 0);
            db0.set(b("src"), big, SetCondition.ALWAYS, T0 + 600_000, false);
        }
        // RENAME src dst: the kill came after dst was written, before src was removed
        byte[] stored;
        try (MapFile f = MapFile.open(db0(), "db0", false)) {
            stored = f.map().get(KeyCodec.mapKey(b("src")));
            assertTrue(ValueHeader.isBlob(stored));
            f.map().put(KeyCodec.mapKey(b("dst")), stored);
        }
        batchInFlight(put("dst", stored), removed("src"));
        try (Store store = Store.open(dir, clock)) {
            Keyspace db0 = store.keyspace(Store.DEFAULT_APP, 0);
            assertFalse(db0.exists(b("src")), "the old name is gone");
            assertArrayEquals(big, db0.get(b("dst")).toBytes());
            assertEquals(T0 + 600_000, db0.deadline(b("dst")), "the TTL moved with the key");
            assertEquals(1, db0.size());
            assertTrue(db0.del(b("dst")));
        }
        try (Stream<Path> blobs = Files.walk(db0().resolve("blobs"))) {
            assertEquals(List.of(), blobs.filter(Files::isRegularFile).toList(),
                    "no blob file is left once the renamed key is deleted");
        }
    }

    @Test
    void aBatchWhoseWritesAllLandedStillEndsConsistent() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace db0 = store.keyspace(Store.DEFAULT_APP, 0);
            db0.mset(new byte[][] {b("x"), b("1"), b("y"), b("2")});
            assertEquals(OpStatus.OK, db0.rename(b("x"), b("z"), false));
        }
        // the kill came after the map writes, before the mark was cleared
        batchInFlight(put("z", ValueHeader.raw(b("1"), NO_EXPIRY)), removed("x"));
        try (Store store = Store.open(dir, clock)) {
            Keyspace db0 = store.keyspace(Store.DEFAULT_APP, 0);
            assertNull(db0.get(b("x")));
            assertEquals("1", str(db0.get(b("z"))));
            assertEquals("2", str(db0.get(b("y"))));
            assertEquals(2, db0.size());
        }
    }

    @Test
    void multiKeyCommandsLeaveNothingInFlightOnceTheyReturn() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace db0 = store.keyspace(Store.DEFAULT_APP, 0);
            db0.mset(new byte[][] {b("m1"), b("1"), b("m2"), b("2"), b("m1"), b("3")});
            assertTrue(db0.msetnx(new byte[][] {b("n1"), b("1"), b("n2"), b("2")}));
            db0.mset(new byte[][] {b("big1"), TestData.pattern(Keyspace.BLOB_THRESHOLD + 1, 1), b("big2"), b("small")});
            assertEquals(OpStatus.OK, db0.rename(b("m1"), b("r1"), false));
            assertEquals("3", str(db0.get(b("r1"))), "MSET's last value for a key given twice");
        }
        try (BatchJournal j = BatchJournal.open(db0().resolve(Keyspace.BATCH_FILE), Keyspace.STRIPES)) {
            assertEquals(List.of(), j.pending(), "no multi-key write is marked in flight once it returned");
        }
    }
}
