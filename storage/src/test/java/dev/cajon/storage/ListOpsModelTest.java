package dev.cajon.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.cajon.storage.collection.CollectionTypes;
import dev.cajon.storage.collection.MemoryCollectionAccess;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * {@link ListOps} against a model ({@link java.util.ArrayList} of strings, with Redis's index
 * rules written out plainly): random sequences of every list operation must leave the same list
 * and answer the same. Values are drawn from a small alphabet so that LREM, LINSERT and LPOS find
 * matches; lengths cross zero often, so an emptied list must vanish (LLEN 0, pop null).
 */
class ListOpsModelTest {
    private static final byte[] KEY = b("k");
    private static final byte[] OTHER = b("o");

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String str(byte[] v) {
        return new String(v, StandardCharsets.UTF_8);
    }

    private static List<String> strs(List<byte[]> vs) {
        List<String> out = new ArrayList<>();
        vs.forEach(v -> out.add(str(v)));
        return out;
    }

    /** One operation: its code and up to three arguments. */
    record Op(int code, long a, long b, String v, String w) {
        @Override
        public String toString() {
            return NAMES[code] + "(" + a + "," + b + "," + v + "," + w + ")";
        }
    }

    private static final String[] NAMES = {"lpush", "rpush", "lpop", "rpop", "lset", "lrem", "ltrim", "linsert",
        "lrange", "lindex", "lpos", "lmove", "pushx", "rotate"};

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<String> value = Arbitraries.of("a", "b", "c", "");
        Arbitrary<Long> index = Arbitraries.longs().between(-12, 12);
        return Combinators.combine(Arbitraries.integers().between(0, NAMES.length - 1), index, index, value, value)
                .as(Op::new).list().ofMaxSize(80);
    }

    /** Redis's LRANGE/LTRIM clamping: the [from, to] kept, or null for none. */
    private static long[] clamp(long start, long stop, long llen) {
        long s = start < 0 ? llen + start : start;
        long t = stop < 0 ? llen + stop : stop;
        if (s < 0) {
            s = 0;
        }
        if (s > t || s >= llen) {
            return null;
        }
        return new long[] {s, Math.min(t, llen - 1)};
    }

    @Property(tries = 300)
    void behavesAsTheModel(@ForAll("ops") List<Op> ops) {
        ListOps lists = new ListOps(new MemoryCollectionAccess());
        List<String> m = new ArrayList<>();
        List<String> o = new ArrayList<>();
        for (Op op : ops) {
            String at = op.toString();
            int n = m.size();
            switch (NAMES[op.code()]) {
                case "lpush" -> {
                    m.add(0, op.v());
                    m.add(0, op.w());
                    assertEquals(m.size(), lists.push(KEY, new byte[][] {b("x"), b(op.v()), b(op.w())}, 1, true, false), at);
                }
                case "rpush" -> {
                    m.add(op.v());
                    assertEquals(m.size(), lists.push(KEY, new byte[][] {b(op.v())}, 0, false, false), at);
                }
                case "pushx" -> {
                    long got = lists.push(KEY, new byte[][] {b(op.v())}, 0, op.a() > 0, true);
                    if (n == 0) {
                        assertEquals(0, got, at);
                    } else {
                        m.add(op.a() > 0 ? 0 : m.size(), op.v());
                        assertEquals(m.size(), got, at);
                    }
                }
                case "lpop", "rpop" -> {
                    boolean left = NAMES[op.code()].equals("lpop");
                    long count = Math.abs(op.a()) % 4;
                    List<byte[]> got = lists.pop(KEY, left, count);
                    if (n == 0) {
                        assertNull(got, at);
                    } else {
                        List<String> want = new ArrayList<>();
                        for (long i = 0; i < Math.min(count, n); i++) {
                            want.add(m.remove(left ? 0 : m.size() - 1));
                        }
                        assertEquals(want, strs(got), at);
                    }
                }
                case "lset" -> {
                    ListOps.SetResult r = lists.set(KEY, op.a(), b(op.v()));
                    long i = op.a() < 0 ? n + op.a() : op.a();
                    if (n == 0) {
                        assertEquals(ListOps.SetResult.NO_SUCH_KEY, r, at);
                    } else if (i < 0 || i >= n) {
                        assertEquals(ListOps.SetResult.OUT_OF_RANGE, r, at);
                    } else {
                        m.set((int) i, op.v());
                        assertEquals(ListOps.SetResult.OK, r, at);
                    }
                }
                case "lrem" -> {
                    long count = op.a() % 3;
                    long removed = 0;
                    if (count >= 0) {
                        for (int i = 0; i < m.size() && (count == 0 || removed < count); ) {
                            if (m.get(i).equals(op.v())) {
                                m.remove(i);
                                removed++;
                            } else {
                                i++;
                            }
                        }
                    } else {
                        for (int i = m.size() - 1; i >= 0 && removed < -count; i--) {
                            if (m.get(i).equals(op.v())) {
                                m.remove(i);
                                removed++;
                            }
                        }
                    }
                    assertEquals(removed, lists.remove(KEY, count, b(op.v())), at);
                }
                case "ltrim" -> {
                    long[] keep = clamp(op.a(), op.b(), n);
                    List<String> next = keep == null ? new ArrayList<>()
                            : new ArrayList<>(m.subList((int) keep[0], (int) keep[1] + 1));
                    m.clear();
                    m.addAll(next);
                    lists.trim(KEY, op.a(), op.b());
                }
                case "linsert" -> {
                    boolean before = op.a() > 0;
                    int p = m.indexOf(op.w());
                    long want;
                    if (n == 0) {
                        want = 0;
                    } else if (p < 0) {
                        want = -1;
                    } else {
                        m.add(before ? p : p + 1, op.v());
                        want = m.size();
                    }
                    assertEquals(want, lists.insert(KEY, before, b(op.w()), b(op.v())), at);
                }
                case "lrange" -> {
                    long[] r = clamp(op.a(), op.b(), n);
                    List<String> want = r == null ? List.of() : m.subList((int) r[0], (int) r[1] + 1);
                    assertEquals(want, strs(lists.range(KEY, op.a(), op.b())), at);
                }
                case "lindex" -> {
                    long i = op.a() < 0 ? n + op.a() : op.a();
                    byte[] got = lists.index(KEY, op.a());
                    if (i < 0 || i >= n) {
                        assertNull(got, at);
                    } else {
                        assertEquals(m.get((int) i), str(got), at);
                    }
                }
                case "lpos" -> {
                    long rank = op.a() == 0 ? 1 : op.a() % 4 == 0 ? 1 : op.a() % 4;
                    long count = Math.abs(op.b()) % 3;
                    long maxlen = Math.abs(op.b()) % 5;
                    List<Long> want = new ArrayList<>();
                    long skip = Math.abs(rank) - 1;
                    long compared = 0;
                    for (int j = 0; j < n && (maxlen == 0 || compared < maxlen); j++) {
                        int i = rank > 0 ? j : n - 1 - j;
                        compared++;
                        if (m.get(i).equals(op.v())) {
                            if (skip > 0) {
                                skip--;
                            } else {
                                want.add((long) i);
                                if (count != 0 && want.size() >= count) {
                                    break;
                                }
                            }
                        }
                    }
                    List<Long> got = lists.positions(KEY, b(op.v()), rank, count, maxlen);
                    if (n == 0) {
                        assertNull(got, at);
                    } else {
                        assertEquals(want, got, at);
                    }
                }
                case "lmove" -> {
                    boolean from = op.a() > 0;
                    boolean to = op.b() > 0;
                    byte[] got = lists.move(KEY, OTHER, from, to);
                    if (n == 0) {
                        assertNull(got, at);
                    } else {
                        String v = m.remove(from ? 0 : m.size() - 1);
                        o.add(to ? 0 : o.size(), v);
                        assertEquals(v, str(got), at);
                    }
                    assertEquals(o, strs(lists.range(OTHER, 0, -1)), at);
                }
                case "rotate" -> {
                    boolean from = op.a() > 0;
                    boolean to = op.b() > 0;
                    byte[] got = lists.move(KEY, KEY, from, to);
                    if (n == 0) {
                        assertNull(got, at);
                    } else {
                        String v = m.remove(from ? 0 : m.size() - 1);
                        m.add(to ? 0 : m.size(), v);
                        assertEquals(v, str(got), at);
                    }
                }
                default -> throw new AssertionError(at);
            }
            assertEquals(m.size(), lists.length(KEY), at);
            assertEquals(!m.isEmpty(), lists.exists(KEY), at + ": an empty list must not exist");
            assertEquals(m, strs(lists.range(KEY, 0, -1)), at);
        }
    }

    @Test
    void popFirstTakesTheFirstListThatExists() {
        ListOps lists = new ListOps(new MemoryCollectionAccess());
        byte[][] keys = {b("x"), b("y"), b("z")};
        assertNull(lists.popFirst(keys, 0, 3, true, 2));
        lists.push(b("z"), new byte[][] {b("1"), b("2"), b("3")}, 0, false, false);
        lists.push(b("y"), new byte[][] {b("9")}, 0, false, false);
        ListOps.KeyValues kv = lists.popFirst(keys, 0, 3, false, 5);
        assertArrayEquals(b("y"), kv.key());
        assertEquals(List.of("9"), strs(kv.values()));
        assertFalse(lists.exists(b("y")));
        kv = lists.popFirst(keys, 0, 3, false, 2);
        assertEquals(List.of("3", "2"), strs(kv.values()));
    }

    @Test
    void typeIsRegisteredWithRedis70sNames() {
        assertEquals(ListOps.TYPE, CollectionTypes.of(dev.cajon.storage.chronicle.ValueHeader.TYPE_LIST));
        assertEquals("list", ListOps.TYPE.name());
        assertEquals("quicklist", ListOps.TYPE.encoding(new byte[0]), "Redis 7.0 reports every list as quicklist");
    }
}
