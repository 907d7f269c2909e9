package dev.cajon.server.compat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * SWAPDB against Redis 7.0, in both protocols: the data of the two dbs trade places for every
 * connection (one already SELECTed into either db too), its errors, inside MULTI, what it does to
 * WATCHed keys (Redis's touchAllWatchedKeysInDb: a key that exists in either db aborts the EXEC,
 * any other watch stays on its db and still sees a later write there, not one in the db it left),
 * and clients blocked in either db (they stay in their db and are served when their key exists in
 * the data it holds now).
 */
class SwapDbComparisonTest extends BlockingComparisonBase {

    @BothProtocols
    void theTwoDbsTradeTheirData() throws Exception {
        scenario("SWAPDB 1 2")
                .cmd("SELECT", "1")
                .cmd("SET", "a", "in-one")
                .cmd("RPUSH", "l", "x", "y")
                .cmd("SET", "t", "ttl", "EX", "1000")
                .cmd("SELECT", "2")
                .cmd("SET", "b", "in-two")
                .cmd("HSET", "h", "f", "v")
                .other("SELECT", "1") // a second connection, already in db 1
                .other("GET", "a")
                .cmd("SWAPDB", "1", "2")
                .cmd("GET", "b")
                .cmd("GET", "a")
                .cmd("LRANGE", "l", "0", "-1")
                .check(Check.within(1000, 1), "TTL", "t")
                .cmd("DBSIZE")
                .other("GET", "a")
                .other("GET", "b")
                .other("HGET", "h", "f")
                .other("DBSIZE")
                .cmd("SWAPDB", "2", "1")
                .cmd("GET", "b")
                .cmd("DBSIZE")
                .other("GET", "a")
                .cmd("SWAPDB", "3", "3")
                .cmd("SELECT", "3")
                .cmd("SWAPDB", "3", "4") // two empty dbs
                .cmd("DBSIZE")
                .cmd("SELECT", "0")
                .cmd("SWAPDB", "0", "2") // db 2 held db 2's data again: now db 0 does
                .cmd("GET", "b")
                .cmd("HGET", "h", "f")
                .cmd("SELECT", "2")
                .cmd("DBSIZE")
                .run();
    }

    @BothProtocols
    void errors() throws Exception {
        scenario("SWAPDB errors")
                .cmd("SWAPDB")
                .cmd("SWAPDB", "1")
                .cmd("SWAPDB", "1", "2", "3")
                .cmd("SWAPDB", "x", "1")
                .cmd("SWAPDB", "1", "x")
                .cmd("SWAPDB", "x", "y")
                .cmd("SWAPDB", "1.5", "2")
                .cmd("SWAPDB", "1", "99999999999")
                .cmd("SWAPDB", "1", "16")
                .cmd("SWAPDB", "-1", "0")
                .cmd("SWAPDB", "16", "x")
                .cmd("SWAPDB", "16", "16")
                .cmd("SWAPDB", "0", "15")
                .cmd("SWAPDB", "15", "0")
                .run();
    }

    @BothProtocols
    void insideMulti() throws Exception {
        scenario("SWAPDB inside MULTI")
                .cmd("SET", "a", "zero")
                .cmd("SELECT", "1")
                .cmd("SET", "a", "one")
                .cmd("SELECT", "0")
                .cmd("MULTI")
                .cmd("GET", "a")
                .cmd("SWAPDB", "0", "1")
                .cmd("GET", "a")
                .cmd("SWAPDB", "0", "x")
                .cmd("SET", "b", "after")
                .cmd("EXEC")
                .cmd("GET", "a")
                .cmd("SELECT", "1")
                .cmd("GET", "a")
                .cmd("GET", "b")
                .run();
    }

    @BothProtocols
    void watchedKeysThatExistInEitherDbAbortTheExec() throws Exception {
        scenario("WATCH a key of the first db, SWAPDB")
                .cmd("SELECT", "9")
                .cmd("SET", "x", "1")
                .cmd("WATCH", "x")
                .other("SWAPDB", "9", "1")
                .cmd("MULTI")
                .cmd("PING")
                .cmd("EXEC")
                .run();
        scenario("WATCH a key that exists only in the other db, SWAPDB")
                .cmd("SELECT", "1")
                .cmd("SET", "x", "1")
                .cmd("SELECT", "9")
                .cmd("WATCH", "x")
                .other("SWAPDB", "9", "1")
                .cmd("MULTI")
                .cmd("PING")
                .cmd("EXEC")
                .run();
    }

    @BothProtocols
    void aWatchOnAKeyInNeitherDbFollowsItsDb() throws Exception {
        scenario("WATCH a key in neither db: SWAPDB does not touch it")
                .cmd("SELECT", "9")
                .cmd("WATCH", "x")
                .other("SWAPDB", "9", "1")
                .cmd("MULTI")
                .cmd("PING")
                .cmd("EXEC")
                .run();
        scenario("... then a write of it in the db it watched (now the other data) aborts the EXEC")
                .cmd("SELECT", "9")
                .cmd("WATCH", "x")
                .other("SWAPDB", "9", "1")
                .other("SELECT", "9")
                .other("SET", "x", "now")
                .cmd("MULTI")
                .cmd("PING")
                .cmd("EXEC")
                .run();
        scenario("... and a write of it in the db the data went to does not")
                .cmd("SELECT", "9")
                .cmd("WATCH", "x")
                .other("SWAPDB", "9", "1")
                .other("SELECT", "1")
                .other("SET", "x", "elsewhere")
                .cmd("MULTI")
                .cmd("PING")
                .cmd("EXEC")
                .cmd("UNWATCH")
                .run();
    }

    /** What a blocking scenario does on its admin connection, beside the client it blocked. */
    private interface Steps2 {
        void run(RespClient admin, RespClient blocked, List<String> got) throws IOException;
    }

    /**
     * On both servers: FLUSHALL, {@code before}, then a client SELECTs {@code db} and blocks in
     * BLPOP {@code key} 0, then {@code after}; the transcripts must match.
     */
    private void blockedIn(String name, int db, String key, Steps2 before, Steps2 after) throws IOException {
        compare(name, port -> {
            List<String> got = new ArrayList<>();
            try (RespClient admin = open(port); RespClient a = open(port)) {
                admin.call("FLUSHALL");
                before.run(admin, a, got);
                got.add(s(a.call("SELECT", Integer.toString(db))));
                a.send(b("BLPOP"), b(key), b("0"));
                awaitBlocked(admin, 1);
                after.run(admin, a, got);
                awaitBlocked(admin, 0);
            }
            return got;
        });
    }

    @BothProtocols
    void aBlockedClientStaysInItsDbAndIsServedByTheDataItHoldsNow() throws Exception {
        blockedIn("BLPOP in db 5, the list in db 6, SWAPDB 5 6", 5, "l", (admin, a, got) -> { }, (admin, a, got) -> {
            got.add(s(admin.call("SELECT", "6")));
            got.add(s(admin.call("RPUSH", "l", "from-six", "second")));
            got.add(s(admin.call("SWAPDB", "5", "6")));
            got.add("a " + s(a.read()));
            awaitBlocked(admin, 0);
            got.add(s(admin.call("SELECT", "5")));
            got.add(s(admin.call("LRANGE", "l", "0", "-1")));
        });
    }

    @BothProtocols
    void afterASwapABlockedClientIsServedFromItsDbOnly() throws Exception {
        blockedIn("BLPOP in db 7 on an empty pair of dbs, SWAPDB 7 8, pushes to db 8 then db 7", 7, "q",
                (admin, a, got) -> { }, (admin, a, got) -> {
                    got.add(s(admin.call("SWAPDB", "7", "8")));
                    got.add(s(admin.call("SELECT", "8")));
                    got.add(s(admin.call("RPUSH", "q", "wrong-db")));
                    got.add(s(admin.call("LLEN", "q")));
                    got.add(s(admin.call("SELECT", "7")));
                    got.add(s(admin.call("RPUSH", "q", "right-db")));
                    got.add("a " + s(a.read()));
                    awaitBlocked(admin, 0);
                    got.add(s(admin.call("LLEN", "q")));
                    got.add(s(admin.call("SELECT", "8")));
                    got.add(s(admin.call("LRANGE", "q", "0", "-1")));
                });
    }

    @BothProtocols
    void aSwapInsideExecServesTheBlockedClientAfterTheExec() throws Exception {
        blockedIn("BLPOP in db 3, MULTI SWAPDB 3 4 EXEC with the list in db 4", 3, "l", (admin, a, got) -> {
            got.add(s(admin.call("SELECT", "4")));
            got.add(s(admin.call("RPUSH", "l", "v")));
        }, (admin, a, got) -> {
            got.add(s(admin.call("MULTI")));
            got.add(s(admin.call("SWAPDB", "3", "4")));
            got.add(s(admin.call("EXEC")));
            got.add("a " + s(a.read()));
        });
    }

    private static byte[] b(String s) {
        return Scenario.b(s);
    }
}
