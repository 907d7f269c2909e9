package dev.cajon.storage.collection;

/**
 * One key's collection as a {@code CollectionAccess} body sees it, under the key's stripe lock.
 * The body reads {@link #state()}, opens its {@link Entries} on it and {@link #pages()}, changes
 * them, and ends with {@link #state(byte[])}. Whatever the body does is applied whole or not at
 * all; nothing is applied if it throws.
 */
public interface Collection {
    /** Whether the key exists (holding this type; a key of another type never reaches a body). */
    boolean exists();

    /** The value-header type code of what the key holds ({@code ValueHeader.TYPE_*}); 0 if absent. */
    byte type();

    /** The state the type last stored; null when the key does not exist. */
    byte[] state();

    /**
     * The key's new state. Null deletes the key: the body must first have freed its pages
     * ({@link Entries#clear()}), as Redis deletes a collection that becomes empty. A key that
     * existed keeps its TTL; a new one has none.
     */
    void state(byte[] state);

    /**
     * Replaces whatever the key holds (any type; its pages and blobs are freed by the engine)
     * with a new collection of {@code type} and no TTL: the STORE forms (SUNIONSTORE ...). Null
     * deletes the key. After it, {@link #pages()} is the new collection's store.
     */
    void replace(byte type, byte[] state);

    /** The collection's pages. */
    PageStore pages();
}
