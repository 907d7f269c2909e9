package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static dev.cajon.storage.TestData.str;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.ValueHeader;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Read-modify-write operations stay atomic when several event-loop threads hit the same keys,
 * and multi-key operations cannot deadlock. Each test races real threads released together by a
 * barrier.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KeyspaceConcurrencyTest {
    private static final int THREADS = 4;

    @TempDir
    Path dir;
    Store store;
    Keyspace ks;
    ExecutorService pool;

    @BeforeEach
    void open() {
        store = Store.open(dir, new ManualClock(T0));
        ks = store.keyspace(Store.DEFAULT_APP, 0);
        pool = Executors.newFixedThreadPool(THREADS);
    }

    @AfterEach
    void close() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        store.close();
    }

    /** Runs {@code body(threadIndex)} on every thread at once and returns the results in thread order. */
    private <T> List<T> race(ThreadBody<T> body) throws Exception {
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Future<T>> fs = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int id = t;
            Callable<T> c = () -> {
                start.await();
                return body.run(id);
            };
            fs.add(pool.submit(c));
        }
        List<T> out = new ArrayList<>();
        for (Future<T> f : fs) {
            out.add(f.get(50, TimeUnit.SECONDS));
        }
        return out;
    }

    @FunctionalInterface
    interface ThreadBody<T> {
        T run(int thread) throws Exception;
    }

    @Test
    void concurrentIncrementsAreNeverLost() throws Exception {
        int perThread = 5000;
        race(t -> {
            for (int i = 0; i < perThread; i++) {
                assertEquals(OpStatus.OK, ks.incrBy(b("n"), 1).status());
            }
            return null;
        });
        assertEquals(THREADS * perThread, Long.parseLong(str(ks.get(b("n")))));
    }

    @Test
    void concurrentIncrementsAndDecrementsCancelOut() throws Exception {
        ks.set(b("n"), b("1000"), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
        race(t -> {
            for (int i = 0; i < 5000; i++) {
                ks.incrBy(b("n"), t % 2 == 0 ? 3 : -3);
            }
            return null;
        });
        assertEquals("1000", str(ks.get(b("n"))));
    }

    @Test
    void concurrentFloatIncrementsAreNeverLost() throws Exception {
        race(t -> {
            for (int i = 0; i < 1000; i++) {
                ks.incrByFloat(b("f"), new java.math.BigDecimal("0.5"));
            }
            return null;
        });
        assertEquals(Integer.toString(THREADS * 500), str(ks.get(b("f"))));
    }

    /**
     * Every append is an 8-byte record (thread, sequence); afterwards every record is present
     * exactly once and each thread's records are in its own order. The value crosses
     * {@link Keyspace#BLOB_THRESHOLD} on the way, so both the in-map and the blob paths race.
     */
    @Test
    void concurrentAppendsKeepEveryByte() throws Exception {
        int perThread = 2000;
        List<Long> lengths = race(t -> {
            long last = 0;
            for (int i = 0; i < perThread; i++) {
                byte[] rec = ByteBuffer.allocate(8).putInt(t).putInt(i).array();
                LengthResult r = ks.append(b("log"), rec);
                assertEquals(OpStatus.OK, r.status());
                assertTrue(r.length() > last, "lengths only grow");
                assertEquals(0, r.length() % 8, "appends never interleave");
                last = r.length();
            }
            return last;
        });
        long total = (long) THREADS * perThread * 8;
        assertTrue(total > Keyspace.BLOB_THRESHOLD);
        assertTrue(lengths.contains(total), "one append saw the final length");

        StringValue v = ks.get(b("log"));
        assertTrue(v.isBlob());
        ByteBuffer all = ByteBuffer.wrap(v.toBytes());
        assertEquals(total, all.remaining());
        int[] next = new int[THREADS];
        while (all.hasRemaining()) {
            int t = all.getInt();
            int seq = all.getInt();
            assertEquals(next[t], seq, "thread " + t + "'s records in order, none lost or doubled");
            next[t]++;
        }
        for (int t = 0; t < THREADS; t++) {
            assertEquals(perThread, next[t]);
        }
    }

    @Test
    void exactlyOneSetNxWins() throws Exception {
        for (int round = 0; round < 200; round++) {
            byte[] key = b("lock" + round);
            List<OpStatus> results = race(t ->
                    ks.set(key, b("owner" + t), SetCondition.IF_ABSENT, ValueHeader.NO_EXPIRY, false).status());
            assertEquals(1, results.stream().filter(s -> s == OpStatus.OK).count(), "round " + round);
            int winner = results.indexOf(OpStatus.OK);
            assertEquals("owner" + winner, str(ks.get(key)));
        }
    }

    /** RENAME a->b and b->a at once: the stripes are taken in order, so this cannot deadlock. */
    @Test
    void crossingRenamesDoNotDeadlock() throws Exception {
        ks.set(b("a"), b("v"), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
        AtomicInteger moved = new AtomicInteger();
        race(t -> {
            for (int i = 0; i < 3000; i++) {
                OpStatus s = t % 2 == 0 ? ks.rename(b("a"), b("b"), false) : ks.rename(b("b"), b("a"), false);
                if (s == OpStatus.OK) {
                    moved.incrementAndGet();
                }
                ks.copy(b("a"), ks, b("c"), true);
                // exactly one of a and b exists at every instant, so this can never succeed
                assertFalse(ks.msetnx(new byte[][] {b("a"), b("x"), b("b"), b("y")}));
            }
            return null;
        });
        assertTrue(moved.get() > 0);
        boolean a = ks.exists(b("a"));
        boolean bb = ks.exists(b("b"));
        assertNotEquals(a, bb, "the value lives under exactly one of the two names");
        assertEquals("v", str(ks.get(b(a ? "a" : "b"))));
        long counted = java.util.stream.Stream.of("a", "b", "c").filter(k -> ks.exists(b(k))).count();
        assertEquals(counted, ks.size(), "size() matches the keys that exist");
    }

    /** Many writers of distinct keys push the keyspace through several generations at once. */
    @Test
    void concurrentWritersDuringGrowth() throws Exception {
        int perThread = 12_000;
        race(t -> {
            for (int i = 0; i < perThread; i++) {
                ks.set(b("t" + t + ":" + i), b("value-" + t + "-" + i), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
                if (i % 97 == 0) {
                    assertNotNull(ks.get(b("t" + t + ":" + (i / 2))), "an earlier key stays readable during growth");
                }
            }
            return null;
        });
        assertEquals((long) THREADS * perThread, ks.size());
        assertTrue(ks.generation() > 1, "grew past the first generation");
        for (int t = 0; t < THREADS; t++) {
            for (int i = 0; i < perThread; i++) {
                assertArrayEquals(b("value-" + t + "-" + i), ks.get(b("t" + t + ":" + i)).toBytes());
            }
        }
    }
}
