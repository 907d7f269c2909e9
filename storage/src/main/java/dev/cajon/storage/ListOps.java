package dev.cajon.storage;

import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.collection.Collection;
import dev.cajon.storage.collection.CollectionAccess;
import dev.cajon.storage.collection.CollectionType;
import dev.cajon.storage.collection.CollectionTypes;
import dev.cajon.storage.collection.Entries;
import dev.cajon.storage.collection.Entry;
import dev.cajon.storage.collection.PageStore;
import dev.cajon.storage.collection.Trees;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The list operations (LPUSH, LRANGE, LMOVE ...), on {@link CollectionAccess} and a positional
 * {@link Entries}. Storage never speaks RESP: the results are values, lists of values and counts;
 * a key of another type makes a call throw {@link CollectionAccess.WrongType}, which the server
 * answers with WRONGTYPE.
 *
 * <p>What must stay true:
 * <ul>
 *   <li>No write rewrites the whole list: a push, a pop, LSET and LINDEX are O(log n) on the
 *       tree; LRANGE is O(log n + m) through one iterator; LINSERT and LREM scan (O(n), as in
 *       Redis) and then insert or remove in O(log n) each.</li>
 *   <li>An empty list does not exist: every write that empties a list frees its pages and
 *       deletes the key, as Redis does.</li>
 *   <li>Index arguments follow Redis's rules (negative counts from the tail; LRANGE and LTRIM
 *       clamp), computed here so that the server only parses numbers.</li>
 * </ul>
 */
public final class ListOps {
    /** The list type as the engine sees it (TYPE "list"). */
    public static final CollectionType TYPE = new CollectionType() {
        @Override
        public byte code() {
            return ValueHeader.TYPE_LIST;
        }

        @Override
        public String name() {
            return "list";
        }

        /**
         * Redis 7.0 answers "quicklist" for every list (its listpack encoding of small lists came
         * in 7.2; checked against redis-server 7.0.15).
         */
        @Override
        public String encoding(byte[] state) {
            return "quicklist";
        }

        @Override
        public void release(byte[] state, PageStore pages) {
            if (state != null) {
                Trees.open(state, pages, true).clear();
            }
        }

        @Override
        public byte[] copy(byte[] state, PageStore from, PageStore to) {
            return Trees.copy(state, from, to, true);
        }
    };

    static {
        CollectionTypes.register(TYPE);
    }

    private static final byte LIST = ValueHeader.TYPE_LIST;

    private final CollectionAccess access;

    ListOps(CollectionAccess access) {
        this.access = access;
    }

    // ------------------------------------------------------------------ helpers

    private static Entries open(Collection c) {
        return Trees.open(c.state(), c.pages(), true);
    }

    /** Stores the list's new state, or deletes the key when it became empty. */
    private static void finish(Collection c, Entries e) {
        if (e.size() == 0) {
            e.clear();
            c.state(null);
        } else {
            c.state(e.state());
        }
    }

    /** Pushes at the head or the tail. */
    private static void push(Entries e, byte[] v, boolean left) {
        e.insertAt(left ? 0 : e.size(), v);
    }

    private static byte[] pop(Entries e, boolean left) {
        return e.removeAt(left ? 0 : e.size() - 1);
    }

    // ------------------------------------------------------------------ writes

    /**
     * LPUSH, RPUSH, LPUSHX, RPUSHX: pushes {@code values[from..]} one after the other (so LPUSH
     * of a b c leaves c b a). Returns the new length; with {@code onlyIfExists} and no key, 0.
     */
    public long push(byte[] key, byte[][] values, int from, boolean left, boolean onlyIfExists) {
        return access.write(key, LIST, c -> {
            if (onlyIfExists && !c.exists()) {
                return 0L;
            }
            Entries e = open(c);
            for (int i = from; i < values.length; i++) {
                push(e, values[i], left);
            }
            c.state(e.state());
            return e.size();
        });
    }

    /**
     * LPOP and RPOP: up to {@code count} values from the head or tail, in pop order; null when
     * the key does not exist. A count of 0 on an existing key answers an empty list.
     */
    public List<byte[]> pop(byte[] key, boolean left, long count) {
        return access.write(key, LIST, c -> {
            if (!c.exists()) {
                return null;
            }
            Entries e = open(c);
            long n = Math.min(count, e.size());
            List<byte[]> out = new ArrayList<>((int) Math.min(n, 1024));
            if (n == 0) {
                return out;
            }
            for (long i = 0; i < n; i++) {
                out.add(pop(e, left));
            }
            finish(c, e);
            return out;
        });
    }

    /** LSET's outcome. */
    public enum SetResult { OK, NO_SUCH_KEY, OUT_OF_RANGE }

    /** LSET. */
    public SetResult set(byte[] key, long index, byte[] value) {
        return access.write(key, LIST, c -> {
            if (!c.exists()) {
                return SetResult.NO_SUCH_KEY;
            }
            Entries e = open(c);
            long i = index < 0 ? e.size() + index : index;
            if (i < 0 || i >= e.size()) {
                return SetResult.OUT_OF_RANGE;
            }
            e.setAt(i, value);
            c.state(e.state());
            return SetResult.OK;
        });
    }

    /**
     * LREM: removes up to |count| values equal to {@code value} (from the head for count &gt; 0,
     * from the tail for count &lt; 0, all for 0); returns how many.
     */
    public long remove(byte[] key, long count, byte[] value) {
        return access.write(key, LIST, c -> {
            if (!c.exists()) {
                return 0L;
            }
            Entries e = open(c);
            boolean fromTail = count < 0;
            long limit = count == 0 ? Long.MAX_VALUE : (count == Long.MIN_VALUE ? Long.MAX_VALUE : Math.abs(count));
            List<Long> at = new ArrayList<>();
            long size = e.size();
            Iterator<Entry> it = e.iterator(fromTail ? size - 1 : 0, fromTail);
            long i = fromTail ? size - 1 : 0;
            while (it.hasNext() && at.size() < limit) {
                if (java.util.Arrays.equals(it.next().value(), value)) {
                    at.add(i);
                }
                i += fromTail ? -1 : 1;
            }
            if (at.isEmpty()) {
                return 0L;
            }
            // highest index first, so the earlier indexes stay valid
            if (!fromTail) {
                java.util.Collections.reverse(at);
            }
            for (long x : at) {
                e.removeAt(x);
            }
            finish(c, e);
            return (long) at.size();
        });
    }

    /** LTRIM with Redis's clamping; a range that keeps nothing deletes the key. */
    public void trim(byte[] key, long start, long stop) {
        access.write(key, LIST, c -> {
            if (!c.exists()) {
                return null;
            }
            Entries e = open(c);
            long llen = e.size();
            long s = start < 0 ? llen + start : start;
            long t = stop < 0 ? llen + stop : stop;
            if (s < 0) {
                s = 0;
            }
            long ltrim;
            long rtrim;
            if (s > t || s >= llen) {
                ltrim = llen;
                rtrim = 0;
            } else {
                if (t >= llen) {
                    t = llen - 1;
                }
                ltrim = s;
                rtrim = llen - t - 1;
            }
            if (ltrim == 0 && rtrim == 0) {
                return null;
            }
            for (long i = 0; i < rtrim; i++) {
                e.removeAt(e.size() - 1);
            }
            for (long i = 0; i < ltrim && e.size() > 0; i++) {
                e.removeAt(0);
            }
            finish(c, e);
            return null;
        });
    }

    /**
     * LINSERT: inserts {@code value} before or after the first {@code pivot} from the head.
     * Returns the new length, -1 when there is no pivot, 0 when there is no key.
     */
    public long insert(byte[] key, boolean before, byte[] pivot, byte[] value) {
        return access.write(key, LIST, c -> {
            if (!c.exists()) {
                return 0L;
            }
            Entries e = open(c);
            long found = -1;
            long i = 0;
            for (Iterator<Entry> it = e.iterator(0, false); it.hasNext(); i++) {
                if (java.util.Arrays.equals(it.next().value(), pivot)) {
                    found = i;
                    break;
                }
            }
            if (found < 0) {
                return -1L;
            }
            e.insertAt(before ? found : found + 1, value);
            c.state(e.state());
            return e.size();
        });
    }

    /**
     * LMOVE and RPOPLPUSH: pops from {@code src} and pushes onto {@code dst}, both at one moment;
     * the value, or null when {@code src} does not exist. {@code src} equal to {@code dst}
     * rotates the list. Throws WrongType for a source of another type, and for a destination of
     * another type only when there is something to move (Redis checks it after the source).
     */
    public byte[] move(byte[] src, byte[] dst, boolean fromLeft, boolean toLeft) {
        if (java.util.Arrays.equals(src, dst)) {
            return access.write(src, LIST, c -> {
                if (!c.exists()) {
                    return null;
                }
                Entries e = open(c);
                byte[] v = pop(e, fromLeft);
                push(e, v, toLeft);
                c.state(e.state());
                return v;
            });
        }
        return access.writeAll(new byte[][] {src, dst}, new byte[] {LIST, 0}, cs -> {
            Collection s = cs[0];
            Collection d = cs[1];
            if (!s.exists()) {
                return null;
            }
            boolean dstExists = d.exists();
            if (dstExists && d.type() != LIST) {
                throw CollectionAccess.WrongType.INSTANCE;
            }
            Entries se = open(s);
            byte[] v = pop(se, fromLeft);
            if (dstExists) {
                Entries de = open(d);
                push(de, v, toLeft);
                d.state(de.state());
            } else {
                // a new list first: its pages() is the new collection's (a long element puts the
                // tree's root on a page at once, which a key of no type cannot hold)
                d.replace(LIST, null);
                Entries de = Trees.open(null, d.pages(), true);
                push(de, v, toLeft);
                d.state(de.state());
            }
            finish(s, se);
            return v;
        });
    }

    // ------------------------------------------------------------------ reads

    /** LLEN: 0 for no key. */
    public long length(byte[] key) {
        return access.read(key, LIST, c -> c == null ? 0L : open(c).size());
    }

    /** Whether {@code key} holds a non-empty list (throws WrongType for another type). */
    public boolean exists(byte[] key) {
        return access.read(key, LIST, c -> c != null);
    }

    /** LINDEX: the value, or null for no key or an index out of range. */
    public byte[] index(byte[] key, long index) {
        return access.read(key, LIST, c -> {
            if (c == null) {
                return null;
            }
            Entries e = open(c);
            long i = index < 0 ? e.size() + index : index;
            return i < 0 || i >= e.size() ? null : e.at(i).value();
        });
    }

    /** LRANGE with Redis's clamping; an empty list for no key. O(log n + m). */
    public List<byte[]> range(byte[] key, long start, long stop) {
        return access.read(key, LIST, c -> {
            List<byte[]> out = new ArrayList<>();
            if (c == null) {
                return out;
            }
            Entries e = open(c);
            long llen = e.size();
            long s = start < 0 ? llen + start : start;
            long t = stop < 0 ? llen + stop : stop;
            if (s < 0) {
                s = 0;
            }
            if (s > t || s >= llen) {
                return out;
            }
            if (t >= llen) {
                t = llen - 1;
            }
            Iterator<Entry> it = e.view(s, false); // the reply only reads the values
            for (long i = s; i <= t && it.hasNext(); i++) {
                out.add(it.next().value());
            }
            return out;
        });
    }

    /**
     * LPOS: the indexes (from the head) of the matches of {@code element}: skipping |rank|-1
     * matches, scanning from the tail for a negative rank, keeping {@code count} of them (0:
     * all), comparing at most {@code maxlen} entries (0: no limit). Null when the key does not
     * exist.
     */
    public List<Long> positions(byte[] key, byte[] element, long rank, long count, long maxlen) {
        return access.read(key, LIST, c -> {
            if (c == null) {
                return null;
            }
            Entries e = open(c);
            long size = e.size();
            boolean fromTail = rank < 0;
            // matches to skip; Redis 7.0 treats LLONG_MIN (whose negation overflows) as -1
            long skip = rank == Long.MIN_VALUE ? 0 : fromTail ? -(rank + 1) : rank - 1;
            List<Long> out = new ArrayList<>();
            Iterator<Entry> it = e.view(fromTail ? size - 1 : 0, fromTail);
            long i = fromTail ? size - 1 : 0;
            long compared = 0;
            while (it.hasNext() && (maxlen == 0 || compared < maxlen)) {
                byte[] v = it.next().value();
                compared++;
                if (java.util.Arrays.equals(v, element)) {
                    if (skip > 0) {
                        skip--;
                    } else {
                        out.add(i);
                        if (count != 0 && out.size() >= count) {
                            break;
                        }
                    }
                }
                i += fromTail ? -1 : 1;
            }
            return out;
        });
    }

    /** LMPOP's and BLMPOP's answer: the key popped from and its values. */
    public record KeyValues(byte[] key, List<byte[]> values) {
    }

    /**
     * LMPOP: pops up to {@code count} values from the first of {@code keys} that exists. Keys
     * are looked at in order; one of another type met before a list throws WrongType. Null when
     * none exists. Each key's pop is atomic.
     */
    public KeyValues popFirst(byte[][] keys, int from, int to, boolean left, long count) {
        for (int k = from; k < to; k++) {
            List<byte[]> got = pop(keys[k], left, count);
            if (got != null) {
                return new KeyValues(keys[k], got);
            }
        }
        return null;
    }
}
