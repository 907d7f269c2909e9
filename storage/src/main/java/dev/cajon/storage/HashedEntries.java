package dev.cajon.storage;

import dev.cajon.storage.chronicle.ByteArrayAccess;
import dev.cajon.storage.collection.Entries;
import dev.cajon.storage.collection.Entry;
import dev.cajon.storage.collection.PageStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/**
 * The layout hashes and sets share, on a keyed {@link Entries}: each member (a hash's field, a
 * set's member) is stored under the key {@code xxHash64(member)} as 8 big-endian bytes followed by
 * the member's bytes, with the field's value (a set: empty) as the entry's value.
 *
 * <p>Why this key and not the member itself: the entries' unsigned-byte order is then the order
 * of the 64-bit hash, so
 * <ul>
 *   <li>a lookup, insert or removal is one O(log n) descent, as with the member itself;</li>
 *   <li>a SCAN cursor is simply the next hash value: HSCAN/SSCAN resume at the first entry whose
 *       hash is {@code >= cursor}. An element present from the start to the end of a full scan
 *       is returned (its position in the order never moves, whatever else is added or removed),
 *       which is Redis's guarantee; an element may come twice only if two members share all 64
 *       bits of hash and a page boundary falls between them, which the scan avoids by never
 *       stopping inside a run of equal hashes;</li>
 *   <li>random picks (HRANDFIELD, SPOP, SRANDMEMBER) are {@link Entries#at} of a random rank,
 *       O(log n) each, and uniform; members sorted by their bytes would give the same, but the
 *       cursor would then have to carry a member of any length.</li>
 * </ul>
 *
 * <p>The state stored with the key is {@code [FORMAT][flags][the entries' own state]}: one
 * format byte (append-only, pinned by {@code HashedEntriesTest}) and one byte of flags, whose bit
 * 0 ({@link #BIG}) records that the collection has left its compact encoding (Redis's listpack
 * or intset became a hashtable). Redis never converts back, so the bit is sticky, and OBJECT
 * ENCODING reads only this byte.
 */
final class HashedEntries {
    /** The first byte of every hash and set state. */
    static final byte FORMAT = 1;
    /** Flag: the collection has left its compact encoding (OBJECT ENCODING "hashtable"). */
    static final int BIG = 1;
    private static final int HEADER = 2;

    private HashedEntries() {
    }

    /** The entry key of {@code member}. */
    static byte[] key(byte[] member) {
        byte[] k = new byte[8 + member.length];
        long h = ByteArrayAccess.xxHash64(member);
        for (int i = 7; i >= 0; i--) {
            k[i] = (byte) h;
            h >>>= 8;
        }
        System.arraycopy(member, 0, k, 8, member.length);
        return k;
    }

    /** The member an entry key holds. */
    static byte[] member(byte[] key) {
        return Arrays.copyOfRange(key, 8, key.length);
    }

    /** The 64-bit hash at the front of an entry key. */
    static long hashOf(byte[] key) {
        long h = 0;
        for (int i = 0; i < 8; i++) {
            h = h << 8 | (key[i] & 0xFF);
        }
        return h;
    }

    /** The first entry key a scan from {@code cursor} may return: the hash alone. */
    private static byte[] cursorKey(long cursor) {
        byte[] k = new byte[8];
        for (int i = 7; i >= 0; i--) {
            k[i] = (byte) cursor;
            cursor >>>= 8;
        }
        return k;
    }

    // ------------------------------------------------------------------ state

    /** The flags of a stored state. */
    static int flags(byte[] state) {
        if (state[0] != FORMAT) {
            throw new IllegalStateException("unknown collection state format " + state[0]);
        }
        return state[1] & 0xFF;
    }

    /** Removes each of {@code members} (HDEL, SREM); returns how many were there. */
    static long removeAll(Entries e, byte[][] members) {
        long removed = 0;
        for (byte[] m : members) {
            if (e.remove(key(m)) != null) {
                removed++;
            }
        }
        return removed;
    }

    /** Opens the entries of a stored state (null: a new collection). */
    static Entries open(byte[] state, PageStore pages) {
        byte[] tree = null;
        if (state != null) {
            flags(state);
            tree = Arrays.copyOfRange(state, HEADER, state.length);
        }
        return dev.cajon.storage.collection.Trees.open(tree, pages, false);
    }

    /** The state to store: the header and the entries' state. */
    static byte[] state(int flags, Entries e) {
        byte[] tree = e.state();
        byte[] s = new byte[HEADER + tree.length];
        s[0] = FORMAT;
        s[1] = (byte) flags;
        System.arraycopy(tree, 0, s, HEADER, tree.length);
        return s;
    }

    // ------------------------------------------------------------------ scan

    /** One page of a scan: the next cursor (0 when done) and the entries examined that matched. */
    record Page(long next, List<Entry> entries) {
    }

    /**
     * Up to {@code count} entries from {@code cursor} on (more only to finish a run of equal
     * hashes), keeping those whose member {@code match} accepts; {@code all} returns everything
     * in one call with cursor 0, as Redis does for its compact encodings.
     */
    static Page scan(Entries e, long cursor, long count, boolean all, Predicate<byte[]> match) {
        List<Entry> out = new ArrayList<>();
        long from = all ? 0 : e.rank(cursorKey(cursor));
        long size = e.size();
        if (from >= size) {
            return new Page(0, out);
        }
        Iterator<Entry> it = e.view(from, false);
        long seen = 0;
        long lastHash = 0;
        while (it.hasNext()) {
            Entry en = it.next();
            long h = hashOf(en.key());
            if (!all && seen >= count && h != lastHash) {
                return new Page(h, out);
            }
            if (match.test(member(en.key()))) {
                out.add(en);
            }
            seen++;
            lastHash = h;
        }
        return new Page(0, out);
    }

    // ------------------------------------------------------------------ random picks

    /** One entry at a uniformly random rank. */
    static Entry random(Entries e, RandomGenerator rnd) {
        return e.at(rnd.nextLong(e.size()));
    }

    /**
     * {@code count} distinct entries at random ranks (Floyd's sampling: {@code count} draws), or
     * all of them, in order, when {@code count >= size}.
     */
    static List<Entry> distinct(Entries e, long count, RandomGenerator rnd) {
        long n = e.size();
        List<Entry> out = new ArrayList<>();
        if (count >= n) {
            e.view(0, false).forEachRemaining(out::add);
            return out;
        }
        Set<Long> picked = new HashSet<>();
        List<Long> order = new ArrayList<>();
        for (long j = n - count; j < n; j++) {
            long t = rnd.nextLong(j + 1);
            Long pick = picked.add(t) ? t : j;
            if (pick == j) {
                picked.add(j);
            }
            order.add(pick);
        }
        for (long r : order) {
            out.add(e.at(r));
        }
        return out;
    }

    /** {@code count} entries at random ranks, repeats allowed (a negative count's meaning). */
    static List<Entry> withRepeats(Entries e, long count, RandomGenerator rnd) {
        List<Entry> out = new ArrayList<>((int) Math.min(count, 1 << 16));
        long n = e.size();
        for (long i = 0; i < count; i++) {
            out.add(e.at(rnd.nextLong(n)));
        }
        return out;
    }

    /**
     * The engine's view of a type stored as hashed entries (hashes and sets): they differ only in
     * code, name and what OBJECT ENCODING calls them while small ("listpack" for a hash, "intset"
     * for a set); both become "hashtable" for good once {@link #BIG} is set.
     */
    static final class Type implements dev.cajon.storage.collection.CollectionType {
        private final byte code;
        private final String name;
        private final String small;

        Type(byte code, String name, String small) {
            this.code = code;
            this.name = name;
            this.small = small;
        }

        @Override
        public byte code() {
            return code;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String encoding(byte[] state) {
            return (flags(state) & BIG) != 0 ? "hashtable" : small;
        }

        @Override
        public void release(byte[] state, PageStore pages) {
            open(state, pages).clear();
        }

        @Override
        public byte[] copy(byte[] state, PageStore from, PageStore to) {
            return copyState(state, from, to);
        }
    }

    /** Copies a hash or set state: its header as is, its entries through {@link dev.cajon.storage.collection.Trees#copy}. */
    static byte[] copyState(byte[] state, PageStore from, PageStore to) {
        byte[] tree = Arrays.copyOfRange(state, 2, state.length);
        byte[] copied = dev.cajon.storage.collection.Trees.copy(tree, from, to, false);
        byte[] s = new byte[2 + copied.length];
        s[0] = state[0];
        s[1] = state[1];
        System.arraycopy(copied, 0, s, 2, copied.length);
        return s;
    }
}
