package dev.cajon.storage.collection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;

/**
 * Model-based tests of {@link CountedTree} against {@link MemoryEntries}: random sequences of
 * every operation, with tiny pages so that splits, merges, rebalancing, the root's growth and
 * collapse, and the moves between inline and paged happen within a few dozen entries. After
 * every operation the tree's structure is checked (order, counts, low keys, fill); after every
 * sequence the store must hold exactly the tree's pages (with, or without, the tree reopened
 * after every operation, as the engine opens one per body, so lookups scan pages undecoded), the state must reopen to the same
 * collection, a copy must equal it, and clear must leave the store empty.
 */
class CountedTreeModelTest {

    /** One step: what, and two numbers it picks its key, index or value from. */
    record Op(int kind, int a, int b) {
    }

    /** Page target and inline limit: tiny, and one pair near the real sizes. */
    record Sizes(int target, int inlineMax) {
    }

    @Provide
    Arbitrary<Sizes> sizes() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Arbitraries.just(new Sizes(40, 24))),
                net.jqwik.api.Tuple.of(2, Arbitraries.just(new Sizes(48, 0))),
                net.jqwik.api.Tuple.of(2, Arbitraries.just(new Sizes(64, 100))),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new Sizes(100, 60))),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new Sizes(256, 128))),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new Sizes(2048, 512))));
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Op> op = Combinators.combine(
                Arbitraries.integers().between(0, 99),
                Arbitraries.integers().between(0, 1 << 20),
                Arbitraries.integers().between(0, 1 << 20)).as(Op::new);
        return op.list().ofMinSize(0).ofMaxSize(500).withSizeDistribution(RandomDistribution.uniform());
    }

    // ------------------------------------------------------------------ keyed

    @Property(tries = 300)
    void keyedMatchesTheModel(@ForAll("sizes") Sizes sizes, @ForAll("ops") List<Op> ops,
            @ForAll boolean freshEachOp, @ForAll boolean appliesLater, @ForAll boolean cached) {
        MemoryPageStore store = new MemoryPageStore(appliesLater, cached);
        CountedTree tree = new CountedTree(null, store, false, sizes.target(), sizes.inlineMax());
        MemoryEntries model = new MemoryEntries(false);
        int keySpace = 1 + ops.size() / 2;
        for (Op op : ops) {
            byte[] key = key(op.a() % keySpace);
            int k = op.kind();
            if (k < 45) {
                byte[] value = value(op.b(), sizes.target());
                assertArrayEqualsOrNull(model.put(key, value), tree.put(key, value));
            } else if (k < 65) {
                assertArrayEqualsOrNull(model.remove(key), tree.remove(key));
            } else if (k < 72) {
                assertArrayEqualsOrNull(model.get(key), tree.get(key));
            } else if (k < 79) {
                assertEquals(model.rank(key), tree.rank(key));
            } else if (k < 85) {
                if (model.size() > 0) {
                    long i = op.b() % model.size();
                    assertEntry(model.at(i), tree.at(i));
                }
            } else if (k < 93) {
                long from = model.size() == 0 ? 0 : op.b() % (model.size() + 2) - 1;
                compareIterators(model.iterator(from, op.a() % 2 == 0), walk(tree, from, op.a()),
                        1 + op.b() % 40);
            } else if (k < 98) {
                tree = reopen(tree, store, false, sizes);
            } else if (op.b() % 4 == 0) {
                model.clear();
                tree.clear();
                assertEquals(0, store.count());
            }
            assertEquals(model.size(), tree.size());
            tree.check();
            if (freshEachOp) { // as the engine does: one body, one tree; no decoded page survives
                tree = reopen(tree, store, false, sizes);
            }
        }
        endOfSequence(tree, model, store, false, sizes);
    }

    // ------------------------------------------------------------------ positional

    @Property(tries = 300)
    void positionalMatchesTheModel(@ForAll("sizes") Sizes sizes, @ForAll("ops") List<Op> ops,
            @ForAll boolean freshEachOp, @ForAll boolean appliesLater, @ForAll boolean cached) {
        MemoryPageStore store = new MemoryPageStore(appliesLater, cached);
        CountedTree tree = new CountedTree(null, store, true, sizes.target(), sizes.inlineMax());
        MemoryEntries model = new MemoryEntries(true);
        for (Op op : ops) {
            int k = op.kind();
            long n = model.size();
            if (k < 40) {
                long i = op.a() % (n + 1);
                if (op.b() % 3 == 0) {
                    i = op.b() % 2 == 0 ? 0 : n; // pushes at either end, as lists do most
                }
                byte[] value = value(op.b(), sizes.target());
                model.insertAt(i, value);
                tree.insertAt(i, value);
            } else if (k < 62) {
                if (n > 0) {
                    long i = op.b() % 3 == 0 ? (op.b() % 2 == 0 ? 0 : n - 1) : op.a() % n;
                    assertArrayEquals(model.removeAt(i), tree.removeAt(i));
                }
            } else if (k < 72) {
                if (n > 0) {
                    byte[] value = value(op.b(), sizes.target());
                    long i = op.a() % n;
                    assertArrayEquals(model.setAt(i, value), tree.setAt(i, value));
                }
            } else if (k < 80) {
                if (n > 0) {
                    long i = op.a() % n;
                    assertEntry(model.at(i), tree.at(i));
                }
            } else if (k < 92) {
                long from = n == 0 ? 0 : op.b() % (n + 2) - 1;
                compareIterators(model.iterator(from, op.a() % 2 == 0), walk(tree, from, op.a()),
                        1 + op.b() % 40);
            } else if (k < 98) {
                tree = reopen(tree, store, true, sizes);
            } else if (op.b() % 4 == 0) {
                model.clear();
                tree.clear();
                assertEquals(0, store.count());
            }
            assertEquals(model.size(), tree.size());
            tree.check();
            if (freshEachOp) { // as the engine does: one body, one tree; no decoded page survives
                tree = reopen(tree, store, true, sizes);
            }
        }
        endOfSequence(tree, model, store, true, sizes);
    }

    // ------------------------------------------------------------------ end of a sequence

    /**
     * The body ends (its decoded pages go to the store's node cache, if it has one) and the
     * next one opens the tree afresh, as the engine does.
     */
    private static CountedTree reopen(CountedTree tree, MemoryPageStore store, boolean positional, Sizes sizes) {
        byte[] state = tree.state();
        store.endBody();
        return new CountedTree(state, store, positional, sizes.target(), sizes.inlineMax());
    }

    private static void endOfSequence(CountedTree tree, MemoryEntries model, MemoryPageStore store,
            boolean positional, Sizes sizes) {
        byte[] state = tree.state();
        assertEquals(CountedTree.pagesOf(state, store, positional), store.ids(), "pages leaked or lost");
        CountedTree reopened = new CountedTree(state, store, positional, sizes.target(), sizes.inlineMax());
        reopened.check();
        compareAll(model, reopened);

        MemoryPageStore other = new MemoryPageStore();
        byte[] copied = Trees.copy(state, store, other, positional);
        assertEquals(CountedTree.pagesOf(copied, other, positional), other.ids());
        assertEquals(store.count(), other.count());
        compareAll(model, new CountedTree(copied, other, positional, sizes.target(), sizes.inlineMax()));

        reopened.clear();
        assertEquals(0, store.count(), "clear left pages");
        assertEquals(0, reopened.size());
        assertTrue(new CountedTree(reopened.state(), store, positional).size() == 0);
    }

    /** The copying walk or the view (LRANGE's), descending on even {@code a}: both must match the model. */
    private static Iterator<Entry> walk(CountedTree tree, long from, int a) {
        boolean descending = a % 2 == 0;
        return (a / 2) % 2 == 0 ? tree.iterator(from, descending) : tree.view(from, descending);
    }

    private static void compareAll(MemoryEntries model, CountedTree tree) {
        assertEquals(model.size(), tree.size());
        compareIterators(model.iterator(0, false), tree.iterator(0, false), Integer.MAX_VALUE);
        compareIterators(model.iterator(model.size() - 1, true), tree.iterator(model.size() - 1, true),
                Integer.MAX_VALUE);
        for (long i = 0; i < model.size(); i += 7) {
            assertEntry(model.at(i), tree.at(i));
        }
    }

    private static void compareIterators(Iterator<Entry> expected, Iterator<Entry> actual, int steps) {
        for (int i = 0; i < steps; i++) {
            assertEquals(expected.hasNext(), actual.hasNext());
            if (!expected.hasNext()) {
                return;
            }
            assertEntry(expected.next(), actual.next());
        }
    }

    private static void assertEntry(Entry expected, Entry actual) {
        assertArrayEquals(expected.key(), actual.key());
        assertArrayEquals(expected.value(), actual.value());
    }

    private static void assertArrayEqualsOrNull(byte[] expected, byte[] actual) {
        if (expected == null) {
            assertNull(actual);
        } else {
            assertArrayEquals(expected, actual);
        }
    }

    // ------------------------------------------------------------------ data

    /**
     * Key {@code i}: prefixes shared by many keys (so separators must be longer than one byte),
     * bytes above 0x7F (unsigned order), an empty key, and keys that are prefixes of others.
     */
    static byte[] key(int i) {
        if (i == 0) {
            return new byte[0];
        }
        String[] prefixes = {"", "user:1000:", "\u00ff", "ab"};
        String s = prefixes[i % prefixes.length] + Integer.toString(i / prefixes.length, 7);
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        return i % 5 == 0 ? concat(b, new byte[] {(byte) 0x80, (byte) i}) : b;
    }

    /** A value of mostly small sizes, sometimes empty, sometimes bigger than a whole page. */
    static byte[] value(int b, int target) {
        int len;
        if (b % 23 == 0) {
            len = target * 2 + b % 50; // an entry bigger than a page: an oversized leaf
        } else if (b % 11 == 0) {
            len = 0;
        } else {
            len = b % 24;
        }
        byte[] v = new byte[len];
        for (int i = 0; i < len; i++) {
            v[i] = (byte) (b + i * 31);
        }
        return v;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
