package dev.cajon.storage;

import dev.cajon.storage.chronicle.BatchJournal;
import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.collection.CollectionAccess;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

/**
 * The string operations of one keyspace (Redis's t_string.c): GET, SET and its variants, MGET,
 * MSET, MSETNX, GETDEL, GETEX, APPEND, SETRANGE, STRLEN and the counters. Written on the
 * {@link KeyspaceEngine}'s primitives only, as every type's operations file is: each operation
 * maps its keys ({@link KeyCodec#mapKey}), runs under {@link KeyspaceEngine#locked}, reads with
 * {@link KeyspaceEngine#readLive} and writes with {@link KeyspaceEngine#put} or
 * {@link KeyspaceEngine#putEncoded}; the hot ones (SET, INCR, GET without garbage) go through one
 * Chronicle lookup ({@link StringsInPlace}, {@link #readInto}). Nothing here knows about stripes,
 * journals' files, growth or the wheel.
 *
 * <p>A string is stored as a {@link ValueHeader} of type string followed by its bytes, or, past
 * {@value Keyspace#BLOB_THRESHOLD} bytes, by the id and length of a blob file.
 */
public final class StringOps {
    private final KeyspaceEngine e;
    private final StringsInPlace inPlace;

    StringOps(KeyspaceEngine e) {
        this.e = e;
        this.inPlace = new StringsInPlace(e);
    }

    /**
     * GET: the value, or null when the key is absent. Throws {@link CollectionAccess.WrongType}
     * for a key of another type (as GETDEL, GETEX and STRLEN do; the server answers WRONGTYPE).
     */
    public StringValue get(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] v = readString(key);
            return v == null ? null : view(v);
        });
    }

    /** The live string under {@code key}, or null; throws WrongType for another type. */
    private byte[] readString(byte[] key) {
        byte[] v = e.readLive(key, ValueHeader.TYPE_STRING);
        if (v == KeyspaceEngine.WRONG_TYPE) {
            throw CollectionAccess.WrongType.INSTANCE;
        }
        return v;
    }

    /**
     * MGET: the values of {@code userKeys[from..]} (null where absent), read with all their
     * stripes held, so that the reply is one moment of the keyspace (a transaction or an MSET is
     * seen whole or not at all).
     */
    public StringValue[] getAll(byte[][] userKeys, int from) {
        int n = userKeys.length - from;
        byte[][] uk = Arrays.copyOfRange(userKeys, from, userKeys.length);
        byte[][] ks = KeyspaceEngine.mapKeys(uk, 0);
        return e.locked(ks, uk, () -> {
            StringValue[] out = new StringValue[n];
            for (int i = 0; i < n; i++) {
                byte[] v = e.readLive(ks[i], ValueHeader.TYPE_STRING);
                // MGET answers nil for a key of another type, as Redis does
                out[i] = v == null || v == KeyspaceEngine.WRONG_TYPE ? null : view(v);
            }
            return out;
        });
    }

    /** Per-thread copy buffer of {@link #readInto}; grows to the largest inline value read. */
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[256]);

    /**
     * GET without garbage: the value's bytes are copied straight from the map entry into a
     * per-thread buffer and handed to {@code reader} (after every lock is let go), with no
     * {@code byte[]} or view allocated per call. Handles the common case only; anything else
     * (a blob value, a key stored by digest, a key past its deadline that must be removed)
     * returns {@link Keyspace#USE_GET} without calling the reader.
     */
    public int readInto(byte[] userKey, Keyspace.ValueReader reader) {
        if (KeyCodec.mapKey(userKey) != userKey) {
            return Keyspace.USE_GET;
        }
        byte[] key = userKey;
        int len;
        byte[] scratch;
        ReentrantLock l = e.stripe(e.lockStripe(key));
        try (ExternalMapQueryContext<byte[], byte[], ?> q = e.map().queryContext(key)) {
            q.readLock().lock();
            MapEntry<byte[], byte[]> en = q.entry();
            if (en == null) {
                return Keyspace.ABSENT;
            }
            Data<byte[]> d = en.value();
            net.openhft.chronicle.bytes.RandomDataInput in = d.bytes();
            long off = d.offset();
            long at = ValueHeader.expireAt(in, off);
            if (ValueHeader.isPast(at, e.clock.nowMillis()) || ValueHeader.blobIdOrNone(in, off) != ValueHeader.NO_BLOB
                    || in.readByte(off + 1) != ValueHeader.TYPE_STRING) {
                return Keyspace.USE_GET;
            }
            int h = ValueHeader.headerLength(in, off);
            len = (int) (d.size() - h);
            scratch = SCRATCH.get();
            if (scratch.length < len) {
                scratch = new byte[Math.max(len, scratch.length * 2)];
                SCRATCH.set(scratch);
            }
            in.read(off + h, scratch, 0, len);
        } catch (IllegalStateException ex) {
            return Keyspace.USE_GET; // a closed map, for one: the general path reports it properly
        } finally {
            l.unlock();
        }
        reader.read(scratch, 0, len);
        return Keyspace.READ;
    }


    /** STRLEN: 0 when absent. */
    public long strlen(byte[] userKey) {
        return Math.max(0, strlenOrAbsent(userKey));
    }

    /** The string's length, or -1 when the key is absent (STRLEN counts a keyspace miss then). */
    public long strlenOrAbsent(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] v = readString(key);
            return v == null ? -1L : ValueHeader.stringLength(v);
        });
    }

    /**
     * SET and its variants.
     *
     * @param expireAt absolute deadline in ms, {@link ValueHeader#NO_EXPIRY} to clear the TTL, or
     *                 {@link Keyspace#KEEP_TTL}. A given deadline at or before now deletes the key.
     * @param wantOld  return the previous value (SET ... GET, GETSET)
     */
    public SetResult set(byte[] userKey, byte[] value, SetCondition cond, long expireAt, boolean wantOld) {
        byte[] key = KeyCodec.mapKey(userKey);
        if (!wantOld && value.length <= Keyspace.BLOB_THRESHOLD
                && (expireAt == ValueHeader.NO_EXPIRY || expireAt == Keyspace.KEEP_TTL
                        || expireAt > e.clock.nowMillis())) {
            return e.locked(key, userKey, () -> inPlace.set(key, value, null, cond, expireAt, null));
        }
        return e.locked(key, userKey, () -> {
            byte[] old = e.readLive(key);
            if (wantOld && old != null && ValueHeader.type(old) != ValueHeader.TYPE_STRING) {
                return new SetResult(OpStatus.WRONG_TYPE, null); // SET ... GET, GETSET: nothing written
            }
            if (cond == SetCondition.IF_ABSENT && old != null
                    || cond == SetCondition.IF_PRESENT && old == null) {
                return wantOld && old != null ? new SetResult(OpStatus.NOT_APPLIED, view(old))
                        : SetResult.NOT_APPLIED;
            }
            StringValue prev = wantOld && old != null ? view(old) : null;
            long at = expireAt == Keyspace.KEEP_TTL ? (old == null ? ValueHeader.NO_EXPIRY : ValueHeader.expireAt(old))
                    : expireAt;
            // a deadline this write gives that is not in the future deletes the key (Redis's
            // checkAlreadyExpired); a deadline KEEPTTL carries over is still live at now
            if (expireAt != Keyspace.KEEP_TTL && at != ValueHeader.NO_EXPIRY && at <= e.clock.nowMillis()) {
                if (old != null) {
                    e.removeStored(key, old);
                }
            } else {
                e.putEncoded(key, encode(value, 0, value.length, at), old);
            }
            return prev == null ? SetResult.OK : new SetResult(OpStatus.OK, prev);
        });
    }

    /** MSET: sets every pair atomically. {@code kv} alternates key, value. */
    public void mset(byte[][] userKv) {
        byte[][] kv = mapKeys(userKv);
        byte[][] ks = keysOf(kv);
        e.locked(ks, keysOf(userKv), () -> {
            setAll(kv, userKv);
            return null;
        });
    }

    /**
     * MSET's writes, with every stripe held: all of them or (after a crash) none is applied, see
     * {@link BatchJournal}. Large values go to their blob files first, so the batch names them.
     */
    private void setAll(byte[][] kv, byte[][] userKv) {
        byte[][] stored = new byte[kv.length / 2][];
        for (int i = 0; i < kv.length; i += 2) {
            // a long key's file must exist before the batch: a replayed batch writes map entries only
            e.ensureKeyFileFirst(kv[i], userKv[i]);
        }
        for (int i = 0; i < kv.length; i += 2) {
            byte[] v = kv[i + 1];
            stored[i / 2] = v.length <= Keyspace.BLOB_THRESHOLD ? ValueHeader.raw(v, ValueHeader.NO_EXPIRY)
                    : encode(v, 0, v.length, ValueHeader.NO_EXPIRY);
        }
        int token = beginBatch(kv, stored);
        Undo undo = kv.length > 2 ? new Undo() : null;
        CapacityExhausted failed = null;
        int i = 0;
        try {
            for (; i < kv.length; i += 2) {
                if (kv[i + 1].length <= Keyspace.BLOB_THRESHOLD) {
                    inPlace.set(kv[i], kv[i + 1], stored[i / 2], SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, undo);
                } else {
                    byte[] old = e.readLive(kv[i]);
                    // an expired long key's file went with it; the pending batch names the key
                    e.ensureKeyFileFirst(kv[i], userKv[i]);
                    e.putEncoded(kv[i], stored[i / 2], old, undo);
                }
            }
        } catch (CapacityExhausted ex) {
            if (undo == null) {
                throw ex; // a single pair: nothing was written
            }
            failed = ex;
            // the pairs after the failed one were never written, but their blob files exist
            for (int j = i + 2; j < kv.length; j += 2) {
                if (ValueHeader.isBlob(stored[j / 2])) {
                    undo.deadBlobs.add(ValueHeader.blobId(stored[j / 2]));
                }
            }
            undo.takeBack(e);
            failed.partlyApplied = undo.applied > 0;
        } finally {
            e.journals.endBatch(token);
        }
        // Files go only now: until the batch is ended, a crash replays all of it, and every blob
        // and key file it names must still be there.
        if (undo != null) {
            undo.deleteFiles(e, e::dropBlob, failed == null);
        }
        if (failed != null) {
            throw failed;
        }
    }

    /**
     * Records MSET's writes in the batch journal, in the slot of the lowest stripe the command
     * holds; NO_BATCH (nothing recorded) for a single pair, which the single-write journal covers.
     */
    private int beginBatch(byte[][] kv, byte[][] stored) {
        if (kv.length <= 2) {
            return Journals.NO_BATCH;
        }
        List<BatchJournal.Entry> writes = new ArrayList<>(kv.length / 2);
        int lowest = Integer.MAX_VALUE;
        for (int i = 0; i < kv.length; i += 2) {
            writes.add(new BatchJournal.Entry(kv[i], stored[i / 2]));
            lowest = Math.min(lowest, KeyspaceEngine.stripeOf(kv[i]));
        }
        return e.journals.beginBatch(lowest, writes);
    }

    /** MSETNX: sets every pair only if none of the keys exists. Returns whether it did. */
    public boolean msetnx(byte[][] userKv) {
        byte[][] kv = mapKeys(userKv);
        byte[][] ks = keysOf(kv);
        // set when a take-back stopped part way: the keys were all absent when the command
        // decided, part of it is applied, and the retry after growth completes it
        boolean[] decided = {false};
        return e.locked(ks, keysOf(userKv), () -> {
            if (!decided[0]) {
                for (byte[] k : ks) {
                    if (e.readLive(k) != null) {
                        return false;
                    }
                }
            }
            try {
                setAll(kv, userKv);
            } catch (CapacityExhausted ex) {
                decided[0] |= ex.partlyApplied;
                throw ex;
            }
            return true;
        });
    }

    private static byte[][] mapKeys(byte[][] userKv) {
        byte[][] kv = userKv.clone();
        for (int i = 0; i < kv.length; i += 2) {
            kv[i] = KeyCodec.mapKey(kv[i]);
        }
        return kv;
    }

    private static byte[][] keysOf(byte[][] kv) {
        byte[][] ks = new byte[kv.length / 2][];
        for (int i = 0; i < ks.length; i++) {
            ks[i] = kv[2 * i];
        }
        return ks;
    }

    /** GETDEL: the value (or null) and the key is gone. */
    public StringValue getDel(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] v = readString(key);
            if (v == null) {
                return null;
            }
            StringValue out = view(v);
            e.removeStored(key, v);
            return out;
        });
    }

    /**
     * GETEX: the value, with the TTL changed. {@code expireAt}: a deadline, NO_EXPIRY (PERSIST)
     * or KEEP_TTL (no option). A deadline in the past deletes the key after reading it.
     */
    public StringValue getEx(byte[] userKey, long expireAt) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] v = readString(key);
            if (v == null) {
                return null;
            }
            StringValue out = view(v);
            if (expireAt != Keyspace.KEEP_TTL) {
                e.applyDeadline(key, v, expireAt);
            }
            return out;
        });
    }

    /** APPEND: the new length, or TOO_LARGE. */
    public LengthResult append(byte[] userKey, byte[] value) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] old = e.readLive(key, ValueHeader.TYPE_STRING);
            if (old == KeyspaceEngine.WRONG_TYPE) {
                return new LengthResult(OpStatus.WRONG_TYPE, 0);
            }
            if (old == null) {
                e.putEncoded(key, encode(value, 0, value.length, ValueHeader.NO_EXPIRY), null);
                return new LengthResult(OpStatus.OK, value.length);
            }
            long oldLen = ValueHeader.stringLength(old);
            long newLen = oldLen + value.length;
            if (newLen > Keyspace.MAX_STRING_LENGTH) {
                return new LengthResult(OpStatus.TOO_LARGE, 0);
            }
            long at = ValueHeader.expireAt(old);
            if (ValueHeader.isBlob(old)) {
                // write past the published end first, then publish the new length
                long id = ValueHeader.blobId(old);
                e.blobs.writeAt(id, oldLen, value, 0, value.length);
                e.put(key, ValueHeader.blob(id, newLen, at), old);
            } else {
                byte[] joined = Arrays.copyOfRange(old, ValueHeader.payloadOffset(old),
                        ValueHeader.payloadOffset(old) + (int) newLen);
                System.arraycopy(value, 0, joined, (int) oldLen, value.length);
                e.putEncoded(key, encode(joined, 0, joined.length, at), old);
            }
            return new LengthResult(OpStatus.OK, newLen);
        });
    }

    /** SETRANGE: the new length, or TOO_LARGE. {@code offset} is non-negative. */
    public LengthResult setRange(byte[] userKey, long offset, byte[] value) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] old = e.readLive(key, ValueHeader.TYPE_STRING);
            if (old == KeyspaceEngine.WRONG_TYPE) {
                return new LengthResult(OpStatus.WRONG_TYPE, 0);
            }
            long oldLen = old == null ? 0 : ValueHeader.stringLength(old);
            if (value.length == 0) {
                return new LengthResult(OpStatus.OK, oldLen);
            }
            // offset can be up to Long.MAX_VALUE: compare without overflowing offset + length
            if (offset > Keyspace.MAX_STRING_LENGTH - value.length) {
                return new LengthResult(OpStatus.TOO_LARGE, 0);
            }
            long newLen = Math.max(oldLen, offset + value.length);
            long at = old == null ? ValueHeader.NO_EXPIRY : ValueHeader.expireAt(old);
            if (newLen > Keyspace.BLOB_THRESHOLD) {
                // copy-on-write: bytes inside a published blob are never overwritten
                long id;
                if (old != null && ValueHeader.isBlob(old)) {
                    id = e.blobs.copyFrom(e.blobs, ValueHeader.blobId(old), oldLen);
                } else {
                    byte[] cur = old == null ? new byte[0] : bytesOf(old);
                    id = e.blobs.create(cur, 0, cur.length);
                }
                if (offset > oldLen) {
                    // zero padding: a sparse write past the end reads back as zeros
                    e.blobs.writeAt(id, newLen - 1, new byte[1], 0, 1);
                }
                e.blobs.writeAt(id, offset, value, 0, value.length);
                e.putEncoded(key, ValueHeader.blob(id, newLen, at), old);
            } else {
                byte[] buf = new byte[(int) newLen];
                if (old != null) {
                    System.arraycopy(old, ValueHeader.payloadOffset(old), buf, 0, (int) oldLen);
                }
                System.arraycopy(value, 0, buf, (int) offset, value.length);
                e.putEncoded(key, ValueHeader.raw(buf, at), old);
            }
            return new LengthResult(OpStatus.OK, newLen);
        });
    }

    // ------------------------------------------------------------------ counters

    /** INCRBY / DECRBY / INCR / DECR. Keeps the key's TTL. */
    public CounterResult incrBy(byte[] userKey, long delta) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> inPlace.incrBy(key, delta));
    }

    /** INCRBYFLOAT with Redis's long double arithmetic. Keeps the key's TTL. */
    public BytesResult incrByFloat(byte[] userKey, BigDecimal incr) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] old = e.readLive(key, ValueHeader.TYPE_STRING);
            if (old == KeyspaceEngine.WRONG_TYPE) {
                return new BytesResult(OpStatus.WRONG_TYPE, null);
            }
            BigDecimal cur = BigDecimal.ZERO;
            long at = ValueHeader.NO_EXPIRY;
            if (old != null) {
                if (ValueHeader.isBlob(old)) {
                    return new BytesResult(OpStatus.NOT_FLOAT, null);
                }
                int off = ValueHeader.payloadOffset(old);
                cur = Numbers.parseLongDouble(old, off, old.length - off);
                if (cur == null) {
                    return new BytesResult(OpStatus.NOT_FLOAT, null);
                }
                at = ValueHeader.expireAt(old);
            }
            if (Numbers.isInfinite(cur) || Numbers.isInfinite(incr)) {
                return new BytesResult(OpStatus.NAN_OR_INFINITY, null);
            }
            BigDecimal sum = Numbers.roundToLongDouble(cur.add(incr));
            if (sum == null) {
                return new BytesResult(OpStatus.NAN_OR_INFINITY, null);
            }
            byte[] out = Numbers.formatLongDouble(sum);
            e.put(key, ValueHeader.raw(out, at), old);
            return new BytesResult(OpStatus.OK, out);
        });
    }

    // ------------------------------------------------------------------ encoding

    /** Encodes a new string value, spilling to a blob file when it is large. */
    private byte[] encode(byte[] value, int off, int len, long expireAt) {
        if (len > Keyspace.BLOB_THRESHOLD) {
            long id = e.blobs.create(value, off, len);
            return ValueHeader.blob(id, len, expireAt);
        }
        return ValueHeader.raw(value, off, len, expireAt);
    }

    /** A readable view of a stored string; blob values get their own open channel. */
    private StringValue view(byte[] stored) {
        if (ValueHeader.isBlob(stored)) {
            return StringValue.blob(e.blobs.open(ValueHeader.blobId(stored)), 0, ValueHeader.blobLength(stored));
        }
        int off = ValueHeader.payloadOffset(stored);
        return StringValue.of(stored, off, stored.length - off);
    }

    /** The string's bytes on the heap (bounded callers only: counters, APPEND to small values). */
    private byte[] bytesOf(byte[] stored) {
        if (ValueHeader.isBlob(stored)) {
            long len = ValueHeader.blobLength(stored);
            return e.blobs.read(ValueHeader.blobId(stored), 0, (int) len);
        }
        int off = ValueHeader.payloadOffset(stored);
        return Arrays.copyOfRange(stored, off, stored.length);
    }
}
