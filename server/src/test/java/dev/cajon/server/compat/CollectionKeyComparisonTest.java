package dev.cajon.server.compat;

import org.junit.jupiter.api.Assumptions;

/**
 * The key commands on every type against Redis: MOVE and OBJECT ENCODING (strings, today), and
 * TYPE, DEL, EXISTS, RENAME, COPY, MOVE, SCAN ... TYPE, DBSIZE, the TTL family and WRONGTYPE from
 * the string commands on collections (hashes and sets: skipped until HSET and SADD are served).
 */
class CollectionKeyComparisonTest extends ComparisonTestBase {

    /**
     * INFO's keyspace_hits and keyspace_misses count the collection reads' lookups as Redis does:
     * one per key a read command looks up (a key of another type is found), none for a write.
     */
    @BothProtocols
    void collectionReadsCountKeyspaceHitsAndMisses() throws Exception {
        scenario("keyspace hits and misses of the collection reads")
                .cmd("HSET", "h", "f", "v")
                .cmd("RPUSH", "l", "a", "b")
                .cmd("SADD", "s", "m")
                .cmd("SADD", "s2", "m", "n")
                .cmd("ZADD", "z", "1", "a")
                .cmd("SET", "str", "x")
                .cmd("CONFIG", "RESETSTAT")
                .cmd("HGET", "h", "f")
                .cmd("HGET", "h", "nofield")
                .cmd("HGET", "nokey", "f")
                .cmd("HGETALL", "h")
                .cmd("HLEN", "nokey")
                .cmd("HEXISTS", "h", "f")
                .cmd("HMGET", "h", "f", "g")
                .cmd("HRANDFIELD", "h", "2")
                .cmd("HSCAN", "h", "0")
                .cmd("LRANGE", "l", "0", "-1")
                .cmd("LINDEX", "nokey", "0")
                .cmd("LLEN", "l")
                .cmd("LPOS", "l", "a")
                .cmd("SMEMBERS", "s")
                .cmd("SISMEMBER", "nokey", "m")
                .cmd("SMISMEMBER", "s", "m", "x")
                .cmd("SCARD", "s")
                .cmd("SINTER", "s", "s2", "nokey")
                .cmd("SUNION", "s", "nokey")
                .cmd("SINTERCARD", "2", "s", "s2")
                .cmd("ZSCORE", "z", "a")
                .cmd("ZRANGE", "z", "0", "-1")
                .cmd("ZCARD", "nokey")
                .cmd("ZRANK", "z", "a")
                .cmd("ZUNION", "2", "z", "nokey")
                .cmd("HGET", "str", "f")
                .cmd("HSET", "h", "g", "w")
                .cmd("LPUSH", "l", "c")
                .cmd("SADD", "s", "x")
                .cmd("ZADD", "z", "2", "b")
                .cmd("LPOP", "nokey")
                .check(Check.SAME_HITS_AND_MISSES, "INFO", "stats")
                .run();
    }


    @BothProtocols
    void moveAndObjectEncodingOfStrings() throws Exception {
        scenario("MOVE and OBJECT ENCODING")
                .cmd("MOVE", "missing", "1")
                .cmd("MOVE", "k", "0")
                .cmd("MOVE", "k", "16")
                .cmd("MOVE", "k", "-1")
                .cmd("MOVE", "k", "x")
                .cmd("MOVE", "k")
                .cmd("SET", "k", "v", "EX", "100")
                .cmd("MOVE", "k", "1")
                .cmd("EXISTS", "k")
                .cmd("SET", "k", "again")
                .cmd("MOVE", "k", "1")
                .cmd("GET", "k")
                .cmd("SELECT", "1")
                .cmd("GET", "k")
                .check(Check.within(100, 1), "TTL", "k")
                .cmd("MOVE", "k", "0")
                .cmd("SELECT", "0")
                .cmd("OBJECT", "ENCODING", "missing")
                .cmd("SET", "n", "12345")
                .cmd("OBJECT", "ENCODING", "n")
                .cmd("SET", "n", "-9223372036854775808")
                .cmd("OBJECT", "ENCODING", "n")
                .cmd("SET", "n", "9223372036854775808")
                .cmd("OBJECT", "ENCODING", "n")
                .cmd("SET", "n", "0123")
                .cmd("OBJECT", "ENCODING", "n")
                .cmd("SET", "s", "short")
                .cmd("OBJECT", "ENCODING", "s")
                .cmd("SET", "s", "x".repeat(44))
                .cmd("OBJECT", "ENCODING", "s")
                .cmd("SET", "s", "x".repeat(45))
                .cmd("OBJECT", "ENCODING", "s")
                .cmd("object", "encoding", "s")
                .cmd("OBJECT")
                .cmd("OBJECT", "ENCODING")
                .cmd("OBJECT", "ENCODING", "a", "b")
                .run();
    }

    /** Skips until HSET and SADD are served (the hashes' and sets' branch). */
    private void assumeHashesAndSets() throws Exception {
        try (RespClient c = RespClient.connect(cajonPort())) {
            Reply h = c.call("HSET", "probe:types", "a", "1");
            Reply s = c.call("SADD", "probe:types:s", "a");
            c.call("DEL", "probe:types", "probe:types:s");
            Assumptions.assumeTrue(!h.isError() && !s.isError(), "HSET and SADD are not served yet");
        }
    }

    @BothProtocols
    void keyCommandsOnCollections() throws Exception {
        assumeHashesAndSets();
        scenario("the key commands on hashes and sets")
                .cmd("HSET", "h", "f", "v", "g", "w")
                .cmd("RANDOMKEY") // the one key: a collection's pages are never picked
                .cmd("SADD", "s", "a", "b", "c")
                .cmd("SET", "str", "x")
                .cmd("TYPE", "h")
                .cmd("TYPE", "s")
                .cmd("DBSIZE")
                .cmd("EXISTS", "h", "s", "str", "none")
                .cmd("SCAN", "0", "TYPE", "hash", "COUNT", "1000")
                .cmd("SCAN", "0", "TYPE", "set", "COUNT", "1000")
                .cmd("SCAN", "0", "TYPE", "string", "COUNT", "1000")
                .cmd("SCAN", "0", "TYPE", "HASH", "COUNT", "1000")
                .cmd("SCAN", "0", "TYPE", "zset", "COUNT", "1000")
                .cmd("SCAN", "0", "TYPE", "nosuch", "COUNT", "1000")
                .cmd("KEYS", "h")
                .cmd("DEL", "str")
                .cmd("RENAME", "h", "h2")
                .cmd("HGETALL", "h")
                .cmd("HGET", "h2", "f")
                .cmd("RENAMENX", "h2", "s")
                .cmd("RENAME", "h2", "s")
                .cmd("TYPE", "s")
                .cmd("HGET", "s", "g")
                .cmd("COPY", "s", "c")
                .cmd("COPY", "s", "c")
                .cmd("HSET", "c", "f", "changed")
                .cmd("HGET", "s", "f")
                .cmd("HGET", "c", "f")
                .cmd("SADD", "set", "x")
                .cmd("COPY", "set", "c", "REPLACE")
                .cmd("TYPE", "c")
                .cmd("SISMEMBER", "c", "x")
                .cmd("COPY", "c", "other", "DB", "2")
                .cmd("MOVE", "s", "3")
                .cmd("EXISTS", "s")
                .cmd("SELECT", "3")
                .cmd("HGET", "s", "f")
                .cmd("SELECT", "2")
                .cmd("SMEMBERS", "other")
                .cmd("SELECT", "0")
                .cmd("EXPIRE", "c", "100")
                .check(Check.within(100, 1), "TTL", "c")
                .cmd("SADD", "c", "y")
                .check(Check.within(100, 1), "TTL", "c")
                .cmd("PERSIST", "c")
                .cmd("TTL", "c")
                .cmd("PEXPIRE", "c", "-1")
                .cmd("EXISTS", "c")
                .cmd("DBSIZE")
                .run();
    }

    @BothProtocols
    void stringCommandsOnACollection() throws Exception {
        assumeHashesAndSets();
        scenario("string commands on a hash")
                .cmd("HSET", "h", "f", "v")
                .cmd("SET", "s", "1")
                .cmd("GET", "h")
                .cmd("GETDEL", "h")
                .cmd("GETEX", "h", "EX", "10")
                .cmd("STRLEN", "h")
                .cmd("APPEND", "h", "x")
                .cmd("SETRANGE", "h", "0", "x")
                .cmd("GETRANGE", "h", "0", "-1")
                .cmd("INCR", "h")
                .cmd("INCRBY", "h", "2")
                .cmd("DECR", "h")
                .cmd("INCRBYFLOAT", "h", "1.5")
                .cmd("GETSET", "h", "x")
                .cmd("SET", "h", "x", "GET")
                .cmd("SET", "h", "x", "NX")
                .cmd("MSETNX", "h", "x", "new", "y")
                .cmd("MGET", "s", "h", "none")
                .cmd("TTL", "h")
                .cmd("HGET", "h", "f")
                .cmd("EXISTS", "new")
                .cmd("SET", "h", "now a string", "XX")
                .cmd("GET", "h")
                .cmd("TYPE", "h")
                .cmd("HSET", "h2", "f", "v")
                .cmd("MSET", "h2", "x", "s", "2")
                .cmd("GET", "h2")
                .cmd("SADD", "set", "m")
                .cmd("SET", "set", "v", "EX", "100")
                .cmd("TYPE", "set")
                .cmd("HSET", "h3", "f", "v")
                .cmd("RENAME", "s", "h3")
                .cmd("GET", "h3")
                .cmd("HSET", "h4", "f", "v")
                .cmd("FLUSHDB")
                .cmd("DBSIZE")
                .cmd("HGET", "h4", "f")
                .run();
    }
}
