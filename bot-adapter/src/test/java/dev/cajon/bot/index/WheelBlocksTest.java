package dev.cajon.bot.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.bot.kv.CountingKv;
import dev.cajon.bot.kv.EmbeddedKv;
import dev.cajon.bot.kv.Kv;
import dev.cajon.bot.kv.Op;
import dev.cajon.bot.store.Keys;
import dev.cajon.bot.store.Optimistic;
import dev.cajon.storage.ManualClock;
import dev.cajon.storage.Store;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The wheel's blocks of indexes: a busy producer takes its indexes several at a time (one INCRBY
 * for many schedules), a quiet one one at a time, and the hand-over to the sweeper loses nothing:
 * an index taken and never written is tombstoned by the seal, and one written after the seal is
 * refused and goes to a later bucket, which the next sweep hands over.
 */
class WheelBlocksTest {
    private static final long WIDTH = 500;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_767_225_600_000L);
    private final Keys keys = new Keys("t");

    private Wheel wheel(Kv kv) {
        Wheel w = new Wheel(kv, keys, WIDTH, clock::nowMillis, 3_600_000L, 60_000L);
        w.start();
        return w;
    }

    private static List<String> sweepAll(Wheel w) {
        List<String> due = new ArrayList<>();
        w.sweep(10_000, due::add);
        return due;
    }

    @Test
    void aBusyBucketTakesItsIndexesInBlocksAndTheSweeperGetsEveryEntryOnce() {
        try (Store store = Store.open(dir, clock)) {
            CountingKv kv = new CountingKv(new EmbeddedKv(store, "bot", 0));
            Wheel w = wheel(kv);
            long due = clock.nowMillis() + 60_000;
            // a first bucket, as a busy bot fills it (the next bucket's first block is sized from it)
            for (int i = 0; i < 40; i++) {
                w.schedule(due, "warm" + i);
            }
            kv.reset();
            for (int i = 0; i < 300; i++) {
                w.schedule(due + WIDTH, "r" + i);
            }
            long trips = kv.roundTrips();
            // each schedule's SET NX is one; the INCRBYs on top are one per block, not per schedule
            // blocks of 5 (an eighth of the bucket before), 5, 10, 20, 40, then 64 each: 9 INCRBYs
            assertTrue(trips >= 300 && trips <= 300 + 9, "round trips for 300 schedules in one bucket: " + trips);
            long n = Long.parseLong(kv.get(keys.bucketCount(Math.floorDiv(due + WIDTH + WIDTH - 1, WIDTH))));
            assertTrue(n >= 300 && n < 300 + Wheel.MAX_BLOCK, "indexes taken in the bucket: " + n);

            clock.advance(61_000 + WIDTH);
            List<String> handed = sweepAll(w);
            Set<String> unique = new HashSet<>(handed);
            assertEquals(handed.size(), unique.size(), "no entry handed over twice");
            assertEquals(340, unique.size(), "every entry handed over");
            for (int i = 0; i < 300; i++) {
                assertTrue(unique.contains("r" + i), "r" + i);
            }
        }
    }

    @Test
    void aQuietProducerTakesOneIndexAtATimeAndLeavesNoHoles() {
        try (Store store = Store.open(dir, clock)) {
            CountingKv kv = new CountingKv(new EmbeddedKv(store, "bot", 0));
            Wheel w = wheel(kv);
            for (int i = 0; i < 5; i++) {
                long due = clock.nowMillis() + 60_000;
                kv.reset();
                w.schedule(due, "q" + i);
                assertEquals(2, kv.roundTrips(), "one slot in its bucket: INCR, then SET NX");
                long bucket = Math.floorDiv(due + WIDTH - 1, WIDTH);
                assertEquals("1", kv.get(keys.bucketCount(bucket)), "a block of one: no hole for the sweeper");
                w.schedule(due, "reply" + i); // a message and its reply: a second block of one
                assertEquals("2", kv.get(keys.bucketCount(bucket)), "two slots, two indexes: no hole");
                clock.advance(3 * WIDTH);
            }
        }
    }

    @Test
    void anIndexOfABlockWrittenAfterTheSealGoesToALaterBucket() {
        try (Store store = Store.open(dir, clock)) {
            Kv kv = new EmbeddedKv(store, "bot", 0);
            Wheel w = wheel(kv);
            long due = clock.nowMillis() + 2 * WIDTH;
            for (int i = 0; i < 40; i++) {
                w.schedule(due, "a" + i); // blocks of 1, 1, 2, 4, 8, 16, 32: leftovers remain
            }
            Wheel.Slot late = w.slot(due, "late");
            assertFalse(late.needsIncr(), "an index from the block");
            // the bucket's time comes and a sweeper seals it before the late entry is written
            clock.advance(2 * WIDTH);
            List<String> first = sweepAll(w);
            assertEquals(40, first.size());
            Optimistic.Before b = w.entry(late, null);
            List<Object> r = kv.pipeline(b.ops());
            assertFalse(b.ok().test(r), "the index was tombstoned by the seal");
            b.fix().run(); // scheduled again, in a later bucket
            clock.advance(2 * WIDTH);
            assertEquals(List.of("late"), sweepAll(w));
        }
    }

    @Test
    void aBlockIsNotUsedOnceItsBucketsTimeHasCome() {
        try (Store store = Store.open(dir, clock)) {
            Kv kv = new EmbeddedKv(store, "bot", 0);
            Wheel w = wheel(kv);
            long due = clock.nowMillis() + 2 * WIDTH;
            for (int i = 0; i < 10; i++) {
                w.schedule(due, "a" + i);
            }
            clock.advance(2 * WIDTH); // the bucket is due: a slot now goes to a later bucket, by INCR
            Wheel.Slot s = w.slot(due, "b");
            assertTrue(s.needsIncr());
            assertTrue(s.bucket() > Math.floorDiv(due + WIDTH - 1, WIDTH));
            Op incr = w.incr(s);
            assertEquals(1, ((Op.Incr) incr).by(), "a new bucket's first block, with no busy bucket before it");
        }
    }
}
