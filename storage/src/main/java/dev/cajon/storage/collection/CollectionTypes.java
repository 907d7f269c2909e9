package dev.cajon.storage.collection;

/**
 * The collection types the engine knows, by value-header type code. A new type registers its
 * {@link CollectionType} here (one line); the engine does not change.
 */
public final class CollectionTypes {
    private static final CollectionType[] BY_CODE = new CollectionType[64];

    /**
     * The operations files that register the standard types, loaded with this class: a keyspace
     * that opens (and may release an expired collection, or sweep while recovering) knows every
     * type before any of its keys is touched, whichever class a program used first.
     */
    private static final String[] STANDARD = {
        "dev.cajon.storage.HashOps", "dev.cajon.storage.SetOps", "dev.cajon.storage.ZSetOps", "dev.cajon.storage.ListOps",
    };

    static {
        for (String name : STANDARD) {
            try {
                Class.forName(name, true, CollectionTypes.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

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
