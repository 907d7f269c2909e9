package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.collection.NodeCache;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The decoded pages kept from one command to the next ({@link NodeCache}) never answer for a
 * page the map no longer holds: a write taken back, a body that failed half-way, and a store
 * reopened over other bytes all read what the map holds. (Every test of the suite also runs with
 * the cache's check on: each node it is given is encoded again and compared with its bytes.)
 */
class NodeCacheTest {
    @TempDir
    Path dir;

    private static byte[][] elements(String tag, int n) {
        byte[][] v = new byte[n][];
        for (int i = 0; i < n; i++) {
            v[i] = b(tag + ":" + i + ":" + "x".repeat(20));
        }
        return v;
    }

    private static List<String> strings(List<byte[]> l) {
        List<String> out = new ArrayList<>();
        for (byte[] v : l) {
            out.add(new String(v, java.nio.charset.StandardCharsets.UTF_8));
        }
        return out;
    }

    @Test
    void aPushInsideASectionThatIsTakenBackAndRunAgainCountsOnce() {
        try (Store s = Store.open(dir, new ManualClock(T0))) {
            Keyspace ks = s.keyspace(Store.DEFAULT_APP, 0);
            ks.growBeforeSection = false;
            ks.lists().push(b("l"), elements("e", 2_000), 0, true, false); // dozens of pages
            List<String> before = strings(ks.lists().range(b("l"), 0, -1)); // its head leaf decoded, kept
            int n = 150_000; // more new keys than the first generation holds: the section grows
            byte[][] keys = new byte[n + 1][];
            for (int i = 0; i < n; i++) {
                keys[i] = b("k" + i);
            }
            keys[n] = b("l");
            AtomicInteger runs = new AtomicInteger();
            ks.atomically(keys, false, true, () -> {
                ks.lists().push(b("l"), new byte[][] {b("head" + runs.incrementAndGet())}, 0, true, false);
                for (int i = 0; i < n; i++) {
                    ks.set(keys[i], b("v"), SetCondition.ALWAYS, dev.cajon.storage.chronicle.ValueHeader.NO_EXPIRY, false);
                }
                return null;
            });
            assertTrue(runs.get() >= 2, "the section grew, so it ran again: " + runs.get());
            List<String> after = strings(ks.lists().range(b("l"), 0, -1));
            assertEquals(before.size() + 1, after.size(), "one push, however many runs");
            assertEquals("head" + runs.get(), after.get(0));
            assertEquals(before, after.subList(1, after.size()));
        }
    }

    @Test
    void aBodyThatFailsAfterChangingALeafLeavesTheListAsItWas() {
        try (Store s = Store.open(dir, new ManualClock(T0))) {
            Keyspace ks = s.keyspace(Store.DEFAULT_APP, 0);
            ks.lists().push(b("l"), elements("e", 2_000), 0, false, false);
            byte[] first = ks.lists().index(b("l"), 0); // the head leaf decoded, and kept
            // a push of two values, the second too big: the body has put the first in the head
            // leaf (the node the cache gave it) when it fails
            byte[] tooBig = new byte[dev.cajon.storage.collection.Trees.MAX_ENTRY + 1];
            assertThrows(RuntimeException.class,
                    () -> ks.lists().push(b("l"), new byte[][] {b("ok"), tooBig}, 0, true, false));
            assertEquals(2_000, ks.lists().length(b("l")));
            assertArrayEquals(first, ks.lists().index(b("l"), 0), "the first push of the failed command is not kept");
            ks.lists().push(b("l"), new byte[][] {b("later")}, 0, true, false);
            assertEquals(List.of("later", new String(first, java.nio.charset.StandardCharsets.UTF_8)),
                    strings(ks.lists().range(b("l"), 0, 1)));
        }
    }

    @Test
    void aStoreReopenedOverOtherBytesReadsThem() throws Exception {
        Path a = dir.resolve("a");
        Path copy = dir.resolve("copy");
        ManualClock clock = new ManualClock(T0);
        try (Store s = Store.open(a, clock)) {
            s.keyspace(Store.DEFAULT_APP, 0).lists().push(b("l"), elements("old", 2_000), 0, false, false);
        }
        copyTree(a, copy); // the same collection id and page ids, the old bytes
        try (Store s = Store.open(a, clock)) {
            Keyspace ks = s.keyspace(Store.DEFAULT_APP, 0);
            for (int i = 0; i < 2_000; i++) {
                ks.lists().set(b("l"), i, b("new:" + i)); // every leaf changed, and kept decoded
            }
            assertEquals("new:0", new String(ks.lists().index(b("l"), 0), java.nio.charset.StandardCharsets.UTF_8));
        }
        try (Store s = Store.open(copy, clock)) {
            List<String> l = strings(s.keyspace(Store.DEFAULT_APP, 0).lists().range(b("l"), 0, -1));
            assertEquals(2_000, l.size());
            for (int i = 0; i < 2_000; i++) {
                assertTrue(l.get(i).startsWith("old:" + i + ":"), l.get(i));
            }
        }
    }

    private static void copyTree(Path from, Path to) throws java.io.IOException {
        try (var walk = java.nio.file.Files.walk(from)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                Path t = to.resolve(from.relativize(p).toString());
                if (java.nio.file.Files.isDirectory(p)) {
                    java.nio.file.Files.createDirectories(t);
                } else {
                    java.nio.file.Files.copy(p, t);
                }
            }
        }
    }
}
