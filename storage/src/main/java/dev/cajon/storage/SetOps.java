package dev.cajon.storage;

import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.collection.Collection;
import dev.cajon.storage.collection.CollectionAccess;
import dev.cajon.storage.collection.CollectionType;
import dev.cajon.storage.collection.CollectionTypes;
import dev.cajon.storage.collection.Entries;
import dev.cajon.storage.collection.Entry;
import dev.cajon.storage.collection.PageStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The set operations (SADD, SMEMBERS, SINTERSTORE ...), on {@link CollectionAccess} in the layout
 * of {@link HashedEntries}: one entry per member, keyed by the member's 64-bit hash and the
 * member, with an empty value. Every write touches O(log n) of the collection; an emptied set is
 * deleted, as in Redis. The multi-key commands (SMOVE, the STORE forms, SINTER, SUNION, SDIFF,
 * SINTERCARD) see all their keys at one moment through {@link CollectionAccess#writeAll}.
 *
 * <p>Storage never speaks RESP. A key of another type makes a call throw
 * {@link CollectionAccess.WrongType}, which the server answers with WRONGTYPE.
 *
 * <p>OBJECT ENCODING follows Redis 7.0.15: "intset" while every member is an integer (Redis's
 * string2ll) and there are at most set-max-intset-entries ({@link EncodingLimits}, 512 by
 * default), else "hashtable" for good (7.0 has
 * no listpack sets). The one way back is Redis's too: an SPOP with a count that keeps only a few
 * members rebuilds the set from them.
 */
public final class SetOps {
    /** Redis's SPOP_MOVE_STRATEGY_MUL: SPOP rebuilds the set when what stays is this small. */
    private static final int SPOP_MOVE_STRATEGY_MUL = 5;

    private static final byte CODE = ValueHeader.TYPE_SET;
    private static final byte[] EMPTY = new byte[0];

    /** The set type, as the engine sees it. */
    public static final CollectionType TYPE = new HashedEntries.Type(CODE, "set", "intset");

    static {
        CollectionTypes.register(TYPE);
    }

    /** The three set algebra operations. */
    public enum Algebra { INTER, UNION, DIFF }

    private final CollectionAccess access;

    SetOps(CollectionAccess access) {
        this.access = access;
    }

    // ------------------------------------------------------------------ plumbing

    private static boolean isInt(byte[] member) {
        return Numbers.isLong(member, 0, member.length);
    }

    /** An open set inside a write body. */
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

        boolean add(byte[] member) {
            if (!isInt(member)) {
                flags |= HashedEntries.BIG;
            }
            return e.put(HashedEntries.key(member), EMPTY) == null;
        }

        void save() {
            if (e.size() == 0) {
                if (c.exists()) {
                    e.clear();
                    c.state(null);
                }
                return;
            }
            if (e.size() > EncodingLimits.setIntsetEntries()) {
                flags |= HashedEntries.BIG;
            }
            c.state(HashedEntries.state(flags, e));
        }
    }

    private <T> T read(byte[] key, T absent, Function<Entries, T> body) {
        return access.read(key, CODE, c -> c == null ? absent : body.apply(HashedEntries.open(c.state(), c.pages())));
    }

    private static List<byte[]> members(List<Entry> entries) {
        List<byte[]> out = new ArrayList<>(entries.size());
        entries.forEach(en -> out.add(HashedEntries.member(en.key())));
        return out;
    }

    // ------------------------------------------------------------------ single key

    /** SADD: returns how many members were new. */
    public long add(byte[] key, byte[][] members) {
        return access.write(key, CODE, c -> {
            Open o = new Open(c);
            long added = 0;
            for (byte[] m : members) {
                if (o.add(m)) {
                    added++;
                }
            }
            if (added > 0 || o.c.exists()) {
                o.save();
            }
            return added;
        });
    }

    /** SREM: returns how many members existed. Deletes an emptied set. */
    public long remove(byte[] key, byte[][] members) {
        return access.write(key, CODE, c -> {
            if (!c.exists()) {
                return 0L;
            }
            Open o = new Open(c);
            long removed = HashedEntries.removeAll(o.e, members);
            if (removed > 0) {
                o.save();
            }
            return removed;
        });
    }

    /** SMEMBERS: every member; empty when the key is absent. */
    public List<byte[]> members(byte[] key) {
        return read(key, List.of(), e -> {
            List<byte[]> out = new ArrayList<>((int) Math.min(e.size(), Integer.MAX_VALUE - 8));
            e.view(0, false).forEachRemaining(en -> out.add(HashedEntries.member(en.key())));
            return out;
        });
    }

    /** SISMEMBER. */
    public boolean isMember(byte[] key, byte[] member) {
        return read(key, false, e -> e.get(HashedEntries.key(member)) != null);
    }

    /** SMISMEMBER. */
    public boolean[] areMembers(byte[] key, byte[][] members) {
        return read(key, new boolean[members.length], e -> {
            boolean[] out = new boolean[members.length];
            for (int i = 0; i < members.length; i++) {
                out[i] = e.get(HashedEntries.key(members[i])) != null;
            }
            return out;
        });
    }

    /** SCARD. */
    public long cardinality(byte[] key) {
        return read(key, 0L, Entries::size);
    }

    /** SPOP without a count: a random member, removed; null when the key is absent. */
    public byte[] pop(byte[] key) {
        return access.write(key, CODE, c -> {
            if (!c.exists()) {
                return null;
            }
            Open o = new Open(c);
            Entry en = HashedEntries.random(o.e, ThreadLocalRandom.current());
            o.e.remove(en.key());
            o.save();
            return HashedEntries.member(en.key());
        });
    }

    /**
     * SPOP with a count (≥ 0): that many distinct random members, removed (the whole set, deleted,
     * when it has no more). Empty when the key is absent. When few members stay, Redis builds a
     * new set of them, which may take the intset encoding back: so does this.
     */
    public List<byte[]> pop(byte[] key, long count) {
        return access.write(key, CODE, c -> {
            if (!c.exists() || count == 0) {
                return List.<byte[]>of();
            }
            Open o = new Open(c);
            long size = o.e.size();
            List<Entry> picks = HashedEntries.distinct(o.e, count, ThreadLocalRandom.current());
            for (Entry en : picks) {
                o.e.remove(en.key());
            }
            long remaining = size - picks.size();
            if (remaining > 0 && remaining * SPOP_MOVE_STRATEGY_MUL <= count) {
                boolean ints = remaining <= EncodingLimits.setIntsetEntries();
                for (var it = o.e.view(0, false); ints && it.hasNext(); ) {
                    ints = isInt(HashedEntries.member(it.next().key()));
                }
                o.flags = ints ? 0 : HashedEntries.BIG;
            }
            o.save();
            return members(picks);
        });
    }

    /** SRANDMEMBER without a count: a random member, or null when the key is absent. */
    public byte[] randomMember(byte[] key) {
        return read(key, null, e -> HashedEntries.member(HashedEntries.random(e, ThreadLocalRandom.current()).key()));
    }

    /**
     * SRANDMEMBER with a count: {@code count >= 0} distinct members (all when the set has no
     * more); a negative count gives {@code -count} picks that may repeat. Empty when absent.
     */
    public List<byte[]> randomMembers(byte[] key, long count) {
        return read(key, List.of(), e -> members(count >= 0
                ? HashedEntries.distinct(e, count, ThreadLocalRandom.current())
                : HashedEntries.withRepeats(e, -count, ThreadLocalRandom.current())));
    }

    /** One SSCAN call's answer: the next cursor (0 when done) and the members. */
    public record ScanResult(long next, List<byte[]> members) {
    }

    /** SSCAN: see {@link HashedEntries#scan}; an intset answers whole, cursor 0, as Redis does. */
    public ScanResult scan(byte[] key, long cursor, long count, Predicate<byte[]> match) {
        return access.read(key, CODE, c -> {
            if (c == null) {
                return new ScanResult(0, List.of());
            }
            boolean compact = (HashedEntries.flags(c.state()) & HashedEntries.BIG) == 0;
            HashedEntries.Page p = HashedEntries.scan(HashedEntries.open(c.state(), c.pages()), cursor, count,
                    compact, match);
            return new ScanResult(p.next(), members(p.entries()));
        });
    }

    /** OBJECT ENCODING's answer for the set at {@code key}, or null when absent. */
    public String encoding(byte[] key) {
        return access.read(key, CODE, c -> c == null ? null : TYPE.encoding(c.state()));
    }

    // ------------------------------------------------------------------ several keys

    /** SMOVE's outcome. */
    public enum MoveResult { MOVED, NOT_MOVED, WRONG_TYPE }

    /**
     * SMOVE: moves {@code member} from {@code src} to {@code dst}. As in Redis, an absent source
     * answers NOT_MOVED before the destination's type is looked at; a destination of another type
     * is WRONG_TYPE; the same key twice only says whether the member is there.
     */
    public MoveResult move(byte[] src, byte[] dst, byte[] member) {
        return access.writeAll(new byte[][] {src, dst}, new byte[] {CODE, 0}, cs -> {
            Collection s = cs[0];
            Collection d = cs[1];
            if (!s.exists()) {
                return MoveResult.NOT_MOVED;
            }
            if (d.exists() && d.type() != CODE) {
                return MoveResult.WRONG_TYPE;
            }
            Open from = new Open(s);
            byte[] k = HashedEntries.key(member);
            if (Arrays.equals(src, dst)) {
                return from.e.get(k) != null ? MoveResult.MOVED : MoveResult.NOT_MOVED;
            }
            if (from.e.remove(k) == null) {
                return MoveResult.NOT_MOVED;
            }
            from.save();
            if (!d.exists()) {
                d.replace(CODE, emptyState());
            }
            Open to = new Open(d);
            to.add(member);
            to.save();
            return MoveResult.MOVED;
        });
    }

    /** SINTER, SUNION, SDIFF: the members of the result. */
    public List<byte[]> algebra(Algebra op, byte[][] keys) {
        byte[] types = new byte[keys.length];
        Arrays.fill(types, CODE);
        return access.writeAll(keys, types, cs -> {
            List<byte[]> out = new ArrayList<>();
            compute(op, cs, 0, Long.MAX_VALUE).forEach(k -> out.add(HashedEntries.member(k)));
            return out;
        });
    }

    /**
     * SINTERSTORE, SUNIONSTORE, SDIFFSTORE: stores the result at {@code dst} (whatever it held,
     * TTL dropped; an empty result deletes it) and returns its size.
     */
    public long store(Algebra op, byte[] dst, byte[][] keys) {
        byte[][] all = new byte[keys.length + 1][];
        byte[] types = new byte[keys.length + 1];
        all[0] = dst;
        System.arraycopy(keys, 0, all, 1, keys.length);
        Arrays.fill(types, 1, types.length, CODE);
        return access.writeAll(all, types, cs -> {
            List<byte[]> result = compute(op, cs, 1, Long.MAX_VALUE);
            Collection d = cs[0];
            if (result.isEmpty()) {
                if (d.exists()) {
                    d.replace(CODE, null);
                }
                return 0L;
            }
            d.replace(CODE, emptyState());
            Open o = new Open(d);
            for (byte[] k : result) {
                if (!isInt(HashedEntries.member(k))) {
                    o.flags |= HashedEntries.BIG;
                }
                o.e.put(k, EMPTY);
            }
            o.save();
            return (long) result.size();
        });
    }

    /** SINTERCARD: the size of the intersection, counting stops at {@code limit} (0: no limit). */
    public long interCard(byte[][] keys, long limit) {
        byte[] types = new byte[keys.length];
        Arrays.fill(types, CODE);
        return access.writeAll(keys, types, cs ->
                (long) compute(Algebra.INTER, cs, 0, limit == 0 ? Long.MAX_VALUE : limit).size());
    }

    /** An empty set's state, for {@link Collection#replace} before the entries are written. */
    private static byte[] emptyState() {
        return HashedEntries.state(0, HashedEntries.open(null, NO_PAGES));
    }

    private static final PageStore NO_PAGES = new PageStore() {
        @Override
        public byte[] read(long page) {
            throw new IllegalStateException("an empty set has no pages");
        }

        @Override
        public long add(byte[] bytes) {
            throw new IllegalStateException("an empty set has no pages");
        }

        @Override
        public void write(long page, byte[] bytes) {
            throw new IllegalStateException("an empty set has no pages");
        }

        @Override
        public void free(long page) {
            throw new IllegalStateException("an empty set has no pages");
        }
    };

    /**
     * The entry keys of {@code op} over the collections {@code cs[from..]} (absent ones are empty
     * sets), at most {@code limit} of them. Intersection walks the smallest set and looks each
     * member up in the others, O(smallest · k · log n); union and difference walk every input.
     */
    private static List<byte[]> compute(Algebra op, Collection[] cs, int from, long limit) {
        int n = cs.length - from;
        Entries[] sets = new Entries[n];
        for (int i = 0; i < n; i++) {
            Collection c = cs[from + i];
            sets[i] = c.exists() ? HashedEntries.open(c.state(), c.pages()) : null;
        }
        List<byte[]> out = new ArrayList<>();
        switch (op) {
            case INTER -> {
                for (Entries s : sets) {
                    if (s == null) {
                        return out;
                    }
                }
                Entries[] bySize = sets.clone();
                Arrays.sort(bySize, Comparator.comparingLong(Entries::size));
                for (var it = bySize[0].view(0, false); it.hasNext() && out.size() < limit; ) {
                    byte[] k = it.next().key();
                    boolean all = true;
                    for (int i = 1; i < bySize.length && all; i++) {
                        all = bySize[i].get(k) != null;
                    }
                    if (all) {
                        out.add(k);
                    }
                }
            }
            case UNION -> {
                TreeSet<byte[]> seen = new TreeSet<>(Arrays::compareUnsigned);
                for (Entries s : sets) {
                    if (s != null) {
                        s.view(0, false).forEachRemaining(en -> seen.add(en.key()));
                    }
                }
                out.addAll(seen);
            }
            case DIFF -> {
                if (sets[0] == null) {
                    return out;
                }
                for (var it = sets[0].view(0, false); it.hasNext(); ) {
                    byte[] k = it.next().key();
                    boolean keep = true;
                    for (int i = 1; i < n && keep; i++) {
                        keep = sets[i] == null || sets[i].get(k) == null;
                    }
                    if (keep) {
                        out.add(k);
                    }
                }
            }
            default -> throw new IllegalStateException();
        }
        return out;
    }
}
