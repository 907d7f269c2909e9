package dev.cajon.storage.collection;

/**
 * The collection types the engine knows, by value-header type code. A new type registers its
 * {@link CollectionType} here (one line); the engine does not change.
 */
public final class CollectionTypes {
    private static final CollectionType[] BY_CODE = new CollectionType[64];

    private CollectionTypes() {
    }

    /** Registers a type (its operations file calls this from a static initialiser). */
    public static synchronized void register(CollectionType t) {
        BY_CODE[t.code()] = t;
    }

    /** The type for {@code code}, or null for a code that is not a collection (a string). */
    public static CollectionType of(byte code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
