package dev.cajon.storage.collection;

/**
 * The pages of one collection, as the keyspace stores them: one map entry per page, keyed by
 * the collection's id and the page's id (the engine's business, see {@code CollectionAccess}).
 * A page is an opaque byte array of at most {@link #MAX_PAGE} bytes; what is inside is the
 * tree's format ({@link Entries}), versioned and pinned by its tests.
 *
 * <p>Writes made through a store inside one {@code CollectionAccess.write} body are applied
 * together with the collection's new state, whole or not at all: the body sees its own writes,
 * and nothing of them is visible to anyone else or survives a crash until the body returns.
 */
public interface PageStore {
    /**
     * Largest page a store accepts: a leaf with one big entry (a hash value, a list element). Every
     * map generation of 4,096 entries or more holds a map value this big (Chronicle's largest entry
     * is 196-294 KB there, whatever the average value size), and growth makes a smaller one big
     * enough; the write journal's slot is smaller, so a lone overwrite of such a page is journaled
     * in the collections journal (see {@code KeyCollections}).
     */
    int MAX_PAGE = 128 * 1024;

    /** The page's bytes; the caller must not change the array. Throws if there is no such page. */
    byte[] read(long page);

    /** Writes a new page and returns its id (never 0, unique within the collection). */
    long add(byte[] bytes);

    /** Replaces page {@code page}'s bytes. The store keeps {@code bytes}: don't change it after. */
    void write(long page, byte[] bytes);

    /** Removes page {@code page}. */
    void free(long page);

    /**
     * Whether this store applies its writes later, at the end of a write body: then a tree may
     * keep its changed pages decoded and write each once, from {@link #beforeApply}, instead of
     * encoding a page again at every change (a bulk HSET or RPUSH changes the same leaf and root
     * thousands of times).
     */
    default boolean appliesLater() {
        return false;
    }

    /** Runs {@code flush} once, before the body's writes are applied (only when {@link #appliesLater}). */
    default void beforeApply(Runnable flush) {
        throw new UnsupportedOperationException("this store applies its writes at once");
    }

    /**
     * The cache of decoded pages a tree over this store may use across bodies, or null for none
     * ({@link NodeCache}: only a store whose body's writes are applied whole can give nodes
     * back at the right moment).
     */
    default NodeCache nodes() {
        return null;
    }

    /** This store's collection, as the {@link #nodes} cache tells collections apart. */
    default long scope() {
        return 0;
    }

    /**
     * Runs {@code done} once the body's writes are applied (a write) or the body returned (a
     * read), and not at all if the body failed (only when {@link #nodes} is not null).
     */
    default void afterApply(Runnable done) {
        throw new UnsupportedOperationException("this store keeps no nodes across bodies");
    }
}
