package dev.cajon.storage;

import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.ValueHeader;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * UNLINK's background free ({@link LazyFree}): the key is gone at once, a big collection's pages
 * follow (the test runs the remaining jobs itself with {@link LazyFree#drain}, or waits for the
 * thread, bounded), a small one's go inline, a clean close leaves no orphan page, and growth in
 * the middle of a free loses nothing.
 */
class LazyFreeTest {
    @TempDir
    Path dir;

    private Store open() {
        return Store.open(dir, new ManualClock(1_700_000_000_000L), ExpiryListener.NONE);
    }

    /** A hash of {@code n} fields, in HSETs of 100. */
    private static void bigHash(Keyspace ks, String key, int n) {
        for (int i = 0; i < n; i += 100) {
            byte[][] pairs = new byte[200][];
            for (int j = 0; j < 100; j++) {
                pairs[2 * j] = b("field:" + (i + j));
                pairs[2 * j + 1] = b("value:" + (i + j));
            }
            ks.hashes().set(b(key), pairs);
        }
    }

    /** Db 0 of {@code s}, holding a hash of {@code n} fields under {@code key}. */
    private static Keyspace withHash(Store s, String key, int n) {
        Keyspace ks = s.keyspace(Store.DEFAULT_APP, 0);
        bigHash(ks, key, n);
        return ks;
    }

    /** Map entries: keys plus pages, as Chronicle counts them (orphans included). */
    private static long mapEntries(Keyspace ks) {
        return ks.engine().map().longSize();
    }

    @Test
    void unlinkRemovesTheKeyAtOnceAndItsPagesAfter() throws Exception {
        try (Store s = open()) {
            Keyspace ks = withHash(s, "big", 30_000);
            ks.set(b("other"), b("v"), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
            long pages = ks.pageCount();
            assertTrue(pages > LazyFree.NOW_MAX, "a hash of " + pages + " pages");

            assertTrue(ks.del(b("big"), true));
            assertFalse(ks.exists(b("big")), "gone at once");
            assertEquals(0, ks.hashes().length(b("big")));
            assertEquals(1, ks.size());
            // the thread frees the pages, a chunk at a time; bounded wait, then run what is left
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (ks.pageCount() > 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            LazyFree.drain(ks.engine());
            assertEquals(0, ks.pageCount());
            assertEquals(1, mapEntries(ks), "only the other key is left in the map");
            // the key can hold a new collection meanwhile
            bigHash(ks, "big", 200);
            assertEquals(200, ks.hashes().length(b("big")));
        }
    }

    @Test
    void unlinkReturnsBeforeThePagesAreFreed() {
        try (Store s = open()) {
            Keyspace ks = withHash(s, "big", 30_000);
            long pages = ks.pageCount();
            // hold the key's stripe: the lazyfree thread cannot take a chunk until we let it go
            int stripe = KeyspaceEngine.stripeOf(KeyCodec.mapKey(b("big")));
            java.util.concurrent.locks.ReentrantLock l = ks.engine().lockIndex(stripe);
            try {
                assertTrue(ks.del(b("big"), true));
                assertFalse(ks.exists(b("big")));
                assertEquals(pages, ks.pageCount(), "UNLINK returned with every page still to free");
            } finally {
                l.unlock();
            }
            LazyFree.drain(ks.engine());
            assertEquals(0, ks.pageCount());
        }
    }

    /**
     * The thread never waits for a stripe while it holds its run lock: a drain of another
     * keyspace, by a thread that holds a stripe the thread wants (an EXEC that drops an app),
     * still ends. Before, the thread waited for the stripe holding the run lock the drain wanted.
     */
    @Test
    @org.junit.jupiter.api.Timeout(30)
    void aDrainByAThreadHoldingAStripeTheThreadWantsEnds() throws Exception {
        try (Store s = open()) {
            Keyspace a = withHash(s, "big", 30_000);
            Keyspace other = s.keyspace(Store.DEFAULT_APP, 1);
            bigHash(other, "big", 30_000);
            int stripe = KeyspaceEngine.stripeOf(KeyCodec.mapKey(b("big")));
            java.util.concurrent.locks.ReentrantLock l = a.engine().lockIndex(stripe);
            try {
                assertTrue(a.del(b("big"), true)); // its job waits for the stripe held here
                assertTrue(other.del(b("big"), true));
                Thread.sleep(50); // let the thread meet the held stripe
                LazyFree.drain(other.engine());
                assertEquals(0, other.pageCount());
                assertTrue(a.pageCount() > 0, "the held stripe's job is still pending");
            } finally {
                l.unlock();
            }
            LazyFree.drain(a.engine());
            assertEquals(0, a.pageCount());
        }
    }

    @Test
    void aSmallCollectionIsFreedInline() {
        try (Store s = open()) {
            Keyspace ks = withHash(s, "small", 500);
            long pages = ks.pageCount();
            assertTrue(pages > 0 && pages <= LazyFree.NOW_MAX, pages + " pages");
            assertTrue(ks.del(b("small"), true));
            assertEquals(0, ks.pageCount(), "no job queued for a few pages");
            assertEquals(0, mapEntries(ks));
        }
    }

    @Test
    void aCleanCloseFreesWhatIsPendingSoTheNextOpenFindsNoOrphan() {
        try (Store s = open()) {
            Keyspace ks = withHash(s, "a", 30_000);
            bigHash(ks, "b", 30_000);
            assertEquals(2, ks.delAll(new byte[][] {b("UNLINK"), b("a"), b("b")}, 1, true));
        }
        try (Store s = open()) {
            Keyspace ks = s.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(0, ks.size());
            assertEquals(0, mapEntries(ks), "a clean open does not sweep: close must have freed them");
        }
    }

    @Test
    void growthInTheMiddleOfAFreeLosesNothing() {
        try (Store s = open()) {
            Keyspace ks = withHash(s, "big", 40_000);
            int gen = ks.generation();
            assertTrue(ks.del(b("big"), true));
            for (int i = 0; i < 20_000; i++) {
                ks.set(b("k" + i), b("v" + i), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
            }
            assertTrue(ks.generation() > gen, "the map grew meanwhile");
            LazyFree.drain(ks.engine());
            assertEquals(0, ks.pageCount());
            assertEquals(20_000, ks.size());
            assertEquals(20_000, mapEntries(ks));
            StringValue v = ks.get(b("k19999"));
            assertEquals("v19999", new String(v.array(), v.offset(), (int) v.length(), java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    @Test
    void delStaysSynchronous() {
        try (Store s = open()) {
            Keyspace ks = withHash(s, "big", 30_000);
            assertTrue(ks.del(b("big")));
            assertEquals(0, ks.pageCount(), "DEL frees before it returns, as Redis's DEL does");
            assertNull(ks.get(b("big")));
        }
    }
}
