package dev.cajon.storage;

import dev.cajon.storage.chronicle.ValueHeader;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

/**
 * The hot string writes in one Chronicle lookup each (the common SET, INCR; GET without garbage is
 * {@link StringOps#readInto}):
 * the old entry's header is read in place through a query context and the new value written
 * through the same context, instead of a get (copying the old value) and a put (looking the key
 * up again). Same semantics and bookkeeping as the general paths of {@link StringOps}, which
 * call these with the key's stripe lock held.
 */
final class StringsInPlace {
    private final KeyspaceEngine e;

    StringsInPlace(KeyspaceEngine e) {
        this.e = e;
    }

    /**
     * The common SET (small value, no GET option, no deadline in the past), also one write of a
     * batch that may have to be taken back ({@code undo}, else null). {@code encoded}:
     * {@code ValueHeader.raw(value, expireAt)} when the caller already built it (MSET, which
     * journals it), else null; never with KEEP_TTL, whose deadline is the old entry's.
     */
    SetResult set(byte[] key, byte[] value, byte[] encoded, SetCondition cond, long expireAt, Undo undo) {
        int slot = KeyspaceEngine.stripeOf(key);
        byte[][] gone = new byte[2][];
        try {
            return setInContext(key, value, encoded, cond, expireAt, slot, undo, gone);
        } finally {
            // after the context closed: Chronicle stores the entry's checksum on close
            e.journals.endWrite(slot);
            released(key, gone, undo);
        }
    }

    /**
     * A collection the write removed or overwrote ({@code gone[0]}; {@code gone[1]} non-null
     * when it was live): its pages go now that the context is closed, or once the batch is
     * through when it may be taken back ({@code undo}).
     */
    private void released(byte[] key, byte[][] gone, Undo undo) {
        if (gone[0] == null) {
            return;
        }
        if (undo != null && gone[1] != null) {
            undo.deadCollections.add(new byte[][] {key, gone[0]});
        } else {
            e.dropCollection(key, gone[0]);
        }
    }

    /** Notes a collection entry {@code d} that the context is about to remove or overwrite. */
    private static void noteCollection(Data<byte[]> d, boolean live, byte[][] gone) {
        if (ValueHeader.isCollection(d.bytes(), d.offset())) {
            gone[0] = d.getUsing(null);
            gone[1] = live ? gone[0] : null;
        }
    }

    private SetResult setInContext(byte[] key, byte[] value, byte[] encoded, SetCondition cond, long expireAt,
                                   int slot, Undo undo, byte[][] gone) {
        long now = e.clock.nowMillis();
        try (ExternalMapQueryContext<byte[], byte[], ?> q = e.map().queryContext(key)) {
            q.updateLock().lock();
            MapEntry<byte[], byte[]> en = q.entry();
            boolean live = false;
            long oldAt = ValueHeader.NO_EXPIRY;
            long oldWheel = ValueHeader.NO_EXPIRY;
            long oldBlob = ValueHeader.NO_BLOB;
            byte[] before = null;
            // an entry past its deadline is gone, exactly as readLive would have removed it; it is
            // accounted for once this context has removed or replaced it (not if the write fails)
            long expiredAt = ValueHeader.NO_EXPIRY;
            long expiredBlob = ValueHeader.NO_BLOB;
            long oldBytes = 0;
            if (en != null) {
                Data<byte[]> d = en.value();
                net.openhft.chronicle.bytes.RandomDataInput in = d.bytes();
                long off = d.offset();
                oldBytes = KeyCounts.footprint(key.length, d);
                oldAt = ValueHeader.expireAt(in, off);
                oldBlob = ValueHeader.blobIdOrNone(in, off);
                if (ValueHeader.isPast(oldAt, now)) {
                    expiredAt = oldAt;
                    expiredBlob = oldBlob;
                    oldAt = ValueHeader.NO_EXPIRY;
                    oldBlob = ValueHeader.NO_BLOB;
                } else {
                    live = true;
                    oldWheel = ValueHeader.wheelAt(in, off);
                    if (undo != null) {
                        before = d.getUsing(null);
                    }
                }
            }
            if (cond == SetCondition.IF_ABSENT && live || cond == SetCondition.IF_PRESENT && !live) {
                if (en != null && !live) {
                    noteCollection(en.value(), false, gone);
                    q.remove(en);
                    e.touched(key);
                    e.accountExpired(expiredAt, expiredBlob, oldBytes);
                }
                return SetResult.NOT_APPLIED;
            }
            long at = expireAt == Keyspace.KEEP_TTL ? oldAt : expireAt;
            boolean fileRecord = KeyspaceEngine.needsRecord(at, oldWheel);
            byte[] raw = encoded != null && expireAt != Keyspace.KEEP_TTL ? encoded : ValueHeader.raw(value, at);
            byte[] stored = KeyspaceEngine.withWheel(raw, at, oldWheel, fileRecord);
            if (en != null) {
                noteCollection(en.value(), live, gone);
            }
            e.writeThrough(q, en, key, stored, slot);
            e.touched(key);
            if (en != null && !live) {
                e.accountExpired(expiredAt, expiredBlob, oldBytes);
            }
            e.accountWrite(key, stored, live, live ? oldBytes : 0, oldAt, at, fileRecord);
            if (undo != null) {
                undo.written(key, before, oldBlob);
            } else if (oldBlob != ValueHeader.NO_BLOB) {
                e.dropBlob(oldBlob);
            }
            return SetResult.OK;
        } catch (IllegalStateException | IllegalArgumentException ex) {
            throw new CapacityExhausted(ex);
        }
    }

    /**
     * INCRBY in one lookup: the counter's digits are read in place, the new value is written
     * through the same query context, and the TTL is kept. The key's stripe lock is held.
     */
    CounterResult incrBy(byte[] key, long delta) {
        int slot = KeyspaceEngine.stripeOf(key);
        byte[][] gone = new byte[2][];
        try {
            return incrInContext(key, delta, slot, gone);
        } finally {
            e.journals.endWrite(slot);
            released(key, gone, null);
        }
    }

    /** Per thread: the digits of the counter being incremented (a long has at most 20). */
    private static final ThreadLocal<byte[]> DIGITS = ThreadLocal.withInitial(() -> new byte[20]);

    private CounterResult incrInContext(byte[] key, long delta, int slot, byte[][] gone) {
        long now = e.clock.nowMillis();
        try (ExternalMapQueryContext<byte[], byte[], ?> q = e.map().queryContext(key)) {
            q.updateLock().lock();
            MapEntry<byte[], byte[]> en = q.entry();
            boolean live = false;
            long cur = 0;
            long at = ValueHeader.NO_EXPIRY;
            long wheel = ValueHeader.NO_EXPIRY;
            // past its deadline: gone, as readLive would do; accounted once this context removed
            // or replaced it (not if the write fails for want of room)
            long expiredAt = ValueHeader.NO_EXPIRY;
            long expiredBlob = ValueHeader.NO_BLOB;
            long oldBytes = 0;
            if (en != null) {
                Data<byte[]> d = en.value();
                net.openhft.chronicle.bytes.RandomDataInput in = d.bytes();
                long off = d.offset();
                oldBytes = KeyCounts.footprint(key.length, d);
                at = ValueHeader.expireAt(in, off);
                long blob = ValueHeader.blobIdOrNone(in, off);
                if (ValueHeader.isPast(at, now)) {
                    expiredAt = at;
                    expiredBlob = blob;
                    at = ValueHeader.NO_EXPIRY;
                } else {
                    live = true;
                    if (in.readByte(off + 1) != ValueHeader.TYPE_STRING) {
                        return new CounterResult(OpStatus.WRONG_TYPE, 0);
                    }
                    if (blob != ValueHeader.NO_BLOB) {
                        return new CounterResult(OpStatus.NOT_INTEGER, 0);
                    }
                    int h = ValueHeader.headerLength(in, off);
                    long len = d.size() - h;
                    if (len > 20) {
                        return new CounterResult(OpStatus.NOT_INTEGER, 0);
                    }
                    byte[] digits = DIGITS.get();
                    in.read(off + h, digits, 0, (int) len);
                    if (!Numbers.isLong(digits, 0, (int) len)) {
                        return new CounterResult(OpStatus.NOT_INTEGER, 0);
                    }
                    cur = Numbers.parseLong(digits, 0, (int) len);
                    wheel = ValueHeader.wheelAt(in, off);
                }
            }
            if (delta < 0 && cur < 0 && delta < Long.MIN_VALUE - cur
                    || delta > 0 && cur > 0 && delta > Long.MAX_VALUE - cur) {
                if (en != null && !live) {
                    noteCollection(en.value(), false, gone);
                    q.remove(en);
                    e.touched(key);
                    e.accountExpired(expiredAt, expiredBlob, oldBytes);
                }
                return new CounterResult(OpStatus.OVERFLOW, 0);
            }
            long next = cur + delta;
            // the deadline is unchanged, so a live key keeps its wheel record as it is
            byte[] stored = ValueHeader.withWheelAt(ValueHeader.rawLong(next, at), wheel);
            if (en != null) {
                noteCollection(en.value(), false, gone); // only an expired one gets here
            }
            e.writeThrough(q, en, key, stored, slot);
            e.touched(key);
            if (en != null && !live) {
                e.accountExpired(expiredAt, expiredBlob, oldBytes);
            }
            e.accountWrite(key, stored, live, live ? oldBytes : 0, at, at, false);
            return new CounterResult(OpStatus.OK, next);
        } catch (IllegalStateException | IllegalArgumentException ex) {
            throw new CapacityExhausted(ex);
        }
    }
}
