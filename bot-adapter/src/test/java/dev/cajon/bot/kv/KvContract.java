package dev.cajon.bot.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The port's contract, run against every backend: embedded storage, an in-process Cajon server,
 * a real redis-server and a 3-master Redis Cluster (one subclass each, which starts its backend
 * once per class). Each test uses its own hash tag, so a cluster spreads them over the slots.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class KvContract {
    private static final AtomicInteger TAGS = new AtomicInteger();

    /** The backend under test. */
    abstract Kv kv();

    /** The key's remaining TTL in ms as the backend's PTTL reports it (-1 none, -2 no key). */
    abstract long pttl(String key);

    /** A key with this test's own hash tag. */
    String key(String tag, String name) {
        return "ct:{" + tag + "}:" + name;
    }

    String tag() {
        return getClass().getSimpleName() + TAGS.incrementAndGet();
    }

    @Test
    void getOfAnAbsentKeyIsNullAndSetThenGetRoundTripsUtf8() {
        String t = tag();
        assertNull(kv().get(key(t, "a")));
        kv().set(key(t, "a"), "2 leches, ñandú ✓");
        assertEquals("2 leches, ñandú ✓", kv().get(key(t, "a")));
    }

    @Test
    void nxWritesOnlyWhenAbsentAndXxOnlyWhenPresent() {
        String t = tag();
        String k = key(t, "k");
        assertFalse(kv().set(k, "x", SetOptions.xx(0)).applied());
        assertNull(kv().get(k));
        assertTrue(kv().set(k, "first", SetOptions.nx(0)).applied());
        assertFalse(kv().set(k, "second", SetOptions.nx(0)).applied());
        assertEquals("first", kv().get(k));
        assertTrue(kv().set(k, "third", SetOptions.xx(0)).applied());
        assertEquals("third", kv().get(k));
    }

    @Test
    void getOptionReturnsTheOldValueAlsoWhenNxRefuses() {
        String t = tag();
        String k = key(t, "k");
        SetReply first = kv().set(k, "v1", SetOptions.nx(0).withGet());
        assertTrue(first.applied());
        assertNull(first.old());
        SetReply again = kv().set(k, "v2", SetOptions.nx(0).withGet());
        assertFalse(again.applied());
        assertEquals("v1", again.old());
        assertEquals("v1", kv().get(k));
        SetReply plain = kv().set(k, "v3", SetOptions.PLAIN.withGet());
        assertTrue(plain.applied());
        assertEquals("v1", plain.old());
        assertEquals("v3", kv().get(k));
    }

    @Test
    void pxSetsATtlAndAPlainSetClearsIt() {
        String t = tag();
        String k = key(t, "k");
        kv().set(k, "v", SetOptions.px(60_000));
        long ttl = pttl(k);
        assertTrue(ttl > 0 && ttl <= 60_000, "PTTL after SET PX 60000: " + ttl);
        kv().set(k, "w");
        assertEquals(-1, pttl(k));
    }

    @Test
    void incrCountsFromAbsentAndRefusesANonInteger() {
        String t = tag();
        String k = key(t, "n");
        assertEquals(1L, kv().incr(k));
        assertEquals(2L, kv().incr(k));
        String s = key(t, "s");
        kv().set(s, "S3");
        assertNull(kv().incr(s));
        assertEquals("S3", kv().get(s));
    }

    @Test
    void pexpireAndDelSayWhetherTheKeyExisted() {
        String t = tag();
        String k = key(t, "k");
        assertFalse(kv().pexpire(k, 10_000));
        kv().set(k, "v");
        assertTrue(kv().pexpire(k, 10_000));
        long ttl = pttl(k);
        assertTrue(ttl > 0 && ttl <= 10_000, "PTTL after PEXPIRE 10000: " + ttl);
        assertTrue(kv().del(k));
        assertFalse(kv().del(k));
        assertEquals(-2, pttl(k));
    }

    @Test
    void execAppliesEveryWriteAndReportsEachResult() {
        String t = tag();
        String a = key(t, "a");
        String n = key(t, "n");
        String gone = key(t, "gone");
        kv().set(gone, "x");
        List<Object> r;
        try (Kv.Tx tx = kv().watch(List.of(a, n))) {
            assertNull(tx.get(a));
            r = tx.exec(List.of(new Op.Set(a, "1", 30_000), new Op.Incr(n), new Op.PExpire(n, 20_000),
                    new Op.Del(gone), new Op.Del(key(t, "never"))));
        }
        assertEquals(List.of(true, 1L, true, true, false), r);
        assertEquals("1", kv().get(a));
        assertEquals("1", kv().get(n));
        assertNull(kv().get(gone));
        assertTrue(pttl(a) > 0 && pttl(n) > 0);
    }

    @Test
    void execAbortsWhenAWatchedKeyChangedAndWritesNothing() {
        String t = tag();
        String a = key(t, "a");
        String b = key(t, "b");
        kv().set(a, "0");
        try (Kv.Tx tx = kv().watch(List.of(a))) {
            assertEquals("0", tx.get(a));
            kv().set(a, "changed elsewhere");
            assertNull(tx.exec(List.of(new Op.Set(a, "1", 0), new Op.Set(b, "1", 0))));
        }
        assertEquals("changed elsewhere", kv().get(a));
        assertNull(kv().get(b));
    }

    @Test
    void execGoesAheadWhenOnlyAnUnwatchedKeyChanged() {
        String t = tag();
        String a = key(t, "a");
        String other = key(t, "other");
        try (Kv.Tx tx = kv().watch(List.of(a))) {
            kv().set(other, "x");
            assertEquals(List.of(true), tx.exec(List.of(new Op.Set(a, "mine", 0))));
        }
        assertEquals("mine", kv().get(a));
    }

    @Test
    void anIncrOnANonIntegerInsideExecFailsAloneAsInRedis() {
        String t = tag();
        String s = key(t, "s");
        String a = key(t, "a");
        kv().set(s, "text");
        List<Object> r;
        try (Kv.Tx tx = kv().watch(List.of(s))) {
            r = tx.exec(List.of(new Op.Incr(s), new Op.Set(a, "written", 0)));
        }
        assertEquals(2, r.size());
        assertNull(r.get(0));
        assertEquals(true, r.get(1));
        assertEquals("written", kv().get(a));
    }

    @Test
    void execThenWatchWritesAndKeepsWatchingWhatItWrote() {
        String t = tag();
        String a = key(t, "a");
        String b = key(t, "b");
        Kv.Chained c;
        try (Kv.Tx tx = kv().watch(List.of(a))) {
            c = tx.execThenWatch(List.of(new Op.Set(a, "1", 0), new Op.Set(b, "1", 0)), List.of(a, b));
        }
        assertEquals(List.of(true, true), c.results());
        assertNotNull(c.next(), "a single caller always gets the WATCH held");
        try (Kv.Tx held = c.next()) {
            assertEquals("1", held.get(a), "read after the EXEC");
            assertEquals("1", held.get(b));
            assertEquals(List.of(true), held.exec(List.of(new Op.Set(a, "2", 0))), "nothing changed: it goes ahead");
        }
        assertEquals("2", kv().get(a));
    }

    @Test
    void aWatchHeldAfterExecAbortsTheNextExecWhenAKeyChanges() {
        String t = tag();
        String a = key(t, "a");
        Kv.Chained c;
        try (Kv.Tx tx = kv().watch(List.of(a))) {
            c = tx.execThenWatch(List.of(new Op.Set(a, "mine", 0)), List.of(a));
        }
        try (Kv.Tx held = c.next()) {
            kv().set(a, "changed elsewhere");
            assertNull(held.exec(List.of(new Op.Set(a, "stale", 0))));
        }
        assertEquals("changed elsewhere", kv().get(a));
    }

    @Test
    void anAbortedExecThenWatchWritesNothingAndLeavesNoWatchBehind() {
        String t = tag();
        String a = key(t, "a");
        String b = key(t, "b");
        kv().set(a, "0");
        Kv.Chained c;
        try (Kv.Tx tx = kv().watch(List.of(a))) {
            kv().set(a, "changed elsewhere");
            c = tx.execThenWatch(List.of(new Op.Set(b, "1", 0)), List.of(a, b));
        }
        assertNull(c.results());
        assertNull(c.next());
        assertNull(kv().get(b));
        // every pooled connection is usable: none kept the WATCH the aborted round trip sent
        for (int i = 0; i < 80; i++) {
            kv().set(a, "x" + i);
            try (Kv.Tx tx = kv().watch(List.of(b))) {
                assertEquals(List.of(true), tx.exec(List.of(new Op.Set(b, "ok" + i, 0))));
            }
        }
    }

    @Test
    void aTransactionClosedWithoutExecLeavesNoWatchBehind() {
        String t = tag();
        String a = key(t, "a");
        try (Kv.Tx tx = kv().watch(List.of(a))) {
            tx.get(a);
        }
        kv().set(a, "x");
        try (Kv.Tx tx = kv().watch(List.of(key(t, "b")))) {
            assertEquals(List.of(true), tx.exec(List.of(new Op.Set(key(t, "b"), "ok", 0))));
        }
    }

    @Test
    void aPipelineAppliesItsOpsInOrderAndReportsEachResult() {
        String t = tag();
        String other = tag(); // another hash tag: in a cluster, most likely another slot
        String a = key(t, "a");
        String n = key(other, "n");
        String s = key(t, "s");
        String gone = key(other, "gone");
        kv().set(s, "text");
        kv().set(gone, "x");
        List<Object> r = kv().pipeline(List.of(new Op.SetNx(a, "first", 30_000), new Op.SetNx(a, "second", 0),
                new Op.Incr(n), new Op.Incr(n), new Op.Incr(s), new Op.Set(key(t, "b"), "plain", 0),
                new Op.Del(gone), new Op.PExpire(n, 20_000)));
        assertEquals(java.util.Arrays.asList(true, false, 1L, 2L, null, true, true, true), r);
        assertEquals("first", kv().get(a));
        long ttl = pttl(a);
        assertTrue(ttl > 0 && ttl <= 30_000, "PTTL after SET NX PX 30000 in a pipeline: " + ttl);
        assertEquals("2", kv().get(n));
        assertEquals("text", kv().get(s));
        assertEquals("plain", kv().get(key(t, "b")));
        assertNull(kv().get(gone));
        assertEquals(List.of(), kv().pipeline(List.of()));
    }

    @Test
    void anIncrByTakesABlockInAPipelineAndInATransaction() {
        String t = tag();
        String n = key(t, "n");
        String sealed = key(tag(), "sealed");
        kv().set(sealed, "S3"); // a sealed wheel bucket: not an integer
        assertEquals(java.util.Arrays.asList(5L, 69L, null, 70L), kv().pipeline(List.of(new Op.Incr(n, 5),
                new Op.Incr(n, 64), new Op.Incr(sealed, 8), new Op.Incr(n))));
        try (Kv.Tx tx = kv().watch(List.of(n))) {
            assertEquals("70", tx.get(n));
            assertEquals(List.of(78L), tx.exec(List.of(new Op.Incr(n, 8))));
        }
        assertEquals("78", kv().get(n));
        assertEquals("S3", kv().get(sealed));
    }

    @Test
    void opsSentAheadOfAWatchAreAppliedBeforeItAndDoNotAbortTheExec() {
        String t = tag();
        String k = key(t, "k");
        String elsewhere = key(tag(), "entry");
        kv().set(elsewhere, "taken");
        try (Kv.Tx tx = kv().watch(List.of(k), List.of(new Op.SetNx(elsewhere, "x", 0), new Op.SetNx(k, "mine", 0)))) {
            assertEquals(List.of(false, true), tx.before());
            assertEquals("mine", tx.get(k), "the GET after the WATCH sees the op sent ahead");
            assertEquals(List.of(true), tx.exec(List.of(new Op.Set(k, "committed", 0))));
        }
        assertEquals("committed", kv().get(k));
        assertEquals("taken", kv().get(elsewhere));
    }

    @Test
    void aWatchWithOpsAheadStillAbortsWhenTheKeyChangesAfterIt() {
        String t = tag();
        String k = key(t, "k");
        try (Kv.Tx tx = kv().watch(List.of(k), List.of(new Op.SetNx(k, "mine", 0)))) {
            assertEquals(List.of(true), tx.before());
            kv().set(k, "changed elsewhere");
            assertNull(tx.exec(List.of(new Op.Set(k, "committed", 0))));
        }
        assertEquals("changed elsewhere", kv().get(k));
        try (Kv.Tx tx = kv().watch(List.of(k), List.of())) {
            assertEquals(List.of(), tx.before());
            assertEquals("changed elsewhere", tx.get(k));
        }
    }

    @Test
    void setNxInsideExecWritesOnlyWhenAbsent() {
        String t = tag();
        String a = key(t, "a");
        List<Object> r;
        try (Kv.Tx tx = kv().watch(List.of(a))) {
            r = tx.exec(List.of(new Op.SetNx(a, "x", 10_000), new Op.SetNx(a, "y", 0)));
        }
        assertEquals(List.of(true, false), r);
        assertEquals("x", kv().get(a));
        assertTrue(pttl(a) > 0);
    }

    /** Optimistic read-modify-write from several threads: WATCH makes every increment count. */
    @Test
    void optimisticIncrementsFromManyThreadsLoseNoUpdate() throws Exception {
        String t = tag();
        String k = key(t, "cart");
        int threads = 4;
        int each = 25;
        AtomicInteger aborted = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                fs.add(pool.submit(() -> {
                    for (int j = 0; j < each; j++) {
                        for (int attempt = 0; ; attempt++) {
                            if (attempt > 1_000) {
                                throw new AssertionError("no progress after 1000 attempts");
                            }
                            try (Kv.Tx tx = kv().watch(List.of(k))) {
                                String v = tx.get(k);
                                long n = v == null ? 0 : Long.parseLong(v);
                                if (tx.exec(List.of(new Op.Set(k, Long.toString(n + 1), 0))) != null) {
                                    break;
                                }
                                aborted.incrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(50, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(Long.toString(threads * each), kv().get(k), "aborted attempts: " + aborted);
    }
}
