package dev.cajon.storage;

import dev.cajon.storage.collection.CollectionAccess;

/**
 * The list operations (LPUSH, LRANGE ...), on {@link CollectionAccess}. Storage never speaks RESP: results
 * carry a status. (Being written.)
 */
public final class ListOps {
    private final CollectionAccess access;

    ListOps(CollectionAccess access) {
        this.access = access;
    }
}
