package dev.cajon.storage.collection;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The paged, counted B+tree behind {@link Entries}: what {@link Trees#open} answers.
 *
 * <h2>Shape</h2>
 * Entries live in leaves, in order (keyed: by key, compared as unsigned bytes; positional: by
 * index). An internal node holds, for each child, the child's page id, the number of entries
 * below it, and (keyed) the child's <i>low key</i>: a separator that is greater than every key
 * left of the child and not greater than any key in it (the shortest prefix of the child's first
 * key that does so, so internal nodes stay small; the first child's low key is not stored).
 * The counts make {@link #rank}, {@link #at} and every positional operation O(log n): a descent
 * adds up the counts of the children it passes. There are no sibling links: an iterator keeps
 * its path, which costs O(1) amortised per step, and a split or merge touches only the nodes
 * on the path and one sibling.
 *
 * <pre>
 *   state ─► root page 7 (internal)
 *            ┌──────────────────┬──────────────────┬──────────────────┐
 *            │ child 3, count 40│ child 9, count 35│ child 4, count 52│
 *            │ (low key: -∞)    │ low key "fig"    │ low key "p"      │
 *            └────────┬─────────┴────────┬─────────┴────────┬─────────┘
 *                     ▼                  ▼                  ▼
 *            leaf 3: apple..date  leaf 9: fig..melon  leaf 4: pear..zucchini
 * </pre>
 *
 * <h2>Sizes</h2>
 * A node is split when its encoding exceeds the page target ({@link #PAGE_TARGET} bytes) into
 * pieces of about equal size, and merged with (or rebalanced against) a sibling when it falls
 * below a quarter of it; a root with one child is dropped, so the tree shrinks as it empties and
 * every emptied page is freed. A leaf holding a single entry may be larger than the target, up
 * to {@link PageStore#MAX_PAGE}: hence the limits {@link #MAX_KEY} (a key: a member, a field, a
 * sorted set's encoded member) and {@link #MAX_ENTRY} (key and value together); larger ones are
 * refused with an {@link IllegalArgumentException}, and the type operations check them first.
 * An internal node always keeps at least two children, so with keys of at most
 * {@code MAX_KEY} bytes an internal page stays below {@code MAX_PAGE} too.
 *
 * <p>While the whole collection fits one leaf of at most {@link #INLINE_MAX} bytes it is kept
 * <i>inline</i>, in the state, and no page exists; it moves to pages when it outgrows that, and
 * comes back inline when it shrinks to one leaf of at most half of it (the gap keeps a
 * collection at the boundary from moving at every write).
 *
 * <h2>Persisted format (version 1; every integer is an unsigned LEB128 varint)</h2>
 * <pre>
 * state, inline:  | 01 | form | n | n entries (as in a leaf)                |
 * state, paged:   | 01 | form | count | height | root page id              |
 *                   form: bit 0 = paged, bit 1 = positional
 *
 * page:           | 01 | kind | n | n items                                  |
 *                   kind: bit 0 = internal, bit 1 = positional
 *   keyed leaf item:          | klen | key | vlen | value |
 *   positional leaf item:     | vlen | value |
 *   keyed internal item:      | child page id | count | klen | low key |   (klen 0 for item 0)
 *   positional internal item: | child page id | count |
 * </pre>
 * Height 1 means the root is a leaf. The bytes are pinned by {@code TreeFormatTest}; a change
 * needs a new version byte and a reader for the old one.
 *
 * <h2>Writes</h2>
 * A write descends once, changes the leaf and fixes the path bottom-up, touching O(height)
 * pages; that path is {@link WritePath}, and iterators are {@link TreeCursor}s. This class owns
 * the decoded nodes: they are kept in a small cache for the life of this object (one
 * {@code CollectionAccess} body); with a store that applies its writes later, a changed node is
 * encoded once, when they are applied ({@link #dirty}). When the body is over, its decoded nodes
 * go to the process's {@link NodeCache} with the bytes the store holds for them, and the next
 * body over the same pages takes them from there instead of decoding again. Lookups of pages not
 * decoded scan them in place ({@link PageScan}); whole-tree walks (free, copy, check) are in
 * {@link TreeWalks}.
 * The page target and inline limit are the writer's choice, not the format's: any page up to
 * {@code MAX_PAGE} reads alike.
 */
public final class CountedTree implements Entries {
    /** Pages are split above this many bytes (a single big entry may make a larger one). */
    public static final int PAGE_TARGET = 1024;
    /** The whole collection stays in the state while it fits one leaf of this many bytes. */
    public static final int INLINE_MAX = 512;
    /** Largest key (member, field) an entry may have. */
    public static final int MAX_KEY = 16 * 1024;
    /** Largest key plus value of one entry (a leaf page with one entry stays within MAX_PAGE). */
    public static final int MAX_ENTRY = PageStore.MAX_PAGE - 64;

    static final byte FORM_PAGED = 1;
    static final byte FORM_POSITIONAL = 2;
    private static final int CACHE_NODES = 64;

    final PageStore pages;
    final boolean positional;
    final int target;
    final int inlineMax;
    final int inlineMin;

    /** The root, once loaded (always, while inline). */
    TreeNode root;
    long rootId;
    int height;
    long count;

    private final LinkedHashMap<Long, TreeNode> cache = new LinkedHashMap<>(32, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, TreeNode> eldest) {
            if (size() <= CACHE_NODES) {
                return false;
            }
            TreeNode n = eldest.getValue();
            if (dirty.remove(n.id, n)) {
                byte[] b = n.encode(n.bytes());
                pages.write(n.id, b); // its only copy: written before it goes
                stored(n.id, b);
            }
            return true;
        }
    };

    /**
     * Pages changed and not yet written, when the store applies its writes later ({@link
     * PageStore#appliesLater}): each is encoded once, by {@link #flush}, however many changes it
     * had (a bulk HSET or RPUSH changes one leaf and the root thousands of times). By page id:
     * a split or merge replaces a page's node by a new one with the same id, and only the newest
     * may be written.
     */
    private final java.util.Map<Long, TreeNode> dirty = new java.util.HashMap<>();
    private boolean flushHooked;
    private final WritePath writes = new WritePath(this);

    /**
     * With a store that keeps nodes across bodies ({@link PageStore#nodes}): for each decoded
     * page, the bytes the store holds for it (as read, or as this tree last wrote it), so that
     * the nodes can be given back to the {@link NodeCache} with them once the body's writes are
     * applied. Null without such a store.
     */
    private java.util.Map<Long, byte[]> stored;

    CountedTree(byte[] state, PageStore pages, boolean positional) {
        this(state, pages, positional, PAGE_TARGET, INLINE_MAX);
    }

    /** A tree with other page sizes (tests use tiny ones to reach every boundary quickly). */
    CountedTree(byte[] state, PageStore pages, boolean positional, int target, int inlineMax) {
        this.pages = pages;
        this.positional = positional;
        this.target = target;
        this.inlineMax = inlineMax;
        this.inlineMin = inlineMax / 2;
        if (state == null) {
            root = new TreeNode(true, positional);
            height = 1;
            return;
        }
        if (state.length < 3 || state[0] != TreeNode.VERSION) {
            throw new IllegalStateException("collection state: unknown format version "
                    + (state.length == 0 ? "(empty)" : Byte.toString(state[0])));
        }
        if (((state[1] & FORM_POSITIONAL) != 0) != positional || (state[1] & ~3) != 0) {
            throw new IllegalStateException("collection state: form " + state[1]
                    + " is not a " + (positional ? "positional" : "keyed") + " tree");
        }
        int[] at = {2};
        if ((state[1] & FORM_PAGED) == 0) {
            int n = (int) TreeNode.getVar(state, at);
            root = new TreeNode(true, positional, n + 8);
            root.decodeBody(state, at, n);
            height = 1;
            count = n;
        } else {
            count = TreeNode.getVar(state, at);
            height = (int) TreeNode.getVar(state, at);
            rootId = TreeNode.getVar(state, at);
        }
        if (at[0] != state.length) {
            throw new IllegalStateException("collection state: trailing bytes");
        }
    }

    // ------------------------------------------------------------------ reads

    @Override
    public long size() {
        return count;
    }

    // A page already decoded (by a write of this body) is searched decoded; any other is
    // scanned in place by PageScan, without decoding it.

    @Override
    public byte[] get(byte[] key) {
        requireKeyed();
        if (rootId == 0) {
            int pos = TreeNode.leafSearch(root, key);
            return pos >= 0 ? root.values.get(pos).clone() : null;
        }
        long id = rootId;
        long[] ignored = new long[1];
        for (int h = height; h > 1; h--) {
            TreeNode n = decoded(id);
            id = n != null ? n.children.get(TreeNode.childFor(n, key)) : PageScan.childByKey(id, pages.read(id), key, ignored);
        }
        TreeNode n = decoded(id);
        if (n == null) {
            return PageScan.get(id, pages.read(id), key);
        }
        int pos = TreeNode.leafSearch(n, key);
        return pos >= 0 ? n.values.get(pos).clone() : null;
    }

    @Override
    public long rank(byte[] key) {
        requireKeyed();
        if (rootId == 0) {
            int pos = TreeNode.leafSearch(root, key);
            return pos >= 0 ? pos : -pos - 1;
        }
        long id = rootId;
        long[] rank = new long[1];
        for (int h = height; h > 1; h--) {
            TreeNode n = decoded(id);
            if (n == null) {
                id = PageScan.childByKey(id, pages.read(id), key, rank);
            } else {
                int c = TreeNode.childFor(n, key);
                for (int i = 0; i < c; i++) {
                    rank[0] += n.counts.get(i);
                }
                id = n.children.get(c);
            }
        }
        TreeNode n = decoded(id);
        if (n == null) {
            return rank[0] + PageScan.rank(id, pages.read(id), key);
        }
        int pos = TreeNode.leafSearch(n, key);
        return rank[0] + (pos >= 0 ? pos : -pos - 1);
    }

    @Override
    public Entry at(long index) {
        checkIndex(index, count);
        if (rootId == 0) {
            return copyOf(root, (int) index);
        }
        long id = rootId;
        long[] i = {index};
        for (int h = height; h > 1; h--) {
            TreeNode n = decoded(id);
            if (n == null) {
                id = PageScan.childByIndex(id, pages.read(id), positional, i);
            } else {
                int c = 0;
                int last = n.size() - 1;
                while (c < last && i[0] >= n.counts.get(c)) {
                    i[0] -= n.counts.get(c);
                    c++;
                }
                id = n.children.get(c);
            }
        }
        TreeNode n = decoded(id);
        if (n == null) {
            return PageScan.at(id, pages.read(id), positional, (int) i[0]);
        }
        return copyOf(n, (int) i[0]);
    }

    /** Entry {@code i} of a decoded leaf, copied: the caller may change it, the node must not. */
    static Entry copyOf(TreeNode n, int i) {
        byte[] key = n.key(i);
        return new Entry(key.length == 0 ? key : key.clone(), n.values.get(i).clone());
    }

    @Override
    public Iterator<Entry> iterator(long from, boolean descending) {
        return walk(from, descending, true);
    }

    /**
     * The walk without the copies: a decoded node's arrays are its own (decoding copies them out
     * of the page) and no write changes an array in place, it only replaces it in the node's
     * lists, so an entry handed out here keeps its bytes after the tree changes.
     */
    @Override
    public Iterator<Entry> view(long from, boolean descending) {
        return walk(from, descending, false);
    }

    private Iterator<Entry> walk(long from, boolean descending, boolean copy) {
        if (from < 0 || from >= count) {
            return java.util.Collections.emptyIterator();
        }
        return new TreeCursor(this, from, descending, copy);
    }

    // ------------------------------------------------------------------ keyed writes

    @Override
    public byte[] put(byte[] key, byte[] value) {
        requireKeyed();
        checkEntry(key, value);
        TreeNode[] path = new TreeNode[height];
        int[] slot = new int[height];
        WritePath.Raw raw = new WritePath.Raw(height);
        TreeNode leaf = writes.descendKey(key, path, slot, raw);
        int pos = TreeNode.leafSearch(leaf, key);
        byte[] old = null;
        int delta = 0;
        if (pos >= 0) {
            old = leaf.values.set(pos, value.clone());
        } else {
            pos = -pos - 1;
            leaf.keys.add(pos, key.clone());
            leaf.values.add(pos, value.clone());
            count++;
            delta = 1;
        }
        writes.fixUp(path, slot, raw, pos, delta);
        return old;
    }

    @Override
    public byte[] remove(byte[] key) {
        requireKeyed();
        TreeNode[] path = new TreeNode[height];
        int[] slot = new int[height];
        WritePath.Raw raw = new WritePath.Raw(height);
        TreeNode leaf = writes.descendKey(key, path, slot, raw);
        int pos = TreeNode.leafSearch(leaf, key);
        if (pos < 0) {
            return null;
        }
        leaf.keys.remove(pos);
        byte[] old = leaf.values.remove(pos);
        count--;
        writes.fixUp(path, slot, raw, -1, -1);
        return old;
    }

    // ------------------------------------------------------------------ positional writes

    @Override
    public void insertAt(long index, byte[] value) {
        requirePositional();
        checkIndex(index, count + 1);
        checkEntry(TreeNode.EMPTY, value);
        TreeNode[] path = new TreeNode[height];
        int[] slot = new int[height];
        WritePath.Raw raw = new WritePath.Raw(height);
        int pos = writes.descendIndex(index, true, path, slot, raw);
        path[height - 1].values.add(pos, value.clone());
        count++;
        writes.fixUp(path, slot, raw, pos, 1);
    }

    @Override
    public byte[] removeAt(long index) {
        requirePositional();
        checkIndex(index, count);
        TreeNode[] path = new TreeNode[height];
        int[] slot = new int[height];
        WritePath.Raw raw = new WritePath.Raw(height);
        int pos = writes.descendIndex(index, false, path, slot, raw);
        byte[] old = path[height - 1].values.remove(pos);
        count--;
        writes.fixUp(path, slot, raw, -1, -1);
        return old;
    }

    @Override
    public byte[] setAt(long index, byte[] value) {
        requirePositional();
        checkIndex(index, count);
        checkEntry(TreeNode.EMPTY, value);
        TreeNode[] path = new TreeNode[height];
        int[] slot = new int[height];
        WritePath.Raw raw = new WritePath.Raw(height);
        int pos = writes.descendIndex(index, false, path, slot, raw);
        byte[] old = path[height - 1].values.set(pos, value.clone());
        writes.fixUp(path, slot, raw, pos, 0);
        return old;
    }

    // ------------------------------------------------------------------ state

    @Override
    public byte[] state() {
        flush();
        if (rootId == 0) {
            byte[] s = root.encode();
            s[1] = positional ? FORM_POSITIONAL : 0;
            return s;
        }
        byte[] s = new byte[2 + TreeNode.varLen(count) + TreeNode.varLen(height)
                + TreeNode.varLen(rootId)];
        s[0] = TreeNode.VERSION;
        s[1] = (byte) (FORM_PAGED | (positional ? FORM_POSITIONAL : 0));
        int p = TreeNode.putVar(s, 2, count);
        p = TreeNode.putVar(s, p, height);
        TreeNode.putVar(s, p, rootId);
        return s;
    }

    @Override
    public void clear() {
        if (rootId != 0) {
            TreeWalks.freeAll(pages, rootId, height, positional);
        }
        dirty.clear();
        cache.clear();
        if (stored != null) {
            stored.clear();
        }
        root = new TreeNode(true, positional);
        rootId = 0;
        height = 1;
        count = 0;
    }

    // ------------------------------------------------------------------ descent

    TreeNode root() {
        if (root == null) {
            root = load(rootId);
        }
        return root;
    }

    TreeNode load(long id) {
        TreeNode n = decoded(id);
        if (n == null) {
            byte[] bytes = pages.read(id);
            NodeCache nodes = pages.nodes();
            if (nodes != null) {
                n = nodes.take(pages.scope(), id, bytes, positional);
                stored(id, bytes);
            }
            if (n == null) {
                n = TreeNode.decode(id, bytes, positional);
            }
            cache.put(id, n);
        }
        return n;
    }

    /** Notes the bytes the store holds for decoded page {@code id} (see {@link #stored}). */
    private void stored(long id, byte[] bytes) {
        if (stored == null) {
            if (pages.nodes() == null) {
                return;
            }
            stored = new java.util.HashMap<>();
            pages.afterApply(this::giveBack);
        }
        stored.put(id, bytes);
    }

    /**
     * Gives this tree's decoded pages to the store's {@link NodeCache}, once the body's writes
     * are applied (every changed page was written by {@link #flush} first, so each node is the
     * decoding of the bytes noted for it). The tree keeps none of them.
     */
    private void giveBack() {
        NodeCache nodes = pages.nodes();
        long scope = pages.scope();
        for (TreeNode n : cache.values()) {
            byte[] bytes = stored.get(n.id);
            if (bytes != null && !dirty.containsKey(n.id)) {
                nodes.offer(scope, n.id, bytes, n);
            }
        }
        cache.clear();
        stored.clear();
        root = rootId == 0 ? root : null;
    }

    /** A decoded node for page {@code id} if this tree has one (the root, or a cached page). */
    TreeNode decoded(long id) {
        return id == rootId && root != null ? root : cache.get(id);
    }


    void writePage(TreeNode n, int size) {
        if (n.id == 0) {
            byte[] b = n.encode(size);
            n.id = pages.add(b); // a new page needs its id now
            stored(n.id, b);
        } else if (pages.appliesLater()) {
            dirty.put(n.id, n);
            if (!flushHooked) {
                flushHooked = true;
                pages.beforeApply(this::flush);
            }
        } else {
            byte[] b = n.encode(size);
            pages.write(n.id, b);
            stored(n.id, b);
        }
        cache.put(n.id, n);
    }

    /** Writes the pages {@link #writePage} kept back (see {@link #dirty}). */
    void flush() {
        if (!dirty.isEmpty()) {
            for (TreeNode n : dirty.values()) {
                byte[] b = n.encode(n.bytes());
                pages.write(n.id, b);
                stored(n.id, b);
            }
            dirty.clear();
        }
        flushHooked = false;
    }

    void freePage(TreeNode n) {
        if (n.id != 0) {
            dirty.remove(n.id);
            pages.free(n.id);
            cache.remove(n.id);
            if (stored != null) {
                stored.remove(n.id);
            }
        }
    }

    // ------------------------------------------------------------------ whole trees (TreeWalks)

    /** See {@link Trees#copy}. */
    static byte[] copy(byte[] state, PageStore from, PageStore to, boolean positional) {
        return TreeWalks.copy(state, from, to, positional);
    }

    /** Every page id the collection in {@code state} holds (for checks and tests). */
    static Set<Long> pagesOf(byte[] state, PageStore pages, boolean positional) {
        return TreeWalks.pagesOf(state, pages, positional);
    }

    int height() {
        return height;
    }

    // ------------------------------------------------------------------ checks

    private void requireKeyed() {
        if (positional) {
            throw new UnsupportedOperationException("a positional collection has no keys");
        }
    }

    private void requirePositional() {
        if (!positional) {
            throw new UnsupportedOperationException("a keyed collection is not addressed by index");
        }
    }

    private static void checkIndex(long index, long bound) {
        if (index < 0 || index >= bound) {
            throw new IndexOutOfBoundsException("index " + index + " out of 0.." + (bound - 1));
        }
    }

    private static void checkEntry(byte[] key, byte[] value) {
        if (key.length > MAX_KEY) {
            throw new EntryTooLarge("collection key of " + key.length
                    + " bytes is over the limit of " + MAX_KEY);
        }
        if ((long) key.length + value.length > MAX_ENTRY) {
            throw new EntryTooLarge("collection entry of " + (key.length + value.length)
                    + " bytes is over the limit of " + MAX_ENTRY);
        }
    }

    /** For tests: the whole structure, checked (order, counts, sizes, low keys); throws if wrong. */
    void check() {
        TreeWalks.check(this);
    }
}
