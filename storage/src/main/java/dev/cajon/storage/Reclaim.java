package dev.cajon.storage;

import dev.cajon.storage.chronicle.ValueHeader;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The expiry wheel's hook into a keyspace: a record that fires is checked against the key's
 * header under its stripe lock (see {@link Keyspace#reclaimIfDue(byte[], long)}).
 */
final class Reclaim {
    private Reclaim() {
    }

    static long reclaimIfDue(KeyspaceEngine e, byte[] key, long recordAt) {
        // the reaper's hot path: the stripe lock taken directly (no lambda, one hash); a removal
        // or a same-size header rewrite never needs the growth and key-file steps of locked()
        int slot = KeyspaceEngine.stripeOf(key);
        ReentrantLock l = e.lockIndex(slot);
        try {
            return reclaimInContext(e, key, recordAt, slot);
        } catch (CapacityExhausted ex) {
            // re-filing rewrites the header, which can grow by its wheel-at: locked() grows the
            // map and retries
        } finally {
            e.journals.endWrite(slot);
            l.unlock();
        }
        return e.locked(key, () -> {
            try {
                return reclaimInContext(e, key, recordAt, slot);
            } finally {
                e.journals.endWrite(slot);
            }
        });
    }

    private static long reclaimInContext(KeyspaceEngine e, byte[] key, long recordAt, int slot) {
        byte[][] collection = {null};
        long r = reclaimInContext(e, key, recordAt, slot, collection);
        if (collection[0] != null) {
            // after the context closed: releasing reads and removes other entries of the map
            e.dropCollection(key, collection[0]);
        }
        return r;
    }

    private static long reclaimInContext(KeyspaceEngine e, byte[] key, long recordAt, int slot,
                                         byte[][] collection) {
        // One Chronicle lookup: read the header in place and remove through the same context
        // (the reaper's hot path, up to hundreds of thousands of keys a second in a storm).
        try (net.openhft.chronicle.map.ExternalMapQueryContext<byte[], byte[], ?> q = e.map().queryContext(key)) {
            q.updateLock().lock();
            net.openhft.chronicle.map.MapEntry<byte[], byte[]> en = q.entry();
            if (en == null) {
                return Keyspace.NOTHING_DUE;
            }
            net.openhft.chronicle.hash.Data<byte[]> data = en.value();
            net.openhft.chronicle.bytes.RandomDataInput in = data.bytes();
            long off = data.offset();
            long at = ValueHeader.expireAt(in, off);
            if (at == ValueHeader.NO_EXPIRY || ValueHeader.wheelAt(in, off) != recordAt) {
                return Keyspace.NOTHING_DUE;
            }
            if (at >= e.clock.nowMillis()) {
                e.writeThrough(q, en, key, ValueHeader.withWheelAt(data.getUsing(null), at), slot);
                return at;
            }
            long blobId = ValueHeader.blobIdOrNone(in, off);
            long bytes = KeyCounts.footprint(key.length, data);
            if (ValueHeader.isCollection(in, off)) {
                collection[0] = data.getUsing(null);
            }
            q.remove(en);
            e.touched(key);
            e.accountExpired(at, blobId, bytes);
            if (KeyCodec.isDigest(key)) {
                e.dropKeyFile(KeyCodec.fileName(key));
            }
            return Keyspace.RECLAIMED;
        } catch (IllegalStateException | IllegalArgumentException ex) {
            throw new CapacityExhausted(ex);
        }
    }
}
