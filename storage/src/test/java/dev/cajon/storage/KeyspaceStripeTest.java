package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.ValueHeader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A key's stripe lock follows its Chronicle segment in every generation of the map, so that in a
 * big map two threads that hold different stripes never meet on a segment lock (Chronicle's spin,
 * ours park).
 */
class KeyspaceStripeTest {
    @TempDir
    Path dir;
    Store store;
    Keyspace ks;

    @BeforeEach
    void open() {
        store = Store.open(dir, new ManualClock(T0));
        ks = store.keyspace(Store.DEFAULT_APP, 0);
    }

    @AfterEach
    void close() {
        store.close();
    }

    /**
     * A key's stripe and its segment agree on their low bits: in a map of at least STRIPES
     * segments each segment's keys have one stripe; in a smaller one a segment's keys have
     * stripes congruent to the segment, so a stripe's keys are all in one segment.
     */
    private void assertStripesFollowSegments(String when) {
        Map<Integer, Set<Integer>> bySegment = ks.stripesBySegment();
        int segs = ks.segments();
        int common = Math.min(segs, Keyspace.STRIPES) - 1;
        assertEquals(0, segs & (segs - 1), "Chronicle's segment count is a power of two: " + segs);
        bySegment.forEach((seg, stripes) -> {
            for (int stripe : stripes) {
                assertEquals(seg & common, stripe & common, when + ": segment " + seg + " of " + segs
                        + " holds a key of stripe " + stripe);
            }
            if (segs >= Keyspace.STRIPES) {
                assertEquals(1, stripes.size(), when + ": segment " + seg + " has keys of stripes " + stripes);
            }
        });
    }

    @Test
    void everySegmentsKeysShareOneStripeInEveryGeneration() {
        int gen = ks.generation();
        int n = 0;
        List<Integer> generations = new ArrayList<>();
        while (generations.size() < 4 && n < 1_200_000) {
            for (int i = 0; i < 20_000; i++, n++) {
                ks.set(b("key:" + n), b("v" + n), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
            }
            if (ks.generation() != gen || generations.isEmpty()) {
                gen = ks.generation();
                generations.add(gen);
                assertStripesFollowSegments("generation " + gen + " with " + n + " keys");
            }
        }
        assertTrue(generations.size() >= 4, "grew through several generations: " + generations);
        assertTrue(ks.segments() >= Keyspace.STRIPES, "the last one has a segment per stripe or more: " + ks.segments());
        ks.flush();
        for (int i = 0; i < 2_000; i++) {
            ks.set(b("after-flush:" + i), b("v"), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
        }
        assertStripesFollowSegments("after FLUSHDB, back in a small first generation");
    }

    /** Counters, MSET and growth together on the stripe locks: no increment is lost. */
    @Test
    void incrementsAreNeverLostAcrossGrowth() throws Exception {
        int threads = 4;
        int perThread = 40_000;
        int counters = 16;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                fs.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        ks.incrBy(b("counter:" + (i % counters)), 1);
                        ks.set(b("fill:" + id + ":" + i), b("x"), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
                        if (i % 1_000 == 0) {
                            ks.mset(new byte[][] {b("pair:a"), b("" + i), b("pair:b"), b("" + i)});
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        }
        assertTrue(ks.generation() > 2, "the fill keys grew the map more than once");
        long sum = 0;
        for (int c = 0; c < counters; c++) {
            sum += Long.parseLong(TestData.str(ks.get(b("counter:" + c))));
        }
        assertEquals((long) threads * perThread, sum, "no increment lost across growths");
        assertStripesFollowSegments("after concurrent growth");
    }
}
