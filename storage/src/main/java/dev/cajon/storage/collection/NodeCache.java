package dev.cajon.storage.collection;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Decoded pages kept from one command to the next, so that a key written again and again (every
 * {@code redis-benchmark} type test writes one key) does not decode the same leaf at every
 * command. A {@link CountedTree} decodes only its leaves (internal pages are scanned in place),
 * and a leaf of 30 list elements costs 30 small arrays to decode: a third of an LPUSH's time
 * before this cache.
 *
 * <h2>Why a node from here is always right</h2>
 * Each slot holds a node together with the exact page bytes it was decoded from (or encoded to).
 * A tree asks for a page only after reading its bytes from the store, and gets the node only if
 * those bytes are equal to the slot's: decoding is a pure function of the bytes (and the tree's
 * kind, checked too), so the node is what decoding would give, whichever write, undo, recovery or
 * swap changed the map meanwhile. Nothing needs invalidating, and a stale slot only costs a miss.
 *
 * <p>The rest is ownership. Nodes are mutable. {@link #take} empties the slot, so one tree at a
 * time owns a node; a tree gives its nodes back ({@link #offer}) only after its body's writes are
 * applied, each with the bytes the store now holds for it. A body that throws, or is run again
 * after growth, gives nothing back. With {@link #verify} on (the test suite turns it on), every
 * node offered is encoded again and compared with its bytes, so a tree that offered a node it
 * changed after writing it fails loudly in the tests instead of serving a wrong read later.
 *
 * <p>One cache serves the whole process: slots are direct-mapped by collection id and page id,
 * lock-free, and bounded ({@link #SLOTS} slots, pages up to {@link #MAX_BYTES} bytes, so a few
 * megabytes at most however many apps there are).
 */
public final class NodeCache {
    /** Number of slots (a power of two). */
    static final int SLOTS = 2048;
    /** Larger pages (a leaf holding one big entry) are not kept. */
    static final int MAX_BYTES = 4 * CountedTree.PAGE_TARGET;

    /** The process's cache. */
    public static final NodeCache SHARED = new NodeCache(SLOTS);

    /** Check every offered node against its bytes (costs an encode; on in tests). */
    static volatile boolean verify = Boolean.getBoolean("cajon.nodecache.verify");

    private record Slot(long scope, long page, byte[] bytes, TreeNode node) {}

    private final AtomicReferenceArray<Slot> slots;
    private final int mask;

    NodeCache(int slots) {
        if (Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two: " + slots);
        }
        this.slots = new AtomicReferenceArray<>(slots);
        this.mask = slots - 1;
    }

    private int index(long scope, long page) {
        long h = scope * 0x9E3779B97F4A7C15L ^ page;
        h ^= h >>> 31;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 29;
        return (int) h & mask;
    }

    /**
     * The node decoded from {@code bytes}, page {@code page} of collection {@code scope}, if this
     * cache holds it; the caller then owns it (the slot is emptied). Null otherwise.
     */
    TreeNode take(long scope, long page, byte[] bytes, boolean positional) {
        int i = index(scope, page);
        Slot s = slots.get(i);
        if (s == null || s.page != page || s.scope != scope || s.node.positional != positional
                || !Arrays.equals(s.bytes, bytes) || !slots.compareAndSet(i, s, null)) {
            return null;
        }
        return s.node;
    }

    /**
     * Keeps {@code node}, which the caller owned and will not touch again, as the decoding of
     * {@code bytes}.
     */
    void offer(long scope, long page, byte[] bytes, TreeNode node) {
        if (bytes.length > MAX_BYTES) {
            return;
        }
        if (verify && !Arrays.equals(node.encode(), bytes)) {
            throw new IllegalStateException("page " + page + ": a node offered to the cache is not"
                    + " the decoding of its bytes");
        }
        slots.set(index(scope, page), new Slot(scope, page, bytes, node));
    }

    /** Empties every slot (tests). */
    void clear() {
        for (int i = 0; i < slots.length(); i++) {
            slots.set(i, null);
        }
    }
}
