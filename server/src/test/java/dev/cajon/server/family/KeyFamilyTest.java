package dev.cajon.server.family;

import static dev.cajon.server.testkit.RespAssertions.assertError;
import static dev.cajon.server.testkit.RespAssertions.assertNil;
import static dev.cajon.server.testkit.RespAssertions.assertOk;
import static dev.cajon.server.testkit.RespAssertions.assertReply;
import static dev.cajon.server.testkit.RespAssertions.assertSimple;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.testkit.Client;
import dev.cajon.server.testkit.FamilyTestBase;
import dev.cajon.server.testkit.Reply;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * DEL, UNLINK, EXISTS, TOUCH, TYPE, RENAME, RENAMENX, COPY (within and across dbs) and RANDOMKEY,
 * plus the isolation of the 16 dbs that SELECT switches between.
 */
class KeyFamilyTest extends FamilyTestBase {

    @Test
    void delAndUnlinkCountWhatExisted() {
        run("mset", "a", "1", "b", "2", "c", "3");
        assertReply(run("del", "a", "nope", "b"), 2);
        assertReply(run("del", "a"), 0);
        assertReply(run("unlink", "c", "c"), 1);
        assertReply(run("dbsize"), 0);
    }

    /**
     * UNLINK of a big hash answers with the key gone while its pages may still be freed behind it
     * (INFO memory's lazyfree_pending_objects counts those collections, and falls back to 0).
     */
    @Test
    void unlinkOfABigCollectionLeavesNothingVisible() throws Exception {
        bigHash("big");
        run("rpush", "list", "a", "b");
        assertReply(run("unlink", "big", "list", "nope"), 2);
        assertReply(run("exists", "big"), 0);
        assertReply(run("hlen", "big"), 0);
        assertReply(run("dbsize"), 0);
        assertReply(run("hset", "big", "f", "v"), 1); // the key takes a new hash meanwhile
        assertEquals("0", lazyfreePendingOnceSettled(), "the pages were freed");
        assertReply(run("hlen", "big"), 1);
    }

    /** A hash of 20,000 fields (hundreds of pages: past what is freed inline). */
    private void bigHash(String key) {
        for (int i = 0; i < 20_000; i += 500) {
            Object[] args = new Object[2 + 1000];
            args[0] = "hset";
            args[1] = key;
            for (int j = 0; j < 500; j++) {
                args[2 + 2 * j] = "field:" + (i + j);
                args[3 + 2 * j] = "value:" + (i + j);
            }
            run(args);
        }
    }

    /** INFO memory's lazyfree_pending_objects once it reads 0, or after 10 s (bounded). */
    private String lazyfreePendingOnceSettled() {
        long deadline = System.nanoTime() + 10_000_000_000L;
        String pending;
        do {
            String info = new String(((Reply.Bulk) run("info", "memory")).bytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
            int at = info.indexOf("lazyfree_pending_objects:");
            assertTrue(at >= 0, info);
            pending = info.substring(at + 25, info.indexOf('\r', at));
        } while (!pending.equals("0") && System.nanoTime() < deadline);
        return pending;
    }

    @Test
    void delUnderLazyfreeLazyUserDelStillDeletesABigHashWhole() {
        assertOk(run("config", "set", "lazyfree-lazy-user-del", "yes"));
        try {
            bigHash("big");
            run("rpush", "l", "a");
            assertReply(run("del", "big", "l", "nope"), 2);
            assertReply(run("exists", "big", "l"), 0);
            assertReply(run("dbsize"), 0);
            assertEquals("0", lazyfreePendingOnceSettled(), "the pages were freed behind it");
        } finally {
            assertOk(run("config", "set", "lazyfree-lazy-user-del", "no"));
        }
    }

    @Test
    void existsAndTouchCountRepeatedKeys() {
        run("set", "a", "1");
        assertReply(run("exists", "a", "a", "b", "a"), 3);
        assertReply(run("touch", "a", "b", "a"), 2);
        assertReply(run("exists", "nope"), 0);
    }

    @Test
    void typeIsAStatusReply() {
        run("set", "s", "v");
        assertSimple(run("type", "s"), "string");
        assertEquals("+string\r\n", client.lastRawString());
        assertSimple(run("type", "nope"), "none");
        run("incr", "n");
        assertSimple(run("type", "n"), "string");
    }

    @Test
    void rename() {
        run("set", "a", "1");
        run("set", "b", "2");
        assertOk(run("rename", "a", "b"));
        assertReply(run("get", "b"), "1");
        assertReply(run("exists", "a"), 0);
        assertReply(run("dbsize"), 1);
        assertError(run("rename", "a", "c"), "ERR no such key");
    }

    @Test
    void renameToItself() {
        run("set", "a", "1");
        assertOk(run("rename", "a", "a"));
        assertReply(run("renamenx", "a", "a"), 0);
        assertReply(run("get", "a"), "1");
        assertError(run("rename", "nope", "nope"), "ERR no such key");
    }

    @Test
    void renamenx() {
        run("set", "a", "1");
        run("set", "b", "2");
        assertReply(run("renamenx", "a", "b"), 0);
        assertReply(run("get", "a"), "1");
        assertReply(run("renamenx", "a", "c"), 1);
        assertReply(run("get", "c"), "1");
        assertReply(run("exists", "a"), 0);
        assertError(run("renamenx", "a", "d"), "ERR no such key");
    }

    @Test
    void renameALargeValueOverAnotherLargeValue() {
        byte[] v1 = StringFamilyTest.pattern(50_000, 1);
        byte[] v2 = StringFamilyTest.pattern(60_000, 2);
        run("set", "a", v1);
        run("set", "b", v2);
        assertOk(run("rename", "a", "b"));
        assertEquals(50_000, run("get", "b").asBulk().length);
        assertTrue(Arrays.equals(v1, run("get", "b").asBulk()));
        run("set", "a", "small");
        assertOk(run("rename", "b", "a"));
        assertTrue(Arrays.equals(v1, run("get", "a").asBulk()));
    }

    @Test
    void copyWithinADb() {
        run("set", "src", "v");
        assertReply(run("copy", "src", "dst"), 1);
        assertReply(run("get", "dst"), "v");
        assertReply(run("copy", "src", "dst"), 0);
        run("set", "src", "v2");
        assertReply(run("copy", "src", "dst", "replace"), 1);
        assertReply(run("get", "dst"), "v2");
        assertReply(run("copy", "nope", "dst2"), 0);
        assertReply(run("copy", "nope", "dst", "replace"), 0);
        assertReply(run("get", "dst"), "v2");
    }

    @Test
    void copyIsIndependentOfItsSource() {
        run("set", "src", "abc");
        run("copy", "src", "dst");
        run("append", "src", "def");
        assertReply(run("get", "dst"), "abc");
        byte[] big = StringFamilyTest.pattern(40_000, 5);
        run("set", "bsrc", big);
        run("copy", "bsrc", "bdst");
        run("setrange", "bsrc", "0", "XYZ");
        run("append", "bsrc", "tail");
        assertTrue(Arrays.equals(big, run("get", "bdst").asBulk()));
        run("del", "bsrc");
        assertTrue(Arrays.equals(big, run("get", "bdst").asBulk()));
    }

    @Test
    void copyAcrossDbs() {
        run("set", "src", "v");
        assertReply(run("copy", "src", "src", "db", "1"), 1);
        assertReply(run("copy", "src", "src", "db", "1"), 0);
        run("set", "src", "v2");
        assertReply(run("copy", "src", "src", "db", "1", "replace"), 1);
        byte[] big = StringFamilyTest.pattern(30_000, 8);
        run("set", "big", big);
        assertReply(run("copy", "big", "big2", "DB", "15"), 1);
        run("select", "1");
        assertReply(run("get", "src"), "v2");
        run("select", "15");
        assertTrue(Arrays.equals(big, run("get", "big2").asBulk()));
        run("select", "0");
        assertReply(run("dbsize"), 2);
    }

    @Test
    void copyErrors() {
        run("set", "src", "v");
        assertError(run("copy", "src", "src"), "ERR source and destination objects are the same");
        assertError(run("copy", "src", "src", "db", "0"), "ERR source and destination objects are the same");
        assertError(run("copy", "src", "dst", "db", "16"), "ERR DB index is out of range");
        assertError(run("copy", "src", "dst", "db", "-1"), "ERR DB index is out of range");
        assertError(run("copy", "src", "dst", "db", "x"), "ERR value is not an integer or out of range");
        assertError(run("copy", "src", "dst", "db"), "ERR syntax error");
        assertError(run("copy", "src", "dst", "bogus"), "ERR syntax error");
        assertReply(run("exists", "dst"), 0);
    }

    @Test
    void randomkey() {
        assertNil(run("randomkey"));
        Set<String> keys = Set.of("a", "b", "c");
        keys.forEach(k -> run("set", k, "v"));
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            String k = run("randomkey").asString();
            assertTrue(keys.contains(k), k);
            seen.add(k);
        }
        assertEquals(keys, seen, "200 draws over 3 keys should see each");
    }

    // ------------------------------------------------------------------ dbs

    @Test
    void selectIsolatesDbs() {
        run("set", "k", "db0");
        assertOk(run("select", "1"));
        assertNil(run("get", "k"));
        run("set", "k", "db1");
        assertReply(run("dbsize"), 1);
        assertOk(run("select", "0"));
        assertReply(run("get", "k"), "db0");
        // another connection starts in db 0 and selects independently
        Client other = server.client();
        assertReply(other.run("get", "k"), "db0");
        other.run("select", "1");
        assertReply(other.run("get", "k"), "db1");
        assertReply(run("get", "k"), "db0");
    }

    @Test
    void selectErrors() {
        assertError(run("select", "16"), "ERR DB index is out of range");
        assertError(run("select", "-1"), "ERR DB index is out of range");
        assertError(run("select", "one"), "ERR value is not an integer or out of range");
        assertOk(run("select", "15"));
        assertEquals(15, client.session().db());
    }

    @Test
    void dbIndexBeyondIntRangeHasItsOwnError() {
        // getIntFromObjectOrReply: a valid long outside int range gets the range message
        String outOfRange = "ERR value is out of range, value must between -2147483648 and 2147483647";
        assertError(run("select", "4294967296"), outOfRange);
        assertError(run("select", "-2147483649"), outOfRange);
        run("set", "src", "v");
        assertError(run("copy", "src", "dst", "db", "4294967296"), outOfRange);
        assertEquals(0, client.session().db());
    }

    @Test
    void sameKeyInEveryDb() {
        for (int db = 0; db < 16; db++) {
            run("select", db);
            run("set", "k", "v" + db);
        }
        for (int db = 15; db >= 0; db--) {
            run("select", db);
            assertReply(run("get", "k"), "v" + db);
            assertReply(run("dbsize"), 1);
        }
    }

    // ------------------------------------------------------------------ KEYS and SCAN

    private Set<String> keys(String pattern) {
        Set<String> out = new TreeSet<>();
        for (Reply r : run("keys", pattern).asArray()) {
            assertTrue(out.add(r.asString()), "KEYS lists a key once: " + r);
        }
        return out;
    }

    @Test
    void keysRedisDocExamples() {
        run("mset", "firstname", "Jack", "lastname", "Stuntman", "age", "35");
        assertEquals(Set.of("firstname", "lastname"), keys("*name*"));
        assertEquals(Set.of("age"), keys("a??"));
        assertEquals(Set.of("age", "firstname", "lastname"), keys("*"));
        assertEquals(Set.of(), keys("nomatch*"));
    }

    @Test
    void keysGlobRules() {
        for (String k : List.of("hello", "hallo", "hxllo", "hllo", "heeeello", "hillo", "hbllo", "h*llo")) {
            run("set", k, "v");
        }
        assertEquals(Set.of("hallo", "hbllo", "hello", "hillo", "hxllo", "h*llo"), keys("h?llo"));
        assertEquals(Set.of("hallo", "hbllo", "heeeello", "hello", "hillo", "hllo", "hxllo", "h*llo"), keys("h*llo"));
        assertEquals(Set.of("hallo", "hello"), keys("h[ae]llo"));
        assertEquals(Set.of("hallo", "hbllo", "hillo", "hxllo", "h*llo"), keys("h[^e]llo"));
        assertEquals(Set.of("hallo", "hbllo"), keys("h[a-b]llo"));
        assertEquals(Set.of("hallo", "hbllo"), keys("h[b-a]llo"));
        assertEquals(Set.of("h*llo"), keys("h\\*llo"));
        assertEquals(Set.of("hello"), keys("hello"));
        assertEquals(Set.of(), keys("Hello"));
    }

    @Test
    void keysSkipsExpiredKeysAndSeesEveryDbSeparately() {
        run("set", "live", "v");
        run("set", "dead", "v", "px", "10");
        advance(11);
        assertEquals(Set.of("live"), keys("*"));
        run("select", "1");
        assertEquals(Set.of(), keys("*"));
    }

    /** Runs a whole SCAN iteration and returns every key it returned, with repetitions. */
    private List<String> scanAll(Object... options) {
        List<String> out = new ArrayList<>();
        String cursor = "0";
        int calls = 0;
        do {
            List<Object> cmd = new ArrayList<>(List.of("scan", cursor));
            cmd.addAll(List.of(options));
            List<Reply> r = run(cmd.toArray()).asArray();
            assertEquals(2, r.size());
            assertTrue(r.get(0) instanceof Reply.Bulk, "the cursor is a bulk string");
            cursor = r.get(0).asString();
            r.get(1).asArray().forEach(k -> out.add(k.asString()));
            assertTrue(++calls < 100_000, "SCAN terminates");
        } while (!cursor.equals("0"));
        return out;
    }

    @Test
    void scanOfAnEmptyDb() {
        run("scan", "0");
        assertEquals("*2\r\n$1\r\n0\r\n*0\r\n", client.lastRawString());
    }

    @Test
    void scanVisitsEveryKey() {
        Set<String> all = new TreeSet<>();
        for (int i = 0; i < 1000; i++) {
            all.add("key:" + i);
        }
        List<Object> mset = new ArrayList<>(List.of("mset"));
        all.forEach(k -> {
            mset.add(k);
            mset.add("v");
        });
        run(mset.toArray());
        assertEquals(all, new TreeSet<>(scanAll("count", "7")));
        assertEquals(all, new TreeSet<>(scanAll()));
        assertEquals(all, new TreeSet<>(scanAll("count", "100000")));
        assertEquals(all, new TreeSet<>(scanAll("type", "string", "match", "*")));
        assertEquals(List.of(), scanAll("type", "list"));
        Set<String> ones = new TreeSet<>();
        all.stream().filter(k -> k.startsWith("key:1")).forEach(ones::add);
        List<String> matched = scanAll("match", "key:1*", "count", "50");
        assertEquals(ones, new TreeSet<>(matched));
    }

    @Test
    void scanReturnsEveryKeyPresentThroughoutDespiteChanges() {
        for (int i = 0; i < 500; i++) {
            run("set", "stay:" + i, "v");
            run("set", "go:" + i, "v");
        }
        Set<String> seen = new TreeSet<>();
        String cursor = "0";
        int step = 0;
        do {
            List<Reply> r = run("scan", cursor, "count", "20").asArray();
            cursor = r.get(0).asString();
            r.get(1).asArray().forEach(k -> seen.add(k.asString()));
            // churn between calls: delete some keys, add new ones
            run("del", "go:" + step);
            run("set", "new:" + step, "v");
            step++;
        } while (!cursor.equals("0"));
        for (int i = 0; i < 500; i++) {
            assertTrue(seen.contains("stay:" + i), "stay:" + i);
        }
    }

    @Test
    void scanSkipsExpiredKeys() {
        run("set", "live", "v");
        for (int i = 0; i < 50; i++) {
            run("set", "dead:" + i, "v", "px", "10");
        }
        advance(11);
        assertEquals(List.of("live"), scanAll());
    }

    @Test
    void scanArgumentErrors() {
        assertError(run("scan", "abc"), "ERR invalid cursor");
        assertError(run("scan", " 1"), "ERR invalid cursor");
        assertError(run("scan", "1x"), "ERR invalid cursor");
        assertError(run("scan", "18446744073709551616"), "ERR invalid cursor");
        assertError(run("scan", "0", "count", "0"), "ERR syntax error");
        assertError(run("scan", "0", "count", "x"), "ERR value is not an integer or out of range");
        assertError(run("scan", "0", "match"), "ERR syntax error");
        assertError(run("scan", "0", "bogus", "1"), "ERR syntax error");
        assertError(run("scan"), "ERR wrong number of arguments for 'scan' command");
        // strtoul accepts these
        assertEquals(2, run("scan", "18446744073709551615").asArray().size());
        assertEquals(2, run("scan", "-1").asArray().size());
        assertEquals(2, run("scan", "+0").asArray().size());
    }
}
