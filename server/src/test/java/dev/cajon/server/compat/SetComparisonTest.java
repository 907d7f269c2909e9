package dev.cajon.server.compat;

import static dev.cajon.server.compat.CollectionChecks.UNORDERED;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;

/**
 * Sets against Redis 7.0: every command, option and error, in RESP2 and RESP3. Member order
 * differs by design (see {@link CollectionChecks}), so whole-set replies are compared in any
 * order and SPOP/SRANDMEMBER by their properties; a scenario pops at random only where what stays
 * is then known (SCARD, or a count that takes everything). Keys are per scenario and protocol:
 * until the engine's collections join the keyspace, FLUSHALL does not clear them.
 */
class SetComparisonTest extends ComparisonTestBase {

    String k(String name) {
        return name + ":" + protocol.name();
    }

    @BothProtocols
    void addRemoveAndMembership() throws Exception {
        String s = k("ss1");
        String none = k("ss1-none");
        scenario("SADD, SREM, SMEMBERS, SISMEMBER, SMISMEMBER, SCARD")
                .cmd("SADD", s, "a", "b", "c")
                .cmd("SADD", s, "a", "d", "d")
                .cmd("SADD", s, "", "bin\u0000ary", "1", "-1", "01")
                .cmd("SCARD", s)
                .cmd("SCARD", none)
                .cmd("SISMEMBER", s, "a")
                .cmd("SISMEMBER", s, "zz")
                .cmd("SISMEMBER", s, "")
                .cmd("SISMEMBER", none, "a")
                .cmd("SMISMEMBER", s, "a", "zz", "01", "1", "a")
                .cmd("SMISMEMBER", none, "a", "b")
                .check(UNORDERED, "SMEMBERS", s)
                .cmd("SMEMBERS", none)
                .cmd("SREM", s, "a", "zz", "a", "b")
                .cmd("SREM", none, "a")
                .cmd("SCARD", s)
                .cmd("SREM", s, "c", "d", "", "bin\u0000ary", "1", "-1", "01")
                .cmd("SCARD", s)
                .cmd("SMEMBERS", s)
                .cmd("SISMEMBER", s, "a")
                .cmd("SADD", s, "again")
                .cmd("SMEMBERS", s)
                .run();
    }

    @BothProtocols
    void arity() throws Exception {
        String s = k("ss2");
        scenario("set arity")
                .cmd("SADD", s)
                .cmd("SREM", s)
                .cmd("SMEMBERS")
                .cmd("SMEMBERS", s, "x")
                .cmd("SISMEMBER", s)
                .cmd("SISMEMBER", s, "a", "b")
                .cmd("SMISMEMBER", s)
                .cmd("SCARD")
                .cmd("SPOP")
                .cmd("SPOP", s, "1", "2")
                .cmd("SRANDMEMBER")
                .cmd("SRANDMEMBER", s, "1", "2")
                .cmd("SMOVE", s, "x")
                .cmd("SINTER")
                .cmd("SUNION")
                .cmd("SDIFF")
                .cmd("SINTERSTORE", s)
                .cmd("SUNIONSTORE", s)
                .cmd("SDIFFSTORE", s)
                .cmd("SINTERCARD", "1")
                .cmd("SSCAN", s)
                .cmd("SCARD", s)
                .run();
    }

    @BothProtocols
    void spop() throws Exception {
        String s = k("ss3");
        Set<String> members = Set.of("a", "b", "c", "d", "e", "f");
        Check one = CollectionChecks.randomPick(members, true, false);
        scenario("SPOP")
                .cmd("SADD", s, "a", "b", "c", "d", "e", "f")
                .check(one, "SPOP", s)
                .cmd("SCARD", s)
                .check(one, "SPOP", s, "2")
                .cmd("SCARD", s)
                .check(one, "SPOP", s, "0")
                .cmd("SCARD", s)
                .check(one, "SPOP", s, "3")
                .cmd("SCARD", s)
                .check(one, "SPOP", s, "5")
                .cmd("SCARD", s)
                .cmd("SMEMBERS", s)
                .cmd("SPOP", s)
                .cmd("SPOP", s, "2")
                .cmd("SPOP", s, "0")
                .cmd("SADD", s, "x", "y")
                .check(UNORDERED, "SPOP", s, "2")
                .cmd("SCARD", s)
                .cmd("SADD", s, "z")
                .cmd("SPOP", s)
                .cmd("SCARD", s)
                .cmd("SADD", s, "z")
                .cmd("SPOP", s, "-1")
                .cmd("SPOP", s, "x")
                .cmd("SPOP", s, "1.5")
                .cmd("SPOP", s, LLONG_MIN)
                .cmd("SPOP", s, "1", "x")
                .cmd("SPOP", k("ss3-none"), "-1")
                .cmd("SPOP", k("ss3-none"), "3")
                .run();
    }

    @BothProtocols
    void srandmember() throws Exception {
        String s = k("ss4");
        Set<String> members = Set.of("a", "b", "c", "d", "e");
        Check distinct = CollectionChecks.randomPick(members, true, false);
        Check repeats = CollectionChecks.randomPick(members, false, false);
        scenario("SRANDMEMBER")
                .cmd("SADD", s, "a", "b", "c", "d", "e")
                .check(distinct, "SRANDMEMBER", s)
                .check(distinct, "SRANDMEMBER", s, "1")
                .check(distinct, "SRANDMEMBER", s, "3")
                .check(UNORDERED, "SRANDMEMBER", s, "5")
                .check(UNORDERED, "SRANDMEMBER", s, "50")
                .check(repeats, "SRANDMEMBER", s, "-3")
                .check(repeats, "SRANDMEMBER", s, "-30")
                .cmd("SRANDMEMBER", s, "0")
                .cmd("SCARD", s)
                .cmd("SRANDMEMBER", k("ss4-none"))
                .cmd("SRANDMEMBER", k("ss4-none"), "5")
                .cmd("SRANDMEMBER", k("ss4-none"), "-5")
                .cmd("SRANDMEMBER", s, "x")
                .cmd("SRANDMEMBER", s, LLONG_MIN)
                .cmd("SRANDMEMBER", k("ss4-none"), LLONG_MIN)
                .cmd("SRANDMEMBER", s, "1", "2")
                .run();
    }

    @BothProtocols
    void smove() throws Exception {
        String a = k("ss5a");
        String b = k("ss5b");
        String c = k("ss5c");
        String none = k("ss5-none");
        scenario("SMOVE")
                .cmd("SADD", a, "1", "2", "x")
                .cmd("SMOVE", a, b, "1")
                .cmd("SMOVE", a, b, "1")
                .cmd("SMOVE", a, b, "zz")
                .cmd("SMEMBERS", b)
                .cmd("SCARD", a)
                .cmd("SMOVE", a, a, "2")
                .cmd("SMOVE", a, a, "zz")
                .cmd("SCARD", a)
                .cmd("SMOVE", none, a, "1")
                .cmd("SMOVE", a, c, "2")
                .cmd("SMOVE", a, c, "x")
                .check(UNORDERED, "SMEMBERS", c)
                .cmd("SCARD", a)
                .cmd("SMEMBERS", a)
                .cmd("SMOVE", b, c, "1")
                .cmd("SCARD", b)
                .cmd("SCARD", c)
                .run();
    }

    @BothProtocols
    void algebra() throws Exception {
        String a = k("ss6a");
        String b = k("ss6b");
        String c = k("ss6c");
        String d = k("ss6d");
        String none = k("ss6-none");
        scenario("SINTER, SUNION, SDIFF and their STORE forms")
                .cmd("SADD", a, "1", "2", "3", "x", "y")
                .cmd("SADD", b, "2", "3", "4", "y")
                .cmd("SADD", c, "3", "y", "z")
                .check(UNORDERED, "SINTER", a, b)
                .check(UNORDERED, "SINTER", a, b, c)
                .check(UNORDERED, "SINTER", a)
                .check(UNORDERED, "SINTER", a, a)
                .cmd("SINTER", a, none)
                .cmd("SINTER", none, a)
                .check(UNORDERED, "SUNION", a, b, c)
                .check(UNORDERED, "SUNION", a, none)
                .cmd("SUNION", none)
                .check(UNORDERED, "SDIFF", a, b)
                .check(UNORDERED, "SDIFF", a, b, c)
                .check(UNORDERED, "SDIFF", a, none)
                .cmd("SDIFF", none, a)
                .cmd("SDIFF", a, a)
                .cmd("SINTERSTORE", d, a, b)
                .check(UNORDERED, "SMEMBERS", d)
                .cmd("SUNIONSTORE", d, a, b, c)
                .check(UNORDERED, "SMEMBERS", d)
                .cmd("SDIFFSTORE", d, a, b)
                .check(UNORDERED, "SMEMBERS", d)
                .cmd("SINTERSTORE", d, a, none)
                .cmd("SCARD", d)
                .cmd("SMEMBERS", d)
                .cmd("SUNIONSTORE", d, none)
                .cmd("SDIFFSTORE", d, a, a)
                .cmd("SCARD", d)
                .cmd("SUNIONSTORE", a, a, b)
                .check(UNORDERED, "SMEMBERS", a)
                .cmd("SINTERSTORE", a, a, c)
                .check(UNORDERED, "SMEMBERS", a)
                .cmd("SDIFFSTORE", b, b, a)
                .check(UNORDERED, "SMEMBERS", b)
                .run();
    }

    @BothProtocols
    void sintercard() throws Exception {
        String a = k("ss7a");
        String b = k("ss7b");
        String none = k("ss7-none");
        scenario("SINTERCARD")
                .cmd("SADD", a, "1", "2", "3", "4", "5")
                .cmd("SADD", b, "2", "3", "4", "9")
                .cmd("SINTERCARD", "1", a)
                .cmd("SINTERCARD", "2", a, b)
                .cmd("SINTERCARD", "2", a, b, "LIMIT", "0")
                .cmd("SINTERCARD", "2", a, b, "LIMIT", "2")
                .cmd("SINTERCARD", "2", a, b, "limit", "100")
                .cmd("SINTERCARD", "2", a, b, "LIMIT", "1", "LIMIT", "2")
                .cmd("SINTERCARD", "2", a, none)
                .cmd("SINTERCARD", "1", none)
                .cmd("SINTERCARD", "0", a)
                .cmd("SINTERCARD", "-1", a)
                .cmd("SINTERCARD", "x", a)
                .cmd("SINTERCARD", "3", a, b)
                .cmd("SINTERCARD", "1", a, "LIMIT", "-1")
                .cmd("SINTERCARD", "1", a, "LIMIT", "x")
                .cmd("SINTERCARD", "1", a, "LIMIT")
                .cmd("SINTERCARD", "1", a, "foo", "1")
                .cmd("SINTERCARD", "1", a, b)
                .cmd("SINTERCARD", "9223372036854775807", a)
                .run();
    }

    @BothProtocols
    void sscanOfASmallSet() throws Exception {
        String s = k("ss8");
        String none = k("ss8-none");
        scenario("SSCAN of a small set, and its errors")
                .cmd("SADD", s, "1", "2", "3", "10")
                .check(CollectionChecks.scanWhole(false), "SSCAN", s, "0")
                .check(CollectionChecks.scanWhole(false), "SSCAN", s, "0", "COUNT", "1")
                .check(CollectionChecks.scanWhole(false), "SSCAN", s, "0", "MATCH", "1*")
                .cmd("SSCAN", none, "0")
                .cmd("SSCAN", none, "0", "bad")
                .cmd("SSCAN", s, "x")
                .cmd("SSCAN", s, "0", "COUNT", "0")
                .cmd("SSCAN", s, "0", "COUNT", "x")
                .cmd("SSCAN", s, "0", "MATCH")
                .cmd("SSCAN", s, "0", "TYPE", "set")
                .run();
    }

    /** A set past the intset limits is scanned in pages: every member comes exactly once. */
    @BothProtocols
    void sscanOfALargeSetReturnsEveryMember() throws Exception {
        String s = k("ss9");
        RespClient[] both = connectBoth();
        try (RespClient r = both[0]; RespClient c = both[1]) {
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 1500; i += 250) {
                List<String> argv = new ArrayList<>(List.of("SADD", s));
                for (int j = i; j < i + 250; j++) {
                    argv.add("m" + j);
                    expected.add("m" + j);
                }
                String[] a = argv.toArray(new String[0]);
                assertEquals(":250\r\n", raw(r.call(a)));
                assertEquals(":250\r\n", raw(c.call(a)));
            }
            Collections.sort(expected);
            for (RespClient x : both) {
                List<String> got = CollectionChecks.scanAll(x, "SSCAN", s, "23", false);
                Collections.sort(got);
                assertEquals(expected, got, protocol.label() + " every member once");
            }
        }
    }

    /** What needs the engine's collections in the keyspace: skipped until then. */
    @BothProtocols
    void keyCommandsAndEncodings() throws Exception {
        assumeCollectionsInTheKeyspace();
        List<String> argv = new ArrayList<>(List.of("SADD", "big"));
        for (int i = 0; i < 512; i++) {
            argv.add(Integer.toString(i));
        }
        scenario("sets, the key commands and OBJECT ENCODING")
                .cmd("SET", "str", "x")
                .cmd("SADD", "str", "a")
                .cmd("SREM", "str", "a")
                .cmd("SMEMBERS", "str")
                .cmd("SISMEMBER", "str", "a")
                .cmd("SMISMEMBER", "str", "a")
                .cmd("SCARD", "str")
                .cmd("SPOP", "str")
                .cmd("SPOP", "str", "1")
                .cmd("SPOP", "str", "x")
                .cmd("SRANDMEMBER", "str")
                .cmd("SRANDMEMBER", "str", "1")
                .cmd("SSCAN", "str", "0")
                .cmd("SADD", "s", "1", "2")
                .cmd("SINTER", "s", "str")
                .cmd("SINTER", "none", "str")
                .cmd("SUNION", "str", "none")
                .cmd("SDIFF", "none", "str")
                .cmd("SINTERCARD", "2", "none", "str")
                .cmd("SINTERSTORE", "d", "s", "str")
                .cmd("SMOVE", "s", "str", "1")
                .cmd("SMOVE", "str", "s", "1")
                .cmd("SMOVE", "none", "str", "1")
                .cmd("SUNIONSTORE", "str", "s")
                .cmd("TYPE", "str")
                .cmd("OBJECT", "ENCODING", "s")
                .cmd("SADD", "s", "a")
                .cmd("OBJECT", "ENCODING", "s")
                .cmd("SREM", "s", "a")
                .cmd("OBJECT", "ENCODING", "s")
                .cmd(argv.toArray(new String[0]))
                .cmd("OBJECT", "ENCODING", "big")
                .cmd("SADD", "big", "512")
                .cmd("OBJECT", "ENCODING", "big")
                .cmd("SPOP", "big", "510")
                .cmd("OBJECT", "ENCODING", "big")
                .cmd("SET", "d2", "x", "EX", "100")
                .cmd("SUNIONSTORE", "d2", "s")
                .cmd("TTL", "d2")
                .cmd("TYPE", "d2")
                .cmd("EXPIRE", "s", "100")
                .cmd("SADD", "s", "9")
                .check(Check.within(100, 1), "TTL", "s")
                .cmd("SREM", "s", "1", "2", "9")
                .cmd("EXISTS", "s")
                .cmd("SADD", "e", "1")
                .cmd("SPOP", "e")
                .cmd("EXISTS", "e")
                .cmd("DEL", "big")
                .cmd("SCARD", "big")
                .run();
    }

    private static String raw(Reply r) {
        return new String(r.raw(), StandardCharsets.ISO_8859_1);
    }

    void assumeCollectionsInTheKeyspace() throws Exception {
        try (RespClient c = RespClient.connect(cajonPort())) {
            c.call("SET", "probe:collections", "x");
            Reply r = c.call("SCARD", "probe:collections");
            c.call("DEL", "probe:collections");
            Assumptions.assumeTrue(r.isError(),
                    "collections are not in the keyspace yet (MemoryCollectionAccess): needs the engine's");
        }
    }
}
