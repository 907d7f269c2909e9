package dev.cajon.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.tx.Watch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storage half of MULTI/EXEC: {@link Keyspace#atomically} (isolation, growth inside a
 * section, the undo record a crash is recovered from) and {@link Keyspace#watch}.
 */
class AtomicSectionTest {
    static final long NO_EXPIRY = ValueHeader.NO_EXPIRY;

    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(1_800_000_000_000L);

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[][] keys(String... ks) {
        return Arrays.stream(ks).map(AtomicSectionTest::b).toArray(byte[][]::new);
    }

    static void set(Keyspace ks, String k, byte[] v) {
        assertEquals(OpStatus.OK, ks.set(b(k), v, SetCondition.ALWAYS, NO_EXPIRY, false).status());
    }

    static String str(Keyspace ks, String k) {
        StringValue v = ks.get(b(k));
        if (v == null) {
            return null;
        }
        try {
            return new String(v.toBytes(), StandardCharsets.UTF_8);
        } finally {
            v.release();
        }
    }

    private Path db0() {
        return dir.resolve(Store.DEFAULT_APP).resolve("db0");
    }

    private static byte[] big(char c) {
        byte[] v = new byte[Keyspace.BLOB_THRESHOLD + 4000];
        Arrays.fill(v, (byte) c);
        return v;
    }

    private static List<Path> files(Path d) throws IOException {
        if (!Files.isDirectory(d)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(d)) {
            return s.sorted().toList();
        }
    }

    @Test
    void anInterruptedTransactionIsTakenBackWholeWhenTheKeyspaceReopens() throws Exception {
        byte[] oldBlob = big('o');
        byte[] journal;
        List<Path> blobsInside;
        List<byte[]> blobBytesInside = new ArrayList<>();
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            set(ks, "a", b("old-a"));
            set(ks, "b", oldBlob);
            set(ks, "n", b("10"));
            byte[][] journalInside = new byte[1][];
            List<Path> seen = new ArrayList<>();
            ks.atomically(keys("a", "b", "c", "n"), false, true, () -> {
                set(ks, "a", b("new-a"));
                set(ks, "b", b("small now"));
                set(ks, "c", b("created"));
                assertEquals(11, ks.incrBy(b("n"), 1).value());
                assertTrue(ks.del(b("a")));
                // the moment a kill -9 would hit: every write applied, the undo record pending
                try {
                    journalInside[0] = Files.readAllBytes(db0().resolve(Keyspace.TX_FILE));
                    for (Path p : files(db0().resolve("blobs"))) {
                        seen.add(p);
                        blobBytesInside.add(Files.readAllBytes(p));
                    }
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                return null;
            });
            journal = journalInside[0];
            blobsInside = seen;
            // committed: the overwritten blob is gone now that the section ended
            assertEquals("small now", str(ks, "b"));
            assertTrue(files(db0().resolve("blobs")).isEmpty(), "the old blob is deleted after the section");
        }
        assertEquals(1, blobsInside.size(), "inside the section the overwritten blob file must still exist");
        // put back what a kill at that moment leaves: the pending undo record, the blob file, the marker
        Files.write(db0().resolve(Keyspace.TX_FILE), journal);
        Files.createDirectories(db0().resolve("blobs"));
        Files.write(blobsInside.get(0), blobBytesInside.get(0));
        Files.writeString(dir.resolve("cajon.running"), "12345");
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals("old-a", str(ks, "a"));
            assertArrayEquals(oldBlob, ks.get(b("b")).toBytes());
            assertNull(str(ks, "c"));
            assertEquals("10", str(ks, "n"));
            assertEquals(3, ks.dbsize());
        }
    }

    @Test
    void aCompletedTransactionStaysAfterACrashRestart() throws Exception {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            set(ks, "a", b("1"));
            ks.atomically(keys("a", "b"), false, true, () -> {
                ks.incrBy(b("a"), 1);
                set(ks, "b", b("2"));
                return null;
            });
        }
        Files.writeString(dir.resolve("cajon.running"), "12345");
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals("2", str(ks, "a"));
            assertEquals("2", str(ks, "b"));
        }
    }

    @Test
    void aSectionThatRunsOutOfRoomIsTakenBackGrownAndRunAgainWhole() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            ks.growBeforeSection = false;
            long capacity = ks.capacity();
            // more new keys than the first generation holds even with Chronicle's bloat (4x):
            // the section must grow in the middle
            int n = 150_000; // as MultiKeyGrowthTest: 9x the first generation
            byte[][] ks1 = new byte[n][];
            for (int i = 0; i < n; i++) {
                ks1[i] = b("k" + i);
            }
            set(ks, "k0", b("before"));
            AtomicInteger runs = new AtomicInteger();
            ks.atomically(ks1, false, true, () -> {
                runs.incrementAndGet();
                // each run starts from the state before the section: k0 is never seen changed
                assertEquals("before", str(ks, "k0"));
                for (int i = 0; i < n; i++) {
                    set(ks, "k" + i, b("v" + i));
                }
                return null;
            });
            assertTrue(runs.get() >= 2, "the section needed growth, so it ran again: " + runs.get());
            assertTrue(ks.capacity() > capacity);
            assertEquals(n, ks.dbsize());
            for (int i = 0; i < n; i += 97) {
                assertEquals("v" + i, str(ks, "k" + i));
            }
        }
    }

    @Test
    void noOtherThreadSeesASectionHalfDone() throws Exception {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            set(ks, "a", b("0"));
            set(ks, "b", b("0"));
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread tx = new Thread(() -> ks.atomically(keys("a", "b", "c"), false, true, () -> {
                ks.incrBy(b("a"), 1);
                set(ks, "c", b("new"));
                inside.countDown();
                await(release);
                ks.incrBy(b("b"), 1);
                return null;
            }));
            tx.start();
            assertTrue(inside.await(10, TimeUnit.SECONDS));
            AtomicReference<String> mget = new AtomicReference<>();
            AtomicReference<Long> dbsize = new AtomicReference<>();
            Thread reader = new Thread(() -> {
                StringValue[] v = ks.getAll(keys("x", "a", "b"), 1);
                mget.set(new String(v[0].toBytes(), StandardCharsets.UTF_8) + new String(v[1].toBytes(), StandardCharsets.UTF_8));
            });
            Thread counter = new Thread(() -> dbsize.set(ks.dbsize()));
            reader.start();
            counter.start();
            reader.join(300);
            counter.join(300);
            assertNull(mget.get(), "MGET must wait for the section");
            assertNull(dbsize.get(), "DBSIZE must wait for the section");
            // a key outside the section is served meanwhile
            set(ks, "elsewhere", b("x"));
            release.countDown();
            tx.join(10_000);
            reader.join(10_000);
            counter.join(10_000);
            assertEquals("11", mget.get());
            assertEquals(4L, dbsize.get());
        }
    }

    private static void await(CountDownLatch l) {
        try {
            assertTrue(l.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** Runs {@code check} inside a section over {@code key}, as EXEC does. */
    private static boolean changed(Keyspace ks, String key, Watch w) {
        return ks.atomically(keys(key), false, false, () -> ks.changed(w));
    }

    @Test
    void aWatchIsDirtiedByEveryKindOfChangeAndNothingElse() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            set(ks, "w", b("1"));
            Watch w = ks.watch(b("w"));
            set(ks, "other", b("x"));
            assertFalse(ks.exists(b("w")) && changed(ks, "w", w), "reads and other keys change nothing");
            assertEquals(OpStatus.NOT_APPLIED, ks.set(b("w"), b("9"), SetCondition.IF_ABSENT, NO_EXPIRY, false).status());
            assertFalse(changed(ks, "w", w), "a SET NX that did not set changes nothing");
            set(ks, "w", b("1"));
            assertTrue(changed(ks, "w", w), "a SET of the same value is a change");
            ks.unwatch(w);

            Watch incr = ks.watch(b("w"));
            ks.incrBy(b("w"), 1);
            assertTrue(changed(ks, "w", incr));
            ks.unwatch(incr);

            Watch del = ks.watch(b("w"));
            assertTrue(ks.del(b("w")));
            assertTrue(changed(ks, "w", del));
            ks.unwatch(del);

            Watch missing = ks.watch(b("nope"));
            assertFalse(ks.del(b("nope")));
            ks.flush();
            assertFalse(changed(ks, "nope", missing), "FLUSHDB does not change a key that did not exist");
            ks.unwatch(missing);

            set(ks, "f", b("1"));
            Watch flushed = ks.watch(b("f"));
            ks.flush();
            assertTrue(changed(ks, "f", flushed), "FLUSHDB changes a watched key that existed");
            ks.unwatch(flushed);

            set(ks, "r", b("1"));
            Watch from = ks.watch(b("r"));
            Watch to = ks.watch(b("r2"));
            assertEquals(OpStatus.OK, ks.rename(b("r"), b("r2"), false));
            assertTrue(changed(ks, "r", from));
            assertTrue(changed(ks, "r2", to));
            ks.unwatch(from);
            ks.unwatch(to);

            set(ks, "t", b("1"));
            assertTrue(ks.expireAt(b("t"), clock.nowMillis() + 100, 0));
            Watch ttl = ks.watch(b("t"));
            assertFalse(changed(ks, "t", ttl));
            clock.advance(101);
            assertTrue(changed(ks, "t", ttl), "passing the deadline is a change");
            ks.unwatch(ttl);
        }
    }

    @Test
    void aKeyAlreadyExpiredWhenWatchedIsNotChangedByItsRemoval() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            set(ks, "t", b("1"));
            assertTrue(ks.expireAt(b("t"), clock.nowMillis() + 10, 0));
            clock.advance(11);
            Watch w = ks.watch(b("t"));
            assertNull(ks.get(b("t")));
            assertFalse(changed(ks, "t", w));
        }
    }

    @Test
    void changedMayOnlyBeAskedInsideASectionHoldingTheKey() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            Watch w = ks.watch(b("k"));
            assertThrows(IllegalStateException.class, () -> ks.changed(w));
        }
    }

    @Test
    void aWholeSectionGrowsInPlaceAndBlocksKeyspaceWideReaders() throws Exception {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            long capacity = ks.capacity();
            int n = (int) (capacity * 2);
            AtomicInteger runs = new AtomicInteger();
            ks.atomically(new byte[0][], true, false, () -> {
                runs.incrementAndGet();
                for (int i = 0; i < n; i++) {
                    set(ks, "w" + i, b("v"));
                }
                assertEquals(n, ks.dbsize());
                return null;
            });
            assertEquals(1, runs.get(), "a whole section grows in place, it never runs again");
            assertEquals(n, ks.dbsize());
        }
    }

    @Test
    void stripesAreSortedAndDistinct() {
        // keys chosen so that two of them share a stripe: a section must lock each stripe once,
        // in ascending order, or two sections could deadlock (or one would lock a stripe twice)
        java.util.List<byte[]> keys = new java.util.ArrayList<>();
        java.util.Map<Integer, byte[]> byStripe = new java.util.HashMap<>();
        for (int i = 0; keys.size() < 5 && i < 100_000; i++) {
            byte[] k = KeyCodec.mapKey(("k" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            int s = KeyspaceEngine.stripeOf(k);
            if (!byStripe.containsKey(s) && keys.size() < 4) {
                byStripe.put(s, k);
                keys.add(k);
            } else if (byStripe.containsKey(s) && keys.size() == 4) {
                keys.add(k); // a second key on a stripe already taken
            }
        }
        org.junit.jupiter.api.Assertions.assertEquals(5, keys.size());
        java.util.Collections.reverse(keys);
        int[] idx = Sections.distinctStripes(keys.toArray(new byte[0][]));
        int[] expected = keys.stream().mapToInt(KeyspaceEngine::stripeOf).sorted().distinct().toArray();
        org.junit.jupiter.api.Assertions.assertArrayEquals(expected, idx);
        org.junit.jupiter.api.Assertions.assertEquals(4, idx.length);
    }
}
