package dev.cajon.server.compat;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sorted sets against Redis 7.0, in RESP2 and RESP3: every command, option and error text, the
 * reply shapes (doubles, WITHSCORES pairs in RESP3, nulls), WRONGTYPE, and deletion of a set that
 * becomes empty. Random replies (ZRANDMEMBER) are compared by shape.
 *
 * <p>Each scenario uses keys of its own ({@link #k}): until the engine's collections are real,
 * Cajon's sorted sets outlive the FLUSHALL that starts a scenario.
 */
class SortedSetComparisonTest extends ComparisonTestBase {
    private static final AtomicInteger SEQ = new AtomicInteger();

    /** A key name no other scenario (or protocol run) uses. */
    private static String k(String name) {
        return "zs" + SEQ.incrementAndGet() + ":" + name;
    }

    @BothProtocols
    void zaddAndReads() throws Exception {
        String z = k("z");
        String m = k("missing");
        scenario("ZADD, ZSCORE, ZMSCORE, ZCARD, ZRANK")
                .cmd("ZADD", z, "1", "a", "2", "b", "3", "c")
                .cmd("ZADD", z, "1", "a")
                .cmd("ZADD", z, "10", "a", "4", "d")
                .cmd("ZADD", z, "CH", "11", "a", "4", "d", "5", "e")
                .cmd("ZCARD", z)
                .cmd("ZCARD", m)
                .cmd("ZSCORE", z, "a")
                .cmd("ZSCORE", z, "nosuch")
                .cmd("ZSCORE", m, "a")
                .cmd("ZMSCORE", z, "a", "nosuch", "b")
                .cmd("ZMSCORE", m, "a", "b")
                .cmd("ZRANK", z, "a")
                .cmd("ZRANK", z, "b")
                .cmd("ZREVRANK", z, "a")
                .cmd("ZREVRANK", z, "b")
                .cmd("ZRANK", z, "nosuch")
                .cmd("ZRANK", m, "a")
                .cmd("ZRANGE", z, "0", "-1", "WITHSCORES")
                .cmd("ZADD", z, "1.5", "x", "-2.25", "y", "1e10", "w", "0.1", "v", "-inf", "ninf", "+inf", "pinf")
                .cmd("ZRANGE", z, "0", "-1", "WITHSCORES")
                .cmd("ZSCORE", z, "v")
                .cmd("ZSCORE", z, "ninf")
                .cmd("ZADD", z, "inf", "pinf2", "infinity", "pinf3", "-Infinity", "ninf2", "0x10", "hex", "1e-310", "tiny")
                .cmd("ZRANGE", z, "0", "-1", "WITHSCORES")
                .run();
    }

    @BothProtocols
    void zaddOptions() throws Exception {
        String z = k("z");
        String n = k("n");
        scenario("ZADD NX XX GT LT CH INCR")
                .cmd("ZADD", z, "1", "a", "2", "b")
                .cmd("ZADD", z, "NX", "5", "a", "3", "c")
                .cmd("ZADD", z, "XX", "5", "a", "4", "d")
                .cmd("ZADD", z, "XX", "CH", "6", "a", "4", "d")
                .cmd("ZADD", z, "GT", "CH", "1", "a", "7", "b")
                .cmd("ZADD", z, "LT", "CH", "1", "a", "70", "b", "9", "new")
                .cmd("ZADD", z, "GT", "XX", "CH", "100", "a", "1", "zz")
                .cmd("ZRANGE", z, "0", "-1", "WITHSCORES")
                .cmd("ZADD", z, "INCR", "2.5", "a")
                .cmd("ZADD", z, "INCR", "NX", "2.5", "a")
                .cmd("ZADD", z, "INCR", "XX", "2.5", "nosuch")
                .cmd("ZADD", z, "INCR", "GT", "-1", "a")
                .cmd("ZADD", z, "INCR", "LT", "-1", "a")
                .cmd("ZADD", z, "incr", "ch", "1", "fresh")
                .cmd("ZADD", n, "XX", "1", "a")
                .cmd("EXISTS", n)
                .cmd("ZADD", n, "XX", "INCR", "1", "a")
                .cmd("EXISTS", n)
                .cmd("ZADD", z, "NX", "XX", "1", "a")
                .cmd("ZADD", z, "GT", "LT", "1", "a")
                .cmd("ZADD", z, "NX", "GT", "1", "a")
                .cmd("ZADD", z, "NX", "LT", "1", "a")
                .cmd("ZADD", z, "INCR", "1", "a", "2", "b")
                .cmd("ZADD", z, "1")
                .cmd("ZADD", z, "NX", "1")
                .cmd("ZADD", z, "1", "a", "2")
                .cmd("ZADD", z, "x", "a")
                .cmd("ZADD", z, "nan", "a")
                .cmd("ZADD", z, "", "a")
                .cmd("ZADD", z, " 1", "a")
                .cmd("ZADD", z, "1 ", "a")
                .cmd("ZADD", z, "1e400", "a")
                .cmd("ZADD", z, "1e-400", "a")
                .cmd("ZADD", z, "1", "a", "bad", "b")
                .cmd("ZADD", z, "FOO", "1", "a")
                .cmd("ZADD", z)
                .cmd("ZRANGE", z, "0", "-1", "WITHSCORES")
                .run();
    }

    @BothProtocols
    void zincrby() throws Exception {
        String z = k("z");
        scenario("ZINCRBY")
                .cmd("ZINCRBY", z, "1", "a")
                .cmd("ZINCRBY", z, "2.5", "a")
                .cmd("ZINCRBY", z, "-10", "a")
                .cmd("ZINCRBY", z, "inf", "b")
                .cmd("ZINCRBY", z, "-inf", "b")
                .cmd("ZINCRBY", z, "1", "b")
                .cmd("ZINCRBY", z, "x", "a")
                .cmd("ZINCRBY", z, "nx", "a")
                .cmd("ZINCRBY", z, "1")
                .cmd("ZINCRBY", k("fresh"), "-0", "m")
                .cmd("ZRANGE", z, "0", "-1", "WITHSCORES")
                .run();
    }

    @BothProtocols
    void zeroAndTies() throws Exception {
        String z = k("z");
        scenario("-0, 0 and ties broken by member")
                .cmd("ZADD", z, "-0", "b", "0", "a", "0", "c", "1", "aa", "1", "a1", "1", "")
                .cmd("ZRANGE", z, "0", "-1", "WITHSCORES")
                .cmd("ZSCORE", z, "b")
                .cmd("ZRANK", z, "b")
                .cmd("ZCOUNT", z, "0", "0")
                .cmd("ZCOUNT", z, "-0", "(0")
                .cmd("ZRANGEBYSCORE", z, "-0", "0")
                .cmd("ZREVRANGE", z, "0", "-1")
                .run();
    }

    @BothProtocols
    void rangesByRank() throws Exception {
        String z = k("z");
        scenario("ZRANGE / ZREVRANGE by rank")
                .cmd("ZADD", z, "1", "a", "2", "b", "3", "c", "4", "d", "5", "e")
                .cmd("ZRANGE", z, "0", "-1")
                .cmd("ZRANGE", z, "1", "3", "WITHSCORES")
                .cmd("ZRANGE", z, "-2", "-1")
                .cmd("ZRANGE", z, "-100", "100")
                .cmd("ZRANGE", z, "3", "1")
                .cmd("ZRANGE", z, "5", "10")
                .cmd("ZRANGE", z, "0", "0", "REV", "WITHSCORES")
                .cmd("ZRANGE", z, "0", "-1", "rev")
                .cmd("ZREVRANGE", z, "0", "1", "WITHSCORES")
                .cmd("ZREVRANGE", z, "-3", "-2")
                .cmd("ZRANGE", k("missing"), "0", "-1")
                .cmd("ZRANGE", z, "x", "1")
                .cmd("ZRANGE", z, "0", "1", "LIMIT", "0", "1")
                .cmd("ZRANGE", z, "0", "1", "LIMIT", "x", "1")
                .cmd("ZRANGE", z, "0", "1", "LIMIT", "0")
                .cmd("ZRANGE", z, "0", "1", "FOO")
                .cmd("ZRANGE", z, "0", "1", "REV", "REV")
                .cmd("ZREVRANGE", z, "0", "1", "REV")
                .cmd("ZREVRANGE", z, "0", "1", "BYSCORE")
                .cmd("ZRANGE", z, "0")
                .run();
    }

    @BothProtocols
    void rangesByScore() throws Exception {
        String z = k("z");
        scenario("ZRANGE BYSCORE, ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZCOUNT")
                .cmd("ZADD", z, "1", "a", "2", "b", "2", "bb", "3", "c", "4", "d", "5", "e", "-inf", "lo", "inf", "hi")
                .cmd("ZRANGEBYSCORE", z, "-inf", "+inf", "WITHSCORES")
                .cmd("ZRANGEBYSCORE", z, "2", "4")
                .cmd("ZRANGEBYSCORE", z, "(2", "4")
                .cmd("ZRANGEBYSCORE", z, "2", "(4")
                .cmd("ZRANGEBYSCORE", z, "(2", "(2")
                .cmd("ZRANGEBYSCORE", z, "4", "2")
                .cmd("ZRANGEBYSCORE", z, "(-inf", "(inf")
                .cmd("ZRANGEBYSCORE", z, "1", "5", "LIMIT", "1", "2")
                .cmd("ZRANGEBYSCORE", z, "1", "5", "LIMIT", "1", "-1")
                .cmd("ZRANGEBYSCORE", z, "1", "5", "LIMIT", "1", "0")
                .cmd("ZRANGEBYSCORE", z, "1", "5", "LIMIT", "-1", "2")
                .cmd("ZRANGEBYSCORE", z, "1", "5", "LIMIT", "100", "2")
                .cmd("ZRANGEBYSCORE", z, "1", "5", "WITHSCORES", "LIMIT", "0", "3")
                .cmd("ZREVRANGEBYSCORE", z, "5", "1")
                .cmd("ZREVRANGEBYSCORE", z, "(5", "(1", "WITHSCORES")
                .cmd("ZREVRANGEBYSCORE", z, "+inf", "-inf", "LIMIT", "2", "3")
                .cmd("ZREVRANGEBYSCORE", z, "1", "5")
                .cmd("ZRANGE", z, "2", "4", "BYSCORE", "WITHSCORES")
                .cmd("ZRANGE", z, "4", "2", "BYSCORE", "REV")
                .cmd("ZRANGE", z, "(4", "-inf", "BYSCORE", "REV", "LIMIT", "1", "2", "WITHSCORES")
                .cmd("ZCOUNT", z, "-inf", "+inf")
                .cmd("ZCOUNT", z, "(2", "3")
                .cmd("ZCOUNT", z, "2", "2")
                .cmd("ZCOUNT", z, "", "")
                .cmd("ZCOUNT", z, " 2", "( 3")
                .cmd("ZCOUNT", z, "(", "1e400")
                .cmd("ZCOUNT", z, "0x1", "2")
                .cmd("ZCOUNT", k("missing"), "0", "1")
                .cmd("ZCOUNT", z, "x", "1")
                .cmd("ZCOUNT", z, "1", "nan")
                .cmd("ZCOUNT", z, "((1", "2")
                .cmd("ZCOUNT", z, "1 ", "2")
                .cmd("ZRANGEBYSCORE", z, "a", "b")
                .cmd("ZRANGEBYSCORE", z, "1", "2", "BYSCORE")
                .cmd("ZRANGEBYSCORE", z, "1", "2", "REV")
                .cmd("ZRANGEBYSCORE", z, "1", "2", "LIMIT", "0", "x")
                .run();
    }

    @BothProtocols
    void rangesByLex() throws Exception {
        String z = k("z");
        scenario("ZRANGE BYLEX, ZRANGEBYLEX, ZREVRANGEBYLEX, ZLEXCOUNT")
                .cmd("ZADD", z, "0", "a", "0", "b", "0", "c", "0", "d", "0", "e", "0", "aa", "0", "", "0", "\u00ff")
                .cmd("ZRANGEBYLEX", z, "-", "+")
                .cmd("ZRANGEBYLEX", z, "[a", "[c")
                .cmd("ZRANGEBYLEX", z, "(a", "(c")
                .cmd("ZRANGEBYLEX", z, "[aa", "+")
                .cmd("ZRANGEBYLEX", z, "-", "(b")
                .cmd("ZRANGEBYLEX", z, "[", "[a")
                .cmd("ZRANGEBYLEX", z, "(", "+")
                .cmd("ZRANGEBYLEX", z, "+", "-")
                .cmd("ZRANGEBYLEX", z, "[c", "[a")
                .cmd("ZRANGEBYLEX", z, "[b", "[b")
                .cmd("ZRANGEBYLEX", z, "(b", "[b")
                .cmd("ZRANGEBYLEX", z, "-", "+", "LIMIT", "2", "3")
                .cmd("ZRANGEBYLEX", z, "-", "+", "LIMIT", "-1", "3")
                .cmd("ZREVRANGEBYLEX", z, "+", "-")
                .cmd("ZREVRANGEBYLEX", z, "[c", "(a", "LIMIT", "1", "1")
                .cmd("ZRANGE", z, "[b", "[d", "BYLEX")
                .cmd("ZRANGE", z, "[d", "[b", "BYLEX", "REV", "LIMIT", "0", "2")
                .cmd("ZLEXCOUNT", z, "-", "+")
                .cmd("ZLEXCOUNT", z, "[b", "(d")
                .cmd("ZLEXCOUNT", z, "+", "+")
                .cmd("ZLEXCOUNT", k("missing"), "-", "+")
                .cmd("ZLEXCOUNT", z, "a", "b")
                .cmd("ZLEXCOUNT", z, "", "+")
                .cmd("ZLEXCOUNT", z, "-x", "+")
                .cmd("ZRANGEBYLEX", z, "-", "+", "WITHSCORES")
                .cmd("ZRANGE", z, "-", "+", "BYLEX", "WITHSCORES")
                .cmd("ZRANGEBYLEX", z, "b", "c")
                .run();
    }

    @BothProtocols
    void zrangestore() throws Exception {
        String z = k("z");
        String d = k("d");
        scenario("ZRANGESTORE")
                .cmd("ZADD", z, "1", "a", "2", "b", "3", "c", "4", "d")
                .cmd("ZRANGESTORE", d, z, "1", "2")
                .cmd("ZRANGE", d, "0", "-1", "WITHSCORES")
                .cmd("ZRANGESTORE", d, z, "(1", "+inf", "BYSCORE", "LIMIT", "1", "5")
                .cmd("ZRANGE", d, "0", "-1", "WITHSCORES")
                .cmd("ZRANGESTORE", d, z, "[c", "-", "BYLEX", "REV")
                .cmd("ZRANGE", d, "0", "-1", "WITHSCORES")
                .cmd("ZRANGESTORE", d, z, "10", "20")
                .cmd("EXISTS", d)
                .cmd("ZRANGESTORE", d, k("missing"), "0", "-1")
                .cmd("ZRANGESTORE", z, z, "0", "1")
                .cmd("ZRANGE", z, "0", "-1", "WITHSCORES")
                .cmd("ZRANGESTORE", d, z, "0", "1", "WITHSCORES")
                .cmd("ZRANGESTORE", d, z, "0")
                .run();
    }

    @BothProtocols
    void removals() throws Exception {
        String z = k("z");
        String y = k("y");
        scenario("ZREM, ZREMRANGEBYRANK, ZREMRANGEBYSCORE, ZREMRANGEBYLEX")
                .cmd("ZADD", z, "1", "a", "2", "b", "3", "c", "4", "d", "5", "e", "6", "f")
                .cmd("ZREM", z, "a", "nosuch", "a")
                .cmd("ZREM", k("missing"), "a")
                .cmd("ZREMRANGEBYRANK", z, "0", "0")
                .cmd("ZREMRANGEBYRANK", z, "-1", "-1")
                .cmd("ZREMRANGEBYRANK", z, "5", "10")
                .cmd("ZREMRANGEBYRANK", z, "x", "1")
                .cmd("ZRANGE", z, "0", "-1")
                .cmd("ZREMRANGEBYSCORE", z, "(3", "4")
                .cmd("ZREMRANGEBYSCORE", z, "x", "4")
                .cmd("ZRANGE", z, "0", "-1")
                .cmd("ZREMRANGEBYSCORE", z, "-inf", "+inf")
                .cmd("EXISTS", z)
                .cmd("ZADD", y, "0", "a", "0", "b", "0", "c", "0", "d")
                .cmd("ZREMRANGEBYLEX", y, "(a", "[c")
                .cmd("ZREMRANGEBYLEX", y, "a", "[c")
                .cmd("ZRANGE", y, "0", "-1")
                .cmd("ZREM", y, "a", "d")
                .cmd("EXISTS", y)
                .cmd("ZREMRANGEBYLEX", k("missing"), "-", "+")
                .cmd("ZREMRANGEBYRANK", k("missing"), "0", "-1")
                .cmd("ZREM", z)
                .run();
    }

    @BothProtocols
    void pops() throws Exception {
        String z = k("z");
        String e = k("empty");
        scenario("ZPOPMIN, ZPOPMAX, ZMPOP")
                .cmd("ZADD", z, "1", "a", "2", "b", "3", "c", "4", "d", "5", "e")
                .cmd("ZPOPMIN", z)
                .cmd("ZPOPMAX", z)
                .cmd("ZPOPMIN", z, "1")
                .cmd("ZPOPMAX", z, "0")
                .cmd("ZPOPMIN", z, "-1")
                .cmd("ZPOPMIN", z, "x")
                .cmd("ZPOPMIN", z, "1", "2")
                .cmd("ZPOPMIN", e)
                .cmd("ZPOPMIN", e, "3")
                .cmd("ZPOPMIN", e, "0")
                .cmd("ZPOPMAX", z, "10")
                .cmd("EXISTS", z)
                .cmd("ZADD", z, "1", "a", "2", "b", "3", "c")
                .cmd("ZMPOP", "2", e, z, "MIN")
                .cmd("ZMPOP", "2", e, z, "max", "COUNT", "10")
                .cmd("ZMPOP", "1", z, "MIN")
                .cmd("EXISTS", z)
                .cmd("ZMPOP", "0", z, "MIN")
                .cmd("ZMPOP", "x", z, "MIN")
                .cmd("ZMPOP", "-1", z, "MIN")
                .cmd("ZMPOP", "5", z, "MIN")
                .cmd("ZMPOP", "1", z, "FOO")
                .cmd("ZMPOP", "1", z, "MIN", "COUNT", "0")
                .cmd("ZMPOP", "1", z, "MIN", "COUNT", "x")
                .cmd("ZMPOP", "1", z, "MIN", "COUNT")
                .cmd("ZMPOP", "1", z, "MIN", "COUNT", "1", "COUNT", "1")
                .cmd("ZMPOP", "1", z)
                .run();
    }

    @BothProtocols
    void setOperations() throws Exception {
        String a = k("a");
        String b = k("b");
        String c = k("c");
        String d = k("d");
        String m = k("missing");
        scenario("ZUNION, ZINTER, ZDIFF and STORE, WEIGHTS, AGGREGATE, ZINTERCARD")
                .cmd("ZADD", a, "1", "x", "2", "y", "3", "z")
                .cmd("ZADD", b, "10", "y", "20", "z", "30", "w")
                .cmd("ZADD", c, "inf", "x", "-inf", "y")
                .cmd("ZUNION", "2", a, b)
                .cmd("ZUNION", "2", a, b, "WITHSCORES")
                .cmd("ZUNION", "2", a, b, "WEIGHTS", "2", "0.5", "WITHSCORES")
                .cmd("ZUNION", "2", a, b, "AGGREGATE", "MIN", "WITHSCORES")
                .cmd("ZUNION", "2", a, b, "AGGREGATE", "max", "WITHSCORES")
                .cmd("ZUNION", "3", a, b, m, "WITHSCORES")
                .cmd("ZUNION", "2", a, c, "WITHSCORES")
                .cmd("ZUNION", "2", c, c, "WITHSCORES")
                .cmd("ZUNION", "2", c, a, "WEIGHTS", "0", "1", "WITHSCORES")
                .cmd("ZINTER", "2", a, b, "WITHSCORES")
                .cmd("ZINTER", "2", a, b, "WEIGHTS", "1", "-1", "AGGREGATE", "SUM", "WITHSCORES")
                .cmd("ZINTER", "2", a, c, "AGGREGATE", "MAX", "WITHSCORES")
                .cmd("ZINTER", "2", a, m)
                .cmd("ZINTER", "1", a)
                .cmd("ZDIFF", "2", a, b, "WITHSCORES")
                .cmd("ZDIFF", "2", m, a)
                .cmd("ZDIFF", "1", b)
                .cmd("ZUNIONSTORE", d, "2", a, b)
                .cmd("ZRANGE", d, "0", "-1", "WITHSCORES")
                .cmd("ZINTERSTORE", d, "2", a, b, "WEIGHTS", "2", "3")
                .cmd("ZRANGE", d, "0", "-1", "WITHSCORES")
                .cmd("ZDIFFSTORE", d, "2", a, b)
                .cmd("ZRANGE", d, "0", "-1", "WITHSCORES")
                .cmd("ZINTERSTORE", d, "2", a, m)
                .cmd("EXISTS", d)
                .cmd("ZUNIONSTORE", a, "2", a, b)
                .cmd("ZRANGE", a, "0", "-1", "WITHSCORES")
                .cmd("ZINTERCARD", "2", a, b)
                .cmd("ZINTERCARD", "2", a, b, "LIMIT", "1")
                .cmd("ZINTERCARD", "2", a, b, "LIMIT", "0")
                .cmd("ZINTERCARD", "2", a, m)
                .cmd("ZINTERCARD", "2", a, b, "LIMIT", "-1")
                .cmd("ZINTERCARD", "2", a, b, "LIMIT", "x")
                .cmd("ZINTERCARD", "0", a)
                .cmd("ZINTERCARD", "3", a, b)
                .cmd("ZINTERCARD", "2", a, b, "WITHSCORES")
                .cmd("ZUNION", "0", a)
                .cmd("ZUNION", "x", a)
                .cmd("ZUNION", "-1", a)
                .cmd("ZUNION", "3", a, b)
                .cmd("ZUNION", "2", a, b, "WEIGHTS", "1")
                .cmd("ZUNION", "2", a, b, "WEIGHTS", "1", "x")
                .cmd("ZUNION", "2", a, b, "WEIGHTS", "1", "nan")
                .cmd("ZUNION", "2", a, b, "AGGREGATE", "AVG")
                .cmd("ZUNION", "2", a, b, "AGGREGATE")
                .cmd("ZUNION", "2", a, b, "FOO")
                .cmd("ZDIFF", "2", a, b, "WEIGHTS", "1", "2")
                .cmd("ZDIFF", "2", a, b, "AGGREGATE", "MIN")
                .cmd("ZUNIONSTORE", d, "2", a, b, "WITHSCORES")
                .cmd("ZUNIONSTORE", d, "0", a)
                .cmd("ZINTERSTORE", d, "0", a)
                .cmd("ZDIFFSTORE", d, "0", a)
                .cmd("ZINTER", "0", a)
                .cmd("ZDIFF", "0", a)
                .run();
    }

    /** Redis takes a plain set as an input of the set operations, every member scoring 1. */
    @BothProtocols
    void plainSetsAsInputs() throws Exception {
        String z = k("z");
        String set = k("set");
        String ints = k("ints");
        String d = k("d");
        String h = k("h");
        scenario("plain sets as ZUNION/ZINTER/ZDIFF inputs")
                .cmd("ZADD", z, "1", "a", "2", "b", "3", "c")
                .cmd("SADD", set, "b", "c", "d", "e")
                .cmd("SADD", ints, "3", "1", "2")
                .cmd("ZUNION", "2", z, set, "WITHSCORES")
                .cmd("ZUNION", "2", z, set, "WEIGHTS", "1", "10", "WITHSCORES")
                .cmd("ZUNION", "2", z, set, "AGGREGATE", "MAX", "WITHSCORES")
                .cmd("ZINTER", "2", z, set, "WITHSCORES")
                .cmd("ZINTER", "2", set, z, "AGGREGATE", "MIN", "WITHSCORES")
                .cmd("ZDIFF", "2", set, z, "WITHSCORES")
                .cmd("ZDIFF", "2", z, set)
                .cmd("ZDIFF", "1", set, "WITHSCORES")
                .cmd("ZDIFF", "1", ints, "WITHSCORES")
                .cmd("ZUNION", "1", ints, "WITHSCORES")
                .cmd("ZINTERCARD", "2", z, set)
                .cmd("ZINTERCARD", "2", set, ints, "LIMIT", "1")
                .cmd("ZUNIONSTORE", d, "2", z, set)
                .cmd("ZRANGE", d, "0", "-1", "WITHSCORES")
                .cmd("ZINTERSTORE", d, "2", set, set)
                .cmd("ZRANGE", d, "0", "-1", "WITHSCORES")
                .cmd("HSET", h, "f", "v")
                .cmd("ZUNION", "2", z, h)
                .cmd("ZINTERCARD", "2", h, set)
                .run();
    }

    @BothProtocols
    void wrongType() throws Exception {
        String s = k("s");
        String z = k("z");
        String d = k("d");
        scenario("WRONGTYPE")
                .cmd("SET", s, "v")
                .cmd("ZADD", z, "1", "a")
                .cmd("ZADD", s, "1", "a")
                .cmd("ZINCRBY", s, "1", "a")
                .cmd("ZREM", s, "a")
                .cmd("ZSCORE", s, "a")
                .cmd("ZMSCORE", s, "a")
                .cmd("ZCARD", s)
                .cmd("ZCOUNT", s, "0", "1")
                .cmd("ZCOUNT", s, "x", "1")
                .cmd("ZLEXCOUNT", s, "-", "+")
                .cmd("ZRANGE", s, "0", "-1")
                .cmd("ZRANGE", s, "x", "-1")
                .cmd("ZRANGEBYSCORE", s, "0", "1")
                .cmd("ZRANGEBYLEX", s, "-", "+")
                .cmd("ZREVRANGE", s, "0", "1")
                .cmd("ZRANGESTORE", d, s, "0", "1")
                .cmd("ZRANK", s, "a")
                .cmd("ZREVRANK", s, "a")
                .cmd("ZPOPMIN", s)
                .cmd("ZPOPMAX", s, "0")
                .cmd("ZMPOP", "2", s, z, "MIN")
                .cmd("ZMPOP", "2", z, s, "MIN")
                .cmd("ZREMRANGEBYRANK", s, "0", "1")
                .cmd("ZREMRANGEBYSCORE", s, "0", "1")
                .cmd("ZREMRANGEBYLEX", s, "-", "+")
                .cmd("ZUNION", "2", z, s)
                .cmd("ZUNION", "2", z, s, "FOO")
                .cmd("ZINTER", "1", s)
                .cmd("ZDIFF", "2", z, s)
                .cmd("ZUNIONSTORE", d, "1", s)
                .cmd("ZINTERCARD", "1", s)
                .cmd("ZRANDMEMBER", s)
                .cmd("ZRANDMEMBER", s, "2")
                .cmd("ZSCAN", s, "0")
                .cmd("ZSCAN", s, "0", "FOO")
                .cmd("GET", s)
                .run();
    }

    @BothProtocols
    void storeOverwritesAnyType() throws Exception {
        String z = k("z");
        String s = k("s");
        scenario("STORE forms overwrite a string destination")
                .cmd("ZADD", z, "1", "a", "2", "b")
                .cmd("SET", s, "v")
                .cmd("ZUNIONSTORE", s, "1", z)
                .cmd("TYPE", s)
                .cmd("ZRANGE", s, "0", "-1", "WITHSCORES")
                .run();
    }

    @BothProtocols
    void zrandmember() throws Exception {
        String z = k("z");
        String m = k("missing");
        scenario("ZRANDMEMBER")
                .cmd("ZADD", z, "1", "a", "2", "b", "3", "c")
                .check(Check.SHAPE, "ZRANDMEMBER", z)
                .cmd("ZRANDMEMBER", z, "3")
                .cmd("ZRANDMEMBER", z, "10", "WITHSCORES")
                .check(Check.SHAPE, "ZRANDMEMBER", z, "2")
                .check(Check.SHAPE, "ZRANDMEMBER", z, "-5")
                .check(Check.SHAPE, "ZRANDMEMBER", z, "-5", "WITHSCORES")
                .check(Check.SHAPE, "ZRANDMEMBER", z, "2", "WITHSCORES")
                .cmd("ZRANDMEMBER", z, "0")
                .cmd("ZRANDMEMBER", z, "0", "WITHSCORES")
                .cmd("ZRANDMEMBER", m)
                .cmd("ZRANDMEMBER", m, "5")
                .cmd("ZRANDMEMBER", m, "5", "WITHSCORES")
                .cmd("ZRANDMEMBER", z, "x")
                .cmd("ZRANDMEMBER", z, "1", "FOO")
                .cmd("ZRANDMEMBER", z, "1", "WITHSCORES", "x")
                .cmd("ZRANDMEMBER", z, "-9223372036854775808")
                .cmd("ZRANDMEMBER", z, "9223372036854775807", "WITHSCORES")
                .cmd("ZRANDMEMBER", z, "-9223372036854775807", "WITHSCORES")
                .run();
    }

    @BothProtocols
    void zscanSmall() throws Exception {
        String z = k("z");
        scenario("ZSCAN of a listpack-sized set")
                .cmd("ZADD", z, "1", "a", "2.5", "b", "-inf", "c", "0.1", "d")
                .cmd("ZSCAN", z, "0")
                .cmd("ZSCAN", z, "0", "COUNT", "1")
                .cmd("ZSCAN", z, "0", "MATCH", "[ab]")
                .cmd("ZSCAN", z, "0", "MATCH", "*", "COUNT", "100")
                .cmd("ZSCAN", k("missing"), "0")
                .cmd("ZSCAN", k("missing"), "0", "FOO")
                .cmd("ZSCAN", z, "x")
                .cmd("ZSCAN", z, "0", "COUNT", "0")
                .cmd("ZSCAN", z, "0", "COUNT", "x")
                .cmd("ZSCAN", z, "0", "TYPE", "zset")
                .cmd("ZSCAN", z, "0", "MATCH")
                .run();
    }

    @BothProtocols
    void encodings() throws Exception {
        String small = k("small");
        String longMember = k("long");
        String big = k("big");
        Scenario s = scenario("OBJECT ENCODING listpack and skiplist")
                .cmd("ZADD", small, "1", "a")
                .cmd("OBJECT", "ENCODING", small)
                .cmd("ZADD", longMember, "1", "x".repeat(65))
                .cmd("OBJECT", "ENCODING", longMember)
                .cmd("TYPE", small);
        String[] args = new String[2 + 2 * 129];
        args[0] = "ZADD";
        args[1] = big;
        for (int i = 0; i < 129; i++) {
            args[2 + 2 * i] = Integer.toString(i);
            args[3 + 2 * i] = "m" + i;
        }
        s.cmd(args)
                .cmd("OBJECT", "ENCODING", big)
                .cmd("ZREMRANGEBYRANK", big, "0", "100")
                .cmd("OBJECT", "ENCODING", big)
                .cmd("ZCARD", big)
                .cmd("ZRANGE", big, "0", "-1", "WITHSCORES")
                .run();
    }

    @BothProtocols
    void arity() throws Exception {
        String z = k("z");
        scenario("arity errors")
                .cmd("ZSCORE", z)
                .cmd("ZCARD")
                .cmd("ZREM", z)
                .cmd("ZMSCORE", z)
                .cmd("ZCOUNT", z, "0")
                .cmd("ZRANK", z)
                .cmd("ZREVRANK", z, "a", "b")
                .cmd("ZPOPMIN")
                .cmd("ZMPOP", "1", z)
                .cmd("ZUNION", "1")
                .cmd("ZUNIONSTORE", z, "1")
                .cmd("ZINTERCARD", "1")
                .cmd("ZRANDMEMBER")
                .cmd("ZSCAN", z)
                .cmd("ZRANGESTORE", z, z, "0")
                .cmd("ZREMRANGEBYLEX", z, "-")
                .run();
    }

    /** Past the listpack size (skiplist in Redis): ranges, ranks, pops, set operations, ZSCAN's shape. */
    @BothProtocols
    void largeSets() throws Exception {
        String z = k("z");
        String y = k("y");
        String d = k("d");
        String[] za = new String[2 + 2 * 300];
        String[] ya = new String[2 + 2 * 200];
        za[0] = "ZADD";
        za[1] = z;
        ya[0] = "ZADD";
        ya[1] = y;
        for (int i = 0; i < 300; i++) {
            za[2 + 2 * i] = Integer.toString(i % 37) + "." + (i % 3);
            za[3 + 2 * i] = "member:" + i;
        }
        for (int i = 0; i < 200; i++) {
            ya[2 + 2 * i] = Integer.toString(i % 11);
            ya[3 + 2 * i] = "member:" + (i * 2);
        }
        scenario("large sorted sets")
                .cmd(za)
                .cmd(ya)
                .cmd("ZCARD", z)
                .cmd("ZRANGE", z, "0", "-1", "WITHSCORES")
                .cmd("ZRANGE", z, "100", "120", "REV", "WITHSCORES")
                .cmd("ZRANGEBYSCORE", z, "(5", "7.1", "WITHSCORES", "LIMIT", "3", "10")
                .cmd("ZREVRANGEBYSCORE", z, "30", "(20", "LIMIT", "5", "5")
                .cmd("ZCOUNT", z, "10", "20")
                .cmd("ZRANK", z, "member:150")
                .cmd("ZREVRANK", z, "member:150")
                .cmd("ZMSCORE", z, "member:1", "member:299", "nosuch")
                .cmd("ZUNION", "2", z, y, "WEIGHTS", "1", "2", "WITHSCORES")
                .cmd("ZINTER", "2", z, y, "AGGREGATE", "MAX", "WITHSCORES")
                .cmd("ZDIFF", "2", z, y, "WITHSCORES")
                .cmd("ZINTERCARD", "2", z, y, "LIMIT", "50")
                .cmd("ZUNIONSTORE", d, "2", z, y)
                .cmd("ZRANGE", d, "0", "-1", "WITHSCORES")
                .cmd("ZRANDMEMBER", y, "500", "WITHSCORES")
                .check(Check.SHAPE, "ZRANDMEMBER", z, "5")
                .cmd("ZPOPMIN", z, "7")
                .cmd("ZPOPMAX", z, "7")
                .cmd("ZMPOP", "2", k("none"), z, "MAX", "COUNT", "3")
                .cmd("ZREMRANGEBYRANK", z, "10", "-10")
                .cmd("ZRANGE", z, "0", "-1", "WITHSCORES")
                .cmd("ZREMRANGEBYSCORE", y, "2", "(8")
                .cmd("ZRANGE", y, "0", "-1", "WITHSCORES")
                .run();
    }

    @BothProtocols
    void insideMulti() throws Exception {
        String a = k("a");
        String b = k("b");
        String d = k("d");
        scenario("sorted sets inside MULTI")
                .cmd("MULTI")
                .cmd("ZADD", a, "1", "x", "2", "y")
                .cmd("ZADD", b, "3", "y")
                .cmd("ZUNIONSTORE", d, "2", a, b)
                .cmd("ZMPOP", "2", a, b, "MIN")
                .cmd("ZRANGE", d, "0", "-1", "WITHSCORES")
                .cmd("EXEC")
                .run();
    }

    @BothProtocols
    void commandTable() throws Exception {
        Scenario s = scenario("COMMAND INFO of the sorted set commands");
        for (String c : new String[] {"zadd", "zincrby", "zrem", "zscore", "zmscore", "zcard", "zcount", "zlexcount",
            "zrange", "zrangestore", "zrangebyscore", "zrevrangebyscore", "zrangebylex", "zrevrangebylex", "zrevrange",
            "zrank", "zrevrank", "zpopmin", "zpopmax", "zmpop", "zremrangebyrank", "zremrangebyscore", "zremrangebylex",
            "zunion", "zinter", "zdiff", "zunionstore", "zinterstore", "zdiffstore", "zintercard", "zrandmember",
            "zscan"}) {
            s.check(Check.leadingFields(6), "COMMAND", "INFO", c);
        }
        s.run();
    }
}
