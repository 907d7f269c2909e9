package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;

/**
 * A clean restart (SIGTERM, start again on the same directory) keeps every key, its value and its
 * TTL, in every db, and needs no recovery, also when clients are connected and writing at the
 * SIGTERM.
 */
class PersistenceSystemTest {
    @RegisterExtension
    static final ServerProcesses servers = new ServerProcesses();

    @Test
    @SuppressWarnings("deprecation") // SETEX is deprecated in Jedis, but it is a command of its own to cover
    void valuesAndTtlsSurviveACleanRestart(@TempDir Path tmp) {
        Path dir = tmp.resolve("data");
        byte[] blob = new byte[100_000];
        new Random(3).nextBytes(blob);
        byte[] blobKey = "blob".getBytes(StandardCharsets.UTF_8);

        CajonProcess first = servers.start("before-restart", dir);
        long expireAtBefore;
        try (Jedis j = first.jedis()) {
            assertEquals("OK", j.set("plain", "value"));
            assertEquals("OK", j.set("ttl", "expiring", SetParams.setParams().ex(1000)));
            assertEquals("OK", j.set("pttl", "expiring-ms", SetParams.setParams().px(1_000_000)));
            assertEquals("OK", j.setex("setex", 1000, "via-setex"));
            assertEquals("OK", j.set("persisted", "was-expiring", SetParams.setParams().ex(1000)));
            assertEquals(1L, j.persist("persisted"));
            assertEquals(42L, j.incrBy("counter", 42));
            assertEquals("OK", j.set(blobKey, blob));
            assertEquals(1L, j.expire(blobKey, 1000));
            // a key that expires while the server is down must not come back
            assertEquals("OK", j.set("short", "gone", SetParams.setParams().px(300)));
            assertEquals("OK", j.select(7));
            assertEquals("OK", j.set("in-db7", "seven", SetParams.setParams().ex(1000)));
            assertEquals("OK", j.select(0));
            expireAtBefore = j.expireTime("ttl");
            assertTrue(expireAtBefore > 0, "EXPIRETIME of a key with a TTL");
        }

        first.stopCleanly();

        CajonProcess second = servers.start("after-restart", dir);
        assertTrue(second.readyLine().contains("no recovery"), "a clean stop needs no recovery: " + second.readyLine());
        assertTrue(Files.exists(dir.resolve("cajon.running")), "the running server marks its data dir again");
        try (Jedis j = second.jedis()) {
            assertEquals("value", j.get("plain"));
            assertEquals(-1L, j.ttl("plain"));

            assertEquals("expiring", j.get("ttl"));
            assertTtlNear(j.ttl("ttl"), 1000);
            assertEquals(expireAtBefore, j.expireTime("ttl"), "the absolute expiry time is what is stored");

            assertEquals("expiring-ms", j.get("pttl"));
            long pttl = j.pttl("pttl");
            assertTrue(pttl > 900_000 && pttl <= 1_000_000, "PTTL after restart: " + pttl);

            assertEquals("via-setex", j.get("setex"));
            assertTtlNear(j.ttl("setex"), 1000);

            assertEquals("was-expiring", j.get("persisted"));
            assertEquals(-1L, j.ttl("persisted"), "PERSIST must survive the restart");

            assertEquals("42", j.get("counter"));
            assertEquals(43L, j.incr("counter"));

            assertArrayEquals(blob, j.get(blobKey));
            assertTtlNear(j.ttl(blobKey), 1000);

            assertNull(j.get("short"), "a key whose TTL ran out while down must be gone");
            assertEquals(-2L, j.ttl("short"));
            assertFalse(j.exists("short"));
            assertEquals(7L, j.dbSize(), "db0 keys after restart");

            assertEquals("OK", j.select(7));
            assertEquals("seven", j.get("in-db7"));
            assertTtlNear(j.ttl("in-db7"), 1000);
            assertEquals(1L, j.dbSize());
        }
    }

    /**
     * SIGTERM while clients are writing and another sits idle: the server still stops promptly
     * and cleanly (no recovery on the next start), and every acknowledged write is there.
     */
    @Test
    void sigtermUnderLoadStopsCleanlyAndKeepsAcknowledgedWrites(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("data");
        CajonProcess first = servers.start("sigterm-under-load", dir);
        final int writers = 4;
        final int maxOps = 200_000;
        AtomicIntegerArray acked = new AtomicIntegerArray(writers);
        AtomicBoolean stopping = new AtomicBoolean();
        Queue<String> errors = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        AssertionError stopFailure = null;
        try (Jedis idle = first.jedis()) {
            assertEquals("PONG", idle.ping());
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < writers; t++) {
                int id = t;
                futures.add(pool.submit(() -> {
                    try (Jedis j = first.jedis()) {
                        for (int i = 0; i < maxOps; i++) {
                            if (!"OK".equals(j.set("w" + id + ":" + i, "x" + i))) {
                                errors.add("SET w" + id + ":" + i + " not OK");
                                return;
                            }
                            acked.set(id, i + 1);
                        }
                    } catch (JedisDataException e) {
                        // a reply, not a dropped connection: never acceptable, stopping or not
                        errors.add("writer " + id + (stopping.get() ? " (during SIGTERM)" : "") + ": " + e.getMessage());
                    } catch (RuntimeException e) {
                        if (!stopping.get()) {
                            errors.add("writer " + id + ": " + e);
                        }
                    }
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (sum(acked) < 5_000 && System.nanoTime() < deadline && errors.isEmpty()) {
                Thread.sleep(10);
            }
            assertTrue(errors.isEmpty(), "writes failed before SIGTERM: " + errors);
            stopping.set(true);
            long t0 = System.nanoTime();
            try {
                first.stopCleanly();
            } catch (AssertionError e) {
                stopFailure = e; // reported after the client's view and the data
            }
            long stopMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(stopMs < 15_000, "stopping with connected clients took " + stopMs + " ms");
            for (Future<?> f : futures) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }

        CajonProcess second = servers.start("after-sigterm-under-load", dir);
        try (Jedis j = second.jedis()) {
            for (int t = 0; t < writers; t++) {
                int n = acked.get(t);
                for (int start = 0; start < n; start += 500) {
                    int end = Math.min(n, start + 500);
                    String[] keys = new String[end - start];
                    for (int i = start; i < end; i++) {
                        keys[i - start] = "w" + t + ":" + i;
                    }
                    List<String> got = j.mget(keys);
                    for (int i = start; i < end; i++) {
                        assertEquals("x" + i, got.get(i - start), "acknowledged w" + t + ":" + i + " after SIGTERM");
                    }
                }
            }
        }
        assertTrue(errors.isEmpty(), "while stopping, a command must either run or see its connection closed, "
                + "never fail with an error reply: " + errors);
        if (stopFailure != null) {
            throw stopFailure;
        }
        assertTrue(second.readyLine().contains("no recovery"), "SIGTERM under load must still stop cleanly: " + second.readyLine());
    }

    private static int sum(AtomicIntegerArray a) {
        int s = 0;
        for (int i = 0; i < a.length(); i++) {
            s += a.get(i);
        }
        return s;
    }

    /** A TTL of {@code set} seconds, a few seconds ago (restarts take a few seconds on a busy machine). */
    private static void assertTtlNear(long ttl, long set) {
        assertTrue(ttl > set - 60 && ttl <= set, "TTL " + ttl + " should be just under " + set);
    }
}
