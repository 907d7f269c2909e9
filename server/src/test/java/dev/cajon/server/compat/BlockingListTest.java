package dev.cajon.server.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import dev.cajon.storage.ManualClock;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The blocking list commands over real sockets: who is woken, in which order, with what, against
 * redis-server and Cajon alike (the same steps on both, the replies compared); and the timeouts
 * on a second Cajon whose clock is a {@link ManualClock}, so no test waits for real time to pass.
 *
 * <p>"Blocked" is observed, never assumed after a sleep: each step waits (bounded) until the
 * server's INFO says how many clients are blocked.
 */
class BlockingListTest extends BlockingComparisonBase {


    private String k(String tag) {
        return protocol.name() + ":" + tag;
    }






    @BothProtocols
    void wakeUpOrderIsFifoPerKey() throws Exception {
        String key = k("fifo");
        compare("three clients block, one push each", port -> {
            List<String> got = new ArrayList<>();
            try (RespClient admin = open(port); RespClient a = open(port); RespClient b = open(port);
                 RespClient c = open(port)) {
                a.send(Scenario.b("BLPOP"), Scenario.b(key), Scenario.b("0"));
                awaitBlocked(admin, 1);
                b.send(Scenario.b("BRPOP"), Scenario.b(k("other")), Scenario.b(key), Scenario.b("0"));
                awaitBlocked(admin, 2);
                c.send(Scenario.b("BLMPOP"), Scenario.b("0"), Scenario.b("1"), Scenario.b(key), Scenario.b("LEFT"),
                        Scenario.b("COUNT"), Scenario.b("2"));
                awaitBlocked(admin, 3);
                got.add(flagsAndCmd(s(admin.call("CLIENT", "LIST"))));
                got.add(s(admin.call("RPUSH", key, "first")));
                got.add("a " + s(a.read()));
                got.add(s(admin.call("RPUSH", key, "second")));
                got.add("b " + s(b.read()));
                got.add(s(admin.call("RPUSH", key, "third", "fourth", "fifth")));
                got.add("c " + s(c.read()));
                awaitBlocked(admin, 0);
                got.add(s(admin.call("LRANGE", key, "0", "-1")));
                got.add(s(a.call("PING")) + s(b.call("PING")) + s(c.call("PING")));
            }
            return got;
        });
    }

    /**
     * A timeout of a thousandth of a second times out, on every blocking command (Redis's own
     * list tests: "with 0.001 timeout should not block indefinitely"). Parsed as a long double,
     * 0.001 lies just under a thousandth, and so does its product with 1000: Redis rounds it up to
     * 1 ms (ceill), where truncating it gave 0, which means for ever. 1e-10 s is 1 ms too.
     */
    @BothProtocols
    void aThousandthOfASecondTimesOut() throws Exception {
        String key = k("nothing");
        compare("blocking commands with a 0.001 s timeout", port -> {
            List<String> got = new ArrayList<>();
            try (RespClient a = open(port)) {
                got.add(s(a.call("BLPOP", key, "0.001")));
                got.add(s(a.call("BRPOP", key, "0.001")));
                got.add(s(a.call("BLMPOP", "0.001", "1", key, "LEFT")));
                got.add(s(a.call("BLMOVE", key, k("dst"), "LEFT", "RIGHT", "0.001")));
                got.add(s(a.call("BRPOPLPUSH", key, k("dst"), "0.001")));
                got.add(s(a.call("BZPOPMIN", key, "0.001")));
                got.add(s(a.call("BZMPOP", "0.001", "1", key, "MAX")));
                got.add(s(a.call("BLPOP", key, "0.0015")));
                got.add(s(a.call("BLPOP", key, "1e-10")));
            }
            return got;
        });
    }

    /** A list that arrives under a waited-on name by RENAME, COPY or MOVE serves its waiter, as in Redis. */
    @BothProtocols
    void renameCopyAndMoveOntoAWaitedKeyServeTheWaiter() throws Exception {
        String key = k("dst");
        String src = k("src");
        compare("RENAME, COPY and MOVE onto a key a client waits on", port -> {
            List<String> got = new ArrayList<>();
            try (RespClient admin = open(port); RespClient a = open(port); RespClient db1 = open(port)) {
                a.send(Scenario.b("BLPOP"), Scenario.b(key), Scenario.b("0"));
                awaitBlocked(admin, 1);
                got.add(s(admin.call("RPUSH", src, "renamed")));
                got.add(s(admin.call("RENAME", src, key)));
                got.add("rename: " + s(a.read()));
                a.send(Scenario.b("BLPOP"), Scenario.b(key), Scenario.b("0"));
                awaitBlocked(admin, 1);
                got.add(s(admin.call("RPUSH", src, "copied")));
                got.add(s(admin.call("COPY", src, key)));
                got.add("copy: " + s(a.read()));
                got.add(s(db1.call("SELECT", "1")));
                db1.send(Scenario.b("BLPOP"), Scenario.b(src), Scenario.b("0"));
                awaitBlocked(admin, 1);
                got.add(s(admin.call("MOVE", src, "1")));
                got.add("move: " + s(db1.read()));
                awaitBlocked(admin, 0);
                got.add(s(admin.call("EXISTS", src, key)));
            }
            return got;
        });
    }

    @BothProtocols
    void onePushServesTheLongestWaiting() throws Exception {
        String key = k("one");
        compare("two clients block, one push of one element", port -> {
            List<String> got = new ArrayList<>();
            try (RespClient admin = open(port); RespClient a = open(port); RespClient b = open(port)) {
                a.send(Scenario.b("BLPOP"), Scenario.b(key), Scenario.b("0"));
                awaitBlocked(admin, 1);
                b.send(Scenario.b("BLPOP"), Scenario.b(key), Scenario.b("0"));
                awaitBlocked(admin, 2);
                got.add(s(admin.call("LPUSH", key, "x")));
                got.add("a " + s(a.read()));
                awaitBlocked(admin, 1);
                got.add(s(admin.call("LPUSH", key, "y", "z")));
                got.add("b " + s(b.read()));
                got.add(s(admin.call("LRANGE", key, "0", "-1")));
                got.add(s(admin.call("LPOP", key)));
            }
            return got;
        });
    }

    @BothProtocols
    void pushInsideExecServesAfterExec() throws Exception {
        String key = k("exec");
        compare("a waiter sees what EXEC left, not what one of its commands pushed", port -> {
            List<String> got = new ArrayList<>();
            try (RespClient admin = open(port); RespClient a = open(port)) {
                a.send(Scenario.b("BLPOP"), Scenario.b(key), Scenario.b("0"));
                awaitBlocked(admin, 1);
                admin.call("MULTI");
                admin.call("RPUSH", key, "1", "2");
                admin.call("LPOP", key);
                got.add(s(admin.call("EXEC")));
                got.add("a " + s(a.read()));
                got.add(s(admin.call("LLEN", key)));
            }
            return got;
        });
    }

    @BothProtocols
    void blmoveChainsToTheNextWaiter() throws Exception {
        String src = k("chain-src");
        String dst = k("chain-dst");
        compare("BLMOVE's push serves a client blocked on its destination", port -> {
            List<String> got = new ArrayList<>();
            try (RespClient admin = open(port); RespClient a = open(port); RespClient b = open(port)) {
                a.send(Scenario.b("BLMOVE"), Scenario.b(src), Scenario.b(dst), Scenario.b("RIGHT"), Scenario.b("LEFT"),
                        Scenario.b("0"));
                awaitBlocked(admin, 1);
                b.send(Scenario.b("BRPOPLPUSH"), Scenario.b(dst), Scenario.b(k("chain-end")), Scenario.b("0"));
                awaitBlocked(admin, 2);
                got.add(s(admin.call("RPUSH", src, "v")));
                got.add("a " + s(a.read()));
                got.add("b " + s(b.read()));
                got.add(s(admin.call("LRANGE", k("chain-end"), "0", "-1")));
                got.add(s(admin.call("LLEN", dst)));
            }
            return got;
        });
    }

    @BothProtocols
    void disconnectedWaiterIsRemoved() throws Exception {
        String key = k("gone");
        compare("a blocked client that disconnects takes nothing", port -> {
            List<String> got = new ArrayList<>();
            try (RespClient admin = open(port)) {
                RespClient a = open(port);
                a.send(Scenario.b("BLPOP"), Scenario.b(key), Scenario.b("0"));
                awaitBlocked(admin, 1);
                a.close();
                awaitBlocked(admin, 0);
                got.add(s(admin.call("RPUSH", key, "kept")));
                got.add(s(admin.call("LRANGE", key, "0", "-1")));
            }
            return got;
        });
    }

    @BothProtocols
    void commandsAfterABlockedOneWaitForIt() throws Exception {
        String key = k("pipe");
        compare("a pipeline behind BLPOP runs after it is served", port -> {
            List<String> got = new ArrayList<>();
            try (RespClient admin = open(port); RespClient a = open(port)) {
                a.sendRaw(concat(RespClient.encode(Scenario.b("BLPOP"), Scenario.b(key), Scenario.b("0")),
                        RespClient.encode(Scenario.b("LLEN"), Scenario.b(key)),
                        RespClient.encode(Scenario.b("ECHO"), Scenario.b("after"))));
                awaitBlocked(admin, 1);
                got.add(s(admin.call("RPUSH", key, "x", "y")));
                got.add(s(a.read()));
                got.add(s(a.read()));
                got.add(s(a.read()));
            }
            return got;
        });
    }

    @BothProtocols
    void clientUnblock() throws Exception {
        String key = k("unblock");
        compare("CLIENT UNBLOCK with TIMEOUT and ERROR", port -> {
            List<String> got = new ArrayList<>();
            try (RespClient admin = open(port); RespClient a = open(port)) {
                String id = Long.toString(a.call("CLIENT", "ID").integer());
                got.add(s(admin.call("CLIENT", "UNBLOCK", id)));
                a.send(Scenario.b("BLPOP"), Scenario.b(key), Scenario.b("0"));
                awaitBlocked(admin, 1);
                got.add(s(admin.call("CLIENT", "UNBLOCK", id, "NOPE")));
                got.add(s(admin.call("CLIENT", "UNBLOCK", "x")));
                got.add(s(admin.call("CLIENT", "UNBLOCK", id)));
                got.add("a " + s(a.read()));
                awaitBlocked(admin, 0);
                a.send(Scenario.b("BLMOVE"), Scenario.b(key), Scenario.b(k("unblock-dst")), Scenario.b("LEFT"),
                        Scenario.b("LEFT"), Scenario.b("0"));
                awaitBlocked(admin, 1);
                got.add(s(admin.call("CLIENT", "UNBLOCK", id, "error")));
                got.add("a " + s(a.read()));
                got.add(s(admin.call("CLIENT", "UNBLOCK", id, "TIMEOUT")));
                got.add(s(admin.call("RPUSH", key, "v")));
                got.add(s(admin.call("LLEN", key)));
                got.add(s(admin.call("CLIENT", "UNBLOCK", id, "x", "y")));
            }
            return got;
        });
    }

    /**
     * Twenty clients block on one key while four threads push twenty elements at once, each its
     * own RPUSH on its own connection: every element reaches exactly one client, none is left,
     * and nobody stays blocked (the pop under the key's lock; the registry's no-lost-wake-up rule).
     */
    @org.junit.jupiter.api.Test
    void concurrentPushesReachEachWaiterExactlyOnce() throws Exception {
        String key = k("race");
        int port = cajonPort();
        List<RespClient> waiters = new ArrayList<>();
        try (RespClient admin = open(port)) {
            for (int i = 0; i < 20; i++) {
                RespClient w = open(port);
                waiters.add(w);
                w.send(Scenario.b("BLPOP"), Scenario.b(key), Scenario.b("0"));
            }
            awaitBlocked(admin, 20);
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
            try {
                List<java.util.concurrent.Future<?>> pushes = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    int thread = t;
                    pushes.add(pool.submit(() -> {
                        try (RespClient p = open(port)) {
                            for (int j = 0; j < 5; j++) {
                                p.call("RPUSH", key, "v" + thread + "-" + j);
                            }
                        }
                        return null;
                    }));
                }
                for (java.util.concurrent.Future<?> f : pushes) {
                    f.get(30, java.util.concurrent.TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            java.util.Set<String> got = new java.util.TreeSet<>();
            for (RespClient w : waiters) {
                Reply r = w.read();
                got.add(new String(r.element(1).payload(), StandardCharsets.UTF_8));
            }
            assertEquals(20, got.size(), "each element went to exactly one client: " + got);
            assertEquals(":0\r\n", s(admin.call("LLEN", key)));
            awaitBlocked(admin, 0);
        } finally {
            for (RespClient w : waiters) {
                w.close();
            }
        }
    }

    /** CLIENT LIST reduced to each client's flags and command, sorted (ids and addresses differ). */
    private static String flagsAndCmd(String clientList) {
        List<String> out = new ArrayList<>();
        for (String line : clientList.split("\n")) {
            java.util.regex.Matcher f = java.util.regex.Pattern.compile(" flags=(\\S+) .* cmd=(\\S+) ").matcher(line);
            if (f.find()) {
                out.add(f.group(1) + " " + f.group(2));
            }
        }
        java.util.Collections.sort(out);
        return out.toString();
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    // ---------------------------------------------------------------- timeouts, manual clock

    /** Reads a reply that must come within a bounded wait (the timer re-reads the clock often). */
    private static String replyOf(RespClient c) throws IOException {
        return s(c.read());
    }

    @BothProtocols
    void timeoutsFollowTheServersClock() throws Exception {
        String key = k("to");
        int port = manual.port();
        try (RespClient admin = open(port); RespClient a = open(port); RespClient b = open(port);
             RespClient forever = open(port)) {
            a.send(Scenario.b("BLPOP"), Scenario.b(key), Scenario.b("1.5"));
            awaitBlocked(admin, 1);
            b.send(Scenario.b("BLMOVE"), Scenario.b(key), Scenario.b(k("to-dst")), Scenario.b("LEFT"),
                    Scenario.b("LEFT"), Scenario.b("2"));
            awaitBlocked(admin, 2);
            forever.send(Scenario.b("BLMPOP"), Scenario.b("0"), Scenario.b("1"), Scenario.b(key), Scenario.b("LEFT"));
            awaitBlocked(admin, 3);

            clock.advance(1_499);
            assertEquals(0, manual.context().blocking().expireDue(), "nothing is due 1 ms before the deadline");
            awaitBlocked(admin, 3);

            clock.advance(1);
            String nullArray = protocol == Protocol.RESP3 ? "_\r\n" : "*-1\r\n";
            assertEquals(nullArray, replyOf(a), "BLPOP times out at its deadline (the timer reads the clock)");
            awaitBlocked(admin, 2);

            clock.advance(500);
            manual.context().blocking().expireDue();
            assertEquals(nullArray, replyOf(b), "BLMOVE's timeout answers a null array, as Redis 7.0's does");
            awaitBlocked(admin, 1);

            clock.advance(1_000_000_000L);
            assertEquals(0, manual.context().blocking().expireDue(), "timeout 0 waits for ever");
            awaitBlocked(admin, 1);
            assertEquals(":1\r\n", s(admin.call("RPUSH", key, "late")));
            String got = replyOf(forever);
            assertTrue(got.contains("late"), "the client blocked for ever is served: " + got);
            awaitBlocked(admin, 0);
            assertEquals("+PONG\r\n", s(a.call("PING")), "a timed-out client goes on with its next command");
        }
    }

    @BothProtocols
    void aTimedOutClientIsNotServedLater() throws Exception {
        String key = k("late");
        int port = manual.port();
        try (RespClient admin = open(port); RespClient a = open(port)) {
            a.send(Scenario.b("BRPOP"), Scenario.b(key), Scenario.b("0.01"));
            awaitBlocked(admin, 1);
            clock.advance(10);
            manual.context().blocking().expireDue();
            replyOf(a);
            awaitBlocked(admin, 0);
            admin.call("RPUSH", key, "stays");
            assertEquals(":1\r\n", s(admin.call("LLEN", key)));
            try {
                a.call("PING");
            } catch (SocketTimeoutException e) {
                fail("the client stayed blocked after its timeout");
            }
        }
    }
}
