package dev.cajon.storage;

import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.collection.Collection;
import dev.cajon.storage.collection.CollectionAccess;
import dev.cajon.storage.collection.CollectionType;
import dev.cajon.storage.collection.CollectionTypes;
import dev.cajon.storage.collection.Entries;
import dev.cajon.storage.collection.Entry;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The hash operations (HSET, HGET, HSCAN ...), on {@link CollectionAccess} in the layout of
 * {@link HashedEntries}: one entry per field, keyed by the field's 64-bit hash and the field, the
 * value as the entry's value. Every write touches O(log n) of the collection; an emptied hash is
 * deleted, as in Redis.
 *
 * <p>Storage never speaks RESP: results are values and statuses. A key of another type makes a
 * call throw {@link CollectionAccess.WrongType}, which the server answers with WRONGTYPE.
 *
 * <p>OBJECT ENCODING follows Redis 7.0.15: "listpack" until the hash has more than
 * hash-max-listpack-entries fields or is given a field or value longer than
 * hash-max-listpack-value bytes ({@link EncodingLimits}: 512 and 64 by default), then "hashtable"
 * for good (the {@link HashedEntries#BIG} flag).
 */
public final class HashOps {

    /** The hash type, as the engine sees it. */
    public static final CollectionType TYPE = new HashedEntries.Type(ValueHeader.TYPE_HASH, "hash", "listpack");

    static {
        CollectionTypes.register(TYPE);
    }

    private static final byte CODE = ValueHeader.TYPE_HASH;

    private final CollectionAccess access;

    HashOps(CollectionAccess access) {
        this.access = access;
    }

    // ------------------------------------------------------------------ plumbing

    /** An open hash inside a write body: its entries and flags; {@link #save} stores them. */
    private static final class Open {
        final Collection c;
        final Entries e;
        int flags;

        Open(Collection c) {
            this.c = c;
            byte[] st = c.state();
            this.flags = st == null ? 0 : HashedEntries.flags(st);
            this.e = HashedEntries.open(st, c.pages());
        }

        /** Notes a written field/value: a long one ends the listpack encoding. */
        void wrote(byte[] field, byte[] value) {
            long max = EncodingLimits.hashValue();
            if (field.length > max || value.length > max) {
                flags |= HashedEntries.BIG;
            }
        }

        void save() {
            if (e.size() == 0) {
                if (c.exists()) {
                    e.clear();
                    c.state(null);
                }
                return;
            }
            if (e.size() > EncodingLimits.hashEntries()) {
                flags |= HashedEntries.BIG;
            }
            c.state(HashedEntries.state(flags, e));
        }

        byte[] get(byte[] field) {
            return e.get(HashedEntries.key(field));
        }

        byte[] put(byte[] field, byte[] value) {
            wrote(field, value);
            return e.put(HashedEntries.key(field), value);
        }
    }

    private <T> T write(byte[] key, Function<Open, T> body) {
        return access.write(key, CODE, c -> {
            return body.apply(new Open(c));
        });
    }

    private <T> T read(byte[] key, T absent, Function<Entries, T> body) {
        return access.read(key, CODE, c -> c == null ? absent : body.apply(HashedEntries.open(c.state(), c.pages())));
    }

    // ------------------------------------------------------------------ writes

    /**
     * HSET/HMSET: sets each field of {@code pairs} (field, value, field, value ...); returns how
     * many fields were new. Redis checks every argument's length first, so a long one ends the
     * listpack encoding even if it ends up overwritten.
     */
    public long set(byte[] key, byte[][] pairs) {
        return write(key, o -> {
            long added = 0;
            for (int i = 0; i + 1 < pairs.length; i += 2) {
                if (o.put(pairs[i], pairs[i + 1]) == null) {
                    added++;
                }
            }
            o.save();
            return added;
        });
    }

    /** HSETNX: sets the field only if absent; true if it did. */
    public boolean setIfAbsent(byte[] key, byte[] field, byte[] value) {
        return write(key, o -> {
            // Redis 7.0.15 looks for the field first: an existing one leaves the encoding alone
            if (o.get(field) != null) {
                return false;
            }
            o.put(field, value);
            o.save();
            return true;
        });
    }

    /** HDEL: removes the fields; returns how many existed. Deletes an emptied hash. */
    public long delete(byte[] key, byte[][] fields) {
        return access.write(key, CODE, c -> {
            if (!c.exists()) {
                return 0L;
            }
            Open o = new Open(c);
            long removed = HashedEntries.removeAll(o.e, fields);
            if (removed > 0) {
                o.save();
            }
            return removed;
        });
    }

    /**
     * HINCRBY: adds {@code delta} to the field's integer (0 if absent). Statuses: NOT_INTEGER when
     * the stored value is not one (Redis's "hash value is not an integer"), OVERFLOW.
     */
    public CounterResult incrBy(byte[] key, byte[] field, long delta) {
        return write(key, o -> {
            byte[] old = o.get(field);
            long cur = 0;
            if (old != null) {
                if (!Numbers.isLong(old, 0, old.length)) {
                    return new CounterResult(OpStatus.NOT_INTEGER, 0);
                }
                cur = Numbers.parseLong(old, 0, old.length);
            }
            if (delta < 0 ? cur < Long.MIN_VALUE - delta : cur > Long.MAX_VALUE - delta) {
                return new CounterResult(OpStatus.OVERFLOW, 0);
            }
            long v = cur + delta;
            o.put(field, Numbers.toBytes(v));
            o.save();
            return new CounterResult(OpStatus.OK, v);
        });
    }

    /**
     * HINCRBYFLOAT: adds {@code incr} (finite, as the server checked) to the field's number, in
     * x87 long double as Redis. Statuses: NOT_FLOAT when the stored value is not a number (Redis's
     * "hash value is not a float"), NAN_OR_INFINITY when the result is not finite.
     */
    public BytesResult incrByFloat(byte[] key, byte[] field, BigDecimal incr) {
        return write(key, o -> {
            byte[] old = o.get(field);
            BigDecimal cur = BigDecimal.ZERO;
            if (old != null) {
                cur = Numbers.parseLongDouble(old, 0, old.length);
                if (cur == null) {
                    return new BytesResult(OpStatus.NOT_FLOAT, null);
                }
            }
            if (Numbers.isInfinite(cur) || Numbers.isInfinite(incr)) {
                return new BytesResult(OpStatus.NAN_OR_INFINITY, null);
            }
            BigDecimal sum = Numbers.roundToLongDouble(cur.add(incr));
            if (sum == null) {
                return new BytesResult(OpStatus.NAN_OR_INFINITY, null);
            }
            byte[] out = Numbers.formatLongDouble(sum);
            o.put(field, out);
            o.save();
            return new BytesResult(OpStatus.OK, out);
        });
    }

    // ------------------------------------------------------------------ reads

    /** HGET: the field's value, or null (no such field or key). */
    public byte[] get(byte[] key, byte[] field) {
        return read(key, null, e -> e.get(HashedEntries.key(field)));
    }

    /** HMGET: each field's value or null; all null when the key is absent. */
    public byte[][] getMany(byte[] key, byte[][] fields) {
        return read(key, new byte[fields.length][], e -> {
            byte[][] out = new byte[fields.length][];
            for (int i = 0; i < fields.length; i++) {
                out[i] = e.get(HashedEntries.key(fields[i]));
            }
            return out;
        });
    }

    /** HLEN: the number of fields (0 for an absent key). */
    public long length(byte[] key) {
        return read(key, 0L, Entries::size);
    }

    /** HEXISTS. */
    public boolean exists(byte[] key, byte[] field) {
        return read(key, false, e -> e.get(HashedEntries.key(field)) != null);
    }

    /** HSTRLEN: the value's length, 0 when absent. */
    public long valueLength(byte[] key, byte[] field) {
        return read(key, 0L, e -> {
            byte[] v = e.get(HashedEntries.key(field));
            return v == null ? 0L : (long) v.length;
        });
    }

    /** HGETALL, HKEYS, HVALS: every (field, value) pair, in the layout's order; empty when absent. */
    public List<byte[][]> getAll(byte[] key) {
        return read(key, List.of(), e -> {
            List<byte[][]> out = new ArrayList<>((int) Math.min(e.size(), Integer.MAX_VALUE - 8));
            e.view(0, false).forEachRemaining(en -> out.add(pair(en)));
            return out;
        });
    }

    private static byte[][] pair(Entry en) {
        return new byte[][] {HashedEntries.member(en.key()), en.value()};
    }

    /** HRANDFIELD without a count: one random (field, value), or null when the key is absent. */
    public byte[][] randomField(byte[] key) {
        return read(key, null, e -> pair(HashedEntries.random(e, ThreadLocalRandom.current())));
    }

    /**
     * HRANDFIELD with a count: {@code count >= 0} gives that many distinct fields (all of them when
     * the hash has no more); a negative count gives {@code -count} picks that may repeat. Empty when
     * the key is absent.
     */
    public List<byte[][]> randomFields(byte[] key, long count) {
        return read(key, List.of(), e -> {
            List<Entry> picks = count >= 0 ? HashedEntries.distinct(e, count, ThreadLocalRandom.current())
                    : HashedEntries.withRepeats(e, -count, ThreadLocalRandom.current());
            List<byte[][]> out = new ArrayList<>(picks.size());
            picks.forEach(en -> out.add(pair(en)));
            return out;
        });
    }

    /** One HSCAN call's answer: the next cursor (0 when done) and the (field, value) pairs. */
    public record ScanResult(long next, List<byte[][]> pairs) {
    }

    /**
     * HSCAN: up to {@code count} fields from {@code cursor} on (see {@link HashedEntries#scan}),
     * those whose field {@code match} accepts. A listpack-encoded hash answers whole, cursor 0,
     * as Redis does.
     */
    public ScanResult scan(byte[] key, long cursor, long count, Predicate<byte[]> match) {
        return access.read(key, CODE, c -> {
            if (c == null) {
                return new ScanResult(0, List.of());
            }
            boolean compact = (HashedEntries.flags(c.state()) & HashedEntries.BIG) == 0;
            HashedEntries.Page p = HashedEntries.scan(HashedEntries.open(c.state(), c.pages()), cursor, count,
                    compact, match);
            List<byte[][]> out = new ArrayList<>(p.entries().size());
            p.entries().forEach(en -> out.add(pair(en)));
            return new ScanResult(p.next(), out);
        });
    }

    /** OBJECT ENCODING's answer for the hash at {@code key}, or null when absent. */
    public String encoding(byte[] key) {
        return access.read(key, CODE, c -> c == null ? null : TYPE.encoding(c.state()));
    }
}
