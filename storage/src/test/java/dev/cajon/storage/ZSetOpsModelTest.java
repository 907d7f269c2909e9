package dev.cajon.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cajon.storage.ZSetOps.AddOptions;
import dev.cajon.storage.ZSetOps.LexBound;
import dev.cajon.storage.ZSetOps.LexRange;
import dev.cajon.storage.ZSetOps.Member;
import dev.cajon.storage.ZSetOps.ScoreRange;
import dev.cajon.storage.collection.MemoryCollectionAccess;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * ZSetOps against an in-memory model (a TreeMap of member to score, ordered by score then
 * member bytes as Redis orders them): random sequences of ZADD (with NX/XX/GT/LT/INCR), ZREM,
 * pops, removals by rank, score and lex, ranges of every kind with offsets and limits, ranks,
 * counts and the STORE set operations. The scores include ties, -0 and 0, and the infinities; the
 * members include the empty string, prefixes of each other and bytes above 0x7f.
 */
class ZSetOpsModelTest {
    private static final String[] MEMBERS = {"", "a", "b", "aa", "ab", "b\u0000", "\u00ff", "c", "abc", "zz"};
    private static final double[] SCORES = {0.0, -0.0, 1, 1, 2, -1.5, Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY, 1e308, -1e308, 3, 0.1};
    private static final byte[] K1 = b("k1");
    private static final byte[] K2 = b("k2");
    private static final byte[] K3 = b("k3");

    record Op(int kind, int m, int s, int x, int y, boolean flag, int key) {
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Op> op = Combinators.combine(
                Arbitraries.integers().between(0, 15),
                Arbitraries.integers().between(0, MEMBERS.length - 1),
                Arbitraries.integers().between(0, SCORES.length - 1),
                Arbitraries.integers().between(-12, 12),
                Arbitraries.integers().between(-12, 12),
                Arbitraries.of(true, false),
                Arbitraries.integers().between(0, 2)).as(Op::new);
        return op.list().ofMaxSize(80);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    private static double norm(double d) {
        return d == 0 ? 0.0 : d;
    }

    private static final Comparator<Map.Entry<String, Double>> ORDER = (p, q) -> {
        int c = Double.compare(norm(p.getValue()), norm(q.getValue()));
        return c != 0 ? c : Arrays.compareUnsigned(b(p.getKey()), b(q.getKey()));
    };

    private static List<String> sorted(Map<String, Double> m) {
        List<Map.Entry<String, Double>> es = new ArrayList<>(m.entrySet());
        es.sort(ORDER);
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, Double> e : es) {
            out.add(e.getKey() + "=" + norm(e.getValue()));
        }
        return out;
    }

    private static List<String> shown(List<Member> ms) {
        List<String> out = new ArrayList<>();
        for (Member m : ms) {
            out.add(s(m.member()) + "=" + m.score());
        }
        return out;
    }

    /** Redis's rank clamping, on the model. */
    private static List<String> rankSlice(List<String> all, long start, long end, boolean rev) {
        List<String> src = new ArrayList<>(all);
        if (rev) {
            java.util.Collections.reverse(src);
        }
        long[] r = ZSetOps.clampRanks(src.size(), start, end);
        return r == null ? List.of() : src.subList((int) r[0], (int) r[1] + 1);
    }

    private static List<String> window(List<String> in, boolean rev, long offset, long limit) {
        List<String> src = new ArrayList<>(in);
        if (rev) {
            java.util.Collections.reverse(src);
        }
        if (offset < 0 || offset >= src.size() || limit == 0) {
            return List.of();
        }
        int to = limit < 0 ? src.size() : (int) Math.min(src.size(), offset + limit);
        return src.subList((int) offset, to);
    }

    private static boolean inScore(double v, ScoreRange r) {
        return (r.minExclusive() ? v > r.min() : v >= r.min()) && (r.maxExclusive() ? v < r.max() : v <= r.max());
    }

    private static int cmpLex(String member, LexBound bound) {
        return switch (bound.kind()) {
            case MINUS -> 1;
            case PLUS -> -1;
            default -> Arrays.compareUnsigned(b(member), bound.member());
        };
    }

    private static boolean inLex(String m, LexRange r) {
        int lo = cmpLex(m, r.min());
        int hi = cmpLex(m, r.max());
        boolean geMin = r.min().kind() == LexBound.Kind.PLUS ? false
                : r.min().kind() == LexBound.Kind.EXCLUSIVE ? lo > 0 : lo >= 0;
        boolean leMax = r.max().kind() == LexBound.Kind.MINUS ? false
                : r.max().kind() == LexBound.Kind.EXCLUSIVE ? hi < 0 : hi <= 0;
        return geMin && leMax;
    }

    private static LexBound lexBound(int x, int m) {
        if (x == -12) {
            return LexBound.MINUS;
        }
        if (x == 12) {
            return LexBound.PLUS;
        }
        return new LexBound(x % 2 == 0 ? LexBound.Kind.INCLUSIVE : LexBound.Kind.EXCLUSIVE, b(MEMBERS[m]));
    }

    @Property(tries = 300)
    void behavesAsTheModel(@ForAll("ops") List<Op> ops) {
        ZSetOps z = ZSetOps.on(new MemoryCollectionAccess());
        Map<String, Map<String, Double>> model = new HashMap<>();
        byte[][] keys = {K1, K2, K3};
        for (Op op : ops) {
            byte[] key = keys[op.key()];
            // K3 keeps a single score so that its lex ranges are defined, as Redis requires
            Map<String, Double> m = model.computeIfAbsent(s(key), q -> new TreeMap<>());
            String member = MEMBERS[op.m()];
            double score = op.key() == 2 ? 0 : SCORES[op.s()];
            List<String> all = sorted(m);
            String where = op + " on " + all;
            switch (op.kind()) {
                case 0, 1, 2 -> { // ZADD with options
                    boolean nx = op.x() % 5 == 1;
                    boolean xx = op.x() % 5 == 2;
                    boolean gt = !nx && op.y() % 3 == 1;
                    boolean lt = !nx && !gt && op.y() % 3 == 2;
                    boolean incr = op.flag() && op.key() != 2;
                    ZSetOps.AddResult r = z.add(key, new AddOptions(nx, xx, gt, lt, incr), new double[] {score},
                            new byte[][] {b(member)});
                    Double cur = m.get(member);
                    long added = 0;
                    long updated = 0;
                    boolean nan = false;
                    if (cur != null) {
                        double nw = incr ? cur + score : score;
                        if (!nx) {
                            if (Double.isNaN(nw)) {
                                nan = true;
                            } else if (!(lt && nw >= cur || gt && nw <= cur) && nw != cur) {
                                m.put(member, norm(nw));
                                updated = 1;
                            }
                        }
                    } else if (!xx) {
                        m.put(member, norm(score));
                        added = 1;
                    }
                    assertEquals(nan, r.nan(), where);
                    if (!nan) {
                        assertEquals(added, r.added(), where);
                        assertEquals(updated, r.updated(), where);
                    }
                }
                case 3 -> {
                    long n = z.remove(key, new byte[][] {b(member), b(MEMBERS[(op.m() + 1) % MEMBERS.length])});
                    long want = (m.remove(member) != null ? 1 : 0)
                            + (m.remove(MEMBERS[(op.m() + 1) % MEMBERS.length]) != null ? 1 : 0);
                    if (member.equals(MEMBERS[(op.m() + 1) % MEMBERS.length])) {
                        want = Math.min(want, 1);
                    }
                    assertEquals(want, n, where);
                }
                case 4 -> assertEquals(rankSlice(all, op.x(), op.y(), op.flag()),
                        shown(z.rangeByRank(key, op.x(), op.y(), op.flag())), where);
                case 5, 6 -> {
                    ScoreRange r = new ScoreRange(SCORES[op.s()], op.flag(), SCORES[Math.abs(op.x()) % SCORES.length],
                            op.y() % 2 == 0);
                    List<String> in = new ArrayList<>();
                    for (String e : all) {
                        if (inScore(m.get(e.substring(0, e.lastIndexOf('='))), r)) {
                            in.add(e);
                        }
                    }
                    long offset = Math.abs(op.y()) % 4 - (op.y() == -12 ? 1 : 0);
                    long limit = op.x() % 4 - 1;
                    boolean rev = op.kind() == 6;
                    assertEquals(window(in, rev, offset, limit), shown(z.rangeByScore(key, r, rev, offset, limit)), where);
                    assertEquals(in.size(), z.count(key, r), where);
                }
                case 7 -> {
                    if (op.key() != 2) {
                        continue;
                    }
                    LexRange r = new LexRange(lexBound(op.x(), op.m()), lexBound(op.y(), op.s() % MEMBERS.length));
                    List<String> in = new ArrayList<>();
                    for (String e : all) {
                        if (inLex(e.substring(0, e.lastIndexOf('=')), r)) {
                            in.add(e);
                        }
                    }
                    long offset = Math.abs(op.x()) % 3;
                    long limit = op.y() % 3 - 1;
                    assertEquals(window(in, op.flag(), offset, limit),
                            shown(z.rangeByLex(key, r, op.flag(), offset, limit)), where);
                    assertEquals(in.size(), z.lexCount(key, r), where);
                    if (op.y() > 8) {
                        assertEquals(in.size(), z.removeByLex(key, r), where);
                        in.forEach(e -> m.remove(e.substring(0, e.lastIndexOf('='))));
                    }
                }
                case 8 -> {
                    Long r = z.rank(key, b(member), op.flag());
                    int i = -1;
                    for (int j = 0; j < all.size(); j++) {
                        if (all.get(j).substring(0, all.get(j).lastIndexOf('=')).equals(member)) {
                            i = j;
                        }
                    }
                    assertEquals(i < 0 ? null : (Long) (long) (op.flag() ? all.size() - 1 - i : i), r, where);
                    Double sc = z.score(key, b(member));
                    assertEquals(m.get(member), sc, where);
                }
                case 9 -> {
                    long count = Math.abs(op.x()) % 4;
                    ZSetOps.PopResult r = z.pop(new byte[][] {key}, op.flag(), count);
                    List<String> want = rankSlice(all, 0, count - 1, op.flag());
                    if (count == 0) {
                        want = List.of();
                    }
                    assertEquals(want, shown(r.members()), where);
                    want.forEach(e -> m.remove(e.substring(0, e.lastIndexOf('='))));
                }
                case 10 -> {
                    List<String> gone = rankSlice(all, op.x(), op.y(), false);
                    assertEquals(gone.size(), z.removeByRank(key, op.x(), op.y()), where);
                    gone.forEach(e -> m.remove(e.substring(0, e.lastIndexOf('='))));
                }
                case 11 -> {
                    ScoreRange r = new ScoreRange(SCORES[op.s()], op.flag(), SCORES[Math.abs(op.y()) % SCORES.length], false);
                    List<String> gone = new ArrayList<>();
                    for (String e : all) {
                        String mm = e.substring(0, e.lastIndexOf('='));
                        if (inScore(m.get(mm), r)) {
                            gone.add(mm);
                        }
                    }
                    assertEquals(gone.size(), z.removeByScore(key, r), where);
                    gone.forEach(m::remove);
                }
                case 12, 13 -> { // ZUNIONSTORE / ZINTERSTORE / ZDIFFSTORE into the third key... of K1, K2
                    if (op.key() == 2) {
                        continue;
                    }
                    Map<String, Double> a = model.computeIfAbsent("k1", q -> new TreeMap<>());
                    Map<String, Double> bb = model.computeIfAbsent("k2", q -> new TreeMap<>());
                    ZSetOps.SetOp kind = ZSetOps.SetOp.values()[Math.abs(op.x()) % 3];
                    ZSetOps.Aggregate agg = ZSetOps.Aggregate.values()[Math.abs(op.y()) % 3];
                    double w = op.flag() ? 2 : -1;
                    Map<String, Double> want = new TreeMap<>();
                    switch (kind) {
                        case UNION -> {
                            a.forEach((k, v) -> want.put(k, weighted(v, 1)));
                            bb.forEach((k, v) -> want.merge(k, weighted(v, w), (o, n) -> agg(o, n, agg)));
                        }
                        case INTER -> a.forEach((k, v) -> {
                            if (bb.containsKey(k)) {
                                want.put(k, agg(weighted(v, 1), bb.get(k) * w, agg));
                            }
                        });
                        default -> a.forEach((k, v) -> {
                            if (!bb.containsKey(k)) {
                                want.put(k, v);
                            }
                        });
                    }
                    want.replaceAll((k, v) -> norm(v));
                    List<Member> got = z.combine(kind, new byte[][] {K1, K2}, new double[] {1, w}, agg, op.kind() == 13 ? K3 : null);
                    assertEquals(sorted(want), shown(got), where + " " + kind + " " + agg);
                    if (op.kind() == 13) {
                        model.put("k3", new TreeMap<>(want));
                        // K3 must keep a single score for the lex checks: flatten it
                        z.remove(K3, want.keySet().stream().map(ZSetOpsModelTest::b).toArray(byte[][]::new));
                        model.get("k3").clear();
                    }
                }
                case 14 -> {
                    long c = z.interCard(new byte[][] {K1, K2}, Math.abs(op.x()) % 3);
                    long full = model.computeIfAbsent("k1", q -> new TreeMap<>()).keySet().stream()
                            .filter(model.computeIfAbsent("k2", q -> new TreeMap<>())::containsKey).count();
                    long lim = Math.abs(op.x()) % 3;
                    assertEquals(lim > 0 ? Math.min(lim, full) : full, c, where);
                }
                default -> {
                    List<Member> range = z.rangeByRank(key, 0, -1, false);
                    assertEquals(all, shown(range), where);
                    assertEquals(all.size(), z.card(key), where);
                }
            }
            assertEquals(sorted(model.get(s(key))), shown(z.rangeByRank(key, 0, -1, false)), "after " + op);
        }
        for (byte[] key : keys) {
            Map<String, Double> m = model.getOrDefault(s(key), Map.of());
            assertEquals(sorted(m), shown(z.rangeByRank(key, 0, -1, false)));
            assertEquals(m.size(), z.card(key));
        }
    }

    private static double weighted(double v, double w) {
        double r = v * w;
        return Double.isNaN(r) ? 0 : r;
    }

    private static double agg(double t, double v, ZSetOps.Aggregate a) {
        return switch (a) {
            case SUM -> Double.isNaN(t + v) ? 0 : t + v;
            case MIN -> v < t ? v : t;
            case MAX -> v > t ? v : t;
        };
    }
}
