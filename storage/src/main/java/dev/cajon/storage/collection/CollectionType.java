package dev.cajon.storage.collection;

/**
 * What the engine needs to know of a collection type to handle its keys without knowing the
 * type (DEL, expiry, overwrite, COPY, MOVE, TYPE, OBJECT ENCODING, SCAN ... TYPE). Each type's
 * operations file has one, listed in {@link CollectionTypes}.
 */
public interface CollectionType {
    /** The value-header type code ({@code ValueHeader.TYPE_HASH} ...). */
    byte code();

    /** Redis's name for the type, as TYPE answers it ("hash"). */
    String name();

    /** OBJECT ENCODING's answer for a collection in {@code state}, in Redis's words ("listpack"). */
    String encoding(byte[] state);

    /** Frees every page of the collection in {@code state}. */
    void release(byte[] state, PageStore pages);

    /** Copies the collection's pages into {@code to}; returns the copy's state. */
    byte[] copy(byte[] state, PageStore from, PageStore to);
}
