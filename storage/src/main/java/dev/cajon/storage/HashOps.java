package dev.cajon.storage;

import dev.cajon.storage.collection.CollectionAccess;

/**
 * The hash operations (HSET, HGET ...), on {@link CollectionAccess}. Storage never speaks RESP: results
 * carry a status. (Being written.)
 */
public final class HashOps {
    private final CollectionAccess access;

    HashOps(CollectionAccess access) {
        this.access = access;
    }
}
