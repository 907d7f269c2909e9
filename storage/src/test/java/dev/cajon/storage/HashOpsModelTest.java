package dev.cajon.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.collection.CollectionAccess;
import dev.cajon.storage.collection.MemoryCollectionAccess;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * {@link HashOps} against a plain {@code Map} model: random sequences of HSET, HSETNX, HDEL,
 * HINCRBY and HINCRBYFLOAT on a few keys with fields from a small alphabet (so fields meet
 * again), checking every result, the whole content, a full HSCAN, random picks and the encoding
 * rule (listpack until more than 512 fields or a field/value over 64 bytes, then for good).
 */
class HashOpsModelTest {

    /** One step: op code, key, field, value. */
    record Step(int op, int key, String field, String value) {
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<String> fields = Arbitraries.oneOf(
                Arbitraries.strings().withChars("abc").ofMinLength(0).ofMaxLength(3),
                Arbitraries.strings().withChars("xy").ofMinLength(60).ofMaxLength(70));
        Arbitrary<String> values = Arbitraries.oneOf(
                Arbitraries.integers().between(-5, 5).map(String::valueOf),
                Arbitraries.strings().withChars("v1.").ofMaxLength(4),
                Arbitraries.strings().withChars("w").ofMinLength(63).ofMaxLength(66));
        return Combinators.combine(Arbitraries.integers().between(0, 6), Arbitraries.integers().between(0, 2),
                fields, values).as(Step::new).list().ofMaxSize(120);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    @Property(tries = 300)
    void behavesLikeAMap(@ForAll("steps") List<Step> steps) {
        HashOps ops = new HashOps(new MemoryCollectionAccess());
        List<Map<String, String>> model = List.of(new HashMap<>(), new HashMap<>(), new HashMap<>());
        boolean[] big = new boolean[3];
        for (Step st : steps) {
            byte[] key = b("h" + st.key());
            Map<String, String> m = model.get(st.key());
            String f = st.field();
            String v = st.value();
            switch (st.op()) {
                case 0, 1 -> {
                    long added = ops.set(key, new byte[][] {b(f), b(v)});
                    assertEquals(m.containsKey(f) ? 0 : 1, added);
                    m.put(f, v);
                    big[st.key()] |= f.length() > 64 || v.length() > 64;
                }
                case 2 -> {
                    boolean done = ops.setIfAbsent(key, b(f), b(v));
                    assertEquals(!m.containsKey(f), done);
                    if (done) {
                        m.put(f, v);
                        big[st.key()] |= f.length() > 64 || v.length() > 64;
                    }
                }
                case 3 -> {
                    assertEquals(m.remove(f) != null ? 1 : 0, ops.delete(key, new byte[][] {b(f)}));
                    if (m.isEmpty()) {
                        big[st.key()] = false; // the key is gone; a new one starts small
                    }
                }
                case 4 -> {
                    CounterResult r = ops.incrBy(key, b(f), 3);
                    String old = m.get(f);
                    if (old != null && !Numbers.isLong(b(old), 0, old.length())) {
                        assertEquals(OpStatus.NOT_INTEGER, r.status());
                    } else {
                        long want = (old == null ? 0 : Long.parseLong(old)) + 3;
                        assertEquals(OpStatus.OK, r.status());
                        assertEquals(want, r.value());
                        m.put(f, Long.toString(want));
                        big[st.key()] |= f.length() > 64;
                    }
                }
                case 5 -> {
                    BytesResult r = ops.incrByFloat(key, b(f), new java.math.BigDecimal("0.5"));
                    String old = m.get(f);
                    if (old != null && Numbers.parseLongDouble(b(old), 0, old.length()) == null) {
                        assertEquals(OpStatus.NOT_FLOAT, r.status());
                    } else if (r.status() == OpStatus.OK) {
                        m.put(f, s(r.value()));
                        big[st.key()] |= f.length() > 64 || r.value().length > 64;
                    }
                }
                default -> {
                    byte[] got = ops.get(key, b(f));
                    String want = m.get(f);
                    assertEquals(want, got == null ? null : s(got));
                }
            }
            check(ops, key, m, big[st.key()]);
        }
    }

    private static void check(HashOps ops, byte[] key, Map<String, String> m, boolean big) {
        assertEquals(m.size(), ops.length(key));
        Map<String, String> all = new HashMap<>();
        for (byte[][] p : ops.getAll(key)) {
            assertNull(all.put(s(p[0]), s(p[1])), "a field twice");
        }
        assertEquals(m, all);
        if (m.isEmpty()) {
            assertNull(ops.encoding(key));
            assertNull(ops.randomField(key));
            return;
        }
        assertEquals(big || m.size() > EncodingLimits.HASH_ENTRIES ? "hashtable" : "listpack", ops.encoding(key));
        // a full scan with a small count returns every field once
        Map<String, String> scanned = new HashMap<>();
        long cursor = 0;
        int calls = 0;
        do {
            HashOps.ScanResult r = ops.scan(key, cursor, 2, x -> true);
            for (byte[][] p : r.pairs()) {
                assertNull(scanned.put(s(p[0]), s(p[1])));
            }
            cursor = r.next();
        } while (cursor != 0 && ++calls < 10_000);
        assertEquals(m, scanned);
        byte[][] one = ops.randomField(key);
        assertEquals(m.get(s(one[0])), s(one[1]));
        List<byte[][]> picks = ops.randomFields(key, 2);
        assertEquals(Math.min(2, m.size()), picks.size());
        Set<String> distinct = new HashSet<>();
        picks.forEach(p -> distinct.add(s(p[0])));
        assertEquals(picks.size(), distinct.size());
        assertEquals(5, ops.randomFields(key, -5).size());
    }

    @Test
    void largeHashScansInPagesAndPicksUniformly() {
        HashOps ops = new HashOps(new MemoryCollectionAccess());
        byte[] key = b("big");
        int n = 600;
        byte[][] pairs = new byte[2 * n][];
        for (int i = 0; i < n; i++) {
            pairs[2 * i] = b("f" + i);
            pairs[2 * i + 1] = b("v" + i);
        }
        assertEquals(n, ops.set(key, pairs));
        assertEquals("hashtable", ops.encoding(key));
        Set<String> seen = new HashSet<>();
        long cursor = 0;
        int calls = 0;
        do {
            HashOps.ScanResult r = ops.scan(key, cursor, 10, x -> true);
            r.pairs().forEach(p -> assertTrue(seen.add(s(p[0]))));
            cursor = r.next();
            calls++;
        } while (cursor != 0 && calls < 10_000);
        assertEquals(n, seen.size());
        assertTrue(calls >= n / 10, "pages of 10");
        // every field can come out of a random pick (600 fields, 60000 picks: each is expected 100 times)
        Map<String, Integer> hits = new HashMap<>();
        for (byte[][] p : ops.randomFields(key, -60_000)) {
            hits.merge(s(p[0]), 1, Integer::sum);
        }
        assertEquals(n, hits.size());
        assertTrue(hits.values().stream().allMatch(h -> h > 40 && h < 200), "roughly uniform");
        // deleting everything but one keeps the hashtable encoding, as Redis does
        byte[][] fields = new byte[n - 1][];
        for (int i = 1; i < n; i++) {
            fields[i - 1] = b("f" + i);
        }
        assertEquals(n - 1, ops.delete(key, fields));
        assertEquals("hashtable", ops.encoding(key));
        assertArrayEquals(b("v0"), ops.get(key, b("f0")));
    }

    @Test
    void overflowAndWrongType() {
        MemoryCollectionAccess access = new MemoryCollectionAccess();
        HashOps ops = new HashOps(access);
        ops.set(b("h"), new byte[][] {b("m"), b(Long.toString(Long.MAX_VALUE))});
        assertEquals(OpStatus.OVERFLOW, ops.incrBy(b("h"), b("m"), 1).status());
        ops.set(b("h"), new byte[][] {b("m"), b(Long.toString(Long.MIN_VALUE))});
        assertEquals(OpStatus.OVERFLOW, ops.incrBy(b("h"), b("m"), -1).status());
        assertEquals(Long.MIN_VALUE + 1, ops.incrBy(b("h"), b("m"), 1).value());
        new SetOps(access).add(b("s"), new byte[][] {b("x")});
        assertThrows(CollectionAccess.WrongType.class, () -> ops.get(b("s"), b("x")));
        assertThrows(CollectionAccess.WrongType.class, () -> ops.set(b("s"), new byte[][] {b("x"), b("y")}));
    }
}
