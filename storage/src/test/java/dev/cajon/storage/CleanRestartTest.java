package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.CleanState;
import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.expiry.ExpiryWheel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A clean close saves the keyspace's counts and expiry records ({@link CleanState}); the next open
 * uses them instead of scanning the map, but only when they still describe the map, and a crash
 * after that open finds none.
 */
class CleanRestartTest {
    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(T0);
    Store store;
    ExpiryWheel wheel;

    private Keyspace open() {
        wheel = new ExpiryWheel(clock);
        store = Store.open(dir, clock, wheel);
        return store.keyspace(Store.DEFAULT_APP, 0);
    }

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private Path ksDir() {
        return dir.resolve(Store.DEFAULT_APP).resolve("db0");
    }

    private void set(Keyspace ks, String k, long at) {
        ks.set(b(k), b("v-" + k), SetCondition.ALWAYS, at, false);
    }

    /** Rewrites the saved state with another key count, keeping it valid for the map file. */
    private void claimKeyCount(long keys) throws IOException {
        CleanState s = CleanState.take(ksDir());
        Path map = ksDir().resolve(s.mapFile);
        java.nio.file.attribute.FileTime mtime = Files.getLastModifiedTime(map);
        CleanState.write(ksDir(), map, keys, s.volatileKeys, s.deadlineSum, s.bytes, s.records);
        Files.setLastModifiedTime(map, mtime);
    }

    @Test
    void aCleanRestartKeepsCountsTtlsAndTheWheelWithoutAScan() throws IOException {
        Keyspace ks = open();
        for (int i = 0; i < 1_000; i++) {
            set(ks, "plain" + i, ValueHeader.NO_EXPIRY);
        }
        set(ks, "soon", T0 + 1_000);
        set(ks, "later", T0 + 60_000);
        set(ks, "renewed", T0 + 2_000);
        assertTrue(ks.expireAt(b("renewed"), T0 + 90_000, ExpireCondition.NONE)); // lazy: record stays at +2 s
        store.close();
        store = null;
        assertTrue(Files.exists(ksDir().resolve(CleanState.FILE)), "a clean close saves the state");

        clock.set(T0 + 5_000); // "soon" passed while down, and so did the renewed key's old record
        ks = open();
        assertFalse(Files.exists(ksDir().resolve(CleanState.FILE)), "taken by the open: a crash now means a scan");
        assertEquals(1_002, ks.size(), "soon is gone before anyone asks");
        assertNull(ks.get(b("soon")));
        assertEquals(2, ks.volatileSize());
        assertEquals(T0 + 60_000, ks.deadline(b("later")));
        assertEquals(T0 + 90_000, ks.deadline(b("renewed")));
        assertEquals(0, ks.expiredCount(), "keys that expired while down are not counted, as after a scan");
        assertEquals(2, wheel.scheduled(), "later and renewed (re-filed at its deadline)");

        clock.set(T0 + 60_001);
        assertEquals(1, wheel.advance(), "the wheel reclaims on time after a clean restart");
        clock.set(T0 + 90_001);
        assertEquals(1, wheel.advance());
        assertEquals(1_000, ks.size());
    }

    /** 100 keys closed cleanly, then a saved state that claims 12,345 (still valid for the map). */
    private void closedWithAFalseCount() throws IOException {
        Keyspace ks = open();
        for (int i = 0; i < 100; i++) {
            set(ks, "k" + i, ValueHeader.NO_EXPIRY);
        }
        store.close();
        claimKeyCount(12_345);
    }

    /** The saved counts are what the open believes: proof that it used them, and when it must not. */
    @Test
    void theSavedStateIsUsedOnlyWhileItDescribesTheMap() throws IOException {
        closedWithAFalseCount();
        Keyspace ks;
        ks = open();
        assertEquals(12_345, ks.size(), "the open took the saved count instead of scanning");
        store.close();

        // the same false count, but the map file touched after the close (another process, a copy)
        claimKeyCount(12_345);
        Path map = ksDir().resolve(mapFileOfState());
        Files.setLastModifiedTime(map, java.nio.file.attribute.FileTime.fromMillis(
                Files.getLastModifiedTime(map).toMillis() + 1_000));
        ks = open();
        assertEquals(100, ks.size(), "the map changed after the close: the open scanned it");
    }

    /** The map file the saved state names, read without taking the state. */
    private String mapFileOfState() throws IOException {
        try (java.io.DataInputStream in = new java.io.DataInputStream(
                Files.newInputStream(ksDir().resolve(CleanState.FILE)))) {
            in.skipNBytes(8);
            return in.readUTF();
        }
    }

    /**
     * A crash while the keyspace was released (its map closed cleanly, then the state written):
     * the state still describes the map, so the open trusts it even through recovery and leaves
     * the map unmapped.
     */
    @Test
    void aCrashWhileTheMapWasReleasedKeepsItsState() throws IOException {
        closedWithAFalseCount();
        // a crash: the running marker is left behind, the open goes through recovery
        Files.writeString(dir.resolve("cajon.running"), "1");
        Keyspace ks = open();
        assertTrue(store.recovered());
        assertEquals(12_345, ks.size(), "the map was closed before its state was written: the state holds");
        assertFalse(ks.isMapped(), "opened released: nothing mapped until it is used");
        assertTrue(Files.exists(ksDir().resolve(CleanState.FILE)), "kept while the map is not mapped");
    }

    /**
     * Once a command maps the map again its state is gone, so a crash from then on scans: the
     * data directory is copied as a kill -9 would leave it, and the copy opened.
     */
    @Test
    void aCrashAfterTheMapWasMappedAgainScans() throws IOException {
        closedWithAFalseCount();
        Keyspace ks = open();
        assertFalse(ks.isMapped());
        assertEquals("v-k7", new String(ks.get(b("k7")).toBytes(), java.nio.charset.StandardCharsets.UTF_8));
        assertTrue(ks.isMapped());
        assertFalse(Files.exists(ksDir().resolve(CleanState.FILE)), "mapping the map drops its state first");
        Path copy = dir.resolveSibling(dir.getFileName() + "-crashed");
        try (var files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                if (!p.getFileName().toString().equals("cajon.lock")) {
                    Files.copy(p, copy.resolve(dir.relativize(p).toString()));
                }
            }
        }
        try (Store crashed = Store.open(copy, clock, new ExpiryWheel(clock))) {
            assertTrue(crashed.recovered());
            assertEquals(100, crashed.keyspace(Store.DEFAULT_APP, 0).size(), "no state: the open scanned");
        } finally {
            FileTrees.delete(copy);
        }
    }

    @Test
    void growthAndFlushLeaveAStateForTheirOwnGeneration() throws IOException {
        Keyspace ks = open();
        for (int i = 0; i < 40_000; i++) {
            set(ks, "k" + i, i % 2 == 0 ? T0 + 100_000 + i : ValueHeader.NO_EXPIRY);
        }
        int grown = ks.generation();
        assertTrue(grown > 1);
        store.close();
        assertTrue(mapFileOfState().startsWith("keys.g" + grown + "."), mapFileOfState());
        ks = open();
        assertEquals(40_000, ks.size());
        assertEquals(20_000, ks.volatileSize());
        assertEquals(20_000, wheel.scheduled());
        ks.flush();
        set(ks, "after", ValueHeader.NO_EXPIRY);
        int flushed = ks.generation();
        assertTrue(flushed != grown, "FLUSHDB starts a new generation");
        store.close();
        assertTrue(mapFileOfState().startsWith("keys.g" + flushed + "."), mapFileOfState());
        ks = open();
        assertEquals(1, ks.size(), "FLUSHDB's fresh generation was saved and reopened");
        assertEquals(0, wheel.scheduled(), "the flushed keys' records were not saved");
    }
}
