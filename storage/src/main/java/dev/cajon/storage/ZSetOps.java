package dev.cajon.storage;

import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.collection.Collection;
import dev.cajon.storage.collection.CollectionAccess;
import dev.cajon.storage.collection.CollectionType;
import dev.cajon.storage.collection.CollectionTypes;
import dev.cajon.storage.collection.Entry;
import dev.cajon.storage.collection.PageStore;
import dev.cajon.storage.collection.Trees;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * The sorted-set operations (ZADD, ZRANGE, ZUNIONSTORE ...), written on {@link CollectionAccess}
 * and the two-tree layout of {@link ZSetTrees}. Storage never speaks RESP: results are plain
 * values and the server formats them. A key of another type makes a call throw
 * {@link CollectionAccess.WrongType}; a set that becomes empty is deleted, as in Redis.
 *
 * <p>The set algebra (ZUNION, ZINTER, ZDIFF, ZINTERCARD) is {@link ZSetAlgebra}'s, on the keys this
 * class opens. Costs: ZADD, ZREM, ZSCORE, ZRANK, ZINCRBY are O(log n) per member; every range (by rank,
 * score or lex) is O(log n + m); ZCOUNT and ZLEXCOUNT are O(log n).
 */
public final class ZSetOps {
    private static final byte TYPE_ZSET = ValueHeader.TYPE_ZSET;

    /** The engine's view of the type: TYPE "zset", OBJECT ENCODING "listpack" or "skiplist". */
    public static final CollectionType TYPE = new CollectionType() {
        @Override
        public byte code() {
            return TYPE_ZSET;
        }

        @Override
        public String name() {
            return "zset";
        }

        @Override
        public String encoding(byte[] state) {
            return (state[1] & ZSetTrees.FLAG_SKIPLIST) != 0 ? "skiplist" : "listpack";
        }

        @Override
        public void release(byte[] state, PageStore pages) {
            byte[][] parts = ZSetTrees.split(state);
            Trees.open(parts[0], pages, false).clear();
            Trees.open(parts[1], pages, false).clear();
        }

        @Override
        public byte[] copy(byte[] state, PageStore from, PageStore to) {
            byte[][] parts = ZSetTrees.split(state);
            return ZSetTrees.join(state[1], Trees.copy(parts[0], from, to, false), Trees.copy(parts[1], from, to, false));
        }
    };

    static {
        CollectionTypes.register(TYPE);
    }

    private final CollectionAccess access;

    ZSetOps(CollectionAccess access) {
        this.access = access;
    }

    /** For tests: the operations on any access (the model test runs them on a heap one). */
    public static ZSetOps on(CollectionAccess access) {
        return new ZSetOps(access);
    }

    // ------------------------------------------------------------------ value types

    /** A member and its score. */
    public record Member(byte[] member, double score) {
        @Override
        public String toString() {
            return new String(member, java.nio.charset.StandardCharsets.ISO_8859_1) + "=" + score;
        }
    }

    /** A score interval, each end inclusive or exclusive ({@code (1.5}). */
    public record ScoreRange(double min, boolean minExclusive, double max, boolean maxExclusive) {
        public boolean empty() {
            return min > max || min == max && (minExclusive || maxExclusive);
        }
    }

    /** One end of a lex range: {@code -}, {@code +}, {@code [member} or {@code (member}. */
    public record LexBound(Kind kind, byte[] member) {
        public enum Kind { MINUS, PLUS, INCLUSIVE, EXCLUSIVE }

        public static final LexBound MINUS = new LexBound(Kind.MINUS, null);
        public static final LexBound PLUS = new LexBound(Kind.PLUS, null);
    }

    /** A lex interval. */
    public record LexRange(LexBound min, LexBound max) {
    }

    /** ZADD's options. */
    public record AddOptions(boolean nx, boolean xx, boolean gt, boolean lt, boolean incr) {
        public static final AddOptions NONE = new AddOptions(false, false, false, false, false);
        public static final AddOptions INCR = new AddOptions(false, false, false, false, true);
    }

    /**
     * ZADD's outcome: how many members were added, updated (score changed) and processed (not a
     * no-op); with INCR, the new score, or {@code nan} when an increment produced NaN (then
     * nothing was written).
     */
    public record AddResult(long added, long updated, long processed, double score, boolean nan) {
    }

    /** A pop: the key popped from and the members, lowest (or highest) first; null key when nothing. */
    public record PopResult(byte[] key, List<Member> members) {
    }

    /** ZSCAN's answer: the next cursor (0 when done) and the members visited. */
    public record ScanResult(long cursor, List<Member> members) {
    }

    public enum SetOp { UNION, INTER, DIFF }

    public enum Aggregate { SUM, MIN, MAX }

    // ------------------------------------------------------------------ plumbing

    private <T> T read(byte[] key, Function<ZSetTrees, T> body, T absent) {
        return access.read(key, TYPE_ZSET, c -> c == null ? absent : body.apply(ZSetTrees.open(c.state(), c.pages())));
    }

    /** Stores {@code z} back, or deletes the key when it became empty. */
    private static void store(Collection c, ZSetTrees z) {
        if (z.size() == 0) {
            z.clear();
            if (c.exists()) {
                c.state(null);
            }
            return;
        }
        c.state(z.state());
    }

    // ------------------------------------------------------------------ single-key writes

    /**
     * ZADD (and ZINCRBY, with {@code incr}): the pairs in order, as Redis's zsetAdd. With XX a
     * missing key stays missing. {@code maxPairsHint}: the number of pairs, which with the longest
     * member decides whether a new set starts as "skiplist" (Redis's zsetTypeCreate).
     */
    public AddResult add(byte[] key, AddOptions o, double[] scores, byte[][] members) {
        return access.write(key, TYPE_ZSET, c -> {
            if (!c.exists() && o.xx()) {
                return new AddResult(0, 0, 0, 0, false);
            }
            ZSetTrees z = ZSetTrees.open(c.state(), c.pages());
            if (!c.exists()) {
                int longest = 0;
                for (byte[] m : members) {
                    longest = Math.max(longest, m.length);
                }
                z.noteSize(members.length, longest);
            }
            long added = 0;
            long updated = 0;
            long processed = 0;
            double last = 0;
            for (int i = 0; i < members.length; i++) {
                double score = scores[i];
                Double cur = z.score(members[i]);
                if (cur != null) {
                    if (o.nx()) {
                        continue;
                    }
                    if (o.incr()) {
                        score += cur;
                        if (Double.isNaN(score)) {
                            // INCR takes a single pair, so nothing was applied before it
                            return new AddResult(added, updated, processed, Double.NaN, true);
                        }
                    }
                    if (o.lt() && score >= cur || o.gt() && score <= cur) {
                        continue;
                    }
                    last = score;
                    processed++;
                    if (score != cur) {
                        z.put(members[i], score);
                        updated++;
                    }
                } else if (!o.xx()) {
                    z.put(members[i], score);
                    last = score;
                    added++;
                    processed++;
                }
            }
            if (added > 0 || updated > 0 || !c.exists()) {
                store(c, z);
            }
            return new AddResult(added, updated, processed, last, false); // the reply keeps -0, as Redis's does
        });
    }

    /** ZREM: how many of {@code members} were removed. */
    public long remove(byte[] key, byte[][] members) {
        return access.write(key, TYPE_ZSET, c -> {
            if (!c.exists()) {
                return 0L;
            }
            ZSetTrees z = ZSetTrees.open(c.state(), c.pages());
            long n = 0;
            for (byte[] m : members) {
                if (z.remove(m)) {
                    n++;
                }
            }
            if (n > 0) {
                store(c, z);
            }
            return n;
        });
    }

    /** ZREMRANGEBYRANK with Redis's clamping of start and end (negative from the end). */
    public long removeByRank(byte[] key, long start, long end) {
        return access.write(key, TYPE_ZSET, c -> {
            if (!c.exists()) {
                return 0L;
            }
            ZSetTrees z = ZSetTrees.open(c.state(), c.pages());
            long[] r = clampRanks(z.size(), start, end);
            return r == null ? 0L : removeRanks(c, z, r[0], r[1] + 1);
        });
    }

    public long removeByScore(byte[] key, ScoreRange range) {
        return access.write(key, TYPE_ZSET, c -> {
            if (!c.exists()) {
                return 0L;
            }
            ZSetTrees z = ZSetTrees.open(c.state(), c.pages());
            long[] r = scoreRanks(z, range);
            return removeRanks(c, z, r[0], r[1]);
        });
    }

    public long removeByLex(byte[] key, LexRange range) {
        return access.write(key, TYPE_ZSET, c -> {
            if (!c.exists()) {
                return 0L;
            }
            ZSetTrees z = ZSetTrees.open(c.state(), c.pages());
            long[] r = lexRanks(z, range);
            return removeRanks(c, z, r[0], r[1]);
        });
    }

    /** Removes ranks [from, to) and stores the set back. */
    private static long removeRanks(Collection c, ZSetTrees z, long from, long to) {
        if (to <= from) {
            return 0L;
        }
        List<Member> doomed = collect(z, from, to, false, 0, -1);
        for (Member m : doomed) {
            z.remove(m.member());
        }
        store(c, z);
        return (long) doomed.size();
    }

    /**
     * ZPOPMIN / ZPOPMAX / ZMPOP: the first of {@code keys} that holds a sorted set (missing keys
     * are skipped; a key of another type before it is WRONGTYPE) gives up to {@code count}
     * members. {@code count} 0 checks the key without popping.
     */
    public PopResult pop(byte[][] keys, boolean max, long count) {
        byte[] types = new byte[keys.length]; // 0: any type, checked in order below as Redis does
        return access.writeAll(keys, types, cs -> {
            for (int i = 0; i < keys.length; i++) {
                Collection c = cs[i];
                if (!c.exists()) {
                    continue;
                }
                if (c.type() != TYPE_ZSET) {
                    throw CollectionAccess.WrongType.INSTANCE;
                }
                ZSetTrees z = ZSetTrees.open(c.state(), c.pages());
                long n = Math.min(count, z.size());
                List<Member> out = new ArrayList<>((int) Math.min(n, 1024));
                if (n > 0) {
                    Iterator<Member> it = z.iterator(max ? z.size() - 1 : 0, max);
                    for (long j = 0; j < n; j++) {
                        out.add(it.next());
                    }
                    for (Member m : out) {
                        z.remove(m.member());
                    }
                    store(c, z);
                }
                return new PopResult(keys[i], out);
            }
            return new PopResult(null, List.of());
        });
    }

    // ------------------------------------------------------------------ single-key reads

    public Double score(byte[] key, byte[] member) {
        return read(key, z -> z.score(member), null);
    }

    /** ZMSCORE: one score or null per member. */
    public Double[] scores(byte[] key, byte[][] members) {
        return read(key, z -> {
            Double[] out = new Double[members.length];
            for (int i = 0; i < members.length; i++) {
                out[i] = z.score(members[i]);
            }
            return out;
        }, new Double[members.length]);
    }

    public long card(byte[] key) {
        return read(key, ZSetTrees::size, 0L);
    }

    public long count(byte[] key, ScoreRange range) {
        return read(key, z -> {
            long[] r = scoreRanks(z, range);
            return Math.max(0, r[1] - r[0]);
        }, 0L);
    }

    public long lexCount(byte[] key, LexRange range) {
        return read(key, z -> {
            long[] r = lexRanks(z, range);
            return Math.max(0, r[1] - r[0]);
        }, 0L);
    }

    /** ZRANK / ZREVRANK: the member's rank, or null when the key or the member is missing. */
    public Long rank(byte[] key, byte[] member, boolean reverse) {
        return read(key, z -> {
            Double s = z.score(member);
            if (s == null) {
                return null;
            }
            long r = z.rank(member, s);
            return reverse ? z.size() - 1 - r : r;
        }, null);
    }

    /** ZRANGE by rank (start and end as Redis clamps them; with {@code reverse}, ranks from the top). */
    public List<Member> rangeByRank(byte[] key, long start, long end, boolean reverse) {
        return read(key, z -> byRank(z, start, end, reverse), List.of());
    }

    /** ZRANGE BYSCORE (ZRANGEBYSCORE, ZREVRANGEBYSCORE): {@code limit} < 0 means all. */
    public List<Member> rangeByScore(byte[] key, ScoreRange range, boolean reverse, long offset, long limit) {
        return read(key, z -> byScore(z, range, reverse, offset, limit), List.of());
    }

    /** ZRANGE BYLEX (ZRANGEBYLEX, ZREVRANGEBYLEX). */
    public List<Member> rangeByLex(byte[] key, LexRange range, boolean reverse, long offset, long limit) {
        return read(key, z -> byLex(z, range, reverse, offset, limit), List.of());
    }

    /** The kinds of range ZRANGESTORE copies. */
    public sealed interface Range permits RankRange, ScoreSpan, LexSpan {
    }

    public record RankRange(long start, long end) implements Range {
    }

    public record ScoreSpan(ScoreRange range, long offset, long limit) implements Range {
    }

    public record LexSpan(LexRange range, long offset, long limit) implements Range {
    }

    /** ZRANGESTORE: {@code dst} gets the range of {@code src} (any type it held is replaced); its size. */
    public long rangeStore(byte[] dst, byte[] src, Range range, boolean reverse) {
        return access.writeAll(new byte[][] {dst, src}, new byte[] {0, TYPE_ZSET}, cs -> {
            List<Member> got = List.of();
            if (cs[1].exists()) {
                ZSetTrees z = ZSetTrees.open(cs[1].state(), cs[1].pages());
                if (range instanceof RankRange r) {
                    got = byRank(z, r.start(), r.end(), reverse);
                } else if (range instanceof ScoreSpan s) {
                    got = byScore(z, s.range(), reverse, s.offset(), s.limit());
                } else {
                    LexSpan l = (LexSpan) range;
                    got = byLex(z, l.range(), reverse, l.offset(), l.limit());
                }
            }
            return storeResult(cs[0], got);
        });
    }

    /** Replaces {@code c} with a sorted set of {@code members} (deleting it when there are none). */
    private static long storeResult(Collection c, List<Member> members) {
        if (members.isEmpty()) {
            if (c.exists()) {
                c.replace(TYPE_ZSET, null); // the engine frees whatever it held
            }
            return 0;
        }
        c.replace(TYPE_ZSET, null); // frees the old value; pages() is now the new collection's
        ZSetTrees z = ZSetTrees.open(null, c.pages());
        int longest = 0;
        for (Member m : members) {
            z.put(m.member(), m.score());
            longest = Math.max(longest, m.member().length);
        }
        // a STORE result is "listpack" when it fits one (Redis's zsetConvertToListpackIfNeeded)
        z.flags = members.size() > EncodingLimits.zsetEntries() || longest > EncodingLimits.zsetValue()
                ? ZSetTrees.FLAG_SKIPLIST : 0;
        c.state(z.state());
        return members.size();
    }

    /**
     * ZRANDMEMBER with a count: negative allows repeats (exactly -count picks); a count at least
     * the size answers the whole set, highest score first; otherwise count distinct members in random order.
     */
    public List<Member> randomMembers(byte[] key, long count) {
        return read(key, z -> {
            long size = z.size();
            List<Member> out = new ArrayList<>();
            if (size == 0 || count == 0) {
                return out;
            }
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            if (count < 0) {
                for (long i = 0; i < -count; i++) {
                    out.add(z.at(rnd.nextLong(size)));
                }
                return out;
            }
            if (count >= size) {
                // the whole set, highest first: Redis's zuiNext walks a sorted set from its tail
                Iterator<Member> it = z.iterator(size - 1, true);
                while (it.hasNext()) {
                    out.add(it.next());
                }
                return out;
            }
            Set<Long> picked = new HashSet<>();
            while (picked.size() < count) {
                long i = rnd.nextLong(size);
                if (picked.add(i)) {
                    out.add(z.at(i));
                }
            }
            return out;
        }, List.of());
    }

    /** ZRANDMEMBER without a count: one random member, or null. */
    public byte[] randomMember(byte[] key) {
        List<Member> one = randomMembers(key, 1);
        return one.isEmpty() ? null : one.get(0).member();
    }

    /**
     * ZSCAN: a set that is still "listpack" comes whole with cursor 0 (as Redis answers a listpack);
     * a larger one in hash order, about {@code count} members a call, never splitting a hash.
     */
    public ScanResult scan(byte[] key, long cursor, long count) {
        return read(key, z -> {
            List<Member> out = new ArrayList<>();
            if (!z.skiplist()) {
                Iterator<Member> it = z.iterator(0, false); // a listpack answers in its (score) order
                while (it.hasNext()) {
                    out.add(it.next());
                }
                return new ScanResult(0, out);
            }
            Iterator<Entry> it = z.byHash(cursor);
            long lastHash = 0;
            while (it.hasNext()) {
                Entry e = it.next();
                long h = ZSetTrees.getLong(e.key(), 0);
                if (out.size() >= count && h != lastHash) {
                    return new ScanResult(h, out);
                }
                out.add(ZSetTrees.memberOfMemberEntry(e));
                lastHash = h;
            }
            return new ScanResult(0, out);
        }, new ScanResult(0, List.of()));
    }

    // ------------------------------------------------------------------ several keys

    /** Throws WRONGTYPE if any of {@code keys} holds something other than a sorted set or a set (checked first, as Redis). */
    public void checkInputs(byte[][] keys) {
        access.writeAll(keys, new byte[keys.length], cs -> {
            ZSetAlgebra.inputs(cs, cs.length);
            return null;
        });
    }

    /**
     * ZUNION / ZINTER / ZDIFF and their STORE forms: the result in score order. With {@code dst},
     * the result replaces it (deleted when empty). Inputs of another type are WRONGTYPE.
     * Plain sets are inputs too, every member scoring 1, as in Redis.
     */
    public List<Member> combine(SetOp op, byte[][] keys, double[] weights, Aggregate agg, byte[] dst) {
        byte[][] all = keys;
        if (dst != null) {
            all = Arrays.copyOf(keys, keys.length + 1);
            all[keys.length] = dst;
        }
        byte[][] allKeys = all;
        return access.writeAll(allKeys, new byte[allKeys.length], cs -> {
            ZSetAlgebra.Input[] in = ZSetAlgebra.inputs(cs, keys.length);
            List<Member> result = switch (op) {
                case UNION -> ZSetAlgebra.union(in, weights, agg);
                case INTER -> ZSetAlgebra.inter(in, weights, agg, 0);
                case DIFF -> ZSetAlgebra.diff(in);
            };
            if (dst != null) {
                storeResult(cs[keys.length], result);
            }
            return result;
        });
    }

    /** ZINTERCARD: the size of the intersection, stopping at {@code limit} (0: no limit). */
    public long interCard(byte[][] keys, long limit) {
        return access.writeAll(keys, new byte[keys.length], cs -> {
            ZSetAlgebra.Input[] in = ZSetAlgebra.inputs(cs, keys.length);
            double[] w = new double[keys.length];
            Arrays.fill(w, 1);
            return (long) ZSetAlgebra.inter(in, w, Aggregate.SUM, limit).size();
        });
    }

    // ------------------------------------------------------------------ ranges

    /** Redis's rank clamping: [start, end] inclusive after it, or null for an empty range. */
    static long[] clampRanks(long size, long start, long end) {
        if (start < 0) {
            start = size + start;
        }
        if (end < 0) {
            end = size + end;
        }
        if (start < 0) {
            start = 0;
        }
        if (start > end || start >= size) {
            return null;
        }
        if (end >= size) {
            end = size - 1;
        }
        return new long[] {start, end};
    }

    private static List<Member> byRank(ZSetTrees z, long start, long end, boolean reverse) {
        long[] r = clampRanks(z.size(), start, end);
        if (r == null) {
            return List.of();
        }
        long n = r[1] - r[0] + 1;
        long from = reverse ? z.size() - 1 - r[0] : r[0];
        List<Member> out = new ArrayList<>((int) Math.min(n, 1 << 16));
        Iterator<Member> it = z.iterator(from, reverse);
        for (long i = 0; i < n; i++) {
            out.add(it.next());
        }
        return out;
    }

    /** The ranks [from, to) of a score range. */
    private static long[] scoreRanks(ZSetTrees z, ScoreRange r) {
        if (r.empty()) {
            return new long[] {0, 0};
        }
        long from = z.countBelow(r.min(), r.minExclusive());
        long to = z.countBelow(r.max(), !r.maxExclusive());
        return new long[] {from, Math.max(from, to)};
    }

    private static long lexRank(ZSetTrees z, LexBound b, boolean isMin) {
        return switch (b.kind()) {
            case MINUS -> 0;
            case PLUS -> z.size();
            // a min [a starts at a; (a after it. A max [a ends after a; (a before it.
            case INCLUSIVE -> z.countBelowMember(b.member(), !isMin);
            case EXCLUSIVE -> z.countBelowMember(b.member(), isMin);
        };
    }

    private static long[] lexRanks(ZSetTrees z, LexRange r) {
        long from = lexRank(z, r.min(), true);
        long to = lexRank(z, r.max(), false);
        return new long[] {from, Math.max(from, to)};
    }

    private static List<Member> byScore(ZSetTrees z, ScoreRange range, boolean reverse, long offset, long limit) {
        long[] r = scoreRanks(z, range);
        return collect(z, r[0], r[1], reverse, offset, limit);
    }

    private static List<Member> byLex(ZSetTrees z, LexRange range, boolean reverse, long offset, long limit) {
        long[] r = lexRanks(z, range);
        return collect(z, r[0], r[1], reverse, offset, limit);
    }

    /**
     * Ranks [from, to), ascending or (reverse) descending, after skipping {@code offset}, at most
     * {@code limit} (negative: all). A negative offset gives nothing, as in Redis.
     */
    private static List<Member> collect(ZSetTrees z, long from, long to, boolean reverse, long offset, long limit) {
        long n = to - from;
        if (n <= 0 || offset < 0 || offset >= n || limit == 0) {
            return List.of();
        }
        n -= offset;
        if (limit > 0 && limit < n) {
            n = limit;
        }
        long start = reverse ? to - 1 - offset : from + offset;
        List<Member> out = new ArrayList<>((int) Math.min(n, 1 << 16));
        Iterator<Member> it = z.iterator(start, reverse);
        for (long i = 0; i < n; i++) {
            out.add(it.next());
        }
        return out;
    }
}
