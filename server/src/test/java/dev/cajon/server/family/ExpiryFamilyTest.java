package dev.cajon.server.family;

import static dev.cajon.server.testkit.RespAssertions.assertArray;
import static dev.cajon.server.testkit.RespAssertions.assertError;
import static dev.cajon.server.testkit.RespAssertions.assertNil;
import static dev.cajon.server.testkit.RespAssertions.assertOk;
import static dev.cajon.server.testkit.RespAssertions.assertReply;
import static dev.cajon.server.testkit.RespAssertions.assertSimple;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cajon.server.ServerConfig;
import dev.cajon.server.ServerContext;
import dev.cajon.server.testkit.Client;
import dev.cajon.server.testkit.FamilyTestBase;
import dev.cajon.server.testkit.InProcessServer;
import dev.cajon.storage.expiry.ExpiryWheel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Time to live, driven by a manual clock so every TTL is exact: how SET's options, GETEX, the
 * EXPIRE family and PERSIST set and clear deadlines; which writes keep a TTL; and that an expired
 * key is gone from every read. Redis's rule is that a key expires when {@code now > deadline}.
 */
class ExpiryFamilyTest extends FamilyTestBase {

    /** Asserts the key is alive with exactly {@code pttl} ms left. */
    private void assertAlive(String key, long pttl) {
        assertReply(run("pttl", key), pttl);
        assertReply(run("exists", key), 1);
    }

    private void assertGone(String key) {
        assertNil(run("get", key));
        assertReply(run("exists", key), 0);
        assertReply(run("ttl", key), -2);
        assertReply(run("pttl", key), -2);
    }

    // ------------------------------------------------------------------ SET's expire options

    @Test
    void setExCountsDownAndExpires() {
        assertOk(run("set", "k", "v", "ex", "10"));
        assertReply(run("ttl", "k"), 10);
        assertReply(run("pttl", "k"), 10_000);
        advance(9_999);
        assertAlive("k", 1);
        assertReply(run("get", "k"), "v");
        advance(2);
        assertGone("k");
    }

    @Test
    void setPxExpires() {
        assertOk(run("set", "k", "v", "px", "250"));
        advance(249);
        assertAlive("k", 1);
        advance(2);
        assertGone("k");
    }

    @Test
    void setExatAndPxatAreAbsolute() {
        long deadline = now() + 5_000;
        assertOk(run("set", "a", "v", "exat", deadline / 1000));
        assertOk(run("set", "b", "v", "pxat", deadline + 123));
        assertReply(run("pexpiretime", "a"), deadline / 1000 * 1000);
        assertReply(run("expiretime", "a"), deadline / 1000);
        assertReply(run("pexpiretime", "b"), deadline + 123);
        advance(deadline - now() - 1);
        assertAlive("b", 124);
        advance(200);
        assertGone("a");
        assertGone("b");
    }

    @Test
    void keyStillExistsAtItsDeadlineMillisecond() {
        // Redis's keyIsExpired: "return now > when;" a key is readable (PTTL 0) at the deadline
        // itself and gone one millisecond later
        run("set", "k", "v", "px", "100");
        advance(100);
        assertReply(run("pttl", "k"), 0);
        assertReply(run("ttl", "k"), 0);
        assertReply(run("get", "k"), "v");
        advance(1);
        assertGone("k");
    }

    @Test
    void setPxatInThePastStoresNothing() {
        run("set", "k", "old");
        assertOk(run("set", "k", "v", "pxat", now() - 1));
        assertGone("k");
        assertOk(run("set", "k2", "v", "exat", "1"));
        assertGone("k2");
        assertReply(run("dbsize"), 0);
    }

    @Test
    void ttlRoundsToTheNearestSecond() {
        // Redis replies (ttl + 500) / 1000
        run("set", "a", "v", "px", "1499");
        assertReply(run("ttl", "a"), 1);
        run("set", "b", "v", "px", "1500");
        assertReply(run("ttl", "b"), 2);
        run("set", "c", "v", "px", "499");
        assertReply(run("ttl", "c"), 0);
    }

    @Test
    void ttlOfMissingAndPersistentKeys() {
        assertReply(run("ttl", "nope"), -2);
        assertReply(run("pttl", "nope"), -2);
        assertReply(run("expiretime", "nope"), -2);
        assertReply(run("pexpiretime", "nope"), -2);
        run("set", "k", "v");
        assertReply(run("ttl", "k"), -1);
        assertReply(run("pttl", "k"), -1);
        assertReply(run("expiretime", "k"), -1);
        assertReply(run("pexpiretime", "k"), -1);
    }

    @Test
    void keepttlKeepsTheDeadline() {
        run("set", "k", "v1", "ex", "100");
        advance(40_000);
        assertOk(run("set", "k", "v2", "keepttl"));
        assertReply(run("get", "k"), "v2");
        assertReply(run("pttl", "k"), 60_000);
        // KEEPTTL on a key without a TTL, or a missing key, sets no TTL
        assertOk(run("set", "p", "v", "keepttl"));
        assertReply(run("ttl", "p"), -1);
    }

    @Test
    void plainSetClearsTheTtl() {
        run("set", "k", "v", "ex", "100");
        assertOk(run("set", "k", "v2"));
        assertReply(run("ttl", "k"), -1);
        advance(200_000);
        assertReply(run("get", "k"), "v2");
    }

    @Test
    void setExRenewsASlidingSession() {
        run("set", "session", "alice", "ex", "30");
        for (int i = 0; i < 5; i++) {
            advance(20_000);
            assertReply(run("get", "session"), "alice");
            assertOk(run("set", "session", "alice", "ex", "30"));
            assertReply(run("pttl", "session"), 30_000);
        }
        advance(30_001);
        assertGone("session");
    }

    @Test
    void setNxOnAnExpiredKeySucceeds() {
        run("set", "lock", "a", "px", "100", "nx");
        assertNil(run("set", "lock", "b", "px", "100", "nx"));
        advance(101);
        assertOk(run("set", "lock", "b", "px", "100", "nx"));
        assertReply(run("get", "lock"), "b");
    }

    @Test
    void setXxAndGetOnAnExpiredKeySeeNothing() {
        run("set", "k", "a", "px", "10");
        advance(11);
        assertNil(run("set", "k", "b", "xx"));
        assertReply(run("exists", "k"), 0);
        run("set", "j", "a", "px", "10");
        advance(11);
        assertNil(run("set", "j", "b", "get"));
        assertReply(run("get", "j"), "b");
    }

    @Test
    void getsetAndMsetClearTheTtl() {
        run("set", "a", "1", "ex", "10");
        run("set", "b", "1", "ex", "10");
        run("getset", "a", "2");
        run("mset", "b", "2");
        assertReply(run("ttl", "a"), -1);
        assertReply(run("ttl", "b"), -1);
    }

    @Test
    void getsetOnAnExpiredKeySeesNothing() {
        run("setex", "k", "1", "v");
        advance(1_001);
        assertNil(run("getset", "k", "new"));
        assertReply(run("ttl", "k"), -1);
    }

    // ------------------------------------------------------------------ writes that keep a TTL

    @Test
    void incrFamilyKeepsTheTtl() {
        run("set", "n", "1", "ex", "100");
        advance(10_000);
        assertReply(run("incr", "n"), 2);
        assertReply(run("incrby", "n", "5"), 7);
        assertReply(run("decr", "n"), 6);
        assertReply(run("decrby", "n", "2"), 4);
        assertReply(run("incrbyfloat", "n", "0.5"), "4.5");
        assertReply(run("pttl", "n"), 90_000);
        advance(90_001);
        assertGone("n");
        // and once expired, INCR starts from 0 without a TTL
        assertReply(run("incr", "n"), 1);
        assertReply(run("ttl", "n"), -1);
    }

    @Test
    void appendAndSetrangeKeepTheTtl() {
        run("set", "k", "abc", "ex", "100");
        run("append", "k", "def");
        run("setrange", "k", "0", "X");
        assertReply(run("get", "k"), "Xbcdef");
        assertReply(run("ttl", "k"), 100);
        byte[] big = new byte[100_000];
        run("set", "b", big, "px", "5000");
        run("append", "b", "tail");
        run("setrange", "b", "10", "x");
        assertReply(run("pttl", "b"), 5000);
        advance(5001);
        assertGone("b");
    }

    @Test
    void appendToAnExpiredKeyStartsOver() {
        run("set", "k", "old", "px", "10");
        advance(11);
        assertReply(run("append", "k", "new"), 3);
        assertReply(run("get", "k"), "new");
        assertReply(run("ttl", "k"), -1);
    }

    // ------------------------------------------------------------------ GETEX

    @Test
    void getexSetsAndClearsTheTtl() {
        run("set", "k", "v");
        assertReply(run("getex", "k", "ex", "100"), "v");
        assertReply(run("ttl", "k"), 100);
        assertReply(run("getex", "k", "px", "5000"), "v");
        assertReply(run("pttl", "k"), 5000);
        assertReply(run("getex", "k", "pxat", now() + 7000), "v");
        assertReply(run("pttl", "k"), 7000);
        assertReply(run("getex", "k", "exat", (now() + 9000) / 1000), "v");
        assertReply(run("pexpiretime", "k"), (now() + 9000) / 1000 * 1000);
        assertReply(run("getex", "k"), "v");
        assertReply(run("pexpiretime", "k"), (now() + 9000) / 1000 * 1000);
        assertReply(run("getex", "k", "persist"), "v");
        assertReply(run("ttl", "k"), -1);
        advance(1_000_000);
        assertReply(run("get", "k"), "v");
    }

    @Test
    void getexWithAPastAbsoluteTimeReturnsTheValueThenDeletes() {
        run("set", "k", "v", "ex", "100");
        assertReply(run("getex", "k", "pxat", now() - 1), "v");
        assertGone("k");
        run("set", "k", "v");
        assertReply(run("getex", "k", "exat", "1"), "v");
        assertGone("k");
    }

    @Test
    void getexOnAnExpiredKeyIsNil() {
        run("set", "k", "v", "px", "10");
        advance(11);
        assertNil(run("getex", "k", "persist"));
        assertGone("k");
    }

    // ------------------------------------------------------------------ EXPIRE family

    @Test
    void expireAndPexpire() {
        assertReply(run("expire", "nope", "10"), 0);
        run("set", "k", "v");
        assertReply(run("expire", "k", "10"), 1);
        assertReply(run("pttl", "k"), 10_000);
        assertReply(run("pexpire", "k", "2500"), 1);
        assertReply(run("pttl", "k"), 2500);
        advance(2501);
        assertGone("k");
        assertReply(run("expire", "k", "10"), 0);
    }

    @Test
    void expireatAndPexpireat() {
        run("set", "k", "v");
        assertReply(run("expireat", "k", now() / 1000 + 100), 1);
        assertReply(run("expiretime", "k"), now() / 1000 + 100);
        assertReply(run("pexpireat", "k", now() + 1234), 1);
        assertReply(run("pexpiretime", "k"), now() + 1234);
        assertReply(run("pttl", "k"), 1234);
    }

    @ParameterizedTest
    @CsvSource({"expire,0", "expire,-1", "pexpire,0", "pexpire,-100", "expireat,0", "expireat,1",
        "pexpireat,-1", "pexpireat,-2", "pexpireat,1"})
    void expireInThePastDeletes(String command, String when) {
        run("set", "k", "v");
        assertReply(run(command, "k", when), 1);
        assertGone("k");
        assertReply(run("dbsize"), 0);
        assertReply(run(command, "k", when), 0);
    }

    @Test
    void expireConditions() {
        run("set", "k", "v");
        assertReply(run("expire", "k", "100", "xx"), 0);
        assertReply(run("expire", "k", "100", "gt"), 0); // no TTL counts as infinite
        assertReply(run("ttl", "k"), -1);
        assertReply(run("expire", "k", "100", "nx"), 1);
        assertReply(run("expire", "k", "200", "nx"), 0);
        assertReply(run("ttl", "k"), 100);
        assertReply(run("expire", "k", "50", "gt"), 0);
        assertReply(run("expire", "k", "150", "gt"), 1);
        assertReply(run("expire", "k", "200", "lt"), 0);
        assertReply(run("expire", "k", "120", "lt"), 1);
        assertReply(run("expire", "k", "120", "lt"), 0); // equal is not less
        assertReply(run("expire", "k", "120", "gt"), 0); // nor greater
        assertReply(run("expire", "k", "300", "xx"), 1);
        assertReply(run("ttl", "k"), 300);
        assertReply(run("pexpire", "k", "1000", "xx", "lt"), 1);
        assertReply(run("pttl", "k"), 1000);
        run("set", "p", "v");
        assertReply(run("expire", "p", "100", "lt"), 1); // no TTL counts as infinite
        assertReply(run("ttl", "p"), 100);
    }

    @Test
    void expireConditionOnAPastTimeStillDeletesOnlyIfTheConditionHolds() {
        run("set", "k", "v", "ex", "100");
        assertReply(run("expire", "k", "-1", "nx"), 0);
        assertReply(run("exists", "k"), 1);
        assertReply(run("expire", "k", "-1", "lt"), 1);
        assertReply(run("exists", "k"), 0);
    }

    @Test
    void expireOptionErrors() {
        run("set", "k", "v");
        assertError(run("expire", "k", "10", "nx", "xx"),
                "ERR NX and XX, GT or LT options at the same time are not compatible");
        assertError(run("expire", "k", "10", "gt", "nx"),
                "ERR NX and XX, GT or LT options at the same time are not compatible");
        assertError(run("expire", "k", "10", "gt", "lt"), "ERR GT and LT options at the same time are not compatible");
        assertError(run("expire", "k", "10", "foo"), "ERR Unsupported option foo");
        assertError(run("expire", "k", "ten"), "ERR value is not an integer or out of range");
        // options are parsed before the time, as in Redis
        assertError(run("expire", "k", "ten", "foo"), "ERR Unsupported option foo");
        assertError(run("expire", "k", "9223372036854775807"), "ERR invalid expire time in 'expire' command");
        assertError(run("pexpire", "k", "9223372036854775807"), "ERR invalid expire time in 'pexpire' command");
        assertError(run("expireat", "k", "9223372036854775807"), "ERR invalid expire time in 'expireat' command");
        assertReply(run("ttl", "k"), -1);
    }

    @Test
    void persist() {
        assertReply(run("persist", "nope"), 0);
        run("set", "k", "v");
        assertReply(run("persist", "k"), 0);
        run("expire", "k", "10");
        assertReply(run("persist", "k"), 1);
        assertReply(run("ttl", "k"), -1);
        advance(20_000);
        assertReply(run("get", "k"), "v");
    }

    // ------------------------------------------------------------------ keys that move or copy

    @Test
    void renameCarriesTheTtl() {
        run("set", "src", "v", "ex", "100");
        advance(1_000);
        assertOk(run("rename", "src", "dst"));
        assertReply(run("pttl", "dst"), 99_000);
        assertReply(run("exists", "src"), 0);
        // and a persistent source replaces a volatile destination's TTL with none
        run("set", "p", "v");
        assertOk(run("rename", "p", "dst"));
        assertReply(run("ttl", "dst"), -1);
        advance(200_000);
        assertReply(run("get", "dst"), "v");
    }

    @Test
    void renameOfAnExpiredKeyIsNoSuchKey() {
        run("set", "src", "v", "px", "10");
        advance(11);
        assertError(run("rename", "src", "dst"), "ERR no such key");
        assertError(run("renamenx", "src", "dst"), "ERR no such key");
    }

    @Test
    void renamenxOverAnExpiredDestination() {
        run("set", "src", "v");
        run("set", "dst", "old", "px", "10");
        advance(11);
        assertReply(run("renamenx", "src", "dst"), 1);
        assertReply(run("get", "dst"), "v");
    }

    @Test
    void copyCarriesTheTtl() {
        run("set", "src", "v", "px", "5000");
        assertReply(run("copy", "src", "dst"), 1);
        assertReply(run("pttl", "dst"), 5000);
        assertReply(run("copy", "src", "other", "db", "3"), 1);
        run("select", "3");
        assertReply(run("pttl", "other"), 5000);
        advance(5001);
        assertGone("other");
        run("select", "0");
        assertGone("src");
        assertGone("dst");
    }

    // ------------------------------------------------------------------ expired keys vanish from every read

    @Test
    void expiredKeysVanishFromEveryRead() {
        run("mset", "live", "1");
        for (String k : new String[] {"a", "b", "c", "d", "e", "f", "g", "h"}) {
            run("set", k, "v", "px", "100");
        }
        advance(101);
        assertNil(run("get", "a"));
        assertReply(run("exists", "b", "live", "b"), 1);
        assertSimple(run("type", "c"), "none");
        assertArray(run("mget", "d", "live", "nope"), null, "1", null);
        assertReply(run("strlen", "e"), 0);
        assertReply(run("getrange", "f", "0", "-1"), "");
        assertReply(run("touch", "g", "live"), 1);
        assertReply(run("del", "h"), 0);
        assertReply(run("dbsize"), 1);
        assertEquals("live", run("randomkey").asString());
    }

    @Test
    void dbsizeCountsExpiredKeysUntilTheyAreAccessed() {
        run("set", "a", "v", "px", "100");
        run("set", "b", "v", "px", "100");
        run("set", "c", "v");
        assertReply(run("dbsize"), 3);
        advance(101);
        run("get", "a");
        run("exists", "b");
        assertReply(run("dbsize"), 1);
    }

    @Test
    void randomkeyNeverReturnsAnExpiredKey() {
        run("set", "dead", "v", "px", "10");
        assertEquals("dead", run("randomkey").asString());
        advance(11);
        assertNil(run("randomkey"));
        run("set", "live", "v");
        for (int i = 0; i < 5; i++) {
            run("set", "dead" + i, "v", "px", "10");
        }
        advance(11);
        for (int i = 0; i < 10; i++) {
            assertEquals("live", run("randomkey").asString());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 20_000, 2_000_000})
    void expiredLargeAndSmallValuesAlike(int size) {
        byte[] v = new byte[size];
        run("set", "k", v, "px", "100");
        advance(99);
        assertReply(run("strlen", "k"), size);
        advance(2);
        assertGone("k");
    }

    // ------------------------------------------------------------------ active expiry (the wheel)

    @Test
    void activeExpiryReclaimsKeysNobodyReads() {
        try (InProcessServer active = InProcessServer.openWithActiveExpiry(dir.resolve("active"))) {
            Client c = active.client();
            c.run("set", "a", "v", "px", "100");
            c.run("set", "b", new byte[40_000], "px", "200");
            c.run("set", "keep", "v");
            c.run("select", "2");
            c.run("set", "d2", "v", "px", "100");
            c.run("select", "0");
            assertEquals(0, active.reap());
            active.advance(150);
            assertEquals(2, active.reap(), "a in db 0 and d2 in db 2");
            assertReply(c.run("dbsize"), 2);
            active.advance(100);
            assertEquals(1, active.reap());
            assertReply(c.run("dbsize"), 1);
            c.run("select", "2");
            assertReply(c.run("dbsize"), 0, "db 2's key was reaped in the first pass");
            assertEquals("3", infoField(c.run("info", "stats"), "expired_keys"));
            assertEquals("3", infoField(c.run("info", "stats"), "expire_wheel_reclaimed_keys"),
                    "all three were reclaimed by the wheel, none by a read");
            assertEquals("0", infoField(c.run("info", "stats"), "expire_wheel_records"));
            assertEquals("49", infoField(c.run("info", "stats"), "expire_wheel_max_lag_ms"),
                    "a (deadline 100 ms) was reaped by the pass at 150 ms, which handles deadlines up to 149 ms");
            // lags: a 49 and d2 49 (first pass), b 49 (deadline 200, pass at 250): all three 49 ms
            assertEquals("49", infoField(c.run("info", "stats"), "expire_wheel_lag_p99_ms"));
            assertEquals("# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n", c.run("info", "keyspace").asString());
        }
    }

    /**
     * An event loop's help in a backlog (what the connection handler calls after each read batch):
     * a bounded number of chunks of due keys per call once the wheel is more than the threshold
     * behind, counted in
     * INFO; CONFIG RESETSTAT starts the wheel's counters again. A server that runs no reapers
     * (tests driving the wheel by hand) gets no help behind its back.
     */
    @Test
    void eventLoopsHelpReclaimABacklogInChunks() {
        try (InProcessServer active = InProcessServer.openWithActiveExpiry(dir.resolve("active"))) {
            Client c = active.client();
            int most = ExpiryWheel.MAX_ASSIST_CHUNKS * ExpiryWheel.CHUNK_RECORDS;
            int n = most + 10;
            for (int i = 0; i < n; i++) {
                c.run("set", "k" + i, "v", "px", "100");
            }
            ServerContext manual = new ServerContext(ServerConfig.defaults().withActiveExpiry(false)
                    .withDir(active.dir()).withClock(active.clock()), active.store(), active.context().wheel());
            active.advance(101 + ExpiryWheel.ASSIST_AFTER_MILLIS);
            manual.assistExpiry();
            assertReply(c.run("dbsize"), n, "no reapers configured: nothing reclaimed");

            active.context().assistExpiry();
            assertReply(c.run("dbsize"), 10, "far behind: the most chunks one call takes");
            assertEquals(String.valueOf(most), infoField(c.run("info", "stats"), "expire_wheel_assisted_keys"));
            active.context().assistExpiry();
            assertReply(c.run("dbsize"), 0);
            var stats = c.run("info", "stats");
            assertEquals(String.valueOf(n), infoField(stats, "expire_wheel_assisted_keys"));
            assertEquals(String.valueOf(n), infoField(stats, "expire_wheel_reclaimed_keys"));
            assertEquals(String.valueOf(ExpiryWheel.ASSIST_AFTER_MILLIS),
                    infoField(stats, "expire_wheel_lag_p99_ms"), "due from 101 ms, reclaimed at 111 ms");

            assertOk(c.run("config", "resetstat"));
            stats = c.run("info", "stats");
            assertEquals("0", infoField(stats, "expire_wheel_assisted_keys"));
            assertEquals("0", infoField(stats, "expire_wheel_reclaimed_keys"));
            assertEquals("0", infoField(stats, "expire_wheel_max_lag_ms"));
            assertEquals("0", infoField(stats, "expire_wheel_lag_p99_ms"));
            assertEquals("0", infoField(stats, "expired_keys"));
        }
    }

    @Test
    void activeExpiryHonoursRenewalsPersistAndMoves() {
        try (InProcessServer active = InProcessServer.openWithActiveExpiry(dir.resolve("active"))) {
            Client c = active.client();
            c.run("set", "renewed", "v", "px", "100");
            c.run("set", "persisted", "v", "px", "100");
            c.run("set", "extended", "v", "px", "100");
            c.run("set", "moved", "v", "px", "100");
            c.run("set", "copied", "v", "px", "100");
            c.run("set", "counter", "1", "px", "100");
            active.advance(50);
            c.run("set", "renewed", "v", "px", "100"); // now due at 150
            c.run("persist", "persisted");
            c.run("pexpire", "extended", "500", "gt"); // now due at 550
            c.run("rename", "moved", "moved2");
            c.run("copy", "copied", "copied2", "db", "1");
            c.run("incr", "counter");
            active.advance(51); // t = 101
            active.reap();
            assertReply(c.run("exists", "renewed", "persisted", "extended"), 3);
            assertReply(c.run("dbsize"), 3, "moved2, copied and counter are gone by now");
            assertReply(c.run("exists", "moved2", "copied", "counter"), 0);
            c.run("select", "1");
            assertReply(c.run("dbsize"), 0, "the copy in db 1 kept the deadline and was reaped");
            c.run("select", "0");
            active.advance(50); // t = 151
            active.reap();
            assertReply(c.run("dbsize"), 2);
            active.advance(400); // t = 551
            active.reap();
            assertReply(c.run("dbsize"), 1);
            assertReply(c.run("get", "persisted"), "v");
        }
    }
}
