package dev.cajon.storage.collection;

/**
 * Where the type operations get their {@link Entries}: the one place that picks the
 * implementation. TEMPORARY: it answers {@link MemoryEntries}, whose state is the whole
 * collection, until the paged counted B+tree lands; then it opens that tree.
 */
public final class Trees {
    private Trees() {
    }

    /**
     * The entries whose state is {@code state} (null: a new, empty collection) with pages in
     * {@code pages}. {@code positional}: a list (see {@link Entries}).
     */
    public static Entries open(byte[] state, PageStore pages, boolean positional) {
        return MemoryEntries.of(state, positional);
    }

    /** Copies a collection into another store (COPY, MOVE); returns the copy's state. */
    public static byte[] copy(byte[] state, PageStore from, PageStore to, boolean positional) {
        return state == null ? null : state.clone();
    }
}
