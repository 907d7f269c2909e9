package dev.cajon.storage;

import dev.cajon.storage.ZSetOps.Aggregate;
import dev.cajon.storage.ZSetOps.Member;
import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.collection.Collection;
import dev.cajon.storage.collection.CollectionAccess;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The set algebra of sorted sets: ZUNION, ZINTER, ZDIFF (and their STORE forms) and ZINTERCARD,
 * over inputs that are sorted sets or plain sets (every member scoring 1, as Redis's
 * zsetConvert sees a set). {@link ZSetOps} opens the keys under their locks and calls these on
 * what it read; nothing here touches storage. Results come in score order (then member order),
 * as Redis replies them. Costs: a union is O(total members) plus the sort of the result; an
 * intersection walks the smallest input and looks each member up in the others (O(n log m) on
 * a sorted set's tree); a difference walks the first input.
 */
final class ZSetAlgebra {
    private ZSetAlgebra() {
    }

    private static final Comparator<Member> ORDER = (a, b) -> {
        int c = Double.compare(ZSetTrees.normalise(a.score()), ZSetTrees.normalise(b.score()));
        return c != 0 ? c : Arrays.compareUnsigned(a.member(), b.member());
    };

    private static final class Key {
        final byte[] b;
        final int h;

        Key(byte[] b) {
            this.b = b;
            this.h = Arrays.hashCode(b);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(b, k.b);
        }

        @Override
        public int hashCode() {
            return h;
        }
    }

    /** Redis's zunionInterAggregate: SUM turns inf + -inf into 0; MIN and MAX keep the target against NaN. */
    private static double aggregate(double target, double val, Aggregate agg) {
        switch (agg) {
            case SUM -> {
                double s = target + val;
                return Double.isNaN(s) ? 0.0 : s;
            }
            case MIN -> {
                return val < target ? val : target;
            }
            default -> {
                return val > target ? val : target;
            }
        }
    }

    private static double weighted(double score, double weight) {
        double s = weight * score;
        return Double.isNaN(s) ? 0.0 : s;
    }

    private static List<Member> sorted(Map<Key, Double> acc) {
        List<Member> out = new ArrayList<>(acc.size());
        acc.forEach((k, v) -> out.add(new Member(k.b, ZSetTrees.normalise(v))));
        out.sort(ORDER);
        return out;
    }

    static List<Member> union(Input[] in, double[] weights, Aggregate agg) {
        Map<Key, Double> acc = new HashMap<>();
        Integer[] order = new Integer[in.length];
        for (int i = 0; i < in.length; i++) {
            order[i] = i;
        }
        // largest first, as Redis 7.0 (it matters only to the rounding of SUM)
        Arrays.sort(order, Comparator.comparingLong(i -> in[i] == null ? 0 : -in[i].size()));
        for (int i : order) {
            if (in[i] == null) {
                continue;
            }
            Iterator<Member> it = in[i].iterator();
            while (it.hasNext()) {
                Member m = it.next();
                double s = weighted(m.score(), weights[i]);
                acc.merge(new Key(m.member()), s, (old, v) -> aggregate(old, v, agg));
            }
        }
        return sorted(acc);
    }

    static List<Member> inter(Input[] in, double[] weights, Aggregate agg, long limit) {
        Integer[] order = new Integer[in.length];
        for (int i = 0; i < in.length; i++) {
            if (in[i] == null || in[i].size() == 0) {
                return List.of();
            }
            order[i] = i;
        }
        // smallest first, as Redis (the order of the weights' application stays by key)
        Arrays.sort(order, Comparator.comparingLong(i -> in[i].size()));
        int first = order[0];
        Map<Key, Double> acc = new HashMap<>();
        Iterator<Member> it = in[first].iterator();
        while (it.hasNext()) {
            Member m = it.next();
            double score = weighted(m.score(), weights[first]);
            boolean everywhere = true;
            for (int j = 1; j < order.length; j++) {
                int k = order[j];
                Double other = in[k].score(m.member());
                if (other == null) {
                    everywhere = false;
                    break;
                }
                score = aggregate(score, other * weights[k], agg);
            }
            if (everywhere) {
                acc.put(new Key(m.member()), score);
                if (limit > 0 && acc.size() >= limit) {
                    break;
                }
            }
        }
        return sorted(acc);
    }

    static List<Member> diff(Input[] in) {
        if (in[0] == null) {
            return List.of();
        }
        List<Member> out = new ArrayList<>();
        Iterator<Member> it = in[0].iterator();
        while (it.hasNext()) {
            Member m = it.next();
            boolean elsewhere = false;
            for (int j = 1; j < in.length && !elsewhere; j++) {
                elsewhere = in[j] != null && in[j].score(m.member()) != null;
            }
            if (!elsewhere) {
                out.add(m);
            }
        }
        if (!in[0].ordered()) {
            out.sort(ORDER); // a plain set: its members come in hash order
        }
        return out; // in score order
    }

    /**
     * An input of ZUNION, ZINTER, ZDIFF and ZINTERCARD: a sorted set, or a plain set whose
     * members all score 1, as Redis takes it ({@code zsetConvert}'s view of a set).
     */
    interface Input {
        long size();

        /** Every member; in score order when {@link #ordered}. */
        Iterator<Member> iterator();

        /** The member's score, or null when it is not in the input. */
        Double score(byte[] member);

        boolean ordered();
    }

    /** The inputs among {@code cs[0..n)}: null for an absent key; WRONGTYPE for a key of another type. */
    static Input[] inputs(Collection[] cs, int n) {
        Input[] in = new Input[n];
        for (int i = 0; i < n; i++) {
            if (!cs[i].exists()) {
                continue;
            }
            if (cs[i].type() == ValueHeader.TYPE_ZSET) {
                ZSetTrees z = ZSetTrees.open(cs[i].state(), cs[i].pages());
                in[i] = new Input() {
                    public long size() {
                        return z.size();
                    }

                    public Iterator<Member> iterator() {
                        return z.iterator(0, false);
                    }

                    public Double score(byte[] member) {
                        return z.score(member);
                    }

                    public boolean ordered() {
                        return true;
                    }
                };
            } else if (cs[i].type() == dev.cajon.storage.chronicle.ValueHeader.TYPE_SET) {
                dev.cajon.storage.collection.Entries set = HashedEntries.open(cs[i].state(), cs[i].pages());
                in[i] = new Input() {
                    public long size() {
                        return set.size();
                    }

                    public Iterator<Member> iterator() {
                        Iterator<dev.cajon.storage.collection.Entry> it = set.view(0, false);
                        return new Iterator<>() {
                            public boolean hasNext() {
                                return it.hasNext();
                            }

                            public Member next() {
                                return new Member(HashedEntries.member(it.next().key()), 1.0);
                            }
                        };
                    }

                    public Double score(byte[] member) {
                        return set.get(HashedEntries.key(member)) == null ? null : 1.0;
                    }

                    public boolean ordered() {
                        return false;
                    }
                };
            } else {
                throw CollectionAccess.WrongType.INSTANCE;
            }
        }
        return in;
    }
}
