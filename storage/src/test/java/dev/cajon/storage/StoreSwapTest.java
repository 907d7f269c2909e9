package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static dev.cajon.storage.TestData.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.ValueHeader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SWAPDB in the store: the two dbs trade keyspaces, the app's db map on the disk says so (its
 * bytes pinned here), a restart (clean, or after a crash: the map is read the same way) opens
 * each directory as the db it holds, and the watches follow Redis's rule.
 */
class StoreSwapTest {
    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(T0);

    private static void set(Keyspace ks, String k, String v) {
        assertEquals(OpStatus.OK, ks.set(b(k), b(v), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false).status());
    }

    private static String get(Store s, int db, String k) {
        return str(s.keyspace("app", db).get(b(k)));
    }

    @Test
    void theDbsTradeTheirKeyspacesAndARestartKeepsIt() throws Exception {
        try (Store s = Store.open(dir, clock)) {
            set(s.keyspace("app", 0), "a", "zero");
            set(s.keyspace("app", 3), "b", "three");
            Keyspace zero = s.keyspace("app", 0);
            Keyspace three = s.keyspace("app", 3);
            long epoch = s.swapEpoch();
            Keyspace[] pair = s.swapDbs("app", 3, 0);
            assertSame(zero, pair[0]);
            assertSame(three, pair[1]);
            assertTrue(s.swapEpoch() != epoch, "cached keyspaces must be looked up again");
            assertSame(three, s.keyspace("app", 0));
            assertEquals("three", get(s, 0, "b"));
            assertNull(get(s, 0, "a"));
            assertEquals("zero", get(s, 3, "a"));
            assertNull(s.swapDbs("app", 2, 2), "a db swapped with itself: nothing to do");
            // no file moved: db 0 is held by directory db3, and the map says so
            assertTrue(Files.exists(dir.resolve("app/db3")));
            assertEquals("cajon-dbs 1\n0 3\n3 0\n", Files.readString(dir.resolve("app/dbs"), StandardCharsets.US_ASCII));
            set(s.keyspace("app", 5), "c", "five"); // a db created after a swap gets its own directory
            assertTrue(Files.exists(dir.resolve("app/db5")));
        }
        try (Store s = Store.open(dir, clock)) {
            assertEquals("three", get(s, 0, "b"));
            assertEquals("zero", get(s, 3, "a"));
            assertEquals("five", get(s, 5, "c"));
            s.swapDbs("app", 0, 3); // back: every db in its own directory again
            assertEquals("cajon-dbs 1\n", Files.readString(dir.resolve("app/dbs"), StandardCharsets.US_ASCII));
            assertEquals("zero", get(s, 0, "a"));
            s.swapDbs("app", 0, 5);
            s.swapDbs("app", 5, 3); // a three-way permutation: 0 in db5's, 3 in db0's, 5 in db3's
            assertEquals("cajon-dbs 1\n0 5\n3 0\n5 3\n", Files.readString(dir.resolve("app/dbs"), StandardCharsets.US_ASCII));
            assertEquals("five", get(s, 0, "c"));
            assertEquals("zero", get(s, 3, "a"));
            assertEquals("three", get(s, 5, "b"));
        }
        try (Store s = Store.open(dir, clock)) {
            assertEquals("five", get(s, 0, "c"));
            assertEquals("zero", get(s, 3, "a"));
            assertEquals("three", get(s, 5, "b"));
            assertNull(get(s, 1, "a"), "an app's other dbs are untouched");
        }
    }

    @Test
    void aMapWrittenByAnEarlierRunIsReadAsItIsPinned() throws Exception {
        // the format of version 1 exactly as a store writes it: a crash after the rename leaves this
        try (Store s = Store.open(dir, clock)) {
            set(s.keyspace("app", 1), "k", "in-dir-1");
            set(s.keyspace("app", 2), "k", "in-dir-2");
        }
        Files.writeString(dir.resolve("app/dbs"), "cajon-dbs 1\n1 2\n2 1\n", StandardCharsets.US_ASCII);
        try (Store s = Store.open(dir, clock)) {
            assertEquals("in-dir-2", get(s, 1, "k"));
            assertEquals("in-dir-1", get(s, 2, "k"));
        }
    }

    @Test
    void aMapThatIsNotAPermutationOrOfAnUnknownVersionIsRefused() throws Exception {
        try (Store s = Store.open(dir, clock)) {
            set(s.keyspace("app", 1), "k", "v");
        }
        Files.writeString(dir.resolve("app/dbs"), "cajon-dbs 1\n1 2\n", StandardCharsets.US_ASCII);
        assertThrows(IllegalStateException.class, () -> Store.open(dir, clock).close());
        Files.writeString(dir.resolve("app/dbs"), "cajon-dbs 2\n", StandardCharsets.US_ASCII);
        assertThrows(IllegalStateException.class, () -> Store.open(dir, clock).close());
    }

    /**
     * Swaps from several threads at once, of one pair and of overlapping pairs: each looks its
     * two keyspaces up and locks them in db order, which a swap that ran in between changes, so
     * without the store's db gate two could lock the same keyspaces in opposite orders and never
     * finish. Bounded: a fixed number of swaps, and a timeout that fails the test.
     */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void concurrentSwapsNeitherDeadlockNorLoseAKeyspace() throws Exception {
        try (Store s = Store.open(dir, clock)) {
            for (int db = 0; db < 3; db++) {
                set(s.keyspace("app", db), "k", "db" + db);
            }
            int rounds = 600;
            Thread[] threads = new Thread[3];
            for (int t = 0; t < threads.length; t++) {
                int pairB = t == 2 ? 2 : 1; // two threads swap 0 and 1, one swaps 0 and 2
                threads[t] = new Thread(() -> {
                    for (int i = 0; i < rounds; i++) {
                        s.swapDbs("app", 0, pairB);
                    }
                });
                threads[t].setDaemon(true); // a deadlock fails the test by its timeout, not the build by a hang
                threads[t].start();
            }
            for (Thread t : threads) {
                t.join();
            }
            java.util.Set<String> seen = new java.util.HashSet<>();
            for (int db = 0; db < 3; db++) {
                seen.add(get(s, db, "k"));
            }
            assertEquals(java.util.Set.of("db0", "db1", "db2"), seen, "still a permutation of the three dbs");
            String map = Files.readString(dir.resolve("app/dbs"), StandardCharsets.US_ASCII);
            assertTrue(map.startsWith("cajon-dbs 1\n"));
        }
    }

    @Test
    void watchesFollowRedissRule() {
        try (Store s = Store.open(dir, clock)) {
            Keyspace nine = s.keyspace("app", 9);
            Keyspace one = s.keyspace("app", 1);
            set(nine, "here", "1");
            set(one, "there", "1");
            dev.cajon.storage.tx.Watch here = nine.watch(b("here"));
            dev.cajon.storage.tx.Watch there = nine.watch(b("there"));
            dev.cajon.storage.tx.Watch neither = nine.watch(b("neither"));
            s.swapDbs("app", 9, 1);
            assertTrue(here.dirty(), "a watched key of the db itself");
            assertTrue(there.dirty(), "a watched key that exists in the other db");
            assertFalse(neither.dirty(), "a key in neither db is not touched");
            assertSame(one, neither.home(), "the clean watch moved with its db");
            set(nine, "neither", "x"); // the db it left (now db 1)
            assertFalse(neither.dirty());
            set(one, "neither", "x"); // its db (9) now
            assertTrue(neither.dirty());
            nine.unwatch(neither); // through the keyspace it was taken on: found where it is now
            nine.unwatch(here);
            nine.unwatch(there);
            set(one, "neither", "y");
        }
    }
}
