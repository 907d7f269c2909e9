package dev.cajon.storage.collection;

import java.util.function.Function;

/**
 * How a type's operations file reads and writes its keys: the engine's service for collections.
 * Each body runs under the stripe locks of its keys; the lazy expiry has already removed a key
 * past its deadline; a key of another type makes the call throw {@link WrongType} before the body
 * runs. Writes (states and pages) are applied whole or not at all, survive {@code kill -9} once
 * the call returns, and are counted, watched (WATCH) and quota-checked as any write.
 */
public interface CollectionAccess {
    /** Reads {@code key}, expected to hold {@code type}; the body gets null when the key is absent. */
    <T> T read(byte[] key, byte type, Function<Collection, T> body);

    /** Writes {@code key} (which may be absent: then {@link Collection#exists()} is false). */
    <T> T write(byte[] key, byte type, Function<Collection, T> body);

    /**
     * Reads or writes several keys at one moment (SMOVE, LMOVE, SUNIONSTORE, ZUNIONSTORE ...).
     * {@code types[i]} is the type key i must hold, or 0 for any type (a STORE destination, which
     * {@link Collection#replace} overwrites). The same key may appear twice: both slots then see
     * one collection. The body gets one {@link Collection} per key, never null.
     */
    <T> T writeAll(byte[][] keys, byte[] types, Function<Collection[], T> body);

    /** The key holds another type (Redis's WRONGTYPE). Shared and stackless. */
    final class WrongType extends RuntimeException {
        public static final WrongType INSTANCE = new WrongType();

        private WrongType() {
            super("WRONGTYPE", null, false, false);
        }
    }
}
