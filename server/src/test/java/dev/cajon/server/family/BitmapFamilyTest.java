package dev.cajon.server.family;

import static dev.cajon.server.testkit.RespAssertions.assertArray;
import static dev.cajon.server.testkit.RespAssertions.assertBulk;
import static dev.cajon.server.testkit.RespAssertions.assertError;
import static dev.cajon.server.testkit.RespAssertions.assertReply;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cajon.server.testkit.Client;
import dev.cajon.server.testkit.FamilyTestBase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD, BITFIELD_RO and LCS in-process: the argument
 * rules and replies (the byte-for-byte comparison with Redis is BitmapComparisonTest), the TTL
 * under the manual clock, the top of the offset range, and atomic read-modify-writes under
 * concurrent clients.
 */
class BitmapFamilyTest extends FamilyTestBase {
    private static final String BIT_OFFSET = "ERR bit offset is not an integer or out of range";
    private static final String BIT_VALUE = "ERR bit is not an integer or out of range";
    private static final String TYPE = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not "
            + "supported but i64 is.";

    @Test
    void setbitGetbitAndTheirErrors() {
        assertReply(run("setbit", "k", "7", "1"), 0);
        assertReply(run("setbit", "k", "7", "0"), 1);
        assertReply(run("setbit", "k", "0", "1"), 0);
        assertBulk(run("get", "k"), new byte[] {(byte) 0x80});
        assertReply(run("getbit", "k", "0"), 1);
        assertReply(run("getbit", "k", "99"), 0);
        assertReply(run("getbit", "nokey", "0"), 0);
        assertError(run("setbit", "k", "-1", "1"), BIT_OFFSET);
        assertError(run("setbit", "k", "4294967296", "1"), BIT_OFFSET);
        assertError(run("setbit", "k", "1", "2"), BIT_VALUE);
        assertError(run("setbit", "k", "1", "x"), BIT_VALUE);
        assertError(run("getbit", "k", "x"), BIT_OFFSET);
        assertError(run("setbit", "k", "1"), "ERR wrong number of arguments for 'setbit' command");
    }

    @Test
    void theLastOffsetWorksThroughTheServer() {
        assertReply(run("setbit", "big", "4294967295", "1"), 0);
        assertReply(run("strlen", "big"), 512L * 1024 * 1024);
        assertReply(run("getbit", "big", "4294967295"), 1);
        assertReply(run("bitpos", "big", "1", "-1"), 4294967295L);
        assertReply(run("bitcount", "big", "-8", "-1", "bit"), 1);
        assertArray(run("bitfield", "big", "get", "u8", "#536870911", "get", "u8", "0"), 1L, 0L);
    }

    @Test
    void bitcountAndBitpos() {
        run("set", "k", "foobar");
        assertReply(run("bitcount", "k"), 26);
        assertReply(run("bitcount", "k", "1", "1"), 6);
        assertReply(run("bitcount", "k", "5", "30", "BIT"), 17);
        assertReply(run("bitcount", "nokey", "x", "y"), 0); // the lookup comes first, as in Redis
        assertError(run("bitcount", "k", "x", "y"), "ERR value is not an integer or out of range");
        assertError(run("bitcount", "k", "0", "1", "nope"), "ERR syntax error");
        assertReply(run("bitcount", "k", "-1", "-2", "nope"), 0);
        assertReply(run("bitpos", "k", "1"), 1);
        assertReply(run("bitpos", "nokey", "0"), 0);
        assertReply(run("bitpos", "nokey", "1"), -1);
        assertError(run("bitpos", "k", "2"), "ERR The bit argument must be 1 or 0.");
        assertError(run("bitpos", "k", "1", "0", "1", "bits"), "ERR syntax error");
    }

    @Test
    void bitopAndItsDestination() {
        run("set", "a", "abc");
        run("set", "b", "ab");
        assertReply(run("bitop", "xor", "d", "a", "b"), 3);
        assertReply(run("get", "d"), "\u0000\u0000c");
        run("expire", "d", "100");
        assertReply(run("bitop", "and", "d", "a", "nokey"), 3);
        assertReply(run("ttl", "d"), -1);
        assertReply(run("bitop", "or", "d", "nokey"), 0);
        assertReply(run("exists", "d"), 0);
        assertError(run("bitop", "not", "d", "a", "b"), "ERR BITOP NOT must be called with a single source key.");
        assertError(run("bitop", "nand", "d", "a"), "ERR syntax error");
    }

    @Test
    void bitfieldAndBitfieldRo() {
        assertArray(run("bitfield", "k", "set", "u8", "0", "255", "incrby", "u8", "0", "10", "get", "u8", "0"),
                0L, 9L, 9L);
        assertArray(run("bitfield", "k", "overflow", "fail", "incrby", "u8", "0", "300", "overflow", "sat",
                "incrby", "u8", "0", "300"), null, 255L);
        assertArray(run("bitfield", "k", "set", "i64", "#1", String.valueOf(Long.MIN_VALUE), "get", "i64", "#1"),
                0L, Long.MIN_VALUE);
        assertArray(run("bitfield_ro", "k", "get", "u8", "0"), 255L);
        assertArray(run("bitfield", "k"));
        assertError(run("bitfield_ro", "k", "set", "u8", "0", "1"), "ERR BITFIELD_RO only supports the GET subcommand");
        assertError(run("bitfield", "k", "get", "u64", "0"), TYPE);
        assertError(run("bitfield", "k", "get", "I8", "0"), TYPE);
        assertError(run("bitfield", "k", "overflow", "up", "get", "u8", "0"), "ERR Invalid OVERFLOW type specified");
        assertError(run("bitfield", "k", "get", "u8"), "ERR syntax error");
        assertError(run("bitfield", "k", "get", "u8", "#536870912"), BIT_OFFSET);
    }

    @Test
    void lcsInBothProtocols() {
        run("mset", "a", "ohmytext", "b", "mynewtext");
        assertReply(run("lcs", "a", "b"), "mytext");
        assertReply(run("lcs", "a", "b", "len"), 6);
        assertEquals("*4\r\n$7\r\nmatches\r\n*2\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n"
                        + "*3\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n:2\r\n$3\r\nlen\r\n:6\r\n",
                new String(client.runRaw("lcs", "a", "b", "idx", "withmatchlen"), java.nio.charset.StandardCharsets.UTF_8));
        run("hello", "3");
        assertEquals("%2\r\n$7\r\nmatches\r\n*1\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n$3\r\nlen\r\n:6\r\n",
                new String(client.runRaw("lcs", "a", "b", "idx", "minmatchlen", "3"),
                        java.nio.charset.StandardCharsets.UTF_8));
        assertError(run("lcs", "a", "b", "len", "idx"),
                "ERR If you want both the length and indexes, please just use IDX.");
    }

    @Test
    void setbitKeepsTheTtlAndAnExpiredBitmapIsGone() {
        run("setbit", "k", "100", "1");
        run("pexpire", "k", "1000");
        run("setbit", "k", "200000", "1"); // into a blob
        run("bitfield", "k", "incrby", "u8", "0", "1");
        assertReply(run("pttl", "k"), 1000);
        advance(1001);
        assertReply(run("getbit", "k", "100"), 0);
        assertReply(run("exists", "k"), 0);
        assertReply(run("bitcount", "k"), 0);
    }

    @Test
    void bitsInsideMultiAreOneStep() {
        run("multi");
        run("setbit", "k", "1", "1");
        run("bitfield", "k", "incrby", "u4", "4", "3");
        run("bitop", "not", "n", "k");
        List<dev.cajon.server.testkit.Reply> exec = run("exec").asArray();
        assertReply(exec.get(0), 0);
        assertArray(exec.get(1), 3L);
        assertReply(exec.get(2), 1);
        assertBulk(run("get", "n"), new byte[] {(byte) ~0x43});
    }

    /** Concurrent SETBITs on one key, each to its own bit: read-modify-write under the stripe lock loses none. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void concurrentSetbitsLoseNoBit() throws Exception {
        int threads = 4;
        int perThread = 300;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Client c = server.client();
                int id = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        // spread past the blob threshold so the growth and copy paths race too
                        long offset = (long) (i * threads + id) * 457;
                        assertReply(c.run("setbit", "k", String.valueOf(offset), "1"), 0);
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertReply(run("bitcount", "k"), (long) threads * perThread);
    }
}
