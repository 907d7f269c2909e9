package dev.cajon.storage.collection;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One node of a {@link CountedTree}, decoded: a leaf (entries) or an internal node (children
 * with their entry counts and, keyed, their low keys). It owns the page format and the varints;
 * the layout is drawn in {@link CountedTree}'s javadoc and pinned by {@code TreeFormatTest}.
 *
 * <p>A node is mutable while a write works on it and is then encoded whole ({@link #encode});
 * pages are small (about {@link CountedTree#PAGE_TARGET} bytes), so decoding or encoding one
 * costs about as much as copying it.
 */
final class TreeNode {
    /** Format version: the first byte of every page and of every state. */
    static final byte VERSION = 1;

    /** Page kind (second byte of a page): bit 0 set = internal, bit 1 set = positional. */
    static final byte KIND_LEAF = 0;
    static final byte KIND_INTERNAL = 1;
    static final byte KIND_POSITIONAL = 2;

    static final byte[] EMPTY = new byte[0];

    final boolean leaf;
    final boolean positional;
    /** The page holding this node; 0 while it has none (an inline root, or a piece not yet added). */
    long id;
    /** Keyed: a leaf's keys, an internal node's low keys (index 0 is unused and empty). */
    final ArrayList<byte[]> keys;
    /** A leaf's values. */
    final ArrayList<byte[]> values;
    /** An internal node's child page ids. */
    final ArrayList<Long> children;
    /** An internal node's per-child entry counts. */
    final ArrayList<Long> counts;

    TreeNode(boolean leaf, boolean positional) {
        this(leaf, positional, 16);
    }

    TreeNode(boolean leaf, boolean positional, int capacity) {
        this.leaf = leaf;
        this.positional = positional;
        this.keys = positional ? null : new ArrayList<>(capacity);
        this.values = leaf ? new ArrayList<>(capacity) : null;
        this.children = leaf ? null : new ArrayList<>(capacity);
        this.counts = leaf ? null : new ArrayList<>(capacity);
    }

    /** Number of entries (leaf) or children (internal). */
    int size() {
        return leaf ? values.size() : children.size();
    }

    /** Entries below this node. */
    long total() {
        if (leaf) {
            return values.size();
        }
        long t = 0;
        for (Long c : counts) {
            t += c;
        }
        return t;
    }

    byte[] key(int i) {
        return positional ? EMPTY : keys.get(i);
    }

    // ------------------------------------------------------------------ sizes

    /** Encoded size of item {@code i} (an entry of a leaf, a child of an internal node). */
    int itemBytes(int i) {
        if (leaf) {
            int v = values.get(i).length;
            int s = varLen(v) + v;
            if (!positional) {
                int k = keys.get(i).length;
                s += varLen(k) + k;
            }
            return s;
        }
        int s = varLen(children.get(i)) + varLen(counts.get(i));
        if (!positional) {
            int k = i == 0 ? 0 : keys.get(i).length;
            s += varLen(k) + k;
        }
        return s;
    }

    /** Encoded size of a node of this kind holding {@code n} items of {@code body} bytes. */
    static int pageBytes(int n, int body) {
        return 2 + varLen(n) + body;
    }

    /** Encoded size of this node as a page. */
    int bytes() {
        int body = 0;
        int n = size();
        for (int i = 0; i < n; i++) {
            body += itemBytes(i);
        }
        return pageBytes(n, body);
    }

    // ------------------------------------------------------------------ pieces

    /** Appends item {@code i} of {@code from} (same kind) to this node. */
    void append(TreeNode from, int i) {
        if (!positional) {
            keys.add(from.keys.get(i));
        }
        if (leaf) {
            values.add(from.values.get(i));
        } else {
            children.add(from.children.get(i));
            counts.add(from.counts.get(i));
        }
    }

    /** Removes items [from, to). */
    void removeRange(int from, int to) {
        if (!positional) {
            keys.subList(from, to).clear();
        }
        if (leaf) {
            values.subList(from, to).clear();
        } else {
            children.subList(from, to).clear();
            counts.subList(from, to).clear();
        }
    }

    /** Inserts a child (internal nodes) at {@code i}. */
    void insertChild(int i, byte[] lowKey, long child, long count) {
        if (!positional) {
            keys.add(i, i == 0 ? EMPTY : lowKey);
        }
        children.add(i, child);
        counts.add(i, count);
    }

    /**
     * Where to cut items into pieces of at most {@code target} bytes each (a piece of fewer
     * than {@code minItems} items may be larger, as may one holding a single big item).
     * With {@code fill} 0 the pieces aim at equal sizes, so a split of an overfull node gives
     * two about half full; with 1 they are filled from the left (all full but the last), with
     * -1 from the right: a tree growing at one end (pushes, increasing keys) stays full.
     * Returns the start index of every piece (the first is 0).
     */
    List<Integer> cuts(int target, int minItems, int fill) {
        int n = size();
        int[] sizes = new int[n];
        int total = 0;
        for (int i = 0; i < n; i++) {
            int size = itemBytes(i);
            sizes[fill < 0 ? n - 1 - i : i] = size;
            total += size;
        }
        int pieces = Math.max(1, (pageBytes(n, total) + target - 1) / target);
        int aim = fill == 0 ? total / pieces : Integer.MAX_VALUE;
        List<Integer> at = new ArrayList<>();
        int start = 0;
        int acc = 0;
        for (int i = 0; i < n; i++) {
            int count = i - start;
            if (count >= minItems && n - i >= minItems
                    && (pageBytes(count + 1, acc + sizes[i]) > target || acc >= aim)) {
                at.add(i);
                start = i;
                acc = 0;
            }
            acc += sizes[i];
        }
        List<Integer> starts = new ArrayList<>(at.size() + 1);
        starts.add(0);
        if (fill < 0) {
            for (int j = at.size() - 1; j >= 0; j--) {
                starts.add(n - at.get(j));
            }
        } else {
            starts.addAll(at);
        }
        return starts;
    }

    /** This node's items cut into pieces at {@code starts} (new nodes without pages). */
    List<TreeNode> pieces(List<Integer> starts) {
        List<TreeNode> out = new ArrayList<>(starts.size());
        int n = size();
        for (int p = 0; p < starts.size(); p++) {
            int from = starts.get(p);
            int to = p + 1 < starts.size() ? starts.get(p + 1) : n;
            TreeNode piece = new TreeNode(leaf, positional, to - from + 8);
            for (int i = from; i < to; i++) {
                piece.append(this, i);
            }
            out.add(piece);
        }
        return out;
    }

    // ------------------------------------------------------------------ codec

    /** The node as a page. */
    byte[] encode() {
        return encode(bytes());
    }

    /** The node as a page of {@code bytes} bytes (its {@link #bytes()}, known to the caller). */
    byte[] encode(int bytes) {
        byte[] out = new byte[bytes];
        out[0] = VERSION;
        out[1] = (byte) ((leaf ? KIND_LEAF : KIND_INTERNAL) | (positional ? KIND_POSITIONAL : 0));
        int p = putVar(out, 2, size());
        return encodeBody(out, p);
    }

    /** The node's items after the header, as a page and as an inline state share them. */
    byte[] encodeBody(byte[] out, int p) {
        int n = size();
        for (int i = 0; i < n; i++) {
            if (leaf) {
                if (!positional) {
                    p = putBytes(out, p, keys.get(i));
                }
                p = putBytes(out, p, values.get(i));
            } else {
                p = putVar(out, p, children.get(i));
                p = putVar(out, p, counts.get(i));
                if (!positional) {
                    p = putBytes(out, p, i == 0 ? EMPTY : keys.get(i));
                }
            }
        }
        if (p != out.length) {
            throw new IllegalStateException("page size mismatch " + p + " != " + out.length);
        }
        return out;
    }

    /** Decodes page {@code id}; checks its version and that it is of the tree's mode. */
    static TreeNode decode(long id, byte[] page, boolean positional) {
        if (page.length < 3 || page[0] != VERSION) {
            throw new IllegalStateException("collection page " + id + ": unknown format version "
                    + (page.length == 0 ? "(empty)" : Byte.toString(page[0])));
        }
        int kind = page[1];
        if ((kind & ~(KIND_INTERNAL | KIND_POSITIONAL)) != 0
                || ((kind & KIND_POSITIONAL) != 0) != positional) {
            throw new IllegalStateException("collection page " + id + ": kind " + kind
                    + " does not belong to a " + (positional ? "positional" : "keyed") + " tree");
        }
        boolean leaf = (kind & KIND_INTERNAL) == 0;
        TreeNode node = new TreeNode(leaf, positional, 0);
        node.id = id;
        int[] at = {2};
        int n = (int) getVar(page, at);
        node.decodeBody(page, at, n);
        if (at[0] != page.length) {
            throw new IllegalStateException("collection page " + id + ": trailing bytes");
        }
        return node;
    }

    /** Reads {@code n} items from {@code at[0]} on. */
    void decodeBody(byte[] in, int[] at, int n) {
        if (keys != null) {
            keys.ensureCapacity(n + 8);
        }
        if (leaf) {
            values.ensureCapacity(n + 8);
        } else {
            children.ensureCapacity(n + 8);
            counts.ensureCapacity(n + 8);
        }
        for (int i = 0; i < n; i++) {
            if (leaf) {
                if (!positional) {
                    keys.add(getBytes(in, at));
                }
                values.add(getBytes(in, at));
            } else {
                children.add(getVar(in, at));
                counts.add(getVar(in, at));
                if (!positional) {
                    keys.add(getBytes(in, at));
                }
            }
        }
    }

    // ------------------------------------------------------------------ varints (unsigned LEB128)

    static int varLen(long v) {
        int n = 1;
        while ((v & ~0x7FL) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    static int putVar(byte[] out, int p, long v) {
        while ((v & ~0x7FL) != 0) {
            out[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out[p++] = (byte) v;
        return p;
    }

    /**
     * Moves {@code at} past one varint without decoding it: a scan of an internal page passes a
     * child id (a random long, 9-10 bytes) per item and decodes only the one it picks.
     */
    static void skipVar(byte[] in, int[] at) {
        int p = at[0];
        int end = Math.min(in.length, p + 10);
        while (p < end && in[p] < 0) {
            p++;
        }
        if (p >= end) {
            throw new IllegalStateException("collection page: truncated varint");
        }
        at[0] = p + 1;
    }

    static long getVar(byte[] in, int[] at) {
        int p = at[0];
        if (p < in.length && in[p] >= 0) { // one byte: lengths and counts below 128, the usual case
            at[0] = p + 1;
            return in[p];
        }
        long v = 0;
        int shift = 0;
        while (true) {
            if (p >= in.length || shift > 63) {
                throw new IllegalStateException("collection page: truncated varint");
            }
            byte b = in[p++];
            v |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                break;
            }
            shift += 7;
        }
        at[0] = p;
        return v;
    }

    static int putBytes(byte[] out, int p, byte[] b) {
        p = putVar(out, p, b.length);
        System.arraycopy(b, 0, out, p, b.length);
        return p + b.length;
    }

    static byte[] getBytes(byte[] in, int[] at) {
        int len = (int) getVar(in, at);
        int p = at[0];
        if (len < 0 || p + len > in.length) {
            throw new IllegalStateException("collection page: truncated item");
        }
        at[0] = p + len;
        return len == 0 ? EMPTY : Arrays.copyOfRange(in, p, p + len);
    }

    /** The child of {@code n} whose range holds {@code key}: the last with low key ≤ key. */
    static int childFor(TreeNode n, byte[] key) {
        int lo = 1;
        int hi = n.size() - 1;
        int found = 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(n.keys.get(mid), key) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** {@code key}'s position in the leaf, or {@code -(insertion point) - 1}. */
    static int leafSearch(TreeNode n, byte[] key) {
        int lo = 0;
        int hi = n.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = Arrays.compareUnsigned(n.keys.get(mid), key);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -lo - 1;
    }
}
