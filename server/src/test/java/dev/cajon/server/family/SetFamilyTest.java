package dev.cajon.server.family;

import static dev.cajon.server.testkit.RespAssertions.assertArray;
import static dev.cajon.server.testkit.RespAssertions.assertError;
import static dev.cajon.server.testkit.RespAssertions.assertNil;
import static dev.cajon.server.testkit.RespAssertions.assertReply;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.testkit.FamilyTestBase;
import dev.cajon.server.testkit.Reply;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The set commands in-process: membership, SPOP and SRANDMEMBER counts, SMOVE, the algebra and
 * its STORE forms, SINTERCARD's arguments, SSCAN over a set large enough to be paged, and the
 * error texts.
 */
class SetFamilyTest extends FamilyTestBase {

    private Set<String> members(Reply r) {
        Set<String> out = new HashSet<>();
        List<Reply> items = r instanceof Reply.Set s ? s.items() : r.asArray();
        items.forEach(x -> assertTrue(out.add(x.asString()), "a member twice"));
        return out;
    }

    @Test
    void addRemoveAndMembership() {
        assertReply(run("sadd", "s", "a", "b", "a"), 2);
        assertReply(run("sadd", "s", "b", "c"), 1);
        assertReply(run("scard", "s"), 3);
        assertReply(run("sismember", "s", "a"), 1);
        assertReply(run("sismember", "s", "z"), 0);
        assertArray(run("smismember", "s", "a", "z", "c"), 1L, 0L, 1L);
        assertEquals(Set.of("a", "b", "c"), members(run("smembers", "s")));
        assertReply(run("srem", "s", "a", "z"), 1);
        assertReply(run("srem", "s", "b", "c"), 2);
        assertReply(run("scard", "s"), 0);
        assertArray(run("smembers", "s"));
    }

    @Test
    void popAndRandom() {
        run("sadd", "s", "1", "2", "3", "4", "5");
        assertTrue(Set.of("1", "2", "3", "4", "5").contains(run("srandmember", "s").asString()));
        assertEquals(3, members(run("srandmember", "s", "3")).size());
        assertEquals(5, members(run("srandmember", "s", "30")).size());
        assertEquals(30, run("srandmember", "s", "-30").asArray().size());
        assertEquals(2, members(run("spop", "s", "2")).size());
        assertReply(run("scard", "s"), 3);
        assertEquals(3, members(run("spop", "s", "10")).size());
        assertNil(run("spop", "s"));
        assertNil(run("srandmember", "s"));
        assertError(run("spop", "s", "-1"), "ERR value is out of range, must be positive");
        assertError(run("spop", "s", "x"), "ERR value is out of range, must be positive");
        assertError(run("spop", "s", "1", "2"), "ERR syntax error");
        assertError(run("srandmember", "s", "x"), "ERR value is not an integer or out of range");
    }

    @Test
    void moveAndAlgebra() {
        run("sadd", "a", "1", "2", "3");
        run("sadd", "b", "3", "4");
        assertReply(run("smove", "a", "b", "1"), 1);
        assertReply(run("smove", "a", "b", "1"), 0);
        assertReply(run("smove", "a", "a", "2"), 1);
        assertReply(run("smove", "none", "b", "2"), 0);
        assertEquals(Set.of("1", "3", "4"), members(run("smembers", "b")));
        assertEquals(Set.of("3"), members(run("sinter", "a", "b")));
        assertEquals(Set.of("1", "2", "3", "4"), members(run("sunion", "a", "b")));
        assertEquals(Set.of("2"), members(run("sdiff", "a", "b")));
        assertReply(run("sunionstore", "d", "a", "b"), 4);
        assertEquals(Set.of("1", "2", "3", "4"), members(run("smembers", "d")));
        assertReply(run("sinterstore", "d", "a", "none"), 0);
        assertReply(run("scard", "d"), 0);
        assertReply(run("sintercard", "2", "a", "b"), 1);
        assertReply(run("sintercard", "1", "d"), 0);
        assertReply(run("sintercard", "1", "b", "limit", "2"), 2);
        assertError(run("sintercard", "0", "a"), "ERR numkeys should be greater than 0");
        assertError(run("sintercard", "3", "a"), "ERR Number of keys can't be greater than number of args");
        assertError(run("sintercard", "1", "a", "limit", "-1"), "ERR LIMIT can't be negative");
        assertError(run("sintercard", "1", "a", "nope"), "ERR syntax error");
    }

    @Test
    void scanReturnsEveryMemberOnce() {
        Object[] cmd = new Object[2 + 1000];
        cmd[0] = "sadd";
        cmd[1] = "big";
        for (int i = 0; i < 1000; i++) {
            cmd[2 + i] = "m" + i;
        }
        assertReply(run(cmd), 1000);
        Set<String> seen = new HashSet<>();
        String cursor = "0";
        int calls = 0;
        do {
            List<Reply> r = run("sscan", "big", cursor, "count", "50").asArray();
            cursor = r.get(0).asString();
            r.get(1).asArray().forEach(x -> assertTrue(seen.add(x.asString())));
            calls++;
        } while (!cursor.equals("0") && calls < 1000);
        assertEquals(1000, seen.size());
        assertTrue(calls >= 20);
        assertError(run("sscan", "big", "0", "count", "0"), "ERR syntax error");
        assertArray(run("sscan", "none", "0", "what"), "0", new Reply.Array(List.of()));
    }
}
