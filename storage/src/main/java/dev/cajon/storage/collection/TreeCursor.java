package dev.cajon.storage.collection;

import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * An iterator over a {@link CountedTree}: the path from the root to the current entry, moved one
 * entry per step. There are no sibling links, so a step that leaves a leaf climbs to the first
 * ancestor with a next child and descends its edge again: O(1) amortised per entry.
 */
final class TreeCursor implements Iterator<Entry> {
    private final CountedTree t;
    private final TreeNode[] nodes;
    private final int[] pos;
    private final int step;
    private final boolean copy;
    private long remaining;

    TreeCursor(CountedTree t, long from, boolean descending, boolean copy) {
        this.t = t;
        nodes = new TreeNode[t.height];
        pos = new int[t.height];
        this.copy = copy;
        step = descending ? -1 : 1;
        remaining = descending ? from + 1 : t.count - from;
        TreeNode n = t.root();
        long i = from;
        int level = 0;
        while (!n.leaf) {
            int c = 0;
            int last = n.size() - 1;
            while (c < last && i >= n.counts.get(c)) {
                i -= n.counts.get(c);
                c++;
            }
            nodes[level] = n;
            pos[level] = c;
            level++;
            n = t.load(n.children.get(c));
        }
        nodes[level] = n;
        pos[level] = (int) i;
    }

    @Override
    public boolean hasNext() {
        return remaining > 0;
    }

    @Override
    public Entry next() {
        if (remaining <= 0) {
            throw new NoSuchElementException();
        }
        int leaf = nodes.length - 1;
        TreeNode n = nodes[leaf];
        int p = pos[leaf];
        Entry e = copy ? CountedTree.copyOf(n, p) : new Entry(n.key(p), n.values.get(p));
        if (--remaining > 0) {
            advance();
        }
        return e;
    }

    private void advance() {
        int level = nodes.length - 1;
        pos[level] += step;
        while (pos[level] < 0 || pos[level] >= nodes[level].size()) {
            level--; // the entries remaining guarantee an ancestor with a next child
            pos[level] += step;
        }
        for (int l = level + 1; l < nodes.length; l++) {
            TreeNode child = t.load(nodes[l - 1].children.get(pos[l - 1]));
            nodes[l] = child;
            pos[l] = step > 0 ? 0 : child.size() - 1;
        }
    }
}
