package dev.cajon.server.family;

import static dev.cajon.server.testkit.RespAssertions.assertReply;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.testkit.Client;
import dev.cajon.server.testkit.FamilyTestBase;
import dev.cajon.server.testkit.Reply;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Atomicity through the whole dispatch path: several connections, each on its own thread (as
 * event loops are), race on the same keys. Counters lose no increment, MSETNX never half-applies,
 * SETNX has exactly one winner.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConcurrencyFamilyTest extends FamilyTestBase {
    private static final int THREADS = 4;
    private ExecutorService pool;
    private List<Client> clients;

    @BeforeEach
    void startPool() {
        pool = Executors.newFixedThreadPool(THREADS);
        clients = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            clients.add(server.client());
        }
    }

    @AfterEach
    void stopPool() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
    }

    @FunctionalInterface
    interface Body<T> {
        T run(int thread, Client c) throws Exception;
    }

    /** Runs {@code body} on every thread at once, each with its own client; results in thread order. */
    private <T> List<T> race(Body<T> body) throws Exception {
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Future<T>> fs = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int id = t;
            Client c = clients.get(t);
            Callable<T> task = () -> {
                start.await();
                return body.run(id, c);
            };
            fs.add(pool.submit(task));
        }
        List<T> out = new ArrayList<>();
        for (Future<T> f : fs) {
            out.add(f.get(50, TimeUnit.SECONDS));
        }
        return out;
    }

    @Test
    void concurrentIncrsLoseNothing() throws Exception {
        int m = 5_000;
        List<Long> last = race((t, c) -> {
            long max = 0;
            for (int i = 0; i < m; i++) {
                Reply r = i % 2 == 0 ? c.run("incr", "n") : c.run("incrby", "n", "1");
                max = Math.max(max, r.asInt());
            }
            return max;
        });
        assertReply(run("get", "n"), String.valueOf((long) THREADS * m));
        assertEquals((long) THREADS * m, last.stream().mapToLong(Long::longValue).max().getAsLong());
    }

    @Test
    void concurrentIncrsAndDecrsCancelOut() throws Exception {
        int m = 3_000;
        race((t, c) -> {
            for (int i = 0; i < m; i++) {
                c.run(t % 2 == 0 ? "incrby" : "decrby", "n", "7");
            }
            return null;
        });
        assertReply(run("get", "n"), "0");
    }

    @Test
    void concurrentMsetnxNeverHalfApplies() throws Exception {
        // each round, every thread tries MSETNX on an overlapping subset of {a, b, c}; the winners'
        // subsets must be disjoint, fully written with their own value, and cover every key set
        String[][] subsets = {{"a", "b"}, {"b", "c"}, {"c", "a"}, {"a", "b", "c"}};
        int rounds = 300;
        List<List<Boolean>> wins = race((t, c) -> {
            List<Boolean> w = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                List<Object> cmd = new ArrayList<>();
                cmd.add("msetnx");
                for (String k : subsets[t]) {
                    cmd.add(r + ":" + k);
                    cmd.add("t" + t);
                }
                w.add(c.run(cmd.toArray()).asInt() == 1);
            }
            return w;
        });
        for (int r = 0; r < rounds; r++) {
            Map<String, String> values = new HashMap<>();
            for (String k : new String[] {"a", "b", "c"}) {
                values.put(k, run("get", r + ":" + k).asString());
            }
            int winners = 0;
            for (int t = 0; t < THREADS; t++) {
                if (wins.get(t).get(r)) {
                    winners++;
                    for (String k : subsets[t]) {
                        assertEquals("t" + t, values.get(k), "round " + r + ": winner t" + t + " owns " + k);
                    }
                }
            }
            assertTrue(winners >= 1, "round " + r + ": someone wins");
            for (Map.Entry<String, String> e : values.entrySet()) {
                if (e.getValue() != null) {
                    int t = Integer.parseInt(e.getValue().substring(1));
                    assertTrue(wins.get(t).get(r), "round " + r + ": " + e.getKey() + " written by a loser t" + t);
                }
            }
        }
    }

    @Test
    void concurrentIncrbyfloatSumsCorrectly() throws Exception {
        int m = 2_000;
        race((t, c) -> {
            for (int i = 0; i < m; i++) {
                c.run("incrbyfloat", "f", "0.5");
            }
            return null;
        });
        BigDecimal got = new BigDecimal(run("get", "f").asString());
        assertEquals(0, got.compareTo(BigDecimal.valueOf(THREADS * m / 2)), got.toPlainString());
    }

    @Test
    void concurrentSetnxHasOneWinner() throws Exception {
        int rounds = 500;
        List<Integer> won = race((t, c) -> {
            int w = 0;
            for (int r = 0; r < rounds; r++) {
                w += (int) c.run("setnx", "lock:" + r, "t" + t).asInt();
            }
            return w;
        });
        assertEquals(rounds, won.stream().mapToInt(Integer::intValue).sum());
        assertReply(run("dbsize"), rounds);
    }

    @Test
    void concurrentAppendsKeepEveryChunk() throws Exception {
        int m = 1_000;
        race((t, c) -> {
            for (int i = 0; i < m; i++) {
                c.run("append", "log", String.valueOf((char) ('a' + t)).repeat(10));
            }
            return null;
        });
        String log = run("get", "log").asString();
        assertEquals(THREADS * m * 10, log.length());
        for (int t = 0; t < THREADS; t++) {
            char ch = (char) ('a' + t);
            assertEquals(m * 10L, log.chars().filter(x -> x == ch).count());
        }
        // appends are atomic: the log is a sequence of whole 10-character chunks
        for (int i = 0; i < log.length(); i += 10) {
            assertEquals(String.valueOf(log.charAt(i)).repeat(10), log.substring(i, i + 10), "chunk at " + i);
        }
    }

    @Test
    void concurrentRenamesNeverLoseOrDuplicateTheKey() throws Exception {
        run("set", "k0", "payload");
        int m = 2_000;
        race((t, c) -> {
            for (int i = 0; i < m; i++) {
                int from = (t + i) % 4;
                c.run("rename", "k" + from, "k" + ((from + 1) % 4));
            }
            return null;
        });
        assertReply(run("dbsize"), 1);
        assertReply(run("exists", "k0", "k1", "k2", "k3"), 1);
    }

    @Test
    void concurrentWritesAcrossKeyspaceGrowthLoseNothing() throws Exception {
        // 40k keys overflow the first generation (16k entries) while four clients write and
        // increment a shared counter: growth must not lose a key or an increment
        int perThread = 10_000;
        int generationBefore = server.store().keyspace("default", 0).generation();
        race((t, c) -> {
            for (int i = 0; i < perThread; i++) {
                c.run("set", "k:" + t + ":" + i, i);
                c.run("incr", "shared");
            }
            return null;
        });
        assertTrue(server.store().keyspace("default", 0).generation() > generationBefore, "the keyspace grew");
        assertReply(run("dbsize"), THREADS * perThread + 1);
        assertReply(run("get", "shared"), String.valueOf(THREADS * perThread));
        for (int t = 0; t < THREADS; t++) {
            for (int i = 0; i < perThread; i += 97) {
                assertReply(run("get", "k:" + t + ":" + i), String.valueOf(i));
            }
        }
    }
}
