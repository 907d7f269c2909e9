package dev.cajon.storage;

import dev.cajon.storage.chronicle.BatchJournal;
import dev.cajon.storage.chronicle.ValueHeader;
import java.util.Arrays;
import java.util.List;

/**
 * RENAME and COPY: stored bytes moved as they are, whatever their type, from one name to another
 * or into another keyspace (which gets its own copy of a blob file). A RENAME changes both names
 * together through the batch journal, so after a crash the value is under one of them, never both
 * and never neither.
 */
final class KeyMoves {
    private KeyMoves() {
    }

    /**
     * RENAME / RENAMENX. NOT_FOUND when the source is absent; NOT_APPLIED when {@code nx} and the
     * destination exists. The TTL moves with the key.
     */
    static OpStatus rename(KeyspaceEngine e, byte[] userSrc, byte[] userDst, boolean nx) {
        byte[] src = KeyCodec.mapKey(userSrc);
        byte[] dst = KeyCodec.mapKey(userDst);
        return e.locked(new byte[][] {src, dst}, new byte[][] {userSrc, userDst}, () -> {
            byte[] v = e.readLive(src);
            if (v == null) {
                return OpStatus.NOT_FOUND;
            }
            if (Arrays.equals(src, dst)) {
                return nx ? OpStatus.NOT_APPLIED : OpStatus.OK;
            }
            byte[] old = e.readLive(dst);
            if (nx && old != null) {
                return OpStatus.NOT_APPLIED;
            }
            // both names change together: after a crash the value is under one of them, never both
            // (they would share one blob file) and never neither
            e.ensureKeyFileFirst(dst, userDst);
            int token = e.journals.beginBatch(Math.min(KeyspaceEngine.stripeOf(src), KeyspaceEngine.stripeOf(dst)),
                    List.of(new BatchJournal.Entry(dst, v), new BatchJournal.Entry(src, null)));
            try {
                e.put(dst, v, old);
                e.map().remove(src);
                e.touched(src);
            } finally {
                e.journals.endBatch(token);
            }
            // the blob moved with the key: put() counted it for dst
            e.accountRemoval(ValueHeader.expireAt(v), ValueHeader.NO_BLOB, KeyCounts.footprint(src, v));
            if (old != null && ValueHeader.isBlob(old)) {
                e.dropBlob(ValueHeader.blobId(old));
            }
            // a collection moves by its key entry alone (its pages are keyed by its id); one
            // that was under the destination goes
            if (KeyspaceEngine.collectionLeftBy(old, v)) {
                e.dropCollection(dst, old);
            }
            return OpStatus.OK;
        });
    }

    /**
     * COPY within this keyspace or into {@code target}. NOT_FOUND when the source is absent,
     * NOT_APPLIED when the destination exists and {@code replace} is false.
     */
    static OpStatus copy(KeyspaceEngine e, byte[] userSrc, KeyspaceEngine target, byte[] userDst,
                         boolean replace) {
        byte[] src = KeyCodec.mapKey(userSrc);
        byte[] dst = KeyCodec.mapKey(userDst);
        if (target == e) {
            return e.locked(new byte[][] {src, dst}, new byte[][] {userSrc, userDst}, () -> {
                byte[] v = e.readLive(src);
                if (v == null) {
                    return OpStatus.NOT_FOUND;
                }
                return copyInto(e, v, dst, userDst, replace);
            });
        }
        KeyCollections.Detached[] pages = {null};
        byte[] snapshot = e.locked(src, () -> {
            byte[] v = e.readLive(src);
            pages[0] = null;
            if (v != null && ValueHeader.isCollection(v)) {
                // a copy of the pages, under an id the target gives them (see adoptCopy)
                pages[0] = KeyCollections.copyOut(e, v);
                return v;
            }
            if (v == null || !ValueHeader.isBlob(v)) {
                return v;
            }
            // the target gets its own copy of the blob file
            long id = target.blobs.copyFrom(e.blobs, ValueHeader.blobId(v), ValueHeader.blobLength(v));
            return ValueHeader.blob(id, ValueHeader.blobLength(v), ValueHeader.expireAt(v));
        });
        if (snapshot == null) {
            return OpStatus.NOT_FOUND;
        }
        if (pages[0] != null) {
            return adoptCollection(target, snapshot, pages[0], dst, userDst, replace);
        }
        return adoptCopy(target, snapshot, dst, userDst, replace);
    }

    private static OpStatus copyInto(KeyspaceEngine e, byte[] v, byte[] dst, byte[] userDst, boolean replace) {
        byte[] old = e.readLive(dst);
        if (old != null && !replace) {
            return OpStatus.NOT_APPLIED;
        }
        if (ValueHeader.isCollection(v)) {
            KeyCollections.Detached d = KeyCollections.copyOut(e, v);
            KeyCollections.adopt(e, dst, userDst, old, ValueHeader.type(v), d.state,
                    d.pages, ValueHeader.expireAt(v));
            return OpStatus.OK;
        }
        byte[] stored = v;
        if (ValueHeader.isBlob(v)) {
            long id = e.blobs.copyFrom(e.blobs, ValueHeader.blobId(v), ValueHeader.blobLength(v));
            stored = ValueHeader.blob(id, ValueHeader.blobLength(v), ValueHeader.expireAt(v));
        }
        e.putEncoded(dst, stored, old);
        return OpStatus.OK;
    }

    /** Receives a collection copied from another keyspace: its pages are written whole with its key entry. */
    private static OpStatus adoptCollection(KeyspaceEngine e, byte[] snapshot, KeyCollections.Detached d, byte[] dst,
                                            byte[] userDst, boolean replace) {
        return e.locked(dst, userDst, () -> {
            byte[] old = e.readLive(dst);
            if (old != null && !replace) {
                return OpStatus.NOT_APPLIED;
            }
            if (ValueHeader.isExpired(snapshot, e.clock.nowMillis())) {
                if (old != null) {
                    e.removeStored(dst, old);
                }
                return OpStatus.OK;
            }
            KeyCollections.adopt(e, dst, userDst, old, ValueHeader.type(snapshot), d.state, d.pages,
                    ValueHeader.expireAt(snapshot));
            return OpStatus.OK;
        });
    }

    /** Receives a value copied from another keyspace; a blob payload is already in our store. */
    private static OpStatus adoptCopy(KeyspaceEngine e, byte[] stored, byte[] dst, byte[] userDst,
                                      boolean replace) {
        OpStatus st = e.locked(dst, userDst, () -> {
            byte[] old = e.readLive(dst);
            if (old != null && !replace) {
                return OpStatus.NOT_APPLIED;
            }
            if (ValueHeader.isExpired(stored, e.clock.nowMillis())) {
                if (old != null) {
                    e.removeStored(dst, old);
                }
                return OpStatus.OK;
            }
            e.putEncoded(dst, stored, old);
            return OpStatus.OK;
        });
        if (st != OpStatus.OK && ValueHeader.isBlob(stored)) {
            e.dropBlob(ValueHeader.blobId(stored));
        }
        return st;
    }
}
