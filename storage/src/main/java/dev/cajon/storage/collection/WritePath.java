package dev.cajon.storage.collection;

import java.util.Arrays;
import java.util.List;

/**
 * The write path of a {@link CountedTree}: the descent that finds a write's leaf, and the fix of
 * that path bottom-up once the leaf has changed.
 *
 * <p>Every write descends once, changes the leaf, and fixes the path bottom-up: at each level the
 * changed child is split, merged with a sibling, or just rewritten, and its parent's count and
 * low keys follow; so a write touches O(height) pages (each written once, through
 * {@link PageStore#write}). Only the leaf is always decoded. An internal page the tree has not
 * decoded stays bytes on the path ({@link Raw}): if its structure does not change, the one count
 * of the child the write went through is patched in those bytes ({@link #patch}), without
 * decoding and re-encoding the page. Only a split or a merge below it makes it decoded.
 *
 * <p>The tree owns the nodes (its cache, the pages kept back until the store applies its
 * writes); this class asks it for them ({@code load}, {@code decoded}) and hands changed ones
 * back ({@code writePage}, {@code freePage}). It keeps no state of its own between writes.
 */
final class WritePath {
    private final CountedTree t;

    WritePath(CountedTree t) {
        this.t = t;
    }

    /**
     * The internal pages of a write's path that were not decoded: a write that changes no
     * structure at their level only changes one count in each, and patches that count in the
     * page's bytes ({@link #patch}) instead of decoding and re-encoding the page.
     */
    static final class Raw {
        final long[] id;
        final byte[][] bytes;
        final int[] n;
        final int[] countAt;
        final long[] oldCount;

        Raw(int height) {
            id = new long[height];
            bytes = new byte[height][];
            n = new int[height];
            countAt = new int[height];
            oldCount = new long[height];
        }
    }

    /** Items of the node at {@code level} of a path, decoded or not. */
    private static int sizeAt(TreeNode[] path, Raw raw, int level) {
        return path[level] != null ? path[level].size() : raw.n[level];
    }

    /**
     * Descends to the leaf for {@code key} (keyed) or for index {@code index} (positional;
     * with {@code inserting}, the end of a child is still that child's). Decoded internal
     * nodes go in {@code path}; the others stay bytes in {@code raw} ({@code path[level]} null).
     * The leaf is always decoded. Returns the position within the leaf (positional) or 0.
     */
    private int descend(byte[] key, long index, boolean inserting, TreeNode[] path, int[] slot, Raw raw) {
        long id = t.rootId;
        long i = index;
        for (int level = 0; level < t.height - 1; level++) {
            TreeNode n = t.decoded(id);
            if (n != null) {
                path[level] = n;
                int c;
                if (key != null) {
                    c = TreeNode.childFor(n, key);
                } else {
                    c = 0;
                    int last = n.size() - 1;
                    while (c < last && (inserting ? i > n.counts.get(c) : i >= n.counts.get(c))) {
                        i -= n.counts.get(c);
                        c++;
                    }
                }
                slot[level] = c;
                id = n.children.get(c);
                continue;
            }
            byte[] p = t.pages.read(id);
            int[] at = new int[1];
            int items = PageScan.open(id, p, false, t.positional, at);
            raw.id[level] = id;
            raw.bytes[level] = p;
            raw.n[level] = items;
            int chosenAt = -1;
            for (int c = 0; c < items; c++) {
                // the child id (9-10 bytes) is decoded only for the child picked, and by key the
                // count too
                int childAt = at[0];
                TreeNode.skipVar(p, at);
                int countAt = at[0];
                long cnt;
                if (key != null) {
                    TreeNode.skipVar(p, at);
                    cnt = -1;
                } else {
                    cnt = TreeNode.getVar(p, at);
                }
                boolean stop;
                if (key != null) {
                    int klen = (int) TreeNode.getVar(p, at);
                    int ks = at[0];
                    at[0] = ks + klen;
                    if (c > 0 && Arrays.compareUnsigned(p, ks, ks + klen, key, 0, key.length) > 0) {
                        break; // the previous child holds the key
                    }
                    stop = false;
                } else {
                    if (!t.positional) {
                        int klen = (int) TreeNode.getVar(p, at);
                        at[0] += klen;
                    }
                    stop = c == items - 1 || (inserting ? i <= cnt : i < cnt);
                    if (!stop) {
                        i -= cnt;
                    }
                }
                slot[level] = c;
                raw.countAt[level] = countAt;
                raw.oldCount[level] = cnt;
                chosenAt = childAt;
                if (stop) {
                    break;
                }
            }
            if (chosenAt >= 0) {
                id = TreeNode.getVar(p, new int[] {chosenAt});
                if (key != null) {
                    raw.oldCount[level] = TreeNode.getVar(p, new int[] {raw.countAt[level]});
                }
            }
        }
        TreeNode leaf = t.height == 1 ? t.root() : t.load(id);
        path[t.height - 1] = leaf;
        return (int) i;
    }

    TreeNode descendKey(byte[] key, TreeNode[] path, int[] slot, Raw raw) {
        descend(key, 0, false, path, slot, raw);
        return path[t.height - 1];
    }

    int descendIndex(long index, boolean inserting, TreeNode[] path, int[] slot, Raw raw) {
        return descend(null, index, inserting, path, slot, raw);
    }

    /**
     * Writes the raw page at {@code level} with its chosen child's count set to {@code count},
     * patched in its bytes. False (and nothing written) if the count's varint grows and the page
     * would go over the target: the caller decodes it instead, so that it can split.
     */
    private boolean patch(Raw raw, int level, long count) {
        byte[] p = raw.bytes[level];
        int off = raw.countAt[level];
        int oldLen = TreeNode.varLen(raw.oldCount[level]);
        int newLen = TreeNode.varLen(count);
        if (newLen > oldLen && p.length + newLen - oldLen > t.target) {
            return false;
        }
        byte[] out = new byte[p.length - oldLen + newLen];
        System.arraycopy(p, 0, out, 0, off);
        TreeNode.putVar(out, off, count);
        System.arraycopy(p, off + oldLen, out, off + newLen, p.length - off - oldLen);
        t.pages.write(raw.id[level], out);
        return true;
    }

    // ------------------------------------------------------------------ fixing the path

    private boolean overflows(TreeNode n, int bytes) {
        return n.size() >= (n.leaf ? 2 : 4) && bytes > t.target;
    }

    private boolean underflows(TreeNode n, int bytes) {
        return n.size() < (n.leaf ? 1 : 2) || bytes < t.target / 4;
    }

    private static int minItems(TreeNode n) {
        return n.leaf ? 1 : 2;
    }

    /**
     * After a change at position {@code changed} (-1: a removal) of the leaf at the end of
     * {@code path}: from the leaf up, splits a node that grew too big, merges (or rebalances)
     * one that shrank too small with a sibling, writes it, and updates its parent; then grows
     * or shrinks the root and moves it inline or out. A split at the tree's right edge (an
     * append: RPUSH, increasing keys) leaves the left piece full, and one at its left edge the
     * right piece, so a collection growing at one end packs its pages full.
     */
    void fixUp(TreeNode[] path, int[] slot, Raw raw, int changed, int delta) {
        int fill = 0;
        TreeNode leaf = path[t.height - 1];
        if (changed >= 0 && leaf.size() > 1) {
            boolean right = changed == leaf.size() - 1;
            boolean left = changed == 0;
            for (int l = 0; l < t.height - 1 && (right || left); l++) {
                right &= slot[l] == sizeAt(path, raw, l) - 1;
                left &= slot[l] == 0;
            }
            fill = right ? 1 : left ? -1 : 0;
        }
        for (int level = t.height - 1; level >= 1; level--) {
            TreeNode child = path[level];
            int ci = slot[level - 1];
            long childCount;
            if (child == null) {
                // a raw page, patched at the level below: only its count changed. Its parent is
                // as the descent found it here: decoded, or raw with the old count noted.
                TreeNode parent = path[level - 1];
                childCount = (parent != null ? parent.counts.get(ci) : raw.oldCount[level - 1]) + delta;
            } else {
                int bytes = child.bytes();
                boolean over = overflows(child, bytes);
                boolean under = !over && underflows(child, bytes) && sizeAt(path, raw, level - 1) > 1;
                if (over || under) {
                    TreeNode parent = path[level - 1];
                    if (parent == null) { // a change of structure: the parent must be decoded
                        parent = t.load(raw.id[level - 1]);
                        path[level - 1] = parent;
                    }
                    if (over) {
                        place(parent, ci, List.of(child), child.pieces(child.cuts(t.target, minItems(child), fill)));
                    } else {
                        int si = ci + 1 < parent.size() ? ci + 1 : ci - 1;
                        TreeNode sibling = t.load(parent.children.get(si));
                        TreeNode left = si < ci ? sibling : child;
                        TreeNode right = si < ci ? child : sibling;
                        int first = Math.min(ci, si);
                        TreeNode joined = join(left, right, parent.key(first + 1));
                        place(parent, first, List.of(left, right),
                                joined.pieces(joined.cuts(t.target, minItems(joined), 0)));
                    }
                    continue;
                }
                t.writePage(child, bytes);
                childCount = child.total();
            }
            TreeNode parent = path[level - 1];
            if (parent == null && !patch(raw, level - 1, childCount)) {
                parent = t.load(raw.id[level - 1]);
                path[level - 1] = parent;
            }
            if (parent != null) {
                parent.counts.set(ci, childCount);
            }
        }
        if (path[0] == null) {
            return; // the root was patched: its structure, and so the height, did not change
        }
        TreeNode r = path[0];
        while (overflows(r, r.bytes())) {
            List<TreeNode> pieces = r.pieces(r.cuts(t.target, minItems(r), fill));
            if (pieces.size() < 2) {
                break;
            }
            TreeNode up = new TreeNode(false, t.positional);
            up.insertChild(0, TreeNode.EMPTY, r.id, 0);
            place(up, 0, List.of(r), pieces);
            r = up;
            t.height++;
        }
        boolean collapsed = false;
        while (!r.leaf && r.size() == 1) {
            TreeNode only = t.load(r.children.get(0));
            t.freePage(r);
            r = only;
            t.height--;
            collapsed = true;
        }
        int bytes = r.bytes();
        if (r.leaf && r.id != 0 && (r.size() == 0 || bytes <= t.inlineMin)) {
            t.freePage(r); // back inline
            r.id = 0;
        } else if (r.leaf && r.id == 0) {
            if (r.size() > 0 && bytes > t.inlineMax) {
                t.writePage(r, bytes); // out of the state, onto a page
            }
        } else if (!collapsed) {
            t.writePage(r, bytes); // a collapsed root was written as a child already
        }
        t.root = r;
        t.rootId = r.id;
    }

    /** {@code left}'s items then {@code right}'s, whose low key in the parent is {@code rightLow}. */
    private TreeNode join(TreeNode left, TreeNode right, byte[] rightLow) {
        TreeNode j = new TreeNode(left.leaf, t.positional, left.size() + right.size() + 8);
        for (int i = 0; i < left.size(); i++) {
            j.append(left, i);
        }
        for (int i = 0; i < right.size(); i++) {
            j.append(right, i);
        }
        if (!left.leaf && !t.positional) {
            j.keys.set(left.size(), rightLow);
        }
        return j;
    }

    /**
     * Replaces the parent's children {@code first .. first + olds.size()} (nodes {@code olds})
     * by {@code pieces}: the pieces take the old pages in order, extra pieces get new pages,
     * extra old pages are freed; each piece is written and gets its count and low key.
     */
    private void place(TreeNode parent, int first, List<TreeNode> olds, List<TreeNode> pieces) {
        byte[] firstLow = parent.key(first);
        parent.removeRange(first, first + olds.size());
        for (int j = 0; j < pieces.size(); j++) {
            TreeNode piece = pieces.get(j);
            byte[] low;
            if (j == 0 || t.positional) {
                low = firstLow;
            } else if (piece.leaf) {
                TreeNode prev = pieces.get(j - 1);
                low = separator(prev.keys.get(prev.size() - 1), piece.keys.get(0));
            } else {
                low = piece.keys.get(0);
            }
            if (!piece.leaf && !t.positional) {
                piece.keys.set(0, TreeNode.EMPTY);
            }
            piece.id = j < olds.size() ? olds.get(j).id : 0;
            t.writePage(piece, piece.bytes());
            parent.insertChild(first + j, low, piece.id, piece.total());
        }
        for (int j = pieces.size(); j < olds.size(); j++) {
            t.freePage(olds.get(j));
        }
    }

    /** The shortest prefix of {@code right} greater than {@code left} (left &lt; right). */
    static byte[] separator(byte[] left, byte[] right) {
        int c = Arrays.mismatch(left, right);
        return c + 1 >= right.length ? right : Arrays.copyOf(right, c + 1);
    }
}
