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
    /** Largest page a store accepts. */
    int MAX_PAGE = 64 * 1024;

    /** The page's bytes; the caller must not change the array. Throws if there is no such page. */
    byte[] read(long page);

    /** Writes a new page and returns its id (never 0, unique within the collection). */
    long add(byte[] bytes);

    /** Replaces page {@code page}'s bytes. The store keeps {@code bytes}: don't change it after. */
    void write(long page, byte[] bytes);

    /** Removes page {@code page}. */
    void free(long page);
}
