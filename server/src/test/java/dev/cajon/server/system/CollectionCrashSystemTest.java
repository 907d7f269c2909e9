package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

/**
 * Many clients writing to the same collections, SIGKILLed in the middle: every acknowledged write
 * is there after the restart, in order, and nothing that was never sent.
 *
 * <p>This is the end-to-end check of held views ({@code HeldViews}): commands of several
 * connections on one key run on one open view that is applied at the end of the event loop's
 * turn, and no reply may leave before that. The first round runs the server with one event loop,
 * so every connection shares the loop and its views; the second with the default, one per core,
 * where the loops also wait for each other's held keys. Each writer thread pushes {@code t:i} to
 * one shared list and sets field {@code t:i} of one shared hash, in that order, one command per
 * round trip, recording what it sent and what was acknowledged. The list grows to tens of
 * thousands of elements (many pages), and across a kill and a restart.
 */
class CollectionCrashSystemTest {
    @RegisterExtension
    static final ServerProcesses servers = new ServerProcesses();

    static final int WRITERS = 8;
    static final int MAX_OPS = 200_000;
    /** Acknowledged pushes of all writers, per round, before the kill. */
    static final int KILL_AFTER_ACKED = 15_000;
    static final long LOAD_DEADLINE_MS = 30_000;
    static final String LIST = "queue";
    static final String HASH = "objects";

    @Test
    void everyAcknowledgedPushAndHsetSurvivesSigkill(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("data");
        String[][] args = {{"--io-threads", "1"}, {}};
        // per writer: the highest i pushed / set and acknowledged over every round so far
        int[] ackedPush = new int[WRITERS];
        int[] sentPush = new int[WRITERS];
        int[] ackedSet = new int[WRITERS];
        int[] sentSet = new int[WRITERS];
        // per writer: the i whose HSET may be missing: in flight at a kill, or never sent after its
        // push (the writer's next round starts after it)
        List<java.util.Set<Integer>> maybeUnset = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            maybeUnset.add(new java.util.HashSet<>());
        }
        for (int round = 0; round < args.length; round++) {
            CajonProcess server = servers.start("collections-" + round, dir, args[round]);
            if (round > 0) {
                assertTrue(server.readyLine().contains("after recovery"), server.readyLine());
                check(server, ackedPush, sentPush, ackedSet, sentSet, maybeUnset);
            }
            AtomicIntegerArray pushSent = new AtomicIntegerArray(WRITERS);
            AtomicIntegerArray pushAcked = new AtomicIntegerArray(WRITERS);
            AtomicIntegerArray setSent = new AtomicIntegerArray(WRITERS);
            AtomicIntegerArray setAcked = new AtomicIntegerArray(WRITERS);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicBoolean killed = new AtomicBoolean();
            List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
            ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int id = w;
                int from = sentPush[w]; // a push sent but not acknowledged before a kill may have landed
                writers.add(pool.submit(() -> {
                    try (Jedis j = server.jedis()) {
                        for (int i = from + 1; i <= from + MAX_OPS && !stop.get(); i++) {
                            pushSent.set(id, i);
                            j.rpush(LIST, id + ":" + i);
                            pushAcked.set(id, i);
                            setSent.set(id, i);
                            j.hset(HASH, id + ":" + i, Integer.toString(i));
                            setAcked.set(id, i);
                        }
                    } catch (RuntimeException e) {
                        if (!killed.get()) {
                            errors.add("writer " + id + ": " + e);
                        }
                    }
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LOAD_DEADLINE_MS);
            while (ackedSince(pushAcked, sentPush) < KILL_AFTER_ACKED && System.nanoTime() < deadline && errors.isEmpty()) {
                Thread.sleep(10);
            }
            assertTrue(errors.isEmpty(), "errors before the kill: " + errors);
            assertTrue(ackedSince(pushAcked, sentPush) >= KILL_AFTER_ACKED, "the load reached the kill point in time");
            killed.set(true);
            assertEquals(137, server.sigkill(), "SIGKILL exit code");
            stop.set(true);
            for (Future<?> f : writers) {
                f.get(30, TimeUnit.SECONDS);
            }
            pool.shutdownNow();
            for (int w = 0; w < WRITERS; w++) {
                if (pushSent.get(w) > setSent.get(w)) {
                    maybeUnset.get(w).add(pushSent.get(w)); // pushed, its HSET never sent
                } else if (setSent.get(w) > setAcked.get(w)) {
                    maybeUnset.get(w).add(setSent.get(w)); // its HSET in flight at the kill
                }
                // a writer that had nothing acknowledged this round keeps the bound of the last one
                ackedPush[w] = Math.max(ackedPush[w], pushAcked.get(w));
                sentPush[w] = Math.max(sentPush[w], pushSent.get(w));
                ackedSet[w] = Math.max(ackedSet[w], setAcked.get(w));
                sentSet[w] = Math.max(sentSet[w], setSent.get(w));
            }
        }
        CajonProcess server = servers.start("collections-after", dir);
        assertTrue(server.readyLine().contains("after recovery"), server.readyLine());
        check(server, ackedPush, sentPush, ackedSet, sentSet, maybeUnset);
        server.stopCleanly();
    }

    private static int ackedSince(AtomicIntegerArray acked, int[] before) {
        int n = 0;
        for (int w = 0; w < WRITERS; w++) {
            n += Math.max(0, acked.get(w) - before[w]);
        }
        return n;
    }

    /**
     * The list holds each writer's pushes in the order it sent them, without a gap or a repeat, up
     * to at least its last acknowledged one and at most its last sent one, except that a push in
     * flight at a kill may be missing (then the writer's next round starts after it); the hash
     * holds a field for every HSET up to the last acknowledged one but those in flight at a kill.
     */
    private static void check(CajonProcess server, int[] ackedPush, int[] sentPush, int[] ackedSet, int[] sentSet,
            List<java.util.Set<Integer>> maybeUnset) {
        try (Jedis j = server.jedis()) {
            List<String> list = j.lrange(LIST, 0, -1);
            int[] last = new int[WRITERS];
            int[] count = new int[WRITERS];
            for (String e : list) {
                int colon = e.indexOf(':');
                int w = Integer.parseInt(e.substring(0, colon));
                int i = Integer.parseInt(e.substring(colon + 1));
                assertTrue(i > last[w], "writer " + w + ": " + i + " after " + last[w] + " (order or a repeat)");
                assertTrue(i <= sentPush[w], "writer " + w + ": " + i + " was never sent (last sent " + sentPush[w] + ")");
                last[w] = i;
                count[w]++;
            }
            Map<String, String> hash = j.hgetAll(HASH);
            for (int w = 0; w < WRITERS; w++) {
                assertTrue(last[w] >= ackedPush[w],
                        "writer " + w + ": acknowledged push " + ackedPush[w] + " lost (list ends at " + last[w] + ")");
                // at most one push per kill (in flight, unacknowledged) can be missing before it
                assertTrue(count[w] >= last[w] - 2, "writer " + w + ": " + (last[w] - count[w]) + " pushes missing");
                for (int i = 1; i <= ackedSet[w]; i++) {
                    if (maybeUnset.get(w).contains(i)) {
                        continue;
                    }
                    String f = w + ":" + i;
                    int at = i;
                    int wr = w;
                    assertEquals(Integer.toString(i), hash.get(f), () -> "writer " + wr + ": acknowledged HSET " + f
                            + " (acknowledged up to " + ackedSet[wr] + ", sent " + sentSet[wr] + ", maybe unset "
                            + maybeUnset.get(wr) + ", previous field " + hash.containsKey(wr + ":" + (at - 1)) + ", next "
                            + hash.containsKey(wr + ":" + (at + 1)) + ", pushes " + ackedPush[wr] + "/" + sentPush[wr] + ")");
                }
            }
            long beyond = hash.keySet().stream().filter(f -> {
                int colon = f.indexOf(':');
                return Integer.parseInt(f.substring(colon + 1)) > sentSet[Integer.parseInt(f.substring(0, colon))];
            }).count();
            assertEquals(0, beyond, "hash fields that were never sent");
            assertEquals(list.size(), j.llen(LIST), "LLEN agrees with LRANGE");
        }
    }
}
