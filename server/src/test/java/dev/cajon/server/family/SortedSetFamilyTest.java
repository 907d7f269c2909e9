package dev.cajon.server.family;

import static dev.cajon.server.testkit.RespAssertions.assertError;
import static dev.cajon.server.testkit.RespAssertions.assertReply;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.testkit.FamilyTestBase;
import dev.cajon.server.testkit.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Sorted sets in-process: what the comparison test cannot compare byte for byte (ZSCAN of a
 * large set, whose order is Cajon's own, and random members), large sets past the listpack size,
 * and the score parser's corners.
 */
class SortedSetFamilyTest extends FamilyTestBase {

    private static String str(Reply r) {
        return new String(((Reply.Bulk) r).bytes(), StandardCharsets.UTF_8);
    }

    private static List<Reply> items(Reply r) {
        return ((Reply.Array) r).items();
    }

    private void fill(String key, int n) {
        List<Object> args = new ArrayList<>(List.of("zadd", key));
        for (int i = 0; i < n; i++) {
            args.add(Integer.toString(i % 97));
            args.add("m" + i);
        }
        assertReply(run(args.toArray()), n);
    }

    @Test
    void zscanOfALargeSetVisitsEveryMemberOnce() {
        fill("big", 1000);
        Set<String> seen = new HashSet<>();
        String cursor = "0";
        int calls = 0;
        do {
            Reply r = run("zscan", "big", cursor, "COUNT", "50");
            List<Reply> parts = items(r);
            cursor = str(parts.get(0));
            List<Reply> flat = items(parts.get(1));
            assertTrue(flat.size() <= 2 * 60, "about COUNT members a call: " + flat.size());
            for (int i = 0; i < flat.size(); i += 2) {
                assertTrue(seen.add(str(flat.get(i))), "visited twice: " + str(flat.get(i)));
                int n = Integer.parseInt(str(flat.get(i)).substring(1));
                assertEquals(Integer.toString(n % 97), str(flat.get(i + 1)));
            }
            calls++;
        } while (!cursor.equals("0") && calls < 1000);
        assertEquals(1000, seen.size());
        assertTrue(calls > 10, "a large set is scanned in steps: " + calls);
    }

    @Test
    void largeSetRangesAndPops() {
        fill("z", 500);
        assertReply(run("zcard", "z"), 500);
        assertReply(run("zcount", "z", "10", "(20"), 5 * 6 + 5 * 5);
        List<Reply> r = items(run("zrange", "z", "0", "4"));
        assertEquals(List.of("m0", "m194", "m291", "m388", "m485"), r.stream().map(SortedSetFamilyTest::str).toList());
        assertReply(run("zrank", "z", "m194"), 1);
        assertReply(run("zrevrank", "z", "m0"), 499);
        List<Reply> popped = items(run("zpopmax", "z", "3"));
        assertEquals("m96", str(popped.get(0)));
        // scores are i % 97: 0..14 six times each, 15..96 five times
        assertReply(run("zremrangebyscore", "z", "-inf", "(50"), 15 * 6 + 35 * 5);
        assertReply(run("zcard", "z"), 500 - 3 - 265);
    }

    @Test
    void randomMembersComeFromTheSet() {
        fill("z", 200);
        Set<String> all = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            all.add("m" + i);
        }
        List<Reply> distinct = items(run("zrandmember", "z", "50"));
        Set<String> got = new HashSet<>();
        distinct.forEach(x -> got.add(str(x)));
        assertEquals(50, got.size());
        assertTrue(all.containsAll(got));
        assertEquals(300, items(run("zrandmember", "z", "-300")).size());
        assertEquals(400, items(run("zrandmember", "z", "-200", "WITHSCORES")).size());
        assertTrue(all.contains(str(run("zrandmember", "z"))));
    }

    @Test
    void scoreParsingCorners() {
        assertReply(run("zadd", "p", "0x1p3", "hex"), 1);
        assertReply(run("zscore", "p", "hex"), "8");
        assertReply(run("zadd", "p", "1e308", "big", ".5", "half", "5.", "five", "+2", "two"), 4);
        assertReply(run("zscore", "p", "half"), "0.5");
        assertError(run("zadd", "p", "1e309", "x"), "ERR value is not a valid float");
        assertError(run("zadd", "p", "0x", "x"), "ERR value is not a valid float");
        assertError(run("zadd", "p", ".", "x"), "ERR value is not a valid float");
        assertError(run("zadd", "p", "-nan", "x"), "ERR value is not a valid float");
        assertReply(run("zcount", "p", "-inf", "1e400"), 5);
        assertError(run("zcount", "p", "nan", "1"), "ERR min or max is not a float");
    }
}
