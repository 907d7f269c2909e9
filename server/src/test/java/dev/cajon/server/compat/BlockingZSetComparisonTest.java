package dev.cajon.server.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import dev.cajon.storage.ManualClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * BZPOPMIN, BZPOPMAX and BZMPOP against redis-server 7.0.15, in RESP2 and RESP3: errors and
 * their order, the cases served at once, MULTI (where they answer as ZPOPMIN/ZMPOP, nil when
 * empty), and over real sockets who is woken, in which order, with what (the same steps on both
 * servers, the transcripts compared); the timeouts on a Cajon whose clock is a
 * {@link ManualClock}.
 *
 * <p>"Blocked" is observed, never assumed after a sleep: each step waits (bounded) until INFO
 * says how many clients are blocked.
 */
class BlockingZSetComparisonTest extends BlockingComparisonBase {
    private static final AtomicInteger SEQ = new AtomicInteger();


    /** A key name no other scenario (or protocol run) uses. */
    private static String k(String name) {
        return "bz" + SEQ.incrementAndGet() + ":" + name;
    }


    private static byte[] b(String s) {
        return Scenario.b(s);
    }

    // ---------------------------------------------------------------- scenarios (one connection)

    @BothProtocols
    void errors() throws Exception {
        String z = k("z");
        String str = k("str");
        String m = k("missing");
        scenario("BZPOPMIN, BZPOPMAX, BZMPOP errors and their order")
                .cmd("SET", str, "x")
                .cmd("ZADD", z, "1", "a")
                .cmd("BZPOPMIN")
                .cmd("BZPOPMIN", z)
                .cmd("BZPOPMAX", z)
                .cmd("BZMPOP", "0", "1", z)
                .cmd("BZMPOP", "0")
                .cmd("BZPOPMIN", z, "abc")
                .cmd("BZPOPMIN", z, "-1")
                .cmd("BZPOPMIN", z, "-0.0001")
                .cmd("BZPOPMAX", z, "inf")
                .cmd("BZPOPMAX", z, "-inf")
                .cmd("BZPOPMAX", z, "nan")
                .cmd("BZPOPMAX", z, "1e400")
                .cmd("BZPOPMAX", z, "")
                .cmd("BZPOPMIN", str, "abc")
                .cmd("BZPOPMIN", str, "0")
                .cmd("BZPOPMAX", m, str, z, "0")
                .cmd("BZMPOP", "abc", "1", z, "MIN")
                .cmd("BZMPOP", "-1", "1", z, "MIN")
                .cmd("BZMPOP", "abc", "1", z, "FOO")
                .cmd("BZMPOP", "abc", "0", z, "MIN")
                .cmd("BZMPOP", "0", "0", z, "MIN")
                .cmd("BZMPOP", "0", "-1", z, "MIN")
                .cmd("BZMPOP", "0", "x", z, "MIN")
                .cmd("BZMPOP", "0", "5", z, "MIN")
                .cmd("BZMPOP", "0", "2", z, "MIN")
                .cmd("BZMPOP", "0", "1", z, "MIN", "COUNT")
                .cmd("BZMPOP", "0", "1", z, "MIN", "COUNT", "0")
                .cmd("BZMPOP", "0", "1", z, "MIN", "COUNT", "-1")
                .cmd("BZMPOP", "0", "1", z, "MIN", "COUNT", "x")
                .cmd("BZMPOP", "0", "1", z, "MIN", "COUNT", "1", "COUNT", "1")
                .cmd("BZMPOP", "0", "1", z, "MIN", "FOO")
                .cmd("BZMPOP", "0", "2", m, str, "MAX")
                .cmd("BZMPOP", "0", "2", str, z, "MAX")
                .cmd("ZCARD", z)
                .run();
    }

    @BothProtocols
    void servedAtOnce() throws Exception {
        String z = k("z");
        String y = k("y");
        String m = k("missing");
        scenario("BZPOPMIN, BZPOPMAX, BZMPOP on keys that hold members")
                .cmd("ZADD", z, "1", "a", "2", "b", "3", "c", "4", "d", "5", "e")
                .cmd("ZADD", y, "-1.5", "p", "inf", "q")
                .cmd("BZPOPMIN", z, "0")
                .cmd("BZPOPMAX", z, "0.5")
                .cmd("BZPOPMIN", m, y, z, "0")
                .cmd("BZPOPMAX", m, y, z, "1")
                .cmd("BZPOPMAX", m, y, z, "1")
                .cmd("EXISTS", y)
                .cmd("BZMPOP", "0", "2", m, z, "MIN")
                .cmd("BZMPOP", "0", "1", z, "max", "count", "1")
                .cmd("ZADD", z, "10", "x", "11", "y", "12", "w")
                .cmd("BZMPOP", "0.01", "2", z, m, "MAX", "COUNT", "2")
                .cmd("BZMPOP", "0", "1", z, "MIN", "COUNT", "100")
                .cmd("EXISTS", z)
                .cmd("ZADD", z, "1", "only")
                .cmd("BZPOPMIN", z, z, "0")
                .cmd("EXISTS", z)
                .run();
    }

    @BothProtocols
    void insideMulti() throws Exception {
        String z = k("z");
        String m = k("missing");
        String str = k("str");
        scenario("inside MULTI they answer as ZPOPMIN, ZPOPMAX, ZMPOP: nil when empty")
                .cmd("SET", str, "x")
                .cmd("MULTI")
                .cmd("BZPOPMIN", m, "0")
                .cmd("BZPOPMAX", m, "10")
                .cmd("BZMPOP", "0", "1", m, "MIN")
                .cmd("BZMPOP", "0", "1", m, "MAX", "COUNT", "3")
                .cmd("ZADD", z, "1", "a", "2", "b", "3", "c")
                .cmd("BZPOPMIN", m, z, "0")
                .cmd("BZPOPMAX", z, "0")
                .cmd("BZMPOP", "0", "2", m, z, "MIN", "COUNT", "5")
                .cmd("BZPOPMIN", z, "0")
                .cmd("BZPOPMIN", str, "0")
                .cmd("EXEC")
                .cmd("MULTI")
                .cmd("BZPOPMIN", z, "nope")
                .cmd("EXEC")
                .run();
    }

    @BothProtocols
    void commandTable() throws Exception {
        Scenario s = scenario("COMMAND INFO and COMMAND GETKEYS of the blocking sorted set commands");
        for (String c : new String[] {"bzpopmin", "bzpopmax", "bzmpop"}) {
            s.check(Check.leadingFields(6), "COMMAND", "INFO", c);
        }
        s.run();
    }

    // ---------------------------------------------------------------- real sockets





    @BothProtocols
    void oneZaddServesThreeWaitersInFifoOrder() throws Exception {
        String key = k("fifo");
        compare("three clients block on one key, one ZADD of three members", port -> {
            List<String> got = new ArrayList<>();
            try (RespClient admin = open(port); RespClient a = open(port); RespClient b = open(port);
                 RespClient c = open(port)) {
                a.send(b("BZPOPMIN"), b(key), b("0"));
                awaitBlocked(admin, 1);
                b.send(b("BZPOPMIN"), b(k("other")), b(key), b("0"));
                awaitBlocked(admin, 2);
                c.send(b("BZPOPMIN"), b(key), b("0"));
                awaitBlocked(admin, 3);
                got.add(s(admin.call("ZADD", key, "3", "third", "1", "first", "2", "second")));
                got.add("a " + s(a.read()));
                got.add("b " + s(b.read()));
                got.add("c " + s(c.read()));
                awaitBlocked(admin, 0);
                got.add(s(admin.call("EXISTS", key)));
                got.add(s(a.call("PING")) + s(b.call("PING")) + s(c.call("PING")));
            }
            return got;
        });
    }

    @BothProtocols
    void bzmpopMinAndMaxWithCount() throws Exception {
        String key = k("mpop");
        compare("BZMPOP MIN COUNT, BZMPOP MAX COUNT and BZPOPMAX, served in the order they blocked", port -> {
            List<String> got = new ArrayList<>();
            try (RespClient admin = open(port); RespClient a = open(port); RespClient b = open(port);
                 RespClient c = open(port)) {
                a.send(b("BZMPOP"), b("0"), b("2"), b(k("none")), b(key), b("MIN"), b("COUNT"), b("2"));
                awaitBlocked(admin, 1);
                b.send(b("BZMPOP"), b("0"), b("1"), b(key), b("MAX"), b("COUNT"), b("2"));
                awaitBlocked(admin, 2);
                c.send(b("BZPOPMAX"), b(key), b("0"));
                awaitBlocked(admin, 3);
                got.add(s(admin.call("ZADD", key, "1", "m1", "2", "m2", "3", "m3", "4", "m4", "5", "m5", "6.5", "m6")));
                got.add("a " + s(a.read()));
                got.add("b " + s(b.read()));
                got.add("c " + s(c.read()));
                awaitBlocked(admin, 0);
                got.add(s(admin.call("ZRANGE", key, "0", "-1", "WITHSCORES")));
            }
            return got;
        });
    }

    @BothProtocols
    void oneMemberServesTheLongestWaiting() throws Exception {
        String key = k("one");
        compare("two clients block, ZADD of one member, then ZINCRBY", port -> {
            List<String> got = new ArrayList<>();
            try (RespClient admin = open(port); RespClient a = open(port); RespClient b = open(port)) {
                a.send(b("BZPOPMAX"), b(key), b("0"));
                awaitBlocked(admin, 1);
                b.send(b("BZPOPMIN"), b(key), b("0"));
                awaitBlocked(admin, 2);
                got.add(s(admin.call("ZADD", key, "1", "x")));
                got.add("a " + s(a.read()));
                awaitBlocked(admin, 1);
                got.add(s(admin.call("ZINCRBY", key, "2.5", "y")));
                got.add("b " + s(b.read()));
                got.add(s(admin.call("EXISTS", key)));
            }
            return got;
        });
    }

    @BothProtocols
    void storeCommandsWakeWaiters() throws Exception {
        String src = k("src");
        String d1 = k("d1");
        String d2 = k("d2");
        String d3 = k("d3");
        compare("ZUNIONSTORE, ZINTERSTORE, ZRANGESTORE give their destination members", port -> {
            List<String> got = new ArrayList<>();
            try (RespClient admin = open(port); RespClient a = open(port); RespClient b = open(port);
                 RespClient c = open(port)) {
                got.add(s(admin.call("ZADD", src, "1", "a", "2", "b")));
                a.send(b("BZPOPMIN"), b(d1), b("0"));
                b.send(b("BZMPOP"), b("0"), b("1"), b(d2), b("MAX"), b("COUNT"), b("5"));
                c.send(b("BZPOPMAX"), b(d3), b("0"));
                awaitBlocked(admin, 3);
                got.add(s(admin.call("ZUNIONSTORE", d1, "1", src)));
                got.add("a " + s(a.read()));
                got.add(s(admin.call("ZINTERSTORE", d2, "2", src, src)));
                got.add("b " + s(b.read()));
                got.add(s(admin.call("ZRANGESTORE", d3, src, "0", "0")));
                got.add("c " + s(c.read()));
                awaitBlocked(admin, 0);
                got.add(s(admin.call("ZRANGE", d1, "0", "-1", "WITHSCORES")));
            }
            return got;
        });
    }

    @BothProtocols
    void servedFromTheKeyThatGotMembers() throws Exception {
        String k1 = k("k1");
        String k2 = k("k2");
        compare("blocked on two keys: ZADD XX adds nothing, a string on one key, members on the other", port -> {
            List<String> got = new ArrayList<>();
            try (RespClient admin = open(port); RespClient a = open(port); RespClient b = open(port)) {
                a.send(b("BZPOPMAX"), b(k1), b(k2), b("0"));
                awaitBlocked(admin, 1);
                b.send(b("BZMPOP"), b("0"), b("2"), b(k1), b(k2), b("MIN"), b("COUNT"), b("10"));
                awaitBlocked(admin, 2);
                got.add(s(admin.call("ZADD", k2, "XX", "1", "nothing")));
                got.add(s(admin.call("SET", k1, "str")));
                awaitBlocked(admin, 2);
                got.add(s(admin.call("ZADD", k2, "NX", "1", "x", "2", "y", "3", "z")));
                got.add("a " + s(a.read()));
                got.add("b " + s(b.read()));
                awaitBlocked(admin, 0);
                got.add(s(admin.call("EXISTS", k2)));
                got.add(s(admin.call("GET", k1)));
            }
            return got;
        });
    }

    @BothProtocols
    void zaddInsideExecServesAfterExec() throws Exception {
        String key = k("exec");
        compare("a waiter sees what EXEC left, not what its ZADD added", port -> {
            List<String> got = new ArrayList<>();
            try (RespClient admin = open(port); RespClient a = open(port)) {
                a.send(b("BZPOPMIN"), b(key), b("0"));
                awaitBlocked(admin, 1);
                admin.call("MULTI");
                admin.call("ZADD", key, "1", "low", "2", "high");
                admin.call("ZPOPMIN", key);
                got.add(s(admin.call("EXEC")));
                got.add("a " + s(a.read()));
                got.add(s(admin.call("EXISTS", key)));
                a.send(b("BZPOPMIN"), b(key), b("0"));
                awaitBlocked(admin, 1);
                admin.call("MULTI");
                admin.call("ZADD", key, "1", "gone");
                admin.call("DEL", key);
                got.add(s(admin.call("EXEC")));
                awaitBlocked(admin, 1); // the key was empty again when EXEC finished: still blocked
                got.add(s(admin.call("ZADD", key, "7", "later")));
                got.add("a " + s(a.read()));
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
                a.send(b("BZPOPMIN"), b(key), b("0"));
                awaitBlocked(admin, 1);
                a.close();
                awaitBlocked(admin, 0);
                got.add(s(admin.call("ZADD", key, "1", "kept")));
                got.add(s(admin.call("ZRANGE", key, "0", "-1")));
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
                a.send(b("BZPOPMIN"), b(key), b("0"));
                awaitBlocked(admin, 1);
                got.add(s(admin.call("CLIENT", "UNBLOCK", id)));
                got.add("a " + s(a.read()));
                awaitBlocked(admin, 0);
                a.send(b("BZMPOP"), b("0"), b("1"), b(key), b("MIN"));
                awaitBlocked(admin, 1);
                got.add(s(admin.call("CLIENT", "UNBLOCK", id, "ERROR")));
                got.add("a " + s(a.read()));
                got.add(s(admin.call("CLIENT", "UNBLOCK", id, "TIMEOUT")));
                got.add(s(admin.call("ZADD", key, "1", "v")));
                got.add(s(admin.call("ZCARD", key)));
            }
            return got;
        });
    }

    @BothProtocols
    void waitersForAnotherTypeAreSkipped() throws Exception {
        String key = k("mixed");
        compare("a list waiter ahead of a zset waiter on one key: ZADD serves the zset one", port -> {
            List<String> got = new ArrayList<>();
            try (RespClient admin = open(port); RespClient a = open(port); RespClient b = open(port)) {
                a.send(b("BLPOP"), b(key), b("0"));
                awaitBlocked(admin, 1);
                b.send(b("BZPOPMIN"), b(key), b("0"));
                awaitBlocked(admin, 2);
                got.add(s(admin.call("ZADD", key, "1", "m")));
                got.add("b " + s(b.read()));
                awaitBlocked(admin, 1);
                got.add(s(admin.call("RPUSH", key, "v")));
                got.add("a " + s(a.read()));
                awaitBlocked(admin, 0);
            }
            return got;
        });
    }

    // ---------------------------------------------------------------- timeouts, manual clock

    @BothProtocols
    void timeoutsFollowTheServersClock() throws Exception {
        String key = k("to");
        int port = manual.port();
        try (RespClient admin = open(port); RespClient a = open(port); RespClient b = open(port);
             RespClient forever = open(port)) {
            a.send(b("BZPOPMIN"), b(key), b("1.5"));
            awaitBlocked(admin, 1);
            b.send(b("BZMPOP"), b("2"), b("1"), b(key), b("MAX"), b("COUNT"), b("2"));
            awaitBlocked(admin, 2);
            forever.send(b("BZPOPMAX"), b(key), b("0"));
            awaitBlocked(admin, 3);

            clock.advance(1_499);
            assertEquals(0, manual.context().blocking().expireDue(), "nothing is due 1 ms before the deadline");
            awaitBlocked(admin, 3);

            clock.advance(1);
            String nullArray = protocol == Protocol.RESP3 ? "_\r\n" : "*-1\r\n";
            assertEquals(nullArray, s(a.read()), "BZPOPMIN times out at its deadline (the timer reads the clock)");
            awaitBlocked(admin, 2);

            clock.advance(500);
            manual.context().blocking().expireDue();
            assertEquals(nullArray, s(b.read()), "BZMPOP's timeout answers a null array");
            awaitBlocked(admin, 1);

            clock.advance(1_000_000_000L);
            assertEquals(0, manual.context().blocking().expireDue(), "timeout 0 waits for ever");
            awaitBlocked(admin, 1);
            assertEquals(":1\r\n", s(admin.call("ZADD", key, "3", "late")));
            String got = s(forever.read());
            assertTrue(got.contains("late"), "the client blocked for ever is served: " + got);
            awaitBlocked(admin, 0);
            assertEquals("+PONG\r\n", s(a.call("PING")), "a timed-out client goes on with its next command");
            assertEquals(":0\r\n", s(admin.call("EXISTS", key)));
        }
    }
}
