package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.WriteJournal;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Collection entries too big for a write journal slot: a hash field's value, or a list element,
 * of 32 to 128 KiB lives alone on a page that is bigger than the write journal's slot. Before
 * 2026-12-02 the overwrite of such a page failed its journal record, which the engine took for a
 * full map: it grew the keyspace five times (to 67M entries and 10 GB of disk, 40 s with its
 * stripes held) and then answered an internal error.
 */
class LargeCollectionEntryTest {
    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(T0);

    @AfterEach
    void noHook() {
        KeyCollections.crashHook = null;
    }

    private static final int BIG = 120_000;

    @Test
    void aPageBiggerThanAJournalSlotIsOverwrittenWithoutGrowth() {
        assertTrue(BIG > WriteJournal.OVERFLOW_SLOT_SIZE, "the premise: the page does not fit a write slot");
        byte[] v1 = TestData.pattern(BIG, 1);
        byte[] v2 = TestData.pattern(BIG, 2);
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(1, ks.hashes().set(b("h"), new byte[][] {b("f"), v1}));
            int generation = ks.generation();
            long capacity = ks.capacity();
            assertEquals(0, ks.hashes().set(b("h"), new byte[][] {b("f"), v2}), "an overwrite, not a new field");
            assertArrayEquals(v2, ks.hashes().get(b("h"), b("f")));
            assertEquals(generation, ks.generation(), "no growth for one big value");
            assertEquals(capacity, ks.capacity());
            assertEquals(1, ks.lists().push(b("l"), new byte[][] {v1}, 0, false, false));
            generation = ks.generation(); // a new big page may grow a map this small
            assertEquals(ListOps.SetResult.OK, ks.lists().set(b("l"), 0, v2));
            assertArrayEquals(v2, ks.lists().index(b("l"), 0));
            assertEquals(generation, ks.generation(), "an overwrite never grows the map");
        }
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertArrayEquals(v2, ks.hashes().get(b("h"), b("f")), "the overwrite survives a restart");
            assertArrayEquals(v2, ks.lists().index(b("l"), 0));
        }
    }

    @Test
    void aKillDuringTheOverwriteOfABigPageIsAppliedWholeOnOpen() throws Exception {
        byte[] v1 = TestData.pattern(BIG, 3);
        byte[] v2 = TestData.pattern(BIG, 4);
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            ks.hashes().set(b("h"), new byte[][] {b("f"), v1});
            for (int i = 0; i < 50; i++) {
                ks.hashes().set(b("other" + i), new byte[][] {b("f"), b("v" + i)});
            }
            // the kill lands once the page is in the map, before the write's journal record ends
            KeyCollections.crashHook = n -> {
                if (n == 1) {
                    takePicture();
                }
            };
            ks.hashes().set(b("h"), new byte[][] {b("f"), v2});
            KeyCollections.crashHook = null;
        }
        // and the page's entry in the picture is torn: half of its new bytes never made it
        tear(v2);
        try (Store store = Store.open(crash(), clock)) {
            assertTrue(store.recovered());
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertArrayEquals(v2, ks.hashes().get(b("h"), b("f")), "the in-flight write, whole");
            assertEquals(51, ks.size());
            assertArrayEquals(b("v42"), ks.hashes().get(b("other42"), b("f")));
        }
    }

    private Path crash() {
        return dir.getParent().resolve(dir.getFileName() + "-crash");
    }

    /** Copies the store as it is now: what a kill -9 leaves (the page cache holds every mapped write). */
    private void takePicture() {
        TestData.copyStore(dir, crash());
    }

    /** Overwrites the second half of {@code value}'s bytes in the picture's map file. */
    private void tear(byte[] value) throws IOException {
        Path db0 = crash().resolve(Store.DEFAULT_APP).resolve("db0");
        Path map;
        try (Stream<Path> files = Files.list(db0)) {
            map = files.filter(p -> p.getFileName().toString().endsWith(".cmap")).findFirst().orElseThrow();
        }
        byte[] all = Files.readAllBytes(map);
        byte[] probe = java.util.Arrays.copyOf(value, 256);
        int at = -1;
        outer:
        for (int i = 0; i + probe.length <= all.length; i++) {
            for (int j = 0; j < probe.length; j++) {
                if (all[i + j] != probe[j]) {
                    continue outer;
                }
            }
            at = i;
            break;
        }
        assertTrue(at > 0, "the new page is in the map file");
        try (RandomAccessFile f = new RandomAccessFile(map.toFile(), "rw")) {
            f.seek(at + value.length / 2);
            f.write(new byte[value.length / 2]);
        }
        Files.deleteIfExists(db0.resolve(dev.cajon.storage.chronicle.CleanState.FILE));
    }
}
