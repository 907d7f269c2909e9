package dev.cajon.storage.expiry;

import static dev.cajon.storage.expiry.ExpiryFixture.DAY;
import static dev.cajon.storage.expiry.ExpiryFixture.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.Keyspace;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reapers sleep while nothing is due ({@link ExpiryWheel#planSleep}): never past a deadline
 * or a cascade, never taken for a backlog, and woken when an earlier deadline is filed.
 */
class ExpiryWheelSleepTest {
    private static final long START = T0 + 7;
    private static final long LONG = 1L << 40;

    @TempDir
    Path dir;
    ExpiryFixture f;
    Keyspace ks;

    private void open() {
        f = new ExpiryFixture(dir, START);
        ks = f.ks;
    }

    @AfterEach
    void close() {
        if (f != null) {
            f.close();
        }
    }

    @Test
    void anEmptyWheelSleepsTheLongestAndIsNeverBehind() {
        open();
        assertEquals(100, f.wheel.planSleep(5, 100, null));
        f.clock.set(START + 50);
        assertEquals(0, f.wheel.behindMillis(), "a sleep with nothing filed is no backlog: nobody assists");
        ExpiryFixture.setAt(ks, "k", "v", START + 60);
        assertEquals(0, f.wheel.behindMillis(), "not yet due");
        f.clock.set(START + 70);
        assertEquals(10, f.wheel.behindMillis(), "as if the wheel had stopped just before the deadline");
    }

    @Test
    void theSleepEndsWhenTheFirstRecordIsDue() {
        open();
        ExpiryFixture.setAt(ks, "k", "v", START + 30);
        ExpiryFixture.setAt(ks, "later", "v", START + 200);
        assertEquals(31, f.wheel.planSleep(5, 1000, null), "a key lives through its deadline millisecond");
        assertEquals(20, f.wheel.planSleep(5, 20, null), "capped by the longest sleep");
        f.clock.set(START + 30);
        assertEquals(0, f.wheel.advance());
        f.clock.set(START + 31);
        assertEquals(1, f.wheel.advance());
        assertEquals(170, f.wheel.planSleep(5, 1000, null));
        ExpiryFixture.setAt(ks, "soon", "v", START + 32);
        assertEquals(5, f.wheel.planSleep(5, 1000, null), "a record due within the tick: the tick");
    }

    /**
     * Followed plan by plan, the wheel wakes exactly when each key of every level is due (the
     * clock jumps to each planned wake), so every key is reclaimed with no lag at all.
     */
    @Test
    void followingThePlansReclaimsEveryKeyOfEveryLevelOnTime() {
        open();
        long[] ttls = {1, 2, 255, 256, 257, 1000, 16_384, 16_385, 65_539, 3_600_000, 4_194_304,
            172_800_000, 49 * DAY, 100 * DAY, 10 * 365 * DAY};
        List<long[]> left = new ArrayList<>();
        for (int i = 0; i < ttls.length; i++) {
            ExpiryFixture.setAt(ks, "k" + i, "v", START + ttls[i]);
            left.add(new long[] {i, START + ttls[i]});
        }
        int wakes = 0;
        while (!left.isEmpty()) {
            long sleep = f.wheel.planSleep(1, LONG, null);
            assertTrue(sleep >= 1);
            long now = f.clock.nowMillis() + sleep;
            for (long[] k : left) {
                assertTrue(k[1] + 1 >= now, "the plan slept past the deadline of k" + k[0]);
            }
            f.clock.set(now);
            f.wheel.advance();
            wakes++;
            left.removeIf(k -> k[1] < now);
            assertEquals(left.size(), ks.size(), "every key due is gone, no other");
        }
        assertEquals(0, f.wheel.maxLagMillis(), "each reclaimed the millisecond it was due");
        assertTrue(wakes < 200, "a few wakes per level, not one per tick: " + wakes);
    }

    @Test
    void filingAnEarlierDeadlineWakesTheSleepingPrimary() throws Exception {
        open();
        CountDownLatch planned = new CountDownLatch(1);
        CountDownLatch woke = new CountDownLatch(1);
        long[] sleep = new long[1];
        Thread primary = new Thread(() -> {
            sleep[0] = f.wheel.planSleep(5, 60_000, Thread.currentThread());
            planned.countDown();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(sleep[0]));
            woke.countDown();
        });
        primary.start();
        assertTrue(planned.await(10, TimeUnit.SECONDS));
        assertEquals(60_000, sleep[0], "nothing filed: the longest sleep");
        ExpiryFixture.setAt(ks, "k", "v", START + 20);
        assertTrue(woke.await(10, TimeUnit.SECONDS), "the deadline unparked the primary reaper");
        primary.join();
        assertEquals(21, f.wheel.planSleep(5, 60_000, null), "which then plans to the new deadline");
    }

    /** A real reaper on a manual clock: a key filed while it sleeps long is still reclaimed when due. */
    @Test
    void aSleepingReaperReclaimsAKeyFiledDuringItsSleep() {
        open();
        try (ExpiryReaper reaper = new ExpiryReaper(f.wheel, 1, 2).start()) {
            long giveUp = System.nanoTime() + 200_000_000L;
            while (System.nanoTime() < giveUp) {
                Thread.onSpinWait(); // let both reapers plan their sleep on the empty wheel
            }
            ExpiryFixture.setAt(ks, "k", "v", START + 10);
            f.clock.set(START + 11);
            giveUp = System.nanoTime() + 10_000_000_000L;
            while (ks.size() > 0 && System.nanoTime() < giveUp) {
                Thread.onSpinWait();
            }
            assertEquals(0, ks.size());
        }
    }
}
