package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Commands that write several keys, SIGKILLed in the middle of a load: after the restart each is
 * applied whole or not at all.
 *
 * <p>MSET writers set the same ten keys to one generation number per command; after a restart the
 * ten keys hold one generation, at least the last acknowledged and at most the last sent. A RENAME
 * writer moves a blob-sized value back and forth between two names; after a restart exactly one
 * name holds it, intact, and the blob directory holds one file (a value under both names would
 * share one blob file, and deleting either would destroy the other).
 */
class MultiKeyCrashSystemTest {
    @RegisterExtension
    static final ServerProcesses servers = new ServerProcesses();

    static final int MSET_WRITERS = 2;
    static final int KEYS_PER_MSET = 10;
    static final int ROUNDS = 3;
    static final int MAX_OPS = 200_000;
    static final int KILL_AFTER_ACKED = 3_000;
    static final long LOAD_DEADLINE_MS = 20_000;
    static final int BLOB = 20 * 1024;

    static String key(int writer, int k) {
        return "m" + writer + ":" + k;
    }

    static String value(int generation) {
        return "generation-" + generation + "-" + "x".repeat(40);
    }

    static byte[] blob() {
        byte[] b = new byte[BLOB];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i * 7 + 3);
        }
        return b;
    }

    @Test
    void msetAndRenameAreWholeAfterSigkill(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("data");
        CajonProcess server = servers.start("multikey-0", dir);
        try (Jedis j = server.jedis()) {
            assertEquals("OK", j.set("ra".getBytes(), blob()));
        }
        for (int round = 0; round < ROUNDS; round++) {
            AtomicIntegerArray sent = new AtomicIntegerArray(MSET_WRITERS);
            AtomicIntegerArray acked = new AtomicIntegerArray(MSET_WRITERS);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicBoolean killed = new AtomicBoolean();
            List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
            ExecutorService pool = Executors.newFixedThreadPool(MSET_WRITERS + 1);
            List<Future<?>> writers = new ArrayList<>();
            CajonProcess s = server;
            int base = round * MAX_OPS;
            for (int w = 0; w < MSET_WRITERS; w++) {
                int id = w;
                writers.add(pool.submit(() -> {
                    try (Jedis j = s.jedis()) {
                        for (int i = 1; i <= MAX_OPS && !stop.get(); i++) {
                            String[] kv = new String[2 * KEYS_PER_MSET];
                            for (int k = 0; k < KEYS_PER_MSET; k++) {
                                kv[2 * k] = key(id, k);
                                kv[2 * k + 1] = value(base + i);
                            }
                            sent.set(id, base + i);
                            j.mset(kv);
                            acked.set(id, base + i);
                        }
                    } catch (RuntimeException e) {
                        if (!killed.get()) {
                            errors.add("mset writer " + id + ": " + e);
                        }
                    }
                }));
            }
            writers.add(pool.submit(() -> {
                try (Jedis j = s.jedis()) {
                    for (int i = 0; i < MAX_OPS && !stop.get(); i++) {
                        String from = j.exists("ra") ? "ra" : "rb";
                        j.rename(from, from.equals("ra") ? "rb" : "ra");
                    }
                } catch (RuntimeException e) {
                    if (!killed.get()) {
                        errors.add("rename writer: " + e);
                    }
                }
            }));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LOAD_DEADLINE_MS);
            while (acked.get(0) - base < KILL_AFTER_ACKED && System.nanoTime() < deadline && errors.isEmpty()) {
                Thread.sleep(10);
            }
            assertTrue(errors.isEmpty(), "errors before the kill: " + errors);
            killed.set(true);
            assertEquals(137, server.sigkill(), "SIGKILL exit code");
            stop.set(true);
            for (Future<?> f : writers) {
                f.get(30, TimeUnit.SECONDS);
            }
            pool.shutdownNow();

            server = servers.start("multikey-after-crash-" + round, dir);
            assertTrue(server.readyLine().contains("after recovery"), server.readyLine());
            try (Jedis j = server.jedis()) {
                for (int w = 0; w < MSET_WRITERS; w++) {
                    String[] keys = new String[KEYS_PER_MSET];
                    for (int k = 0; k < KEYS_PER_MSET; k++) {
                        keys[k] = key(w, k);
                    }
                    List<String> got = j.mget(keys);
                    String first = got.get(0);
                    assertNotNull(first, "writer " + w + ": key 0 lost");
                    for (String v : got) {
                        assertEquals(first, v, "writer " + w + ": an MSET was half applied: " + got);
                    }
                    int generation = Integer.parseInt(first.substring("generation-".length(), first.indexOf('-', 11)));
                    assertTrue(generation >= acked.get(w) && generation <= sent.get(w),
                            "writer " + w + ": generation " + generation + " outside [acknowledged " + acked.get(w)
                                    + ", sent " + sent.get(w) + "]");
                }
                boolean a = j.exists("ra");
                boolean b = j.exists("rb");
                assertTrue(a ^ b, "the renamed value is under exactly one name (ra " + a + ", rb " + b + ")");
                assertTrue(Arrays.equals(blob(), j.get((a ? "ra" : "rb").getBytes())), "the renamed value is intact");
            }
            try (Stream<Path> files = Files.walk(dir)) {
                long blobs = files.filter(p -> Files.isRegularFile(p) && p.getParent().getFileName().toString().equals("blobs"))
                        .count();
                assertEquals(1, blobs, "one blob file, owned by one name");
            }
        }
        server.stopCleanly();
    }
}
