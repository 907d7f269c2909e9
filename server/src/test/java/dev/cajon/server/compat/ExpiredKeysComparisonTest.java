package dev.cajon.server.compat;


/**
 * Keys whose TTL has passed but which may still be stored (expiry is lazy): every command must
 * treat them as missing, as Redis does. Each scenario sets its keys with {@code PX 1} and pauses
 * once (Redis's clock cannot be injected); DBSIZE and RANDOMKEY are left out because they may
 * legitimately count keys not yet reclaimed.
 */
class ExpiredKeysComparisonTest extends ComparisonTestBase {
    private static final long PAUSE_MS = 30;

    private Scenario expired(String name, String... keys) {
        Scenario s = scenario(name);
        for (String k : keys) {
            s.cmd("SET", k, "old-" + k, "PX", "1");
        }
        return s.pause(PAUSE_MS);
    }

    @BothProtocols
    void readsSeeNothing() throws Exception {
        expired("reads of expired keys", "a", "b", "n")
                .cmd("GET", "a")
                .cmd("EXISTS", "a", "b")
                .cmd("TYPE", "a")
                .cmd("STRLEN", "a")
                .cmd("GETRANGE", "a", "0", "-1")
                .cmd("MGET", "a", "b", "n")
                .cmd("TTL", "a")
                .cmd("PTTL", "a")
                .cmd("EXPIRETIME", "a")
                .cmd("TOUCH", "a", "b")
                .cmd("GETEX", "a", "PERSIST")
                .cmd("GETDEL", "b")
                .cmd("EXISTS", "a", "b", "n")
                .run();
    }

    @BothProtocols
    void writesStartFromNothing() throws Exception {
        expired("writes to expired keys", "app", "inc", "flt", "rng", "nx", "xx", "gs", "kt", "ms")
                .cmd("APPEND", "app", "x")
                .cmd("GET", "app")
                .cmd("INCR", "inc")
                .cmd("INCRBYFLOAT", "flt", "1.5")
                .cmd("SETRANGE", "rng", "2", "x")
                .cmd("GET", "rng")
                .cmd("SETNX", "nx", "new")
                .cmd("SET", "xx", "new", "XX")
                .cmd("EXISTS", "xx")
                .cmd("GETSET", "gs", "new")
                .cmd("SET", "kt", "new", "KEEPTTL", "GET")
                .cmd("TTL", "kt")
                .cmd("MSETNX", "ms", "new", "other", "new")
                .cmd("MGET", "ms", "other")
                .run();
    }

    @BothProtocols
    void keyCommandsSeeNothing() throws Exception {
        expired("key commands on expired keys", "src", "dst", "cp", "cpdst", "ex", "pe", "del")
                .cmd("RENAME", "src", "x")
                .cmd("RENAMENX", "src", "x")
                .cmd("SET", "live", "v")
                .cmd("RENAMENX", "live", "dst")
                .cmd("GET", "dst")
                .cmd("COPY", "cp", "y")
                .cmd("COPY", "dst", "cpdst")
                .cmd("GET", "cpdst")
                .cmd("EXPIRE", "ex", "100")
                .cmd("PEXPIRE", "ex", "100", "LT")
                .cmd("PERSIST", "pe")
                .cmd("DEL", "del")
                .cmd("UNLINK", "del")
                .cmd("EXISTS", "x", "y")
                .run();
    }

    @BothProtocols
    void expiredKeysInOtherDbs() throws Exception {
        scenario("expired keys in another db")
                .cmd("SELECT", "5")
                .cmd("SET", "k", "v", "PX", "1")
                .cmd("SET", "keep", "v")
                .cmd("SELECT", "0")
                .cmd("SET", "k", "zero")
                .pause(PAUSE_MS)
                .cmd("COPY", "k", "k", "DB", "5")
                .cmd("SELECT", "5")
                .cmd("GET", "k")
                .cmd("TTL", "k")
                .cmd("EXISTS", "keep")
                .run();
    }
}
