package dev.cajon.server.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.ServerContext;
import dev.cajon.server.command.CommandSpec;
import dev.cajon.server.command.CommandTable;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The per-thread latency histograms: bucket bounds, and the sum over threads a scrape reads. */
class CommandLatencyTest {
    @Test
    void everyDurationFallsInTheBucketWhoseBoundsHoldIt() {
        assertEquals(0, CommandLatency.bucket(0));
        assertEquals(0, CommandLatency.bucket(1023));
        assertEquals(1, CommandLatency.bucket(1024));
        assertEquals(1, CommandLatency.bucket(1535));
        assertEquals(2, CommandLatency.bucket(1536));
        assertEquals(2, CommandLatency.bucket(2047));
        assertEquals(3, CommandLatency.bucket(2048));
        assertEquals(CommandLatency.BUCKETS - 1, CommandLatency.bucket(Long.MAX_VALUE));
        double[] ub = CommandLatency.UPPER_BOUNDS;
        assertEquals(Double.POSITIVE_INFINITY, ub[ub.length - 1]);
        for (int i = 1; i < ub.length; i++) {
            assertTrue(ub[i] > ub[i - 1], "bounds ascend");
            if (i < ub.length - 1) {
                assertTrue(ub[i] / ub[i - 1] <= 1.5 + 1e-9, "no bucket wider than 1.5x: " + i);
            }
        }
        Random rnd = new Random(7);
        for (int k = 0; k < 100_000; k++) {
            long d = rnd.nextLong() >>> rnd.nextInt(64);
            int b = CommandLatency.bucket(d);
            double seconds = d / 1e9;
            assertTrue(seconds <= ub[b], d + " ns above the bound of bucket " + b);
            if (b > 0) {
                assertTrue(seconds >= ub[b - 1], d + " ns belongs below bucket " + b);
            }
        }
    }

    @Test
    void aScrapeAddsUpEveryThreadsHistogram() throws Exception {
        CommandTable table = ServerContext.standardTable();
        CommandSpec get = table.get("get");
        CommandLatency latency = new CommandLatency(table);
        int threads = 4;
        int each = 10_000;
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            new Thread(() -> {
                CommandLatency.Recorder r = latency.recorder();
                for (int i = 0; i < each; i++) {
                    r.record(get.index(), 1_000 + i % 4_000); // 1 us to 5 us
                }
                r.record(table.get("set").index(), 3_000_000_000L);
                done.countDown();
            }).start();
        }
        done.await();
        HistogramSnapshot s = (HistogramSnapshot) latency.collect();
        assertEquals(2, s.getDataPoints().size(), "only the commands that ran");
        HistogramSnapshot.HistogramDataPointSnapshot g = s.getDataPoints().stream()
                .filter(p -> p.getLabels().get("command").equals("get")).findFirst().orElseThrow();
        assertEquals((long) threads * each, g.getCount());
        long expectedSum = 0;
        for (int i = 0; i < each; i++) {
            expectedSum += 1_000 + i % 4_000;
        }
        assertEquals(threads * expectedSum / 1e9, g.getSum(), 1e-9);
        ClassicHistogramBuckets b = g.getClassicBuckets();
        long below5us = 0;
        for (int i = 0; i < b.size(); i++) {
            if (b.getUpperBound(i) <= 6.144e-6) {
                below5us += b.getCount(i);
            }
        }
        assertEquals((long) threads * each, below5us, "every GET in the buckets up to 6.1 us");
        HistogramSnapshot.HistogramDataPointSnapshot set = s.getDataPoints().stream()
                .filter(p -> p.getLabels().get("command").equals("set")).findFirst().orElseThrow();
        assertEquals(threads, set.getCount());
        assertEquals(threads * 3.0, set.getSum(), 1e-9);
    }

    @Test
    void cheapFrequentCommandsAreTimedOneTimeInEightTheOthersEachTime() {
        CommandTable table = ServerContext.standardTable();
        for (String name : new String[] {"get", "set", "incr", "mget", "exists", "expire", "ttl", "ping"}) {
            assertTrue(CommandLatency.sampled(table.get(name)), name + " is sampled");
        }
        for (String name : new String[] {"del", "mset", "keys", "scan", "flushdb", "exec", "info"}) {
            assertTrue(!CommandLatency.sampled(table.get(name)), name + " is timed each time");
        }
        CommandLatency latency = new CommandLatency(table);
        CommandLatency.Recorder r = latency.recorder();
        int get = table.get("get").index();
        int del = table.get("del").index();
        int runs = 80_000;
        int timedGets = 0;
        for (int i = 0; i < runs; i++) {
            if (r.timed(get)) {
                timedGets++;
            }
            assertTrue(r.timed(del));
        }
        // runs / 8 = 10,000, sigma 94: 5 sigma either side
        assertTrue(timedGets > 9_530 && timedGets < 10_470, "timed " + timedGets + " of " + runs);
    }
}
