package dev.cajon.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.collection.CollectionTypes;
import dev.cajon.storage.collection.MemoryCollectionAccess;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Pins the persisted bytes of the sorted-set layout (see {@link ZSetTrees}): the member hash,
 * the order-preserving score image and the state's header. Changing any of them needs a new
 * state version.
 */
class ZSetLayoutTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String hex(long v) {
        return String.format("%016x", v);
    }

    @Test
    void memberHashIsPinned() {
        assertEquals("efd01f60ba992926", hex(ZSetTrees.hash64(b(""))));
        assertEquals("82a2a958a9bece5b", hex(ZSetTrees.hash64(b("a"))));
        assertEquals("687e033ce03e5135", hex(ZSetTrees.hash64(b("member:1"))));
        assertArrayEquals(HexFormat.of().parseHex("82a2a958a9bece5b61"), ZSetTrees.memberKey(b("a")));
    }

    @Test
    void scoreImageIsPinnedAndOrdered() {
        assertEquals("000fffffffffffff", hex(ZSetTrees.orderedScore(Double.NEGATIVE_INFINITY)));
        assertEquals("4007ffffffffffff", hex(ZSetTrees.orderedScore(-1.5)));
        assertEquals("8000000000000000", hex(ZSetTrees.orderedScore(-0.0)));
        assertEquals("8000000000000000", hex(ZSetTrees.orderedScore(0.0)));
        assertEquals("bff0000000000000", hex(ZSetTrees.orderedScore(1.0)));
        assertEquals("fff0000000000000", hex(ZSetTrees.orderedScore(Double.POSITIVE_INFINITY)));
        double[] asc = {Double.NEGATIVE_INFINITY, -1e308, -1, -Double.MIN_VALUE, 0, Double.MIN_VALUE, 1e-300, 1, 1e308,
            Double.POSITIVE_INFINITY};
        for (int i = 1; i < asc.length; i++) {
            assertTrue(Long.compareUnsigned(ZSetTrees.orderedScore(asc[i - 1]), ZSetTrees.orderedScore(asc[i])) < 0,
                    asc[i - 1] + " < " + asc[i]);
            assertEquals(asc[i], ZSetTrees.scoreOf(ZSetTrees.orderedScore(asc[i])));
        }
        assertArrayEquals(HexFormat.of().parseHex("bff000000000000061"), ZSetTrees.scoreKey(1.0, b("a")));
    }

    @Test
    void stateHeaderIsPinned() {
        MemoryCollectionAccess access = new MemoryCollectionAccess();
        ZSetOps z = ZSetOps.on(access);
        z.add(b("k"), ZSetOps.AddOptions.NONE, new double[] {1, 2}, new byte[][] {b("a"), b("b")});
        byte[] state = access.read(b("k"), ValueHeader.TYPE_ZSET, c -> c.state());
        assertEquals(1, state[0], "version");
        assertEquals(0, state[1], "flags: listpack");
        byte[][] parts = ZSetTrees.split(state);
        assertEquals(6 + parts[0].length + parts[1].length, state.length);
        assertEquals("zset", CollectionTypes.of(ValueHeader.TYPE_ZSET).name());
        assertEquals("listpack", ZSetOps.TYPE.encoding(state));
        byte[][] many = new byte[129][];
        double[] scores = new double[129];
        for (int i = 0; i < 129; i++) {
            many[i] = b("m" + i);
            scores[i] = i;
        }
        z.add(b("big"), ZSetOps.AddOptions.NONE, scores, many);
        byte[] big = access.read(b("big"), ValueHeader.TYPE_ZSET, c -> c.state());
        assertEquals(ZSetTrees.FLAG_SKIPLIST, big[1]);
        assertEquals("skiplist", ZSetOps.TYPE.encoding(big));
        // Redis never converts back: still "skiplist" after shrinking
        z.removeByRank(b("big"), 0, 120);
        assertEquals("skiplist", ZSetOps.TYPE.encoding(access.read(b("big"), ValueHeader.TYPE_ZSET, c -> c.state())));
        // a long member makes even a one-member set a skiplist
        z.add(b("long"), ZSetOps.AddOptions.NONE, new double[] {1}, new byte[][] {b("x".repeat(65))});
        assertEquals("skiplist", ZSetOps.TYPE.encoding(access.read(b("long"), ValueHeader.TYPE_ZSET, c -> c.state())));
    }

    @Test
    void anEmptiedSetIsDeleted() {
        MemoryCollectionAccess access = new MemoryCollectionAccess();
        ZSetOps z = ZSetOps.on(access);
        z.add(b("k"), ZSetOps.AddOptions.NONE, new double[] {1}, new byte[][] {b("a")});
        assertEquals(1, z.remove(b("k"), new byte[][] {b("a")}));
        Boolean gone = access.read(b("k"), ValueHeader.TYPE_ZSET, c -> c == null);
        assertTrue(gone);
    }
}
