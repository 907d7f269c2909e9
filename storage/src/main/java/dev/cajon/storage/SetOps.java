package dev.cajon.storage;

import dev.cajon.storage.collection.CollectionAccess;

/**
 * The set operations (SADD, SMEMBERS ...), on {@link CollectionAccess}. Storage never speaks RESP: results
 * carry a status. (Being written.)
 */
public final class SetOps {
    private final CollectionAccess access;

    SetOps(CollectionAccess access) {
        this.access = access;
    }
}
