package dev.cajon.storage.expiry;

import static dev.cajon.storage.expiry.ExpiryFixture.DAY;
import static dev.cajon.storage.expiry.ExpiryFixture.NO_EXPIRY;
import static dev.cajon.storage.expiry.ExpiryFixture.SECOND;
import static dev.cajon.storage.expiry.ExpiryFixture.T0;
import static dev.cajon.storage.expiry.ExpiryFixture.b;
import static dev.cajon.storage.expiry.ExpiryFixture.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cajon.storage.Keyspace;
import dev.cajon.storage.SetCondition;
import dev.cajon.storage.chronicle.MapFile;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SCAN's guarantee, as Redis states it: a full iteration returns every element that was present
 * in the collection from its start to its end, possibly more than once, and always terminates.
 * The keyspace starts beyond {@link MapFile#INITIAL_ENTRIES}, so it is already in a later
 * generation, and the concurrent inserts force at least one more growth (a new Chronicle map,
 * which restarts the walk) in the middle of it.
 *
 * <p>To make the walk and the changes really interleave on a busy two-core machine, the walker
 * lets the writer make a fixed number of changes between two SCAN calls (the writer never waits
 * for the walker).
 */
class ScanCompletenessTest {
    private static final long START = T0 + 7;
    private static final int STABLE = 50_000;

    @TempDir
    Path dir;
    ExpiryFixture f;

    @AfterEach
    void close() {
        if (f != null) {
            f.close();
        }
    }

    private void load(String prefix, int n, long at) {
        for (int i = 0; i < n; i++) {
            ExpiryFixture.setAt(f.ks, prefix + i, "v", at);
        }
    }

    /** Nothing changes: every key exactly once, whatever COUNT. */
    @ParameterizedTest(name = "COUNT {0}")
    @ValueSource(ints = {1, 100, 100_000})
    void aQuietWalkReturnsEveryKeyExactlyOnce(int count) {
        f = new ExpiryFixture(dir, START);
        load("k", STABLE, NO_EXPIRY);
        assertTrue(STABLE > MapFile.INITIAL_ENTRIES && f.ks.generation() > 1);
        Map<String, Integer> seen = new HashMap<>();
        long cursor = 0;
        int steps = 0;
        do {
            cursor = f.ks.scan(cursor, count, k -> seen.merge(s(k), 1, Integer::sum));
            steps++;
            assertTrue(steps <= STABLE + 1, "the walk does not terminate");
        } while (cursor != 0);
        System.out.printf("ScanCompletenessTest: quiet walk of %d keys with COUNT %d took %d SCAN calls%n",
                STABLE, count, steps);
        assertEquals(STABLE, seen.size());
        for (int i = 0; i < STABLE; i++) {
            assertEquals(1, seen.getOrDefault("k" + i, 0), "k" + i);
        }
    }

    /** SCAN calls of a quiet walk with COUNT 1: about the number of (non-empty) segments. */
    private static int segmentsOf(Keyspace ks) {
        long cursor = 0;
        int steps = 0;
        do {
            cursor = ks.scan(cursor, 1, k -> { });
            steps++;
        } while (cursor != 0);
        return steps;
    }

    /** The result of one SCAN walk made while other threads change the keyspace. */
    private record Walk(Set<String> seen, int steps, int generationBefore, int generationAfter) {
    }

    /**
     * Walks with COUNT 100 from cursor 0 to cursor 0, letting {@code progress} grow by
     * {@code perStep} between two calls (unless the writers are done).
     */
    private Walk walk(AtomicLong progress, long perStep, AtomicBoolean writersDone, int maxSteps) {
        Set<String> seen = new HashSet<>();
        int gen0 = f.ks.generation();
        long cursor = 0;
        int steps = 0;
        do {
            long before = progress.get();
            cursor = f.ks.scan(cursor, 100, k -> seen.add(s(k)));
            steps++;
            if (steps > maxSteps) {
                fail("the walk did not terminate within " + maxSteps + " SCAN calls");
            }
            long giveUp = System.nanoTime() + 5_000_000_000L;
            while (!writersDone.get() && progress.get() - before < perStep && System.nanoTime() < giveUp) {
                LockSupport.parkNanos(20_000);
            }
        } while (cursor != 0);
        return new Walk(seen, steps, gen0, f.ks.generation());
    }

    private static Thread start(String name, AtomicReference<Throwable> failure, Runnable body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static boolean waitingInLockAll(Thread t) {
        if (t.getState() != Thread.State.WAITING) {
            return false;
        }
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getMethodName().equals("lockAll")) {
                return true;
            }
        }
        return false;
    }

    /** Growth only: a writer keeps inserting new keys during the walk. */
    @Test
    void everyKeyPresentThroughoutIsReturnedWhileTheMapGrows() throws InterruptedException {
        f = new ExpiryFixture(dir, START);
        load("stay:", STABLE, NO_EXPIRY);
        int segments = segmentsOf(f.ks);
        long perStep = Math.max(50, 40_000 / segments); // enough to pass the next growth in one pass
        AtomicLong progress = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = start("writer", failure, () -> {
            try {
                for (int i = 0; i < 150_000 && !stop.get(); i++) {
                    f.ks.set(b("new:" + i), b("v"), SetCondition.ALWAYS, NO_EXPIRY, false);
                    progress.incrementAndGet();
                }
            } finally {
                done.set(true);
            }
        });
        Walk w;
        try {
            w = walk(progress, perStep, done, 100_000);
        } finally {
            stop.set(true);
            writer.join(30_000);
        }
        if (failure.get() != null) {
            throw new AssertionError("writer failed", failure.get());
        }
        int segmentsAfter = segmentsOf(f.ks);
        System.out.printf("ScanCompletenessTest: walk during growth: %d SCAN calls, generation %d -> %d, "
                + "%d inserts, segments %d -> %d%n", w.steps, w.generationBefore, w.generationAfter, progress.get(),
                segments, segmentsAfter);
        assertTrue(w.generationAfter > w.generationBefore, "the map grew during the walk");
        int missing = 0;
        String first = null;
        for (int i = 0; i < STABLE; i++) {
            if (!w.seen.contains("stay:" + i)) {
                missing++;
                first = first == null ? "stay:" + i : first;
            }
        }
        assertEquals(0, missing, missing + " keys present for the whole walk were never returned, e.g. " + first);
        int bound = (w.generationAfter - w.generationBefore + 2) * Math.max(segments, segmentsAfter);
        assertTrue(w.steps <= bound, w.steps + " SCAN calls, more than " + bound);
    }

    /**
     * Inserts, deletes and expiry at once. Initial keys: 30,000 that stay (2,000 of them with a
     * TTL of a day, which must not matter), 10,000 deleted during the walk, 10,000 with TTLs up
     * to 60 s that a second thread reclaims by moving the clock and advancing the wheel.
     */
    @Test
    void everyKeyPresentThroughoutIsReturnedDespiteDeletesInsertsAndExpiry() throws InterruptedException {
        f = new ExpiryFixture(dir, START);
        load("stay:", 28_000, NO_EXPIRY);
        load("stayttl:", 2_000, START + DAY);
        load("del:", 10_000, NO_EXPIRY);
        for (int i = 0; i < 10_000; i++) {
            ExpiryFixture.setAt(f.ks, "ttl:" + i, "v", START + 1 + (i * 6L) % (60 * SECOND));
        }
        int segments = segmentsOf(f.ks);
        long perStep = Math.max(50, 40_000 / segments);
        AtomicLong progress = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = start("writer", failure, () -> {
            try {
                for (int i = 0; i < 120_000 && !stop.get(); i++) {
                    f.ks.set(b("new:" + i), b("v"), SetCondition.ALWAYS, NO_EXPIRY, false);
                    if (i % 2 == 0 && i / 2 < 10_000) {
                        f.ks.del(b("del:" + i / 2));
                    }
                    progress.incrementAndGet();
                }
            } finally {
                done.set(true);
            }
        });
        AtomicLong reclaimed = new AtomicLong();
        Thread expirer = start("expirer", failure, () -> {
            while (!stop.get() && f.clock.nowMillis() < START + 70 * SECOND) {
                f.clock.advance(20);
                reclaimed.addAndGet(f.wheel.advance());
                LockSupport.parkNanos(200_000);
            }
        });
        Walk w;
        try {
            w = walk(progress, perStep, done, 100_000);
        } finally {
            stop.set(true);
            writer.join(30_000);
            expirer.join(30_000);
        }
        if (failure.get() != null) {
            throw new AssertionError("a writer failed", failure.get());
        }
        System.out.printf("ScanCompletenessTest: walk during inserts/deletes/expiry: %d SCAN calls, generation "
                + "%d -> %d, %d writer steps, %d keys reclaimed by the wheel, clock +%d ms%n", w.steps,
                w.generationBefore, w.generationAfter, progress.get(), reclaimed.get(), f.clock.nowMillis() - START);
        assertTrue(w.generationAfter > w.generationBefore, "the map grew during the walk");
        assertTrue(reclaimed.get() > 0, "keys expired during the walk");
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < 28_000; i++) {
            if (!w.seen.contains("stay:" + i)) {
                missing.add("stay:" + i);
            }
        }
        for (int i = 0; i < 2_000; i++) {
            if (!w.seen.contains("stayttl:" + i)) {
                missing.add("stayttl:" + i);
            }
        }
        assertEquals(List.of(), missing.subList(0, Math.min(10, missing.size())),
                missing.size() + " keys present for the whole walk were never returned");
        for (String k : w.seen) {
            assertTrue(k.startsWith("stay:") || k.startsWith("stayttl:") || k.startsWith("del:")
                    || k.startsWith("ttl:") || k.startsWith("new:"), "returned a key that never existed: " + k);
        }
        int bound = (w.generationAfter - w.generationBefore + 2) * Math.max(segments, segmentsOf(f.ks));
        assertTrue(w.steps <= bound, w.steps + " SCAN calls, more than " + bound);

        // once everything is quiet, a walk returns exactly the live keys, once each
        f.advanceBy(0);
        Map<String, Integer> after = new HashMap<>();
        long cursor = 0;
        do {
            cursor = f.ks.scan(cursor, 100, k -> after.merge(s(k), 1, Integer::sum));
        } while (cursor != 0);
        assertEquals(f.ks.size(), after.size(), "DBSIZE equals the keys a quiet walk returns");
        assertTrue(after.values().stream().allMatch(c -> c == 1));
        Set<String> keys = new HashSet<>();
        f.ks.forEachLiveKey(k -> keys.add(s(k)));
        assertEquals(keys, after.keySet());
    }

    /**
     * RANDOMKEY holds the whole-map read lock while it probes keys with EXISTS. When another
     * thread's insert has just pushed the key count past the capacity, that EXISTS tries to grow
     * the map itself, and a read lock cannot be upgraded to the write lock growth needs.
     */
    @Test
    void randomKeyWhileTheMapGrowsDoesNotDeadlock() throws InterruptedException {
        f = new ExpiryFixture(dir, START);
        load("k", 1_000, NO_EXPIRY);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong picks = new AtomicLong();
        Thread picker = start("randomkey", failure, () -> {
            while (!stop.get()) {
                f.ks.randomKey();
                picks.incrementAndGet();
            }
        });
        Thread writer = start("writer", failure, () -> {
            for (int i = 1_000; i < 140_000; i++) {
                ExpiryFixture.setAt(f.ks, "k" + i, "v", NO_EXPIRY);
            }
        });
        // both threads parked in Keyspace.lockAll for a whole second is the deadlock; normal
        // growth waits there for a few milliseconds at most
        long stuckSince = -1;
        long giveUp = System.nanoTime() + 30_000_000_000L;
        while (writer.isAlive() && System.nanoTime() < giveUp) {
            writer.join(20);
            boolean stuck = waitingInLockAll(writer) && waitingInLockAll(picker);
            if (!stuck) {
                stuckSince = -1;
            } else if (stuckSince < 0) {
                stuckSince = System.nanoTime();
            } else if (System.nanoTime() - stuckSince > 1_000_000_000L) {
                break;
            }
        }
        stop.set(true);
        picker.join(2_000);
        if (writer.isAlive() || picker.isAlive()) {
            StringBuilder dump = new StringBuilder();
            for (ThreadInfo ti : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
                if (ti.getThreadName().equals("writer") || ti.getThreadName().equals("randomkey")) {
                    dump.append(ti.getThreadName()).append(" ").append(ti.getThreadState()).append(" on ")
                            .append(ti.getLockName()).append('\n');
                    for (StackTraceElement e : ti.getStackTrace()) {
                        if (e.getClassName().startsWith("dev.cajon")) {
                            dump.append("    at ").append(e).append('\n');
                        }
                    }
                }
            }
            f = null; // closing would wait for the stuck threads' locks forever
            fail("RANDOMKEY and a growing insert are stuck after " + picks.get() + " RANDOMKEY calls:\n" + dump);
        }
        if (failure.get() != null) {
            throw new AssertionError("a thread failed", failure.get());
        }
        assertEquals(140_000, f.ks.size());
    }
}
