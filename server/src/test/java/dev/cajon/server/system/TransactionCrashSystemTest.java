package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.compat.RedisServerExtension;
import dev.cajon.server.compat.RedisServerExtension.RedisProcess;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.PipeliningBase;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;

/**
 * MULTI/EXEC survives SIGKILL whole: after a restart every transaction is applied entirely or
 * not at all, and every acknowledged one is there.
 *
 * <p>Each writer owns a group of keys and writes one generation number G per transaction
 * (G = 1, 2, ... over the whole test): ten keys {@code t<w>:k0..k9} (six by one MSET, two SETs of
 * 20 KiB values, so blob files are written, a key deleted and re-created every third
 * transaction, and a SET ... GET that must return generation G-1), INCR of its counter (which
 * must return G), INCR of a counter all writers share, APPEND of a 200-byte chunk to a log that
 * each hundredth transaction deletes first (so it grows past the 16 KiB blob threshold and
 * starts over), and a 20 KiB value SET under one name and RENAMEd to the other.
 *
 * <p>The server is SIGKILLed after a random number of acknowledged transactions, while the
 * writers still send; it is restarted on the same directory and checked: every writer's ten
 * keys hold one generation G, byte for byte, with the last acknowledged &lt;= G &lt;= the last
 * sent; the counter is G, the log is exactly the chunks of G's cycle, the renamed value is under
 * the one name G implies and is G's; the shared counter is the sum of every writer's G; DBSIZE
 * counts exactly the keys the writers own; and the blob directories hold one file per value
 * above the threshold. Then the writers go on from G + 1, for three rounds, and a last clean
 * restart is checked the same way.
 *
 * <p>The writers' own replies are checked too (a transaction that returns the wrong thing fails
 * the test before any crash). {@link AgainstRedis} runs the writers and the check, without a
 * crash, against a real redis-server, which must pass them.
 */
class TransactionCrashSystemTest {
    @RegisterExtension
    static final ServerProcesses servers = new ServerProcesses();

    static final int WRITERS = 4;
    static final int KEYS = 10;
    static final int MSET_KEYS = 6;
    static final int ROUNDS = 3;
    static final int BLOB = 20 * 1024;
    static final int BLOB_THRESHOLD = 16 * 1024;
    static final int CHUNK = 200;
    static final int LOG_CYCLE = 100;
    /** The kill comes after this many acknowledged transactions per writer in the round, plus up to as many again. */
    static final int KILL_AFTER_ACKED = 150;
    static final int MIN_ACKED_PER_ROUND = 20;
    static final int MAX_TX_PER_ROUND = 100_000;
    static final long LOAD_DEADLINE_MS = 10_000;
    static final String TOTAL = "t:total";
    /** Keys per writer: k0..k9, the counter, the log, the renamed value. */
    static final int KEYS_PER_WRITER = KEYS + 3;

    // ================================================================== keys and values

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String key(int w, int k) {
        return "t" + w + ":k" + k;
    }

    static String counter(int w) {
        return "t" + w + ":ctr";
    }

    static String log(int w) {
        return "t" + w + ":log";
    }

    /** The renamed value lives under r0 or r1: under r(G % 2) after generation G. */
    static String renamed(int w, long parity) {
        return "t" + w + ":r" + parity;
    }

    static final int RENAMED_SLOT = 99;

    static boolean isBlob(int k) {
        return k == 6 || k == 7;
    }

    /** The value of key k (or the renamed value, k = 99) at generation G: a header naming it, then filler. */
    static byte[] value(int w, int k, long g) {
        String head = "w" + w + "/k" + k + "/gen=" + g + "/";
        if (!isBlob(k) && k != RENAMED_SLOT) {
            return b(head + "x".repeat(30));
        }
        byte[] v = new byte[BLOB + (int) (g % 97)];
        byte[] h = b(head);
        System.arraycopy(h, 0, v, 0, h.length);
        long x = (w * 1_000_003L + k) * 0x9E3779B97F4A7C15L + g;
        for (int i = h.length; i < v.length; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            v[i] = (byte) x;
        }
        return v;
    }

    /** The generation a value names in its header: 0 if it is absent (no generation yet), -1 if it names none. */
    static long generationOf(byte[] v) {
        if (v == null) {
            return 0;
        }
        String head = new String(v, 0, Math.min(v.length, 64), StandardCharsets.ISO_8859_1);
        int at = head.indexOf("/gen=");
        int end = at < 0 ? -1 : head.indexOf('/', at + 5);
        return end < 0 ? -1 : Long.parseLong(head.substring(at + 5, end));
    }

    static byte[] chunk(int w, long g) {
        String head = String.format("[w%d g%08d]", w, g);
        return b(head + "-".repeat(CHUNK - head.length()));
    }

    /** The first generation of G's log cycle: the log is deleted at 1, 101, 201, ... */
    static long cycleStart(long g) {
        return (g - 1) / LOG_CYCLE * LOG_CYCLE + 1;
    }

    static byte[] expectedLog(int w, long g) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (long i = cycleStart(g); i <= g; i++) {
            out.writeBytes(chunk(w, i));
        }
        return out.toByteArray();
    }

    static boolean logIsBlob(long g) {
        return (g - cycleStart(g) + 1) * CHUNK > BLOB_THRESHOLD;
    }

    // ================================================================== the transaction

    /** What the writer checks in the replies of its transaction. */
    record Expected(Response<String> mset, List<Response<String>> sets, Response<Long> del, Response<byte[]> previousK9,
                    Response<Long> counter, Response<Long> total, Response<Long> logDel, Response<Long> logLength,
                    Response<String> renameSet, Response<String> rename) {
    }

    /** Queues generation {@code g} of writer {@code w} on {@code t} (a transaction, or a pipeline for the self-check). */
    static Expected queue(PipeliningBase t, int w, long g) {
        byte[][] kv = new byte[2 * MSET_KEYS][];
        for (int k = 0; k < MSET_KEYS; k++) {
            kv[2 * k] = b(key(w, k));
            kv[2 * k + 1] = value(w, k, g);
        }
        Response<String> mset = t.mset(kv);
        List<Response<String>> sets = new ArrayList<>();
        sets.add(t.set(b(key(w, 6)), value(w, 6, g)));
        sets.add(t.set(b(key(w, 7)), value(w, 7, g)));
        Response<Long> del = g % 3 == 0 ? t.del(b(key(w, 8))) : null;
        sets.add(t.set(b(key(w, 8)), value(w, 8, g)));
        Response<byte[]> previousK9 = t.setGet(b(key(w, 9)), value(w, 9, g));
        Response<Long> ctr = t.incr(counter(w));
        Response<Long> total = t.incr(TOTAL);
        Response<Long> logDel = g == cycleStart(g) ? t.del(b(log(w))) : null;
        Response<Long> logLength = t.append(b(log(w)), chunk(w, g));
        byte[] from = b(renamed(w, (g - 1) % 2));
        Response<String> renameSet = t.set(from, value(w, RENAMED_SLOT, g));
        Response<String> rename = t.rename(from, b(renamed(w, g % 2)));
        return new Expected(mset, sets, del, previousK9, ctr, total, logDel, logLength, renameSet, rename);
    }

    /** Checks the replies of generation {@code g}; returns the shared counter's value. */
    static long checkReplies(int w, long g, Expected e, long lastTotal) {
        String at = "writer " + w + " generation " + g + ": ";
        assertEquals("OK", e.mset.get(), at + "MSET");
        for (Response<String> s : e.sets) {
            assertEquals("OK", s.get(), at + "SET");
        }
        if (e.del != null) {
            assertEquals(1L, e.del.get(), at + "DEL of the key written by the generation before");
        }
        byte[] prev = e.previousK9.get();
        if (g == 1) {
            assertEquals(null, prev, at + "SET ... GET of a new key");
        } else {
            assertArrayEquals(value(w, 9, g - 1), prev, at + "SET ... GET returns the previous generation's value");
        }
        assertEquals(g, e.counter.get(), at + "INCR of the writer's counter");
        long total = e.total.get();
        assertTrue(total > lastTotal, at + "INCR of the shared counter went from " + lastTotal + " to " + total);
        if (e.logDel != null) {
            assertEquals(g == 1 ? 0L : 1L, e.logDel.get(), at + "DEL of the log");
        }
        assertEquals((g - cycleStart(g) + 1) * CHUNK, e.logLength.get(), at + "APPEND to the log");
        assertEquals("OK", e.renameSet.get(), at + "SET before the RENAME");
        assertEquals("OK", e.rename.get(), at + "RENAME");
        return total;
    }

    // ================================================================== the load

    /** Writers, each on its own connection, from generation {@code from[w] + 1} on. */
    static final class Load {
        final AtomicLongArray sent = new AtomicLongArray(WRITERS);
        final AtomicLongArray acked = new AtomicLongArray(WRITERS);
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicBoolean killed = new AtomicBoolean();
        final List<String> errors = Collections.synchronizedList(new ArrayList<>());
        final long[] from;
        private final ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
        private final List<Future<?>> writers = new ArrayList<>();

        Load(int port, long[] from, int maxTx) {
            this(port, from, maxTx, true);
        }

        /** With {@code multi == false} each generation's commands are pipelined without MULTI: not atomic. */
        Load(int port, long[] from, int maxTx, boolean multi) {
            this.from = from.clone();
            for (int w = 0; w < WRITERS; w++) {
                sent.set(w, from[w]);
                acked.set(w, from[w]);
                int id = w;
                writers.add(pool.submit(() -> {
                    try (Jedis j = connect(port)) {
                        long lastTotal = 0;
                        for (long g = from[id] + 1; g <= from[id] + maxTx && !stop.get(); g++) {
                            if (multi) {
                                Transaction t = j.multi();
                                Expected e = queue(t, id, g);
                                sent.set(id, g);
                                List<Object> r = t.exec();
                                if (r == null) {
                                    throw new AssertionError("EXEC returned a null array without WATCH");
                                }
                                lastTotal = checkReplies(id, g, e, lastTotal);
                                acked.set(id, g);
                                continue;
                            }
                            Pipeline p = j.pipelined();
                            Expected e = queue(p, id, g);
                            sent.set(id, g);
                            p.sync();
                            lastTotal = checkReplies(id, g, e, lastTotal);
                            acked.set(id, g);
                        }
                    } catch (Exception | AssertionError e) {
                        if (!killed.get()) {
                            errors.add("writer " + id + ": " + e);
                            stop.set(true);
                        }
                    }
                }));
            }
        }

        long ackedInRound(int w) {
            return acked.get(w) - from[w];
        }

        /** Waits until each writer has {@code n} acknowledged transactions, an error, or the deadline. */
        void awaitAcked(long n, long deadlineMs) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(deadlineMs);
            while (System.nanoTime() < deadline && errors.isEmpty() && !allDone()) {
                boolean all = true;
                for (int w = 0; w < WRITERS; w++) {
                    all &= ackedInRound(w) >= n;
                }
                if (all) {
                    return;
                }
                Thread.sleep(5);
            }
        }

        private boolean allDone() {
            return writers.stream().allMatch(Future::isDone);
        }

        void join() throws Exception {
            for (Future<?> f : writers) {
                f.get(60, TimeUnit.SECONDS);
            }
            pool.shutdownNow();
        }

        String describe() {
            return "sent " + sent + ", acknowledged " + acked + " (this round from " + Arrays.toString(from) + ")";
        }
    }

    static Jedis connect(int port) {
        return new Jedis(CajonProcess.LOOPBACK, port, DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(5_000).socketTimeoutMillis(30_000)
                .autoNegotiateProtocol(false).build());
    }

    // ================================================================== the check

    /**
     * Checks the keyspace on {@code port} against what the writers sent and had acknowledged;
     * returns each writer's generation.
     */
    static long[] checkWhole(int port, AtomicLongArray acked, AtomicLongArray sent, String when) {
        long[] gen = new long[WRITERS];
        try (Jedis j = connect(port)) {
            long sum = 0;
            for (int w = 0; w < WRITERS; w++) {
                String at = when + ", writer " + w + ": ";
                byte[][] keys = new byte[KEYS][];
                for (int k = 0; k < KEYS; k++) {
                    keys[k] = b(key(w, k));
                }
                List<byte[]> got = j.mget(keys);
                long[] gens = got.stream().mapToLong(TransactionCrashSystemTest::generationOf).toArray();
                long g = gens[0];
                for (long x : gens) {
                    assertEquals(g, x, at + "a transaction was half applied: generations of k0..k9 " + Arrays.toString(gens));
                }
                assertTrue(g >= acked.get(w) && g <= sent.get(w),
                        at + "generation " + g + " outside [last acknowledged " + acked.get(w) + ", last sent " + sent.get(w) + "]");
                if (g == 0) {
                    gen[w] = 0; // nothing was ever applied (none acknowledged): the rest must be absent too
                    assertEquals(0L, j.exists(counter(w), log(w), renamed(w, 0), renamed(w, 1)), at + "keys of no generation");
                    continue;
                }
                for (int k = 0; k < KEYS; k++) {
                    assertArrayEquals(value(w, k, g), got.get(k), at + "k" + k + " at generation " + g + " is not byte for byte its value");
                }
                assertEquals(Long.toString(g), j.get(counter(w)), at + "the counter at generation " + g);
                assertArrayEquals(expectedLog(w, g), j.get(b(log(w))), at + "the log at generation " + g
                        + " (length " + j.strlen(log(w)) + ", expected " + expectedLog(w, g).length + ")");
                boolean here = j.exists(renamed(w, g % 2));
                boolean there = j.exists(renamed(w, (g + 1) % 2));
                assertTrue(here && !there, at + "the renamed value must be under " + renamed(w, g % 2) + " only, found under "
                        + (here ? renamed(w, g % 2) + " " : "") + (there ? renamed(w, (g + 1) % 2) : ""));
                assertArrayEquals(value(w, RENAMED_SLOT, g), j.get(b(renamed(w, g % 2))), at + "the renamed value");
                gen[w] = g;
                sum += g;
            }
            String total = j.get(TOTAL);
            assertEquals(sum, total == null ? 0 : Long.parseLong(total),
                    when + ": the shared counter is not the sum of the writers' generations " + Arrays.toString(gen));
            long writersWithData = Arrays.stream(gen).filter(g -> g > 0).count();
            assertEquals(writersWithData * KEYS_PER_WRITER + (sum > 0 ? 1 : 0), j.dbSize(),
                    when + ": DBSIZE (keys: " + j.keys("*") + ")");
        }
        return gen;
    }

    /** Values above the blob threshold at generations {@code gen}: k6, k7, the renamed value, the log once long. */
    static long expectedBlobs(long[] gen) {
        long n = 0;
        for (long g : gen) {
            if (g > 0) {
                n += 3 + (logIsBlob(g) ? 1 : 0);
            }
        }
        return n;
    }

    static long blobFiles(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> Files.isRegularFile(p) && p.getParent().getFileName().toString().equals("blobs")).count();
        }
    }

    // ================================================================== the tests

    /** Two event loops whatever the machine, so that writers' EXECs run in parallel. */
    static CajonProcess start(String name, Path dir) {
        return TransactionIsolationSystemTest.startWithLoops(servers, name, dir, 2);
    }

    @Test
    void transactionsAreWholeAfterSigkill(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("data");
        long seed = System.nanoTime();
        Random random = new Random(seed);
        System.out.println("[tx-crash] seed " + seed);
        CajonProcess server = start("tx-crash-0", dir);
        long[] gen = new long[WRITERS];
        for (int round = 0; round < ROUNDS; round++) {
            long killAfter = KILL_AFTER_ACKED + random.nextInt(KILL_AFTER_ACKED);
            Load load = new Load(server.port(), gen, MAX_TX_PER_ROUND);
            load.awaitAcked(killAfter, LOAD_DEADLINE_MS);
            assertTrue(load.errors.isEmpty(), "round " + round + ": errors before the kill: " + load.errors + "; " + load.describe());
            load.killed.set(true);
            assertEquals(137, server.sigkill(), "SIGKILL exit code");
            load.stop.set(true);
            load.join();
            String what = "round " + round + " (kill after " + killAfter + " per writer; " + load.describe() + ")";
            System.out.println("[tx-crash] " + what);
            for (int w = 0; w < WRITERS; w++) {
                assertTrue(load.ackedInRound(w) >= MIN_ACKED_PER_ROUND,
                        what + ": writer " + w + " had too few transactions acknowledged before the kill to prove anything");
            }

            server = start("tx-crash-after-kill-" + round, dir);
            assertTrue(server.readyLine().contains("after recovery"), server.readyLine());
            gen = checkWhole(server.port(), load.acked, load.sent, "after the SIGKILL of " + what);
            assertEquals(expectedBlobs(gen), blobFiles(dir), "blob files after the SIGKILL of " + what
                    + ": one per value above 16 KiB, at generations " + Arrays.toString(gen));
            System.out.println("[tx-crash] recovered generations " + Arrays.toString(gen));
        }
        server.stopCleanly();
        server = start("tx-crash-clean", dir);
        AtomicLongArray exact = new AtomicLongArray(gen);
        assertArrayEquals(gen, checkWhole(server.port(), exact, exact, "after a clean restart"));
        assertEquals(expectedBlobs(gen), blobFiles(dir), "blob files after a clean restart");
        server.stopCleanly();
    }

    /**
     * The check can fail: the same writes pipelined without MULTI are caught half applied after a
     * SIGKILL. Opt-in ({@code -Dcajon.tx.crashSelfCheckRounds=N}, each round on a new directory);
     * prints how many rounds caught it. Runs on any Cajon, with or without MULTI. It also checks
     * the harness on Cajon where no write is in flight: after the writers stopped, and after a
     * SIGKILL of the idle server, the check must pass.
     */
    @Test
    @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "cajon.tx.crashSelfCheckRounds", matches = "[1-9][0-9]*")
    void checkCatchesWritesWithoutMultiAfterSigkill(@TempDir Path tmp) throws Exception {
        int rounds = Integer.getInteger("cajon.tx.crashSelfCheckRounds");
        Path idleDir = tmp.resolve("idle");
        CajonProcess idle = start("tx-selfcheck-idle", idleDir);
        Load stopped = new Load(idle.port(), new long[WRITERS], 300, false);
        stopped.join();
        assertTrue(stopped.errors.isEmpty(), "errors: " + stopped.errors);
        long[] g0 = checkWhole(idle.port(), stopped.acked, stopped.sent, "cajon, writers stopped");
        assertEquals(expectedBlobs(g0), blobFiles(idleDir), "blob files, writers stopped");
        assertEquals(137, idle.sigkill());
        idle = start("tx-selfcheck-idle-after-kill", idleDir);
        checkWhole(idle.port(), stopped.acked, stopped.sent, "cajon, SIGKILL when idle");
        assertEquals(expectedBlobs(g0), blobFiles(idleDir), "blob files, SIGKILL when idle");
        idle.stopCleanly();

        int caught = 0;
        List<String> how = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            Path dir = tmp.resolve("r" + round);
            CajonProcess server = start("tx-selfcheck-" + round, dir);
            Load load = new Load(server.port(), new long[WRITERS], MAX_TX_PER_ROUND, false);
            load.awaitAcked(KILL_AFTER_ACKED + round * 37 % KILL_AFTER_ACKED, LOAD_DEADLINE_MS);
            assertTrue(load.errors.isEmpty(), "errors before the kill: " + load.errors);
            load.killed.set(true);
            assertEquals(137, server.sigkill());
            load.stop.set(true);
            load.join();
            server = start("tx-selfcheck-after-kill-" + round, dir);
            try {
                long[] gen = checkWhole(server.port(), load.acked, load.sent, "self-check round " + round);
                assertEquals(expectedBlobs(gen), blobFiles(dir), "blob files");
                how.add("round " + round + ": not caught (" + load.describe() + ")");
            } catch (AssertionError e) {
                caught++;
                how.add("round " + round + ": caught: " + e.getMessage().lines().findFirst().orElse(""));
            }
            server.close();
        }
        how.forEach(l -> System.out.println("[tx-crash-selfcheck] " + l));
        String line = "writes pipelined without MULTI, SIGKILLed: caught half applied in " + caught + "/" + rounds + " rounds";
        System.out.println("[tx-crash-selfcheck] " + line);
        Files.write(CajonProcess.serverTarget().resolve("tx-crash-selfcheck.txt"), how,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        Files.write(CajonProcess.serverTarget().resolve("tx-crash-selfcheck.txt"), List.of(line),
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    }

    /** The writers and the check, without a crash, against a real redis-server: checks the harness. */
    @Nested
    @ExtendWith(RedisServerExtension.class)
    class AgainstRedis {
        @Test
        void writersAndCheckHoldOnRedis(RedisProcess redis) throws Exception {
            try (Jedis j = connect(redis.port())) {
                j.flushAll();
            }
            long[] gen = new long[WRITERS];
            // two rounds of 150 transactions (the second starts where the first ended), then the check
            for (int round = 0; round < 2; round++) {
                Load load = new Load(redis.port(), gen, 150);
                load.join();
                assertTrue(load.errors.isEmpty(), "errors: " + load.errors);
                gen = checkWhole(redis.port(), load.acked, load.sent, "redis round " + round);
                for (int w = 0; w < WRITERS; w++) {
                    assertEquals(150L * (round + 1), gen[w]);
                }
            }
            // and the check catches a half-applied transaction and a lost acknowledged one
            try (Jedis j = connect(redis.port())) {
                AtomicLongArray at = new AtomicLongArray(gen);
                byte[] old = j.get(b(key(0, 7)));
                j.set(b(key(0, 7)), value(0, 7, gen[0] - 1));
                AssertionError half = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class,
                        () -> checkWhole(redis.port(), at, at, "a planted half transaction"));
                assertTrue(half.getMessage().contains("half applied"), half.getMessage());
                j.set(b(key(0, 7)), old);
                AtomicLongArray later = new AtomicLongArray(new long[] {gen[0] + 1, gen[1]});
                AssertionError lost = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class,
                        () -> checkWhole(redis.port(), later, later, "an acknowledged generation lost"));
                assertTrue(lost.getMessage().contains("outside"), lost.getMessage());
                j.incr(TOTAL);
                AssertionError total = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class,
                        () -> checkWhole(redis.port(), at, at, "a shared counter ahead"));
                assertTrue(total.getMessage().contains("shared counter"), total.getMessage());
            }
        }
    }
}
