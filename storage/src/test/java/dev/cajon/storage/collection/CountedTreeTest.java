package dev.cajon.storage.collection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link CountedTree} at its extremes: growing tall and shrinking back inline, entries at the
 * size limits, a million entries, and how many pages one write touches.
 */
class CountedTreeTest {

    private static byte[] num(int i) {
        return Integer.toString(i).getBytes();
    }

    @Test
    void keyedGrowsTallAndShrinksBackInline() {
        MemoryPageStore store = new MemoryPageStore();
        CountedTree t = new CountedTree(null, store, false, 40, 24);
        List<Integer> keys = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            keys.add(i);
        }
        Collections.shuffle(keys, new Random(1));
        for (int k : keys) {
            assertNull(t.put(num(k), num(-k)));
        }
        t.check();
        assertTrue(t.height() >= 4, "height " + t.height());
        assertEquals(CountedTree.pagesOf(t.state(), store, false), store.ids());
        Collections.shuffle(keys, new Random(2));
        int n = keys.size();
        for (int k : keys) {
            assertArrayEquals(num(-k), t.remove(num(k)));
            n--;
            assertEquals(n, t.size());
            if (n % 17 == 0) {
                t.check();
                assertEquals(CountedTree.pagesOf(t.state(), store, false), store.ids());
            }
        }
        assertEquals(1, t.height());
        assertEquals(0, store.count(), "every page freed");
        assertEquals(0, t.state()[1], "back inline");
    }

    @Test
    void positionalGrowsTallAndShrinksBackInline() {
        MemoryPageStore store = new MemoryPageStore();
        CountedTree t = new CountedTree(null, store, true, 32, 24);
        MemoryEntries model = new MemoryEntries(true);
        for (int i = 0; i < 2000; i++) {
            long at = i % 3 == 0 ? 0 : i % 3 == 1 ? t.size() : t.size() / 2;
            t.insertAt(at, num(i));
            model.insertAt(at, num(i));
        }
        t.check();
        assertTrue(t.height() >= 4, "height " + t.height());
        Iterator<Entry> a = t.iterator(0, false);
        Iterator<Entry> b = model.iterator(0, false);
        while (b.hasNext()) {
            assertArrayEquals(b.next().value(), a.next().value());
        }
        for (int i = 0; i < 2000; i++) {
            long at = i % 2 == 0 ? 0 : t.size() - 1;
            assertArrayEquals(model.removeAt(at), t.removeAt(at));
            if (i % 13 == 0) {
                t.check();
            }
        }
        assertEquals(0, t.size());
        assertEquals(1, t.height());
        assertEquals(0, store.count());
    }

    @Test
    void entriesAtTheLimits() {
        MemoryPageStore store = new MemoryPageStore();
        CountedTree t = new CountedTree(null, store, false);
        int valueMax = CountedTree.MAX_ENTRY - CountedTree.MAX_KEY;
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 14; i++) {
            byte[] key = new byte[CountedTree.MAX_KEY];
            Arrays.fill(key, (byte) 'k');
            key[key.length - 1] = (byte) i; // only the last byte differs: separators are whole keys
            keys.add(key);
            byte[] value = new byte[valueMax];
            value[0] = (byte) i;
            t.put(key, value);
            t.put(new byte[] {(byte) i}, new byte[] {1}); // small entries next to the big ones
        }
        t.check(); // and the store refused nothing over MAX_PAGE
        assertTrue(t.height() >= 3, "height " + t.height());
        for (int i = 0; i < keys.size(); i++) {
            assertEquals(valueMax, t.get(keys.get(i)).length);
            assertEquals(i, t.get(keys.get(i))[0]);
        }
        for (byte[] key : keys) {
            t.remove(key);
            t.check();
        }
        assertEquals(14, t.size());
        byte[] big = new byte[CountedTree.MAX_KEY + 1];
        assertThrows(IllegalArgumentException.class, () -> t.put(big, new byte[0]));
        assertThrows(IllegalArgumentException.class,
                () -> t.put(new byte[1], new byte[CountedTree.MAX_ENTRY]));
        assertEquals(14, t.size());

        CountedTree list = new CountedTree(null, new MemoryPageStore(), true);
        list.insertAt(0, new byte[CountedTree.MAX_ENTRY]);
        list.insertAt(0, new byte[CountedTree.MAX_ENTRY]);
        list.insertAt(1, new byte[3]);
        list.check();
        assertThrows(IllegalArgumentException.class, () -> list.insertAt(0, new byte[CountedTree.MAX_ENTRY + 1]));
        assertThrows(IllegalArgumentException.class, () -> list.setAt(0, new byte[CountedTree.MAX_ENTRY + 1]));
        assertEquals(3, list.size());
        assertTrue(Trees.fits(CountedTree.MAX_KEY, valueMax));
        assertTrue(!Trees.fits(CountedTree.MAX_KEY + 1, 0));
    }

    @Test
    void arraysPassedAndReturnedStayTheCallers() {
        for (int inlineMax : new int[] {512, 0}) {
            CountedTree t = new CountedTree(null, new MemoryPageStore(), false, 40, inlineMax);
            byte[] k = {1};
            byte[] v = {2};
            t.put(k, v);
            t.put(new byte[] {3}, new byte[] {4}); // a write leaves its pages decoded
            k[0] = 9;
            v[0] = 9;
            t.get(new byte[] {1})[0] = 7;
            t.at(0).value()[0] = 7;
            t.at(0).key()[0] = 7;
            t.iterator(0, false).next().value()[0] = 7;
            assertArrayEquals(new byte[] {2}, t.get(new byte[] {1}));
            assertArrayEquals(new byte[] {1}, t.at(0).key());
        }
    }

    /**
     * LRANGE's walk hands out the tree's own arrays (no copy): the values a reply holds must stay
     * what they were when read, whatever the tree does after, inline or paged.
     */
    @Test
    void viewedEntriesKeepTheirBytesWhenTheTreeChangesAfter() {
        for (int inlineMax : new int[] {512, 0}) {
            CountedTree t = new CountedTree(null, new MemoryPageStore(), true, 32, inlineMax);
            for (int i = 0; i < 300; i++) {
                t.insertAt(i, num(i));
            }
            List<byte[]> read = new ArrayList<>();
            for (Iterator<Entry> it = t.view(0, false); it.hasNext(); ) {
                read.add(it.next().value());
            }
            assertEquals(300, read.size());
            for (int i = 0; i < 300; i++) {
                t.setAt(i, num(-i - 1));
            }
            for (int i = 0; i < 100; i++) {
                t.removeAt(0);
                t.insertAt(t.size() / 2, num(1000 + i));
            }
            for (int i = 0; i < 300; i++) {
                assertArrayEquals(num(i), read.get(i), "value " + i + " as read, inlineMax " + inlineMax);
            }
            Iterator<Entry> back = t.view(t.size() - 1, true);
            assertArrayEquals(t.at(t.size() - 1).value(), back.next().value(), "descending view from the tail");
        }
    }

    @Test
    void wrongModeAndBadIndexesAreRefused() {
        CountedTree keyed = new CountedTree(null, new MemoryPageStore(), false);
        CountedTree list = new CountedTree(null, new MemoryPageStore(), true);
        assertThrows(UnsupportedOperationException.class, () -> keyed.insertAt(0, new byte[1]));
        assertThrows(UnsupportedOperationException.class, () -> list.put(new byte[1], new byte[1]));
        assertThrows(IndexOutOfBoundsException.class, () -> list.insertAt(1, new byte[1]));
        assertThrows(IndexOutOfBoundsException.class, () -> list.removeAt(0));
        assertThrows(IndexOutOfBoundsException.class, () -> keyed.at(0));
        assertTrue(!keyed.iterator(0, false).hasNext());
    }

    /** A million keyed entries of 10-byte keys and values; a put touches O(height) pages. */
    @Test
    void aMillionKeyedEntries() {
        MemoryPageStore store = new MemoryPageStore();
        CountedTree t = new CountedTree(null, store, false);
        Random r = new Random(7);
        int n = 1_000_000;
        byte[][] keys = new byte[n][];
        for (int i = 0; i < n; i++) {
            byte[] k = new byte[10];
            r.nextBytes(k);
            keys[i] = k;
            t.put(k, Arrays.copyOf(k, 10));
        }
        assertEquals(n, t.size()); // random 10-byte keys: no duplicates at this seed
        int height = t.height();
        assertTrue(height >= 3 && height <= 4, "height " + height);

        store.resetCounters();
        int puts = 2000;
        long worst = 0;
        for (int i = 0; i < puts; i++) {
            long before = store.touches();
            byte[] k = new byte[10];
            r.nextBytes(k);
            t.put(k, k);
            worst = Math.max(worst, store.touches() - before);
        }
        // a put rewrites its path: height pages, plus the odd split's new page per level
        assertTrue(store.touches() <= (long) puts * (height + 1), "touches " + store.touches());
        assertTrue(worst <= 2L * height + 1, "worst " + worst);

        CountedTree reopened = new CountedTree(t.state(), store, false);
        for (int i = 0; i < n; i += 997) {
            assertArrayEquals(keys[i], reopened.get(keys[i]));
        }
        byte[][] sorted = keys.clone();
        Arrays.sort(sorted, Arrays::compareUnsigned);
        for (int i = 0; i < n; i += 9973) {
            assertEquals(reopened.rank(sorted[i]) , reopened.rank(sorted[i]));
            assertArrayEquals(sorted[i], reopened.at(reopened.rank(sorted[i])).key());
        }
        Iterator<Entry> it = reopened.iterator(0, false);
        byte[] prev = null;
        long seen = 0;
        while (it.hasNext()) {
            byte[] k = it.next().key();
            assertTrue(prev == null || Arrays.compareUnsigned(prev, k) < 0);
            prev = k;
            seen++;
        }
        assertEquals(n + puts, seen);

        // COPY costs O(pages): each page read once and added once
        store.resetCounters();
        MemoryPageStore other = new MemoryPageStore();
        byte[] copied = Trees.copy(reopened.state(), store, other, false);
        assertEquals(store.count(), other.adds);
        assertEquals(store.count(), store.reads);
        assertEquals(CountedTree.pagesOf(copied, other, false), other.ids());
        assertEquals(n + puts, Trees.open(copied, other, false).size());

        // clear reads only the internal pages, and frees them all
        store.resetCounters();
        int pagesBefore = store.count();
        reopened.clear();
        assertEquals(0, store.count());
        assertEquals(pagesBefore, store.frees);
        assertTrue(store.reads < pagesBefore / 20, "reads " + store.reads);
    }
}
