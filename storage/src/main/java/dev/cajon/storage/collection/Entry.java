package dev.cajon.storage.collection;

/** One entry of a collection's {@link Entries}: its key (empty in a positional tree) and value. */
public record Entry(byte[] key, byte[] value) {
}
