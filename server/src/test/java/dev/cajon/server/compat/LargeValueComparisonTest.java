package dev.cajon.server.compat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Size-related behaviour against Redis: values on both sides of Cajon's blob threshold (16 KiB,
 * where values move out of the map into their own files), large keys, long pipelines and many
 * arguments, and commands split over many small reads.
 */
class LargeValueComparisonTest extends ComparisonTestBase {
    private static final int THRESHOLD = 16 * 1024;

    private static byte[] b(String s) {
        return Scenario.b(s);
    }

    private static byte[] pattern(int len, int seed) {
        byte[] v = new byte[len];
        for (int i = 0; i < len; i++) {
            v[i] = (byte) (i * 31 + seed);
        }
        return v;
    }

    private static byte[] pipeline(List<byte[][]> commands) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[][] c : commands) {
            out.writeBytes(RespClient.encode(c));
        }
        return out.toByteArray();
    }

    private static byte[][] argv(Object... parts) {
        byte[][] a = new byte[parts.length][];
        for (int i = 0; i < parts.length; i++) {
            a[i] = parts[i] instanceof byte[] ? (byte[]) parts[i] : b(parts[i].toString());
        }
        return a;
    }

    @BothProtocols
    void valuesAroundTheBlobThreshold() throws Exception {
        Scenario s = scenario("values around 16 KiB");
        for (int len : new int[] {THRESHOLD - 1, THRESHOLD, THRESHOLD + 1, 100_000, 1_000_000}) {
            byte[] v = pattern(len, len);
            String k = "v" + len;
            s.cmd(b("SET"), b(k), v)
                    .cmd(b("GET"), b(k))
                    .cmd(b("STRLEN"), b(k))
                    .cmd(b("GETRANGE"), b(k), b("-10"), b("-1"))
                    .cmd(b("GETRANGE"), b(k), b(Integer.toString(len / 2)), b(Integer.toString(len / 2 + 20)))
                    .cmd(b("SETRANGE"), b(k), b(Integer.toString(len - 2)), b("XYZ"))
                    .cmd(b("GETRANGE"), b(k), b("-5"), b("-1"))
                    .cmd(b("APPEND"), b(k), b("tail"))
                    .cmd(b("STRLEN"), b(k))
                    .cmd(b("INCR"), b(k))
                    .cmd(b("SET"), b(k), v, b("GET"))
                    .cmd(b("GETSET"), b(k), b("small"))
                    .cmd(b("SET"), b(k), v, b("EX"), b("100"))
                    .check(Check.within(100, 1), b("TTL"), b(k))
                    .cmd(b("COPY"), b(k), b(k + "-copy"))
                    .cmd(b("GET"), b(k + "-copy"))
                    .cmd(b("RENAME"), b(k + "-copy"), b(k + "-renamed"))
                    .cmd(b("GETDEL"), b(k + "-renamed"))
                    .cmd(b("EXISTS"), b(k + "-copy"), b(k + "-renamed"));
        }
        s.run();
    }

    @BothProtocols
    void growingAndShrinkingAcrossTheThreshold() throws Exception {
        byte[] chunk = pattern(4000, 1);
        Scenario s = scenario("APPEND and SETRANGE across 16 KiB").cmd(b("SET"), b("g"), b("start"));
        for (int i = 0; i < 6; i++) {
            s.cmd(b("APPEND"), b("g"), chunk).cmd(b("GETRANGE"), b("g"), b("-3"), b("-1"));
        }
        s.cmd(b("GET"), b("g"))
                .cmd(b("SET"), b("g"), b("small again"))
                .cmd(b("GET"), b("g"))
                .cmd(b("SETRANGE"), b("s"), b(Integer.toString(THRESHOLD - 2)), b("abcd"))
                .cmd(b("STRLEN"), b("s"))
                .cmd(b("GETRANGE"), b("s"), b("-6"), b("-1"))
                .cmd(b("SETRANGE"), b("s"), b("0"), pattern(30_000, 2))
                .cmd(b("GET"), b("s"))
                .cmd(b("MSET"), b("m1"), pattern(20_000, 3), b("m2"), b("x"), b("m3"), pattern(50_000, 4))
                .cmd(b("MGET"), b("m1"), b("m2"), b("missing"), b("m3"), b("m1"))
                .run();
    }

    /**
     * Collection values of 17-128 KiB (Cajon keeps each on a page of its own, bigger than a write
     * journal slot): written, overwritten in place, read back. Overwriting one used to grow the
     * keyspace five times over and answer an internal error.
     */
    @BothProtocols
    void collectionValuesPastAJournalSlot() throws Exception {
        Scenario s = scenario("hash and list values of 17-128 KiB");
        for (int len : new int[] {17_000, 33_000, 60_000, 65_535, 130_000}) {
            String h = "h" + len;
            String l = "l" + len;
            s.cmd(b("HSET"), b(h), b("f"), pattern(len, 1), b("small"), b("x"))
                    .cmd(b("HSET"), b(h), b("f"), pattern(len, 2))
                    .cmd(b("HGET"), b(h), b("f"))
                    .cmd(b("HSTRLEN"), b(h), b("f"))
                    .cmd(b("HSET"), b(h), b("small"), b("y"))
                    .cmd(b("HMGET"), b(h), b("small"), b("f"))
                    .cmd(b("RPUSH"), b(l), pattern(len, 3), b("tail"))
                    .cmd(b("LSET"), b(l), b("0"), pattern(len, 4))
                    .cmd(b("LINDEX"), b(l), b("0"))
                    .cmd(b("LSET"), b(l), b("1"), b("tail2"))
                    .cmd(b("LRANGE"), b(l), b("0"), b("-1"))
                    .cmd(b("LPOP"), b(l))
                    .cmd(b("LLEN"), b(l));
        }
        s.run();
    }

    /** Replies to pipelined commands come back in order, large (streamed) ones included. */
    @BothProtocols
    void pipelinedLargeAndSmallReplies() throws Exception {
        byte[] big = pattern(200_000, 5);
        List<byte[][]> cmds = new ArrayList<>();
        cmds.add(argv("SET", "big", big));
        cmds.add(argv("SET", "small", "s"));
        for (int i = 0; i < 5; i++) {
            cmds.add(argv("GET", "small"));
            cmds.add(argv("GET", "big"));
            cmds.add(argv("MGET", "big", "small", "big"));
            cmds.add(argv("PING"));
        }
        scenario("pipelined large and small replies")
                .raw(pipeline(cmds), cmds.size())
                .run();
    }

    @BothProtocols
    void longPipelinesAndManyArguments() throws Exception {
        List<byte[][]> incrs = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            incrs.add(argv("INCR", "counter"));
        }
        List<Object> mset = new ArrayList<>();
        mset.add("MSET");
        List<Object> mget = new ArrayList<>();
        mget.add("MGET");
        List<Object> del = new ArrayList<>();
        del.add("DEL");
        for (int i = 0; i < 3000; i++) {
            mset.add("key:" + i);
            mset.add("value:" + i);
            mget.add("key:" + (i * 7 % 3100));
            del.add("key:" + (i * 3 % 3200));
        }
        scenario("long pipelines, many arguments")
                .raw(pipeline(incrs), incrs.size())
                .cmd(argv(mset.toArray()))
                .cmd("DBSIZE")
                .cmd(argv(mget.toArray()))
                .cmd(argv(del.toArray()))
                .cmd("DBSIZE")
                .run();
    }

    @BothProtocols
    void largeKeys() throws Exception {
        largeKeys("keys of 1 KB to 64 KB", 1_000, 10_000, 65_536);
    }

    @BothProtocols
    void keysOver64KiB() throws Exception {
        largeKeys("keys of 100 KB", 100_000);
    }

    /** Redis takes keys up to 512 MB; a 1 MB key is unusual but legal. */
    @BothProtocols
    void oneMegabyteKey() throws Exception {
        largeKeys("a 1 MB key", 1_000_000);
    }

    private void largeKeys(String name, int... lengths) throws Exception {
        Scenario s = scenario(name);
        for (int len : lengths) {
            byte[] k = pattern(len, 7);
            s.cmd(b("SET"), k, b("v" + len))
                    .cmd(b("GET"), k)
                    .cmd(b("EXISTS"), k)
                    .cmd(b("APPEND"), k, pattern(20_000, 8))
                    .cmd(b("STRLEN"), k)
                    .cmd(b("RENAME"), k, b("short"))
                    .cmd(b("RENAME"), b("short"), k)
                    .cmd(b("DEL"), k);
        }
        s.cmd("DBSIZE").run();
    }

    /** Commands arriving one byte per read: multibulk, inline, and the two mixed. */
    @BothProtocols
    void commandsSplitOverManyReads() throws Exception {
        String mixed = "PING\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\nGET k\r\n"
                + "*2\r\n$4\r\nECHO\r\n$0\r\n\r\nECHO \"a b\"\n*1\r\n$4\r\nPING\r\n";
        scenario("commands split over many reads")
                .trickle(mixed.getBytes(StandardCharsets.ISO_8859_1), 6)
                .trickle(RespClient.encode(b("SET"), b("t"), pattern(THRESHOLD + 100, 9)), 1)
                .cmd(b("GET"), b("t"))
                .run();
    }
}
