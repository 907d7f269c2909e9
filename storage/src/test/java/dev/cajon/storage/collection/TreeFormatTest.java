package dev.cajon.storage.collection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Pins the persisted bytes of {@link CountedTree} (format version 1): inline states, leaf pages
 * and internal pages, keyed and positional. A change here is a change of the on-disk format:
 * it needs a new version byte and a reader for the old one.
 */
class TreeFormatTest {
    private static final HexFormat HEX = HexFormat.ofDelimiter(" ");

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String hex(byte[] bytes) {
        return HEX.formatHex(bytes);
    }

    @Test
    void inlineKeyedState() {
        CountedTree t = new CountedTree(null, new MemoryPageStore(), false);
        t.put(b("b"), b("xy"));
        t.put(b("a"), b("1"));
        // version 1, form 0 (inline, keyed), 2 entries: "a"="1", "b"="xy"
        assertEquals("01 00 02 01 61 01 31 01 62 02 78 79", hex(t.state()));
    }

    @Test
    void inlinePositionalAndEmptyStates() {
        CountedTree t = new CountedTree(null, new MemoryPageStore(), true);
        assertEquals("01 02 00", hex(t.state()));
        t.insertAt(0, b("x"));
        // version 1, form 2 (inline, positional), 1 entry: "x"
        assertEquals("01 02 01 01 78", hex(t.state()));
    }

    @Test
    void keyedLeafAndInternalPages() {
        MemoryPageStore store = new MemoryPageStore();
        CountedTree t = new CountedTree(null, store, false, 16, 4);
        t.put(b("apple"), b("1"));
        // one leaf, out of the state (over the inline limit of 4): form 1 (paged), count 1, height 1, root 1
        assertEquals("01 01 01 01 01", hex(t.state()));
        assertEquals("01 00 01 05 61 70 70 6c 65 01 31", hex(store.read(1)));
        t.put(b("banana"), b("2"));
        // the leaf split: count 2, height 2, root page 3
        assertEquals("01 01 02 02 03", hex(t.state()));
        assertEquals("01 00 01 05 61 70 70 6c 65 01 31", hex(store.read(1)));
        assertEquals("01 00 01 06 62 61 6e 61 6e 61 01 32", hex(store.read(2)));
        // internal (kind 1), 2 children: page 1 holding 1 (no low key), page 2 holding 1, low key "b"
        assertEquals("01 01 02 01 01 00 02 01 01 62", hex(store.read(3)));
    }

    @Test
    void positionalLeafAndInternalPages() {
        MemoryPageStore store = new MemoryPageStore();
        CountedTree t = new CountedTree(null, store, true, 8, 2);
        t.insertAt(0, b("a"));
        t.insertAt(1, b("b"));
        t.insertAt(2, b("c"));
        // form 3 (paged, positional), count 3, height 2, root page 3
        assertEquals("01 03 03 02 03", hex(t.state()));
        assertEquals("01 02 02 01 61 01 62", hex(store.read(1)));
        assertEquals("01 02 01 01 63", hex(store.read(2)));
        // positional internal (kind 3): page 1 holding 2, page 2 holding 1
        assertEquals("01 03 02 01 02 02 01", hex(store.read(3)));
    }

    @Test
    void unknownVersionsAndModesAreRefused() {
        MemoryPageStore store = new MemoryPageStore();
        assertThrows(IllegalStateException.class, () -> new CountedTree(HEX.parseHex("02 00 00"), store, false));
        assertThrows(IllegalStateException.class, () -> new CountedTree(HEX.parseHex("01 02 00"), store, false));
        assertThrows(IllegalStateException.class, () -> new CountedTree(HEX.parseHex("01 00 00 00"), store, false));
        long page = store.add(HEX.parseHex("01 02 01 01 78")); // a positional leaf
        byte[] keyedState = HEX.parseHex("01 01 01 01 0" + page);
        assertThrows(IllegalStateException.class, () -> new CountedTree(keyedState, store, false).at(0));
    }
}
