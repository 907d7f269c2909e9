package dev.cajon.storage.collection;

/**
 * A member, field or element over what one tree entry holds ({@link Trees#MAX_KEY},
 * {@link Trees#MAX_ENTRY}). Nothing was written: the write body threw before the engine applied
 * anything. Redis allows larger; Cajon does not yet (it would need the blob files for members).
 */
public final class EntryTooLarge extends IllegalArgumentException {
    public EntryTooLarge(String message) {
        super(message);
    }
}
