package dev.cajon.server.family;

import static dev.cajon.server.testkit.RespAssertions.assertArray;
import static dev.cajon.server.testkit.RespAssertions.assertError;
import static dev.cajon.server.testkit.RespAssertions.assertNil;
import static dev.cajon.server.testkit.RespAssertions.assertOk;
import static dev.cajon.server.testkit.RespAssertions.assertReply;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.testkit.FamilyTestBase;
import dev.cajon.server.testkit.Reply;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The hash commands in-process: values, counters, random fields, HSCAN's cursor over a hash large
 * enough to leave the listpack encoding, and the error texts.
 */
class HashFamilyTest extends FamilyTestBase {
    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    @Test
    void setGetAndDelete() {
        assertReply(run("hset", "h", "a", "1", "b", "2"), 2);
        assertReply(run("hset", "h", "a", "3", "c", "4"), 1);
        assertReply(run("hget", "h", "a"), "3");
        assertNil(run("hget", "h", "zz"));
        assertNil(run("hget", "nokey", "a"));
        assertArray(run("hmget", "h", "a", "zz", "c"), "3", null, "4");
        assertReply(run("hlen", "h"), 3);
        assertReply(run("hexists", "h", "b"), 1);
        assertReply(run("hstrlen", "h", "a"), 1);
        assertOk(run("hmset", "h", "d", "dd"));
        assertReply(run("hsetnx", "h", "d", "x"), 0);
        assertReply(run("hsetnx", "h", "e", "x"), 1);
        Map<String, String> all = pairs(run("hgetall", "h"));
        assertEquals(Map.of("a", "3", "b", "2", "c", "4", "d", "dd", "e", "x"), all);
        assertEquals(all.keySet(), strings(run("hkeys", "h")));
        assertReply(run("hdel", "h", "a", "b", "c", "d", "nope"), 4);
        assertReply(run("hdel", "h", "e"), 1);
        assertReply(run("hlen", "h"), 0);
        assertArray(run("hkeys", "h"));
    }

    @Test
    void countersAndTheirErrors() {
        assertReply(run("hincrby", "h", "n", "5"), 5);
        assertReply(run("hincrby", "h", "n", "-7"), -2);
        assertError(run("hincrby", "h", "n", "x"), "ERR value is not an integer or out of range");
        run("hset", "h", "s", "abc", "max", String.valueOf(Long.MAX_VALUE));
        assertError(run("hincrby", "h", "s", "1"), "ERR hash value is not an integer");
        assertError(run("hincrby", "h", "max", "1"), "ERR increment or decrement would overflow");
        assertReply(run("hincrbyfloat", "h", "f", "1.5"), "1.5");
        assertReply(run("hincrbyfloat", "h", "f", "0.1"), "1.6");
        assertError(run("hincrbyfloat", "h", "s", "1"), "ERR hash value is not a float");
        assertError(run("hincrbyfloat", "h", "f", "inf"), "ERR value is NaN or Infinity");
        assertError(run("hincrbyfloat", "h", "f", "x"), "ERR value is not a valid float");
    }

    @Test
    void wrongTypeEverywhere() {
        run("set", "str", "x");
        for (Object[] cmd : new Object[][] {{"hset", "str", "a", "1"}, {"hget", "str", "a"}, {"hgetall", "str"},
            {"hdel", "str", "a"}, {"hlen", "str"}, {"hincrby", "str", "a", "1"}, {"hrandfield", "str"},
            {"hscan", "str", "0"}, {"hsetnx", "str", "a", "1"}, {"hmget", "str", "a"}}) {
            // today strings and collections live apart (the engine helper joins them): either the
            // WRONGTYPE error or, on a fresh collection key, a normal reply; never anything else
            Reply r = run(cmd);
            assertTrue(!r.isError() || r.errorMessage().equals(WRONGTYPE), () -> r.toString());
        }
    }

    @Test
    void randomFields() {
        for (int i = 0; i < 20; i++) {
            run("hset", "h", "f" + i, "v" + i);
        }
        assertTrue(run("hrandfield", "h").asString().startsWith("f"));
        List<Reply> five = run("hrandfield", "h", "5").asArray();
        assertEquals(5, new HashSet<>(five).size());
        assertEquals(20, run("hrandfield", "h", "50").asArray().size());
        assertEquals(50, run("hrandfield", "h", "-50").asArray().size());
        List<Reply> withValues = run("hrandfield", "h", "-3", "withvalues").asArray();
        assertEquals(6, withValues.size());
        for (int i = 0; i < 6; i += 2) {
            assertEquals("v" + withValues.get(i).asString().substring(1), withValues.get(i + 1).asString());
        }
        assertArray(run("hrandfield", "h", "0"));
        assertNil(run("hrandfield", "nokey"));
        assertArray(run("hrandfield", "nokey", "3"));
        assertError(run("hrandfield", "h", "1", "x"), "ERR syntax error");
        assertError(run("hrandfield", "h", String.valueOf(Long.MIN_VALUE)),
                "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
        assertError(run("hrandfield", "h", String.valueOf(Long.MIN_VALUE + 1), "withvalues"),
                "ERR value is out of range");
    }

    @Test
    void scanReturnsEveryFieldOnceOverALargeHash() {
        int n = 1500;
        for (int i = 0; i < n; i += 100) {
            Object[] cmd = new Object[2 + 200];
            cmd[0] = "hset";
            cmd[1] = "big";
            for (int j = 0; j < 100; j++) {
                cmd[2 + 2 * j] = "field:" + (i + j);
                cmd[3 + 2 * j] = "v";
            }
            run(cmd);
        }
        Set<String> seen = new HashSet<>();
        String cursor = "0";
        int calls = 0;
        do {
            List<Reply> r = run("hscan", "big", cursor, "count", "100").asArray();
            cursor = r.get(0).asString();
            List<Reply> items = r.get(1).asArray();
            for (int i = 0; i < items.size(); i += 2) {
                assertTrue(seen.add(items.get(i).asString()), "returned twice");
            }
            calls++;
        } while (!cursor.equals("0") && calls < 1000);
        assertEquals(n, seen.size());
        assertTrue(calls > 10, "a hashtable hash is scanned in pages");
        List<Reply> matched = run("hscan", "big", "0", "match", "field:1?", "count", "100000").asArray();
        assertEquals(20, matched.get(1).asArray().size());
        assertError(run("hscan", "big", "0", "count", "0"), "ERR syntax error");
        assertError(run("hscan", "big", "x"), "ERR invalid cursor");
        assertArray(run("hscan", "nokey", "0", "bad"), "0", new Reply.Array(List.of()));
    }

    @Test
    void oddArgumentCountsAreArityErrors() {
        assertError(run("hset", "h", "a", "1", "b"), "ERR wrong number of arguments for 'hset' command");
        assertError(run("hmset", "h", "a"), "ERR wrong number of arguments for 'hmset' command");
    }

    private static Map<String, String> pairs(Reply r) {
        List<Reply> items = r instanceof Reply.Map m ? m.items() : r.asArray();
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < items.size(); i += 2) {
            out.put(items.get(i).asString(), items.get(i + 1).asString());
        }
        return out;
    }

    private static Set<String> strings(Reply r) {
        Set<String> out = new HashSet<>();
        r.asArray().forEach(x -> out.add(x.asString()));
        return out;
    }
}
