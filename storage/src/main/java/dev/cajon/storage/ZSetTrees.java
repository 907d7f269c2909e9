package dev.cajon.storage;

import dev.cajon.storage.collection.Entries;
import dev.cajon.storage.collection.Entry;
import dev.cajon.storage.collection.PageStore;
import dev.cajon.storage.collection.Trees;
import java.util.Arrays;
import java.util.Iterator;

/**
 * The layout of one sorted set: two keyed {@link Entries} over the collection's one
 * {@link PageStore}, whose states are stored together in the collection's state.
 *
 * <pre>
 *   by member:  key = hash64(member) (8 bytes, big-endian) + member    value = score (8 bytes)
 *   by score:   key = orderedScore(score) (8 bytes) + member            value = empty
 *
 *   state = [version 1][flags][int: length of the by-member state][by-member state][by-score state]
 *           flags bit 0: the set has been "skiplist" (OBJECT ENCODING), as Redis never converts back
 * </pre>
 *
 * <p>The by-member tree answers ZSCORE and ZADD's lookup in O(log n) and orders ZSCAN by hash, so
 * a cursor is the hash of the next member to visit. The by-score tree holds the ranking: every
 * range by rank, score or lex is a {@link Entries#rank} (O(log n)) plus an iterator (O(m)).
 *
 * <p>What must stay true: both trees hold the same members; the scores agree; no score is NaN;
 * -0.0 is stored as 0.0 (Redis compares -0 and 0 as equal, and its listpack, which every small
 * set uses, reads -0 back as 0), so the score order is the unsigned order of
 * {@link #orderedScore} and ties are broken by the member's bytes, as Redis's skiplist does.
 * These bytes are persisted: {@link #hash64}, {@link #orderedScore} and the state layout are
 * pinned by ZSetLayoutTest.
 */
final class ZSetTrees {
    static final byte VERSION = 1;
    static final int FLAG_SKIPLIST = 1;


    private static final byte[] EMPTY = new byte[0];

    final Entries byMember;
    final Entries byScore;
    int flags;

    private ZSetTrees(Entries byMember, Entries byScore, int flags) {
        this.byMember = byMember;
        this.byScore = byScore;
        this.flags = flags;
    }

    /** The sorted set stored in {@code state}, or a new, empty one for null. */
    static ZSetTrees open(byte[] state, PageStore pages) {
        if (state == null) {
            return new ZSetTrees(Trees.open(null, pages, false), Trees.open(null, pages, false), 0);
        }
        if (state[0] != VERSION) {
            throw new IllegalStateException("unknown sorted set state version " + state[0]);
        }
        int flags = state[1];
        int len = getInt(state, 2);
        byte[] m = Arrays.copyOfRange(state, 6, 6 + len);
        byte[] s = Arrays.copyOfRange(state, 6 + len, state.length);
        return new ZSetTrees(Trees.open(m, pages, false), Trees.open(s, pages, false), flags);
    }

    /** The state to store (null when the set is empty: the caller deletes the key, having cleared it). */
    byte[] state() {
        byte[] m = byMember.state();
        byte[] s = byScore.state();
        byte[] out = new byte[6 + m.length + s.length];
        out[0] = VERSION;
        out[1] = (byte) flags;
        putInt(out, 2, m.length);
        System.arraycopy(m, 0, out, 6, m.length);
        System.arraycopy(s, 0, out, 6 + m.length, s.length);
        return out;
    }

    /** The two trees' states in a stored state, for release and copy. */
    static byte[][] split(byte[] state) {
        int len = getInt(state, 2);
        return new byte[][] {Arrays.copyOfRange(state, 6, 6 + len), Arrays.copyOfRange(state, 6 + len, state.length)};
    }

    static byte[] join(byte flags, byte[] m, byte[] s) {
        byte[] out = new byte[6 + m.length + s.length];
        out[0] = VERSION;
        out[1] = flags;
        putInt(out, 2, m.length);
        System.arraycopy(m, 0, out, 6, m.length);
        System.arraycopy(s, 0, out, 6 + m.length, s.length);
        return out;
    }

    long size() {
        return byScore.size();
    }

    boolean skiplist() {
        return (flags & FLAG_SKIPLIST) != 0;
    }

    /**
     * Redis converts a listpack to a skiplist when it grows past zset-max-listpack-entries or
     * meets a member over zset-max-listpack-value ({@link EncodingLimits}: 128 and 64 by default).
     */
    void noteSize(long size, int memberLength) {
        if (size > EncodingLimits.zsetEntries() || memberLength > EncodingLimits.zsetValue()) {
            flags |= FLAG_SKIPLIST;
        }
    }

    /** The member's score, or null. */
    Double score(byte[] member) {
        byte[] v = byMember.get(memberKey(member));
        return v == null ? null : Double.longBitsToDouble(getLong(v, 0));
    }

    /** Sets {@code member}'s score (new or changed); returns the previous score or null. */
    Double put(byte[] member, double score) {
        score = normalise(score);
        byte[] mk = memberKey(member);
        byte[] old = byMember.put(mk, longBytes(Double.doubleToRawLongBits(score)));
        Double prev = null;
        if (old != null) {
            prev = Double.longBitsToDouble(getLong(old, 0));
            byScore.remove(scoreKey(prev, member));
        }
        byScore.put(scoreKey(score, member), EMPTY);
        noteSize(size(), member.length);
        return prev;
    }

    /** Removes {@code member}; returns whether it was there. */
    boolean remove(byte[] member) {
        byte[] old = byMember.remove(memberKey(member));
        if (old == null) {
            return false;
        }
        byScore.remove(scoreKey(Double.longBitsToDouble(getLong(old, 0)), member));
        return true;
    }

    void clear() {
        byMember.clear();
        byScore.clear();
    }

    /** The 0-based rank of a member with {@code score}, ascending. */
    long rank(byte[] member, double score) {
        return byScore.rank(scoreKey(score, member));
    }

    /** How many members have a score below {@code s} (or, with {@code orEqual}, at most {@code s}). */
    long countBelow(double s, boolean orEqual) {
        long enc = orderedScore(s);
        if (orEqual) {
            enc++; // the next 8-byte prefix: NaN's region lies above +inf, so this never wraps
        }
        return byScore.rank(longBytes(enc));
    }

    /**
     * How many members sort before the lex bound {@code member} (with {@code orEqual}: at or
     * before it). Redis's lex ranges assume every score is equal; like its skiplist walk, this
     * compares members only, by a binary search over the ranking (O(log n) lookups by rank), so a
     * set whose members happen to ascend with their scores answers as Redis's does.
     */
    long countBelowMember(byte[] member, boolean orEqual) {
        long lo = 0;
        long hi = size();
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            byte[] k = byScore.at(mid).key();
            int c = Arrays.compareUnsigned(k, 8, k.length, member, 0, member.length);
            if (c < 0 || orEqual && c == 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The member at rank {@code i} (ascending). */
    ZSetOps.Member at(long i) {
        return member(byScore.at(i));
    }

    /** The members from rank {@code from}, ascending or descending. */
    Iterator<ZSetOps.Member> iterator(long from, boolean descending) {
        Iterator<Entry> it = byScore.view(from, descending);
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public ZSetOps.Member next() {
                return member(it.next());
            }
        };
    }

    /** The by-member entries from the first whose hash is at least {@code cursor} (unsigned). */
    Iterator<Entry> byHash(long cursor) {
        return byMember.view(byMember.rank(longBytes(cursor)), false);
    }

    static ZSetOps.Member member(Entry e) {
        byte[] k = e.key();
        return new ZSetOps.Member(Arrays.copyOfRange(k, 8, k.length), scoreOf(getLong(k, 0)));
    }

    static ZSetOps.Member memberOfMemberEntry(Entry e) {
        byte[] k = e.key();
        return new ZSetOps.Member(Arrays.copyOfRange(k, 8, k.length), Double.longBitsToDouble(getLong(e.value(), 0)));
    }

    static double normalise(double score) {
        return score == 0 ? 0.0 : score;
    }

    // ------------------------------------------------------------------ persisted encodings

    /**
     * The order-preserving 64-bit image of a score: unsigned comparison of the images is the
     * numeric order of the doubles (-inf lowest, +inf highest), -0.0 mapped as 0.0.
     */
    static long orderedScore(double score) {
        long bits = Double.doubleToRawLongBits(normalise(score));
        return bits < 0 ? ~bits : bits ^ Long.MIN_VALUE;
    }

    static double scoreOf(long ordered) {
        long bits = ordered < 0 ? ordered ^ Long.MIN_VALUE : ~ordered;
        return Double.longBitsToDouble(bits);
    }

    /**
     * The member's 64-bit hash: FNV-1a over the bytes, then MurmurHash3's 64-bit finaliser to
     * spread it; never 0 (a ZSCAN cursor of 0 means "start" and "done").
     */
    static long hash64(byte[] member) {
        long h = 0xcbf29ce484222325L;
        for (byte b : member) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h == 0 ? 1 : h;
    }

    static byte[] memberKey(byte[] member) {
        byte[] k = new byte[8 + member.length];
        putLong(k, 0, hash64(member));
        System.arraycopy(member, 0, k, 8, member.length);
        return k;
    }

    static byte[] scoreKey(double score, byte[] member) {
        byte[] k = new byte[8 + member.length];
        putLong(k, 0, orderedScore(score));
        System.arraycopy(member, 0, k, 8, member.length);
        return k;
    }

    static byte[] longBytes(long v) {
        byte[] b = new byte[8];
        putLong(b, 0, v);
        return b;
    }

    static void putLong(byte[] b, int off, long v) {
        for (int i = 7; i >= 0; i--) {
            b[off + i] = (byte) v;
            v >>>= 8;
        }
    }

    static long getLong(byte[] b, int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[off + i] & 0xff);
        }
        return v;
    }

    private static void putInt(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 24);
        b[off + 1] = (byte) (v >>> 16);
        b[off + 2] = (byte) (v >>> 8);
        b[off + 3] = (byte) v;
    }

    private static int getInt(byte[] b, int off) {
        return (b[off] & 0xff) << 24 | (b[off + 1] & 0xff) << 16 | (b[off + 2] & 0xff) << 8 | b[off + 3] & 0xff;
    }
}
