package dev.cajon.storage;

import dev.cajon.storage.collection.CollectionAccess;

/**
 * The sorted-set operations (ZADD, ZRANGE ...), on {@link CollectionAccess}. Storage never speaks RESP: results
 * carry a status. (Being written.)
 */
public final class ZSetOps {
    private final CollectionAccess access;

    ZSetOps(CollectionAccess access) {
        this.access = access;
    }
}
