package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.MapFile;
import dev.cajon.storage.chronicle.ValueHeader;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A keyspace outgrows its first Chronicle Map without anyone sizing it, and Chronicle's capacity
 * errors never reach a caller.
 */
class KeyspaceGrowthTest {
    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(T0);

    private static byte[] key(int i) {
        return b(String.format("user:%08d", i));
    }

    private static byte[] value40(int i) {
        byte[] v = TestData.pattern(40, i);
        v[0] = (byte) i;
        v[1] = (byte) (i >>> 8);
        v[2] = (byte) (i >>> 16);
        return v;
    }

    @Test
    void hundredThousandKeysGrowTheMapAndSurviveAReopen() {
        int n = 100_000;
        assertTrue(n > 4 * MapFile.INITIAL_ENTRIES, "well past the first generation, bloat included");
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(1, ks.generation());
            for (int i = 0; i < n; i++) {
                ks.set(key(i), value40(i), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
            }
            assertEquals(n, ks.size());
            assertTrue(ks.generation() > 1, "generation " + ks.generation());
            for (int i = 0; i < n; i++) {
                StringValue v = ks.get(key(i));
                assertNotNull(v, "key " + i);
                assertArrayEquals(value40(i), v.toBytes(), "key " + i);
            }
            assertNull(ks.get(key(n)));
        }
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(n, ks.size());
            assertTrue(ks.generation() > 1);
            for (int i = 0; i < n; i++) {
                assertArrayEquals(value40(i), ks.get(key(i)).toBytes(), "key " + i + " after reopen");
            }
            // exactly one generation file remains on disk
            List<String> maps = TestData.list(dir.resolve(Store.DEFAULT_APP).resolve("db0")).stream()
                    .filter(f -> f.endsWith(".cmap")).toList();
            assertEquals(1, maps.size(), maps.toString());
            assertTrue(maps.get(0).startsWith("keys.g" + ks.generation() + "."), maps.toString());
        }
    }

    /**
     * Values of every size up to the blob threshold go into a fresh keyspace sized for 48-byte
     * values. The first value is the largest, so growth cannot lean on a good running average.
     */
    @Test
    void variedValueSizesNeverEscapeAsChronicleErrors() {
        Random rnd = new Random(42);
        int n = 2500;
        int[] sizes = new int[n];
        sizes[0] = Keyspace.BLOB_THRESHOLD;
        sizes[1] = Keyspace.BLOB_THRESHOLD - 1;
        sizes[2] = 0;
        for (int i = 3; i < n; i++) {
            sizes[i] = i % 5 == 0 ? Keyspace.BLOB_THRESHOLD - rnd.nextInt(64) : rnd.nextInt(Keyspace.BLOB_THRESHOLD + 1);
        }
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            for (int i = 0; i < n; i++) {
                ks.set(key(i), TestData.pattern(sizes[i], i), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
            }
            assertEquals(n, ks.size());
            for (int i = 0; i < n; i++) {
                StringValue v = ks.get(key(i));
                assertTrue(!v.isBlob(), "values up to the threshold stay in the map");
                assertArrayEquals(TestData.pattern(sizes[i], i), v.toBytes(), "key " + i);
            }
            // and grow them all in place through APPEND and SETRANGE
            for (int i = 0; i < n; i += 7) {
                ks.setRange(key(i), 0, TestData.pattern(Keyspace.BLOB_THRESHOLD, -i));
            }
            for (int i = 0; i < n; i += 7) {
                assertArrayEquals(TestData.pattern(Keyspace.BLOB_THRESHOLD, -i), ks.get(key(i)).toBytes());
            }
        }
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(n, ks.size());
            assertArrayEquals(TestData.pattern(sizes[1], 1), ks.get(key(1)).toBytes());
        }
    }

    @Test
    void oneMaximalValueIntoAFreshKeyspace() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            byte[] v = TestData.pattern(Keyspace.BLOB_THRESHOLD, 7);
            ks.set(b("k"), v, SetCondition.ALWAYS, T0 + 1000, false);
            assertArrayEquals(v, ks.get(b("k")).toBytes());
            assertEquals(1, ks.incrBy(b("n"), 1).value());
            assertEquals(OpStatus.OK, ks.append(b("k2"), v).status());
            assertArrayEquals(v, ks.get(b("k2")).toBytes());
        }
    }

    /**
     * After growing on tiny values the next generation is sized for them; maximal values must
     * still fit afterwards, by growing again if they have to.
     */
    @Test
    void maximalValuesAfterGrowingOnTinyOnes() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            for (int i = 0; i < 40_000; i++) {
                ks.set(b("t" + i), new byte[] {(byte) i}, SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
            }
            assertTrue(ks.generation() > 1);
            for (int i = 0; i < 3000; i++) {
                ks.set(key(i), TestData.pattern(Keyspace.BLOB_THRESHOLD - i % 3, i), SetCondition.ALWAYS,
                        ValueHeader.NO_EXPIRY, false);
            }
            assertEquals(43_000, ks.size());
            for (int i = 0; i < 3000; i++) {
                assertArrayEquals(TestData.pattern(Keyspace.BLOB_THRESHOLD - i % 3, i), ks.get(key(i)).toBytes());
            }
            assertArrayEquals(new byte[] {(byte) 39_999}, ks.get(b("t39999")).toBytes());
        }
    }

    /** A key lives through its deadline millisecond: growth at exactly the deadline keeps it. */
    @Test
    void growthAtTheDeadlineKeepsTheKeys() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            int n = (int) MapFile.INITIAL_ENTRIES - 1; // plus "big": exactly at capacity
            for (int i = 0; i < n; i++) {
                ks.set(key(i), value40(i), SetCondition.ALWAYS, T0 + 1000, false);
            }
            ks.set(b("big"), new byte[Keyspace.BLOB_THRESHOLD + 1], SetCondition.ALWAYS, T0 + 1000, false);

            clock.advance(1000); // now == deadline
            ks.set(b("fresh"), b("v"), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
            assertEquals(2, ks.generation(), "one key past capacity grows the map");
            assertEquals(n + 2, ks.size(), "every key at its deadline was carried over");
            assertEquals(n + 1, ks.volatileSize());
            assertEquals(0, ks.expiredCount());
            assertEquals(1, TestData.list(TestData.blobDir(store, 0)).size(), "the blob is kept");
            assertArrayEquals(value40(0), ks.get(key(0)).toBytes());
            assertEquals(T0 + 1000, ks.deadline(b("big")));
        }
    }

    /** Growth copies live keys only: keys past their deadline (and their blobs) are dropped. */
    @Test
    void growthDropsExpiredKeys() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            int n = (int) MapFile.INITIAL_ENTRIES - 1; // plus "big": exactly at capacity
            for (int i = 0; i < n; i++) {
                ks.set(key(i), value40(i), SetCondition.ALWAYS, T0 + 1000, false);
            }
            ks.set(b("big"), new byte[Keyspace.BLOB_THRESHOLD + 1], SetCondition.ALWAYS, T0 + 1000, false);
            assertEquals(1, TestData.list(TestData.blobDir(store, 0)).size());
            assertEquals(n + 1, ks.size());
            assertEquals(1, ks.generation());

            clock.advance(1001); // 1 ms past the deadline
            ks.set(b("fresh"), b("v"), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
            assertEquals(2, ks.generation(), "one key past capacity grows the map");
            assertEquals(1, ks.size(), "only the live key was carried over");
            assertEquals(0, ks.volatileSize());
            assertEquals(n + 1, ks.expiredCount());
            assertEquals(List.of(), TestData.list(TestData.blobDir(store, 0)), "the expired blob is gone");
            assertEquals("v", TestData.str(ks.get(b("fresh"))));
            assertNull(ks.get(key(0)));
        }
    }

    @Test
    void flushReturnsToTheFirstGeneration() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            for (int i = 0; i < 20_000; i++) {
                ks.set(key(i), value40(i), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
            }
            assertTrue(ks.generation() > 1);
            ks.flush();
            assertEquals(1, ks.generation());
            assertEquals(0, ks.size());
            assertNull(ks.get(key(1)));
            ks.set(key(1), b("again"), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
            assertEquals("again", TestData.str(ks.get(key(1))));
        }
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(1, ks.size());
            assertEquals("again", TestData.str(ks.get(key(1))));
        }
    }
    /**
     * Few keys with large values fill a small generation's tier long before its key capacity: the
     * keyspace grows as soon as Chronicle chains an extra tier, and APPENDs that keep moving the
     * values lose nothing.
     */
    @Test
    void largeValuesGrowTheMapBeforeItLivesOnExtraTiers() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            int keys = 40;
            byte[] chunk = TestData.pattern(300, 7);
            for (int round = 0; round < 40; round++) {
                for (int k = 0; k < keys; k++) {
                    ks.append(b("log" + k), chunk);
                }
            }
            assertTrue(ks.generation() > 1, "40 keys of 12 KiB never grew the 256-entry first generation");
            assertTrue(ks.capacity() >= 1024);
            for (int k = 0; k < keys; k++) {
                assertEquals(40 * 300, ks.strlen(b("log" + k)), "log" + k);
            }
        }
    }
}
