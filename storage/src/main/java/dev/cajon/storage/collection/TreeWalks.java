package dev.cajon.storage.collection;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * What a {@link CountedTree} does with the whole tree at once, page by page: freeing it, copying
 * it into another store, listing its pages, and (for tests) checking every invariant its
 * javadoc states. Each costs O(pages).
 */
final class TreeWalks {
    private TreeWalks() {
    }

    /** Frees page {@code id} at {@code height} (1: a leaf) and every page below it. */
    static void freeAll(PageStore pages, long id, int height, boolean positional) {
        if (height > 1) {
            TreeNode n = TreeNode.decode(id, pages.read(id), positional);
            for (Long child : n.children) {
                freeAll(pages, child, height - 1, positional);
            }
        }
        pages.free(id);
    }

    /** See {@link Trees#copy}. */
    static byte[] copy(byte[] state, PageStore from, PageStore to, boolean positional) {
        if (state == null) {
            return null;
        }
        CountedTree t = new CountedTree(state, from, positional);
        if (t.rootId == 0) {
            return state.clone();
        }
        t.rootId = copyPage(from, to, t.rootId, t.height, positional);
        return t.state();
    }

    private static long copyPage(PageStore from, PageStore to, long id, int height, boolean positional) {
        byte[] page = from.read(id);
        if (height == 1) {
            return to.add(page.clone());
        }
        TreeNode n = TreeNode.decode(id, page, positional);
        for (int i = 0; i < n.size(); i++) {
            n.children.set(i, copyPage(from, to, n.children.get(i), height - 1, positional));
        }
        return to.add(n.encode());
    }

    /** Every page id the collection in {@code state} holds (for checks and tests). */
    static Set<Long> pagesOf(byte[] state, PageStore pages, boolean positional) {
        Set<Long> out = new HashSet<>();
        CountedTree t = new CountedTree(state, pages, positional);
        if (t.rootId != 0) {
            collect(pages, t.rootId, t.height, positional, out);
        }
        return out;
    }

    private static void collect(PageStore pages, long id, int height, boolean positional, Set<Long> out) {
        out.add(id);
        TreeNode n = TreeNode.decode(id, pages.read(id), positional);
        if (n.leaf != (height == 1)) {
            throw new IllegalStateException("page " + id + " at the wrong height");
        }
        for (int i = 0; !n.leaf && i < n.size(); i++) {
            collect(pages, n.children.get(i), height - 1, positional, out);
        }
    }

    /** For tests: the whole structure of {@code t}, checked (order, counts, sizes, low keys); throws if wrong. */
    static void check(CountedTree t) {
        t.flush(); // the pages as stored are what is checked
        if (t.rootId == 0) {
            if (t.height != 1 || t.root.size() != t.count || t.root.size() > 0 && t.root.bytes() > t.inlineMax) {
                throw new IllegalStateException("bad inline root");
            }
            checkLeafOrder(t.root, t.positional);
            return;
        }
        if (t.height == 1 && t.root().bytes() <= t.inlineMin) {
            throw new IllegalStateException("a small single leaf left on a page");
        }
        long total = checkNode(t.pages, t.positional, t.rootId, t.height, null, null, true);
        if (total != t.count) {
            throw new IllegalStateException("count " + t.count + " but tree holds " + total);
        }
    }

    private static long checkNode(PageStore pages, boolean positional, long id, int h, byte[] low, byte[] high,
                                  boolean isRoot) {
        TreeNode n = TreeNode.decode(id, pages.read(id), positional);
        if (n.leaf != (h == 1)) {
            throw new IllegalStateException("page " + id + " at the wrong height");
        }
        if (n.bytes() > PageStore.MAX_PAGE) {
            throw new IllegalStateException("page " + id + " too big");
        }
        if (!isRoot && (n.leaf ? n.size() < 1 : n.size() < 2)) {
            throw new IllegalStateException("page " + id + " underfull: " + n.size());
        }
        if (isRoot && !n.leaf && n.size() < 2) {
            throw new IllegalStateException("root with one child");
        }
        if (n.leaf) {
            checkLeafOrder(n, positional);
            if (!positional && n.size() > 0) {
                if (low != null && Arrays.compareUnsigned(n.keys.get(0), low) < 0) {
                    throw new IllegalStateException("leaf " + id + " below its low key");
                }
                if (high != null && Arrays.compareUnsigned(n.keys.get(n.size() - 1), high) >= 0) {
                    throw new IllegalStateException("leaf " + id + " at or above its high key");
                }
            }
            return n.size();
        }
        long total = 0;
        for (int i = 0; i < n.size(); i++) {
            byte[] lo = positional ? null : i == 0 ? low : n.keys.get(i);
            byte[] hi = positional ? null : i + 1 < n.size() ? n.keys.get(i + 1) : high;
            if (lo != null && hi != null && Arrays.compareUnsigned(lo, hi) >= 0) {
                throw new IllegalStateException("page " + id + " low keys out of order");
            }
            long c = checkNode(pages, positional, n.children.get(i), h - 1, lo, hi, false);
            if (c != n.counts.get(i)) {
                throw new IllegalStateException("page " + id + " child " + i + " count "
                        + n.counts.get(i) + " but holds " + c);
            }
            total += c;
        }
        return total;
    }

    private static void checkLeafOrder(TreeNode n, boolean positional) {
        for (int i = 1; !positional && i < n.size(); i++) {
            if (Arrays.compareUnsigned(n.keys.get(i - 1), n.keys.get(i)) >= 0) {
                throw new IllegalStateException("leaf keys out of order");
            }
        }
    }
}
