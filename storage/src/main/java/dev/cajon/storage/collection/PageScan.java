package dev.cajon.storage.collection;

import java.util.Arrays;

/**
 * Reads that answer straight from a page's bytes, without decoding it into a {@link TreeNode}:
 * a lookup (HGET, ZSCORE, SISMEMBER, LINDEX) walks height pages and copies out one value, with
 * no allocation per item. The page format is {@link CountedTree}'s; the pages are the store's
 * arrays and are never changed here.
 */
final class PageScan {
    private PageScan() {
    }

    /** Checks the header of page {@code id} and returns its item count; {@code at[0]} is then past it. */
    static int open(long id, byte[] p, boolean leaf, boolean positional, int[] at) {
        int kind = (leaf ? TreeNode.KIND_LEAF : TreeNode.KIND_INTERNAL)
                | (positional ? TreeNode.KIND_POSITIONAL : 0);
        if (p.length < 3 || p[0] != TreeNode.VERSION || p[1] != kind) {
            // the decoder words the failure
            TreeNode.decode(id, p, positional);
            throw new IllegalStateException("collection page " + id + ": a "
                    + (leaf ? "leaf" : "internal node") + " was expected");
        }
        at[0] = 2;
        return (int) TreeNode.getVar(p, at);
    }

    /**
     * A keyed internal page: the child whose range holds {@code key} (the last whose low key is
     * ≤ key); adds the counts of the children before it to {@code before[0]}.
     */
    static long childByKey(long id, byte[] p, byte[] key, long[] before) {
        int[] at = new int[1];
        int n = open(id, p, false, false, at);
        int chosenAt = -1;
        long passed = 0;
        for (int i = 0; i < n; i++) {
            int childAt = at[0];
            TreeNode.skipVar(p, at); // decoded only for the child picked
            long count = TreeNode.getVar(p, at);
            int klen = (int) TreeNode.getVar(p, at);
            int ks = at[0];
            at[0] = ks + klen;
            if (i > 0 && Arrays.compareUnsigned(p, ks, ks + klen, key, 0, key.length) > 0) {
                break;
            }
            chosenAt = childAt;
            if (i > 0) {
                before[0] += passed;
                passed = 0;
            }
            passed += count;
        }
        return chosenAt < 0 ? 0 : TreeNode.getVar(p, new int[] {chosenAt});
    }

    /**
     * An internal page (either mode): the child holding entry {@code index[0]} of the page's
     * range; {@code index[0]} becomes the index within that child.
     */
    static long childByIndex(long id, byte[] p, boolean positional, long[] index) {
        int[] at = new int[1];
        int n = open(id, p, false, positional, at);
        for (int i = 0; i < n; i++) {
            long child = TreeNode.getVar(p, at);
            long count = TreeNode.getVar(p, at);
            if (!positional) {
                skip(p, at);
            }
            if (index[0] < count || i == n - 1) {
                return child;
            }
            index[0] -= count;
        }
        throw new IllegalStateException("collection page " + id + ": no children");
    }

    /** Steps over one length-prefixed item. */
    private static void skip(byte[] p, int[] at) {
        int len = (int) TreeNode.getVar(p, at); // read first: at[0] moves past the length
        at[0] += len;
    }

    /** A keyed leaf: the value under {@code key}, or null. */
    static byte[] get(long id, byte[] p, byte[] key) {
        int[] at = new int[1];
        int n = open(id, p, true, false, at);
        for (int i = 0; i < n; i++) {
            int klen = (int) TreeNode.getVar(p, at);
            int ks = at[0];
            at[0] = ks + klen;
            int c = Arrays.compareUnsigned(p, ks, ks + klen, key, 0, key.length);
            if (c == 0) {
                return TreeNode.getBytes(p, at);
            }
            if (c > 0) {
                return null;
            }
            skip(p, at);
        }
        return null;
    }

    /** A keyed leaf: how many of its keys are less than {@code key}. */
    static int rank(long id, byte[] p, byte[] key) {
        int[] at = new int[1];
        int n = open(id, p, true, false, at);
        for (int i = 0; i < n; i++) {
            int klen = (int) TreeNode.getVar(p, at);
            int ks = at[0];
            at[0] = ks + klen;
            if (Arrays.compareUnsigned(p, ks, ks + klen, key, 0, key.length) >= 0) {
                return i;
            }
            skip(p, at);
        }
        return n;
    }

    /** A leaf: its entry {@code index}. */
    static Entry at(long id, byte[] p, boolean positional, int index) {
        int[] at = new int[1];
        int n = open(id, p, true, positional, at);
        if (index >= n) {
            throw new IllegalStateException("collection page " + id + ": holds " + n + " not " + (index + 1));
        }
        for (int i = 0; i < index; i++) {
            if (!positional) {
                skip(p, at);
            }
            skip(p, at);
        }
        byte[] key = positional ? TreeNode.EMPTY : TreeNode.getBytes(p, at);
        return new Entry(key, TreeNode.getBytes(p, at));
    }
}
