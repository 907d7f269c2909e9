package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static dev.cajon.storage.TestData.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.expiry.ExpiryWheel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Idle keyspaces give back their map, its descriptor and their journals, and come back on first
 * use with everything they held: keys, TTLs (reclaimed by the wheel on time), watches, counts.
 * Many apps cost descriptors only for the ones in use.
 */
class IdleKeyspaceTest {
    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(T0);
    ExpiryWheel wheel;
    Store store;

    private Store open() {
        wheel = new ExpiryWheel(clock);
        store = Store.open(dir, clock, wheel);
        return store;
    }

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private static void set(Keyspace ks, String k, String v) {
        ks.set(b(k), b(v), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
    }

    /** Open descriptors of this process on files under {@code under}. */
    private static int descriptorsUnder(Path under) throws IOException {
        int n = 0;
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    if (Files.readSymbolicLink(fd).startsWith(under.toRealPath())) {
                        n++;
                    }
                } catch (IOException gone) {
                    // closed meanwhile
                }
            }
        }
        return n;
    }

    /** Disk in use under {@code d} (allocated blocks, as du counts them: the maps are sparse). */
    private static long diskBytes(Path d) throws IOException {
        Process p = new ProcessBuilder("du", "-s", "--block-size=1", d.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
        try {
            assertEquals(0, p.waitFor(), out);
        } catch (InterruptedException e) {
            throw new IOException(e);
        }
        return Long.parseLong(out.split("\\s+")[0]);
    }

    @Test
    void aReleasedKeyspaceKeepsItsKeysAndGivesBackItsMapDescriptorAndJournals() throws IOException {
        Keyspace ks = open().keyspace("shop", 0);
        for (int i = 0; i < 10; i++) {
            set(ks, "k" + i, "v" + i);
        }
        set(ks, "k0", "overwritten"); // an overwrite creates the write journal
        ks.mset(new byte[][] {b("m1"), b("a"), b("m2"), b("b")}); // and MSET the batch journal
        Path ksDir = dir.resolve("shop").resolve("db0");
        assertTrue(Files.exists(ksDir.resolve(Keyspace.JOURNAL_FILE)));
        assertTrue(descriptorsUnder(ksDir) >= 1, "the mapped map holds a descriptor");

        assertTrue(ks.release());
        assertFalse(ks.isMapped());
        assertEquals(0, descriptorsUnder(ksDir), "released: no descriptor left on its files");
        assertFalse(Files.exists(ksDir.resolve(Keyspace.JOURNAL_FILE)), "journals deleted while idle");
        assertFalse(Files.exists(ksDir.resolve(Keyspace.BATCH_FILE)));
        assertTrue(diskBytes(ksDir) < 256 * 1024, "a released 12-key keyspace takes " + diskBytes(ksDir) + " bytes");
        assertEquals(12, ks.size(), "counts stay without the map");

        assertEquals("overwritten", str(ks.get(b("k0"))), "the first read maps it again");
        assertTrue(ks.isMapped());
        assertEquals("b", str(ks.get(b("m2"))));
        set(ks, "k1", "again"); // overwrites work after the wake (journal made again)
        assertEquals("again", str(ks.get(b("k1"))));
        assertEquals(12, ks.size());
    }

    @Test
    void theSweepReleasesIdleKeyspacesAndKeepsBusyOnes() {
        open();
        store.closeIdle(Duration.ofSeconds(60), 1_000);
        Keyspace idle = store.keyspace("idle", 0);
        Keyspace busy = store.keyspace("busy", 0);
        set(idle, "a", "1");
        set(busy, "a", "1");
        store.releaseIdle(); // both seen used now
        for (int minute = 0; minute < 3; minute++) {
            clock.advance(30_000);
            busy.get(b("a"));
            store.releaseIdle();
        }
        assertFalse(idle.isMapped(), "unused for 90 s with a 60 s idle time");
        assertTrue(busy.isMapped(), "used every 30 s");
        assertEquals(1, store.mappedKeyspaces());
        assertEquals("1", str(idle.get(b("a"))));
        assertEquals(2, store.mappedKeyspaces(), "woken by the read");
    }

    @Test
    void manyAppsKeepOnlyTheBudgetMapped() throws IOException {
        open();
        int apps = 120;
        int budget = 16;
        store.closeIdle(Duration.ofHours(1), budget);
        for (int a = 0; a < apps; a++) {
            Keyspace ks = store.keyspace("app" + a, 0);
            for (int i = 0; i < 10; i++) {
                set(ks, "k" + i, a + ":" + i);
            }
            clock.advance(10);
            store.releaseIdle(); // the sweep the budget asks for, run here instead of in the background
            assertTrue(store.mappedKeyspaces() <= budget, store.mappedKeyspaces() + " mapped after app " + a);
        }
        assertTrue(descriptorsUnder(dir) <= budget + 1, descriptorsUnder(dir) + " descriptors for " + apps + " apps");
        for (int a = 0; a < apps; a += 7) {
            Keyspace ks = store.keyspace("app" + a, 0);
            assertEquals(10, ks.size());
            assertEquals(a + ":9", str(ks.get(b("k9"))));
        }
        store.close();
        store = null;

        open();
        assertEquals(0, store.mappedKeyspaces(), "a clean restart maps no app until it is used");
        assertEquals(0, descriptorsUnder(dir) - 1, "only cajon.lock is open after the restart");
        assertEquals(10, store.keyspace("app77", 0).size());
        assertEquals("77:3", str(store.keyspace("app77", 0).get(b("k3"))));
        assertEquals(1, store.mappedKeyspaces());
    }

    @Test
    void keysWithATtlInAReleasedKeyspaceAreReclaimedOnTimeByTheWheel() {
        Keyspace ks = open().keyspace("ttl", 0);
        ks.set(b("soon"), b("x"), SetCondition.ALWAYS, T0 + 1_000, false);
        set(ks, "kept", "y");
        assertTrue(ks.release());
        clock.set(T0 + 1_001);
        assertEquals(1, wheel.advance(), "the wheel maps the keyspace to reclaim the key");
        assertEquals(1, ks.size());
        assertEquals(1, ks.expiredCount());
        assertNull(ks.get(b("soon")));
    }

    @Test
    void aWatchSurvivesARelease() {
        Keyspace ks = open().keyspace("w", 0);
        set(ks, "a", "1");
        var w = ks.watch(b("a"));
        assertTrue(ks.release());
        set(ks, "a", "2");
        assertTrue(ks.atomically(new byte[][] {b("a")}, false, false, () -> ks.changed(w)),
                "a write after the release still dirties the watch");
    }

    @Test
    void releasesUnderConcurrentCommandsLoseNothing() throws Exception {
        Keyspace ks = open().keyspace("race", 0);
        int threads = 3;
        int perThread = 4_000;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread w = new Thread(() -> {
                try {
                    for (int i = 0; i < perThread; i++) {
                        ks.incrBy(b("counter"), 1);
                        set(ks, "t" + id + "-" + (i % 50), Integer.toString(i));
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            workers.add(w);
            w.start();
        }
        int releases = 0;
        while (workers.stream().anyMatch(Thread::isAlive)) {
            if (ks.release()) {
                releases++;
            }
            Thread.onSpinWait();
        }
        for (Thread w : workers) {
            w.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertTrue(releases > 0, "the test never released the keyspace under the writers");
        assertEquals(Integer.toString(threads * perThread), str(ks.get(b("counter"))), "no INCR lost");
        assertEquals(1 + threads * 50, ks.size());
        for (int t = 0; t < threads; t++) {
            assertEquals(Integer.toString(perThread - 1), str(ks.get(b("t" + t + "-" + ((perThread - 1) % 50)))));
        }
    }
}
