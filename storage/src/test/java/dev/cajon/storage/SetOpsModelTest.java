package dev.cajon.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.collection.CollectionAccess;
import dev.cajon.storage.collection.MemoryCollectionAccess;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * {@link SetOps} against a {@code Set} model: random sequences of SADD, SREM, SPOP, SMOVE, the
 * STORE forms and SINTERCARD over four keys whose members come from a small alphabet of integers
 * and words, checking every result, each set's content after each step, a full SSCAN, and the
 * encoding rule (intset while all members are integers and at most 512, else hashtable for good,
 * except what a STORE or a big SPOP rebuilds).
 */
class SetOpsModelTest {

    record Step(int op, int a, int b, int c, String member, int count) {
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<String> members = Arbitraries.oneOf(
                Arbitraries.integers().between(-3, 6).map(String::valueOf),
                Arbitraries.of("x", "y", "01", "", "-0"));
        Arbitrary<Integer> key = Arbitraries.integers().between(0, 3);
        return Combinators.combine(Arbitraries.integers().between(0, 9), key, key, key, members,
                Arbitraries.integers().between(0, 6)).as(Step::new).list().ofMaxSize(100);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    private static Set<String> strings(List<byte[]> l) {
        Set<String> out = new HashSet<>();
        l.forEach(x -> assertTrue(out.add(s(x)), "a member twice"));
        return out;
    }

    private static boolean allInts(Set<String> m) {
        return m.stream().allMatch(x -> Numbers.isLong(b(x), 0, x.length()));
    }

    @Property(tries = 300)
    void behavesLikeASet(@ForAll("steps") List<Step> steps) {
        SetOps ops = new SetOps(new MemoryCollectionAccess());
        List<Set<String>> model = new ArrayList<>();
        boolean[] big = new boolean[4];
        for (int i = 0; i < 4; i++) {
            model.add(new HashSet<>());
        }
        for (Step st : steps) {
            byte[] ka = b("s" + st.a());
            byte[] kb = b("s" + st.b());
            byte[] kc = b("s" + st.c());
            Set<String> a = model.get(st.a());
            Set<String> bm = model.get(st.b());
            Set<String> cm = model.get(st.c());
            String m = st.member();
            switch (st.op()) {
                case 0, 1, 2 -> {
                    assertEquals(a.add(m) ? 1 : 0, ops.add(ka, new byte[][] {b(m)}));
                    big[st.a()] |= !allInts(a) || a.size() > EncodingLimits.SET_INTSET_ENTRIES;
                }
                case 3 -> assertEquals(a.remove(m) ? 1 : 0, ops.remove(ka, new byte[][] {b(m)}));
                case 4 -> {
                    int before = a.size();
                    List<byte[]> popped = ops.pop(ka, st.count());
                    Set<String> p = strings(popped);
                    assertEquals(Math.min(st.count(), before), p.size());
                    assertTrue(a.containsAll(p));
                    a.removeAll(p);
                    long remaining = before - p.size();
                    if (p.size() > 0 && remaining > 0 && remaining * 5 <= st.count()) {
                        big[st.a()] = !allInts(a);
                    }
                }
                case 5 -> {
                    byte[] one = ops.pop(ka);
                    if (a.isEmpty()) {
                        assertNull(one);
                    } else {
                        assertTrue(a.remove(s(one)));
                    }
                }
                case 6 -> {
                    SetOps.MoveResult r = ops.move(ka, kb, b(m));
                    boolean there = a.contains(m);
                    assertEquals(there ? SetOps.MoveResult.MOVED : SetOps.MoveResult.NOT_MOVED, r);
                    if (there && st.a() != st.b()) {
                        a.remove(m);
                        if (bm.isEmpty()) {
                            big[st.b()] = false;
                        }
                        bm.add(m);
                        big[st.b()] |= !allInts(bm);
                    }
                }
                case 7, 8 -> {
                    SetOps.Algebra op = SetOps.Algebra.values()[st.count() % 3];
                    Set<String> want = new HashSet<>(bm);
                    switch (op) {
                        case INTER -> want.retainAll(cm);
                        case UNION -> want.addAll(cm);
                        default -> want.removeAll(cm);
                    }
                    assertEquals(want, strings(ops.algebra(op, new byte[][] {kb, kc})));
                    if (st.op() == 8) {
                        assertEquals(want.size(), ops.store(op, ka, new byte[][] {kb, kc}));
                        a.clear();
                        a.addAll(want);
                        big[st.a()] = !allInts(a);
                    }
                }
                default -> {
                    Set<String> inter = new HashSet<>(bm);
                    inter.retainAll(cm);
                    long limit = st.count() % 3;
                    long want = limit == 0 ? inter.size() : Math.min(limit, inter.size());
                    assertEquals(want, ops.interCard(new byte[][] {kb, kc}, limit));
                }
            }
            for (int i = 0; i < 4; i++) {
                if (model.get(i).isEmpty()) {
                    big[i] = false;
                }
                check(ops, b("s" + i), model.get(i), big[i]);
            }
        }
    }

    private static void check(SetOps ops, byte[] key, Set<String> m, boolean big) {
        assertEquals(m.size(), ops.cardinality(key));
        assertEquals(m, strings(ops.members(key)));
        if (m.isEmpty()) {
            assertNull(ops.encoding(key));
            assertNull(ops.randomMember(key));
            return;
        }
        assertEquals(big ? "hashtable" : "intset", ops.encoding(key));
        Set<String> scanned = new HashSet<>();
        long cursor = 0;
        int calls = 0;
        do {
            SetOps.ScanResult r = ops.scan(key, cursor, 1, x -> true);
            r.members().forEach(x -> assertTrue(scanned.add(s(x))));
            cursor = r.next();
        } while (cursor != 0 && ++calls < 10_000);
        assertEquals(m, scanned);
        assertTrue(m.contains(s(ops.randomMember(key))));
        assertTrue(m.containsAll(strings(ops.randomMembers(key, 3))));
        List<byte[]> repeats = ops.randomMembers(key, -7);
        assertEquals(7, repeats.size());
        repeats.forEach(x -> assertTrue(m.contains(s(x))));
        for (String x : m) {
            assertTrue(ops.isMember(key, b(x)));
        }
    }

    /**
     * SSCAN's guarantee under writes between calls: every member present from the first call to
     * the last is returned, whatever is added and removed meanwhile (here other members, churned
     * after every call).
     */
    @Property(tries = 30)
    void scanReturnsEveryMemberPresentThroughout(@ForAll("churn") List<Integer> churn) {
        SetOps ops = new SetOps(new MemoryCollectionAccess());
        byte[] key = b("s");
        Set<String> stable = new HashSet<>();
        for (int i = 0; i < 700; i++) {
            stable.add("stable" + i);
            ops.add(key, new byte[][] {b("stable" + i)});
        }
        assertEquals("hashtable", ops.encoding(key));
        Set<String> seen = new HashSet<>();
        long cursor = 0;
        int calls = 0;
        do {
            SetOps.ScanResult r = ops.scan(key, cursor, 7, x -> true);
            r.members().forEach(x -> seen.add(s(x)));
            cursor = r.next();
            int c = churn.get(calls % churn.size());
            ops.add(key, new byte[][] {b("churn" + c), b("churn" + (c * 7 + calls))});
            ops.remove(key, new byte[][] {b("churn" + (c + 1)), b("churn" + calls / 2)});
            calls++;
        } while (cursor != 0 && calls < 100_000);
        assertTrue(seen.containsAll(stable), "a member present throughout was missed");
    }

    @Provide
    Arbitrary<List<Integer>> churn() {
        return Arbitraries.integers().between(0, 300).list().ofMinSize(1).ofMaxSize(50);
    }

    @Test
    void intsetLimitAndSpopRebuild() {
        SetOps ops = new SetOps(new MemoryCollectionAccess());
        byte[] key = b("s");
        byte[][] ints = new byte[512][];
        for (int i = 0; i < 512; i++) {
            ints[i] = b(Integer.toString(i));
        }
        assertEquals(512, ops.add(key, ints));
        assertEquals("intset", ops.encoding(key));
        ops.add(key, new byte[][] {b("512")});
        assertEquals("hashtable", ops.encoding(key));
        assertEquals(510, ops.pop(key, 510).size());
        assertEquals("intset", ops.encoding(key), "few members stay: rebuilt, as Redis's SPOP case 3");
        assertEquals(3, ops.cardinality(key));
        assertEquals(3, ops.pop(key, 10).size());
        assertNull(ops.encoding(key));
    }

    @Test
    void storeOverwritesAndMoveChecksTheDestination() {
        MemoryCollectionAccess access = new MemoryCollectionAccess();
        SetOps ops = new SetOps(access);
        HashOps hashes = new HashOps(access);
        ops.add(b("a"), new byte[][] {b("1"), b("x")});
        hashes.set(b("h"), new byte[][] {b("f"), b("v")});
        assertEquals(SetOps.MoveResult.NOT_MOVED, ops.move(b("none"), b("h"), b("1")));
        assertEquals(SetOps.MoveResult.WRONG_TYPE, ops.move(b("a"), b("h"), b("1")));
        assertThrows(CollectionAccess.WrongType.class, () -> ops.move(b("h"), b("a"), b("1")));
        assertEquals(2, ops.store(SetOps.Algebra.UNION, b("h"), new byte[][] {b("a")}));
        assertEquals("hashtable", ops.encoding(b("h")));
        assertEquals(0, ops.store(SetOps.Algebra.DIFF, b("h"), new byte[][] {b("a"), b("a")}));
        assertNull(ops.encoding(b("h")));
        hashes.set(b("h2"), new byte[][] {b("f"), b("v")});
        assertThrows(CollectionAccess.WrongType.class,
                () -> ops.algebra(SetOps.Algebra.UNION, new byte[][] {b("none"), b("h2")}));
        assertThrows(CollectionAccess.WrongType.class,
                () -> ops.interCard(new byte[][] {b("none"), b("h2")}, 0));
    }
}
