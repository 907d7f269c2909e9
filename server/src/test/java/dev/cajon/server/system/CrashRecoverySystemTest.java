package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * The promise of the storage layer, checked end to end: a write the server acknowledged is on
 * disk, even if the process is SIGKILLed the next instant.
 *
 * <p>Several clients write as fast as they can: {@code SET k<round>.<t>:<i>} (small values, some
 * of a couple of KB, and now and then one above the blob threshold so the blob files are in play)
 * and {@code INCR counter}, each recording what it sent and what was acknowledged. The process is
 * SIGKILLed in the middle of that load. The first round runs past the first map generation
 * (16 Ki entries), so the kill comes after a growth under load; the second round loads the
 * recovered store and kills it again. After each restart the server must say it recovered, and
 * must hold every acknowledged SET of every round with its exact value, nothing that was never
 * sent, and a counter between the acknowledged and the sent INCRs (a write in flight at the kill
 * may or may not have landed). Finally a clean stop after recovery must really be clean.
 */
class CrashRecoverySystemTest {
    @RegisterExtension
    static final ServerProcesses servers = new ServerProcesses();

    static final int THREADS = 4;
    static final int ROUNDS = 2;
    /** A bound on each writer; the kill comes long before. */
    static final int MAX_OPS_PER_THREAD = 250_000;
    /** Acknowledged SETs per round before the kill; past 16 Ki, the first map generation. */
    static final int KILL_AFTER_ACKED_SETS = 20_000;
    static final long LOAD_DEADLINE_MS = 30_000;
    static final String COUNTER = "counter";

    static String key(int round, int t, int i) {
        return "k" + round + "." + t + ":" + i;
    }

    /** Mostly small values; every 101st is 2 KB and every 997th 20 KB (a blob file). */
    static String value(int round, int t, int i) {
        String base = "v" + round + "." + t + ":" + i;
        int pad = i % 997 == 0 ? 20 * 1024 : i % 101 == 0 ? 2 * 1024 : 0;
        if (pad == 0) {
            return base;
        }
        StringBuilder sb = new StringBuilder(base.length() + pad).append(base).append('|');
        for (int n = 0; sb.length() < base.length() + pad; n++) {
            sb.append((char) ('a' + (i + n) % 26));
        }
        return sb.toString();
    }

    /** What one round of load sent and what the server acknowledged. */
    static final class Round {
        final int round;
        final AtomicIntegerArray sentSets = new AtomicIntegerArray(THREADS);
        final AtomicIntegerArray ackedSets = new AtomicIntegerArray(THREADS);
        final AtomicLong sentIncrs = new AtomicLong();
        final AtomicLong ackedIncrs = new AtomicLong();

        Round(int round) {
            this.round = round;
        }

        int acked() {
            return sum(ackedSets);
        }

        int sent() {
            return sum(sentSets);
        }
    }

    @Test
    void everyAcknowledgedWriteSurvivesSigkill(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("data");
        List<Round> rounds = new ArrayList<>();
        CajonProcess server = servers.start("crash-round-0", dir);
        assertTrue(server.readyLine().contains("no recovery"), server.readyLine());

        for (int r = 0; r < ROUNDS; r++) {
            Round round = new Round(r);
            rounds.add(round);
            loadThenSigkill(server, round);
            assertTrue(Files.exists(dir.resolve("cajon.running")), "a killed server leaves its marker behind");

            server = servers.start("after-crash-" + r, dir);
            assertTrue(server.readyLine().contains("after recovery"),
                    "the ready line must say the start followed recovery: " + server.readyLine());
            assertTrue(server.output().contains("was not closed cleanly"), "recovery must be logged:\n" + server.output());
            try (Jedis j = server.jedis()) {
                checkEverything(j, rounds, 0);
            }
        }

        try (Jedis j = server.jedis()) {
            assertEquals("OK", j.set("after-recovery", "yes"), "the recovered store takes writes");
        }
        server.stopCleanly();
        CajonProcess last = servers.start("after-clean-stop", dir);
        assertTrue(last.readyLine().contains("no recovery"), "recovery must not repeat after a clean stop: " + last.readyLine());
        try (Jedis j = last.jedis()) {
            assertEquals("yes", j.get("after-recovery"));
            checkEverything(j, rounds, 1);
        }
    }

    // ---------------------------------------------------------------- the blob path

    static final int APPEND_CHUNK = 256 * 1024;
    static final int INITIAL_BIG = 1 << 20;
    static final int MAX_APPENDS = 200;
    static final int KILL_AFTER_APPENDS = 24;
    static final int BLOB_SLOTS = 40;
    static final int MAX_REPLACEMENTS = 20_000;
    static final int KILL_AFTER_REPLACEMENTS = 60;

    /** The byte at offset {@code o} of the appended-to value: a period (251) that chunks do not align with. */
    static byte[] pattern(long from, int len) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            b[i] = (byte) ((from + i) % 251);
        }
        return b;
    }

    /** Replacement number {@code i}: 20 to ~120 KB, all above the blob threshold, content tied to i. */
    static byte[] blobValue(int i) {
        int len = 20 * 1024 + (int) ((i * 7919L) % (100 * 1024));
        byte[] b = new byte[len];
        for (int n = 0; n < len; n++) {
            b[n] = (byte) (i * 31 + n);
        }
        return b;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * SIGKILL while one client APPENDs 256 KB chunks to a value that lives in a blob file and
     * another replaces and deletes blob-sized values in a few keys. After recovery: the appended
     * value has every acknowledged chunk and intact bytes; each key holds its last acknowledged
     * value (or, for the key whose write was in flight, possibly that one); and no blob file is
     * left that no key points at.
     */
    @Test
    void blobWritesSurviveSigkill(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("data");
        CajonProcess server = servers.start("blob-crash", dir);
        byte[] big = bytes("big");
        try (Jedis j = server.jedis()) {
            assertEquals("OK", j.set(big, pattern(0, INITIAL_BIG)));
        }

        AtomicLong ackedLength = new AtomicLong(INITIAL_BIG);
        AtomicLong appendsAcked = new AtomicLong();
        // slot -> replacement number of the last acknowledged write; -1 after a DEL, -2 never written
        AtomicIntegerArray slotAcked = new AtomicIntegerArray(BLOB_SLOTS);
        for (int s = 0; s < BLOB_SLOTS; s++) {
            slotAcked.set(s, -2);
        }
        AtomicInteger inFlightSlot = new AtomicInteger(-1);
        AtomicInteger inFlightOp = new AtomicInteger();
        AtomicLong replacementsAcked = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean killed = new AtomicBoolean();
        Queue<String> errors = new ConcurrentLinkedQueue<>();

        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> appender = pool.submit(() -> {
                try (Jedis j = server.jedis()) {
                    for (int n = 0; n < MAX_APPENDS && !stop.get(); n++) {
                        long len = ackedLength.get();
                        long got = j.append(big, pattern(len, APPEND_CHUNK));
                        if (got != len + APPEND_CHUNK) {
                            errors.add("APPEND replied length " + got + ", expected " + (len + APPEND_CHUNK));
                            return;
                        }
                        ackedLength.set(got);
                        appendsAcked.incrementAndGet();
                        // pace the appender so that it is still appending when the replacer,
                        // slower on a loaded machine, reaches its own kill threshold
                        Thread.sleep(5);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    if (!killed.get()) {
                        errors.add("appender: " + e);
                    }
                }
            });
            Future<?> replacer = pool.submit(() -> {
                try (Jedis j = server.jedis()) {
                    for (int i = 0; i < MAX_REPLACEMENTS && !stop.get(); i++) {
                        int slot = (i * 7) % BLOB_SLOTS;
                        boolean del = i % 5 == 4;
                        inFlightOp.set(del ? -1 : i);
                        inFlightSlot.set(slot);
                        if (del) {
                            j.del(bytes("b:" + slot));
                        } else {
                            String reply = j.set(bytes("b:" + slot), blobValue(i));
                            if (!"OK".equals(reply)) {
                                errors.add("SET b:" + slot + " replied " + reply);
                                return;
                            }
                        }
                        slotAcked.set(slot, del ? -1 : i);
                        inFlightSlot.set(-1);
                        replacementsAcked.incrementAndGet();
                    }
                } catch (RuntimeException e) {
                    if (!killed.get()) {
                        errors.add("replacer: " + e);
                    }
                }
            });

            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LOAD_DEADLINE_MS);
            while ((appendsAcked.get() < KILL_AFTER_APPENDS || replacementsAcked.get() < KILL_AFTER_REPLACEMENTS)
                    && System.nanoTime() < deadline && errors.isEmpty()) {
                Thread.sleep(10);
            }
            assertTrue(errors.isEmpty(), "writes failed before the kill: " + errors);
            assertFalse(appender.isDone() || replacer.isDone(), "both writers must still be writing at the kill");
            killed.set(true);
            assertEquals(137, server.sigkill());
            stop.set(true);
            appender.get(30, TimeUnit.SECONDS);
            replacer.get(30, TimeUnit.SECONDS);
        } finally {
            stop.set(true);
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }
        assertTrue(errors.isEmpty(), "writes failed before the kill: " + errors);
        System.out.printf("blob round: SIGKILL after %d appends (%d bytes) and %d replacements%n",
                appendsAcked.get(), ackedLength.get(), replacementsAcked.get());

        CajonProcess after = servers.start("after-blob-crash", dir);
        assertTrue(after.readyLine().contains("after recovery"), after.readyLine());
        try (Jedis j = after.jedis()) {
            long len = j.strlen(big);
            long acked = ackedLength.get();
            assertTrue(len == acked || len == acked + APPEND_CHUNK,
                    "STRLEN " + len + " after SIGKILL: acknowledged " + acked + " (+" + APPEND_CHUNK + " if in flight)");
            byte[] value = j.get(big);
            assertEquals(len, value.length);
            for (int o = 0; o < value.length; o++) {
                if (value[o] != (byte) (o % 251)) {
                    fail("appended value corrupt at offset " + o + " of " + value.length);
                }
            }

            int blobKeys = 1; // big
            for (int slot = 0; slot < BLOB_SLOTS; slot++) {
                byte[] got = j.get(bytes("b:" + slot));
                int expected = slotAcked.get(slot);
                boolean ok = matches(got, expected);
                if (!ok && slot == inFlightSlot.get()) {
                    ok = matches(got, inFlightOp.get());
                }
                assertTrue(ok, "b:" + slot + " after SIGKILL: expected replacement " + expected
                        + (slot == inFlightSlot.get() ? " or in-flight " + inFlightOp.get() : "")
                        + ", got " + (got == null ? "(nil)" : got.length + " bytes"));
                if (got != null) {
                    blobKeys++;
                }
            }

            // recovery sweeps orphans: one blob file per key whose value lives in a blob
            Path blobs = dir.resolve("default/db0/blobs");
            try (Stream<Path> files = Files.list(blobs)) {
                List<Path> all = files.toList();
                assertEquals(blobKeys, all.size(), "blob files after recovery (one per blob-valued key): " + all);
            }
        }
    }

    private static boolean matches(byte[] got, int op) {
        if (op < 0) {
            return got == null;
        }
        return got != null && Arrays.equals(got, blobValue(op));
    }

    /** Runs the writers against {@code server} and SIGKILLs it while they are all still writing. */
    private static void loadThenSigkill(CajonProcess server, Round round) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean killed = new AtomicBoolean();
        Queue<String> errorsBeforeKill = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> writers = new ArrayList<>();
        long t0 = System.nanoTime();
        try {
            for (int t = 0; t < THREADS; t++) {
                int id = t;
                writers.add(pool.submit(() -> {
                    try (Jedis j = server.jedis()) {
                        for (int i = 0; i < MAX_OPS_PER_THREAD && !stop.get(); i++) {
                            round.sentSets.set(id, i + 1);
                            String reply = j.set(key(round.round, id, i), value(round.round, id, i));
                            if (!"OK".equals(reply)) {
                                errorsBeforeKill.add("SET " + key(round.round, id, i) + " replied " + reply);
                                return;
                            }
                            round.ackedSets.set(id, i + 1);
                            round.sentIncrs.incrementAndGet();
                            j.incr(COUNTER);
                            round.ackedIncrs.incrementAndGet();
                        }
                    } catch (RuntimeException e) {
                        if (!killed.get()) {
                            errorsBeforeKill.add("writer " + id + ": " + e);
                        }
                    }
                }));
            }

            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LOAD_DEADLINE_MS);
            while (round.acked() < KILL_AFTER_ACKED_SETS && System.nanoTime() < deadline && errorsBeforeKill.isEmpty()) {
                Thread.sleep(20);
            }
            assertTrue(errorsBeforeKill.isEmpty(), "writes failed before the kill: " + errorsBeforeKill);
            for (Future<?> w : writers) {
                assertFalse(w.isDone(), "every writer must still be writing at the kill");
            }

            killed.set(true);
            int rc = server.sigkill();
            stop.set(true);
            System.out.printf("round %d: SIGKILL after %d ms, %d acknowledged SETs, %d acknowledged INCRs (exit %d)%n",
                    round.round, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), round.acked(),
                    round.ackedIncrs.get(), rc);
            assertEquals(137, rc, "SIGKILL exit code (128 + 9)");
            for (Future<?> w : writers) {
                w.get(30, TimeUnit.SECONDS);
            }
        } finally {
            stop.set(true);
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }
        assertTrue(errorsBeforeKill.isEmpty(), "writes failed before the kill: " + errorsBeforeKill);
        assertTrue(round.acked() > 0, "the load acknowledged nothing before the kill");
    }

    /**
     * Every acknowledged write of every round, nothing never sent, the counter within bounds.
     * {@code otherKeys} counts the keys written outside the load.
     */
    private static void checkEverything(Jedis j, List<Round> rounds, int otherKeys) {
        long ackedIncrs = 0;
        long sentIncrs = 0;
        long minKeys = 1 + otherKeys; // the counter
        long maxKeys = 1 + otherKeys;
        for (Round round : rounds) {
            for (int t = 0; t < THREADS; t++) {
                int acked = round.ackedSets.get(t);
                int sent = round.sentSets.get(t);
                checkRange(j, round.round, t, acked);
                // the SET in flight at the kill (if any) either landed whole or not at all
                for (int i = acked; i < sent; i++) {
                    String v = j.get(key(round.round, t, i));
                    assertTrue(v == null || v.equals(value(round.round, t, i)),
                            "in-flight " + key(round.round, t, i) + " holds a wrong value: " + abbreviate(v));
                }
                assertNull(j.get(key(round.round, t, sent)), "a key never sent exists: " + key(round.round, t, sent));
            }
            ackedIncrs += round.ackedIncrs.get();
            sentIncrs += round.sentIncrs.get();
            minKeys += round.acked();
            maxKeys += round.sent();
        }
        long counter = Long.parseLong(j.get(COUNTER));
        assertTrue(counter >= ackedIncrs && counter <= sentIncrs,
                "counter " + counter + " must be within [acknowledged " + ackedIncrs + ", sent " + sentIncrs + "]");
        long dbsize = j.dbSize();
        assertTrue(dbsize >= minKeys && dbsize <= maxKeys,
                "dbsize " + dbsize + " must be within [" + minKeys + ", " + maxKeys + "]");
    }

    /** GETs keys {@code k<round>.<t>:<0..to>} in MGET batches and compares each with its value. */
    private static void checkRange(Jedis j, int round, int t, int to) {
        final int batch = 500;
        for (int start = 0; start < to; start += batch) {
            int end = Math.min(to, start + batch);
            String[] keys = new String[end - start];
            for (int i = start; i < end; i++) {
                keys[i - start] = key(round, t, i);
            }
            List<String> got = j.mget(keys);
            for (int i = start; i < end; i++) {
                String v = got.get(i - start);
                if (!value(round, t, i).equals(v)) {
                    fail("acknowledged " + key(round, t, i) + " lost or wrong after SIGKILL: expected "
                            + abbreviate(value(round, t, i)) + ", got " + abbreviate(v));
                }
            }
        }
    }

    private static int sum(AtomicIntegerArray a) {
        int s = 0;
        for (int i = 0; i < a.length(); i++) {
            s += a.get(i);
        }
        return s;
    }

    static String abbreviate(String s) {
        return s == null ? "(nil)" : s.length() <= 60 ? '"' + s + '"' : '"' + s.substring(0, 60) + "...\" (" + s.length() + " chars)";
    }
}
