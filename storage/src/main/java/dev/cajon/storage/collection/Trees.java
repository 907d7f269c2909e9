package dev.cajon.storage.collection;

/**
 * Where the type operations get their {@link Entries}: the one place that picks the
 * implementation, the paged counted B+tree {@link CountedTree} (its javadoc draws the layout
 * and the persisted format).
 *
 * <p>Limits of one entry: a key (member, field) of at most {@link #MAX_KEY} bytes, and key plus
 * value of at most {@link #MAX_ENTRY} bytes. The tree refuses larger ones with an
 * {@link IllegalArgumentException}; type operations check {@link #fits} first and answer an
 * error of their own.
 */
public final class Trees {
    /** Largest key of one entry (a member, a field), in bytes. */
    public static final int MAX_KEY = CountedTree.MAX_KEY;
    /** Largest key plus value of one entry, in bytes. */
    public static final int MAX_ENTRY = CountedTree.MAX_ENTRY;

    private Trees() {
    }

    /**
     * The entries whose state is {@code state} (null: a new, empty collection) with pages in
     * {@code pages}. {@code positional}: a list (see {@link Entries}).
     */
    public static Entries open(byte[] state, PageStore pages, boolean positional) {
        return new CountedTree(state, pages, positional);
    }

    /** Whether an entry of this key and value is within the limits (positional: an empty key). */
    public static boolean fits(int keyLength, int valueLength) {
        return keyLength <= MAX_KEY && (long) keyLength + valueLength <= MAX_ENTRY;
    }

    /**
     * Copies a collection into another store (COPY, MOVE); returns the copy's state. Costs
     * O(pages): every page is read once and added once.
     */
    public static byte[] copy(byte[] state, PageStore from, PageStore to, boolean positional) {
        return CountedTree.copy(state, from, to, positional);
    }
}
