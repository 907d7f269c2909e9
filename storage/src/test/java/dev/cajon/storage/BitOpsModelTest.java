package dev.cajon.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cajon.storage.BitOps.BitOp;
import dev.cajon.storage.BitOps.FieldKind;
import dev.cajon.storage.BitOps.FieldOp;
import dev.cajon.storage.BitOps.FieldResult;
import dev.cajon.storage.BitOps.Overflow;
import dev.cajon.storage.chronicle.ValueHeader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link BitOps} against a model: a plain byte array per key, read and written one bit at a time,
 * with BITFIELD's overflow worked out in exact (BigInteger) arithmetic. Offsets cluster at byte
 * edges and around the blob threshold (16 KiB, where a string moves from the map entry to a blob
 * file) and its double, so each of the three ways a write is applied (rebuilt in the entry, grown
 * in place past a blob's end, copied and patched) is met, and crossed, in most runs. After every
 * step the key's whole value is compared too.
 */
class BitOpsModelTest {
    private static final int BLOB = Keyspace.BLOB_THRESHOLD;
    private static final byte[][] KEYS = {TestData.b("k"), TestData.b("k2"), TestData.b("d")};

    // ------------------------------------------------------------------ actions

    sealed interface Action permits SetBit, GetBit, Count, Pos, Field, SetRaw, Op {
    }

    record SetBit(int key, long offset, boolean on) implements Action {
    }

    record GetBit(int key, long offset) implements Action {
    }

    record Count(int key, boolean ranged, long start, long end, boolean isBit) implements Action {
    }

    record Pos(int key, int bit, boolean hasStart, long start, boolean hasEnd, long end, boolean isBit)
            implements Action {
    }

    record Field(int key, List<FieldOp> ops) implements Action {
    }

    record SetRaw(int key, int length, long seed) implements Action {
    }

    record Op(BitOp op, int dest, int a, int b) implements Action {
    }

    /** Bit offsets: small ones, the edges of the blob threshold and of its double, anywhere up to 3x. */
    private static Arbitrary<Long> offsets() {
        long t = BLOB * 8L;
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Arbitraries.longs().between(0, 80)),
                net.jqwik.api.Tuple.of(4, Arbitraries.longs().between(t - 80, t + 80)),
                net.jqwik.api.Tuple.of(2, Arbitraries.longs().between(2 * t - 80, 2 * t + 80)),
                net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(0, 3 * t)));
    }

    /** Range bounds as a client gives them: near 0, near the ends (negative), near the threshold. */
    private static Arbitrary<Long> bounds() {
        return Arbitraries.oneOf(Arbitraries.longs().between(-40, 40),
                Arbitraries.longs().between(BLOB - 20, BLOB + 20),
                Arbitraries.longs().between(BLOB * 8L - 20, BLOB * 8L + 20),
                Arbitraries.longs().between(-BLOB * 8L - 20, -BLOB * 8L + 20),
                offsets());
    }

    private static Arbitrary<Integer> keys() {
        return Arbitraries.integers().between(0, 2);
    }

    private static Arbitrary<FieldOp> fieldOps() {
        Arbitrary<Boolean> signed = Arbitraries.of(true, false);
        return Combinators.combine(Arbitraries.of(FieldKind.values()), signed, Arbitraries.integers().between(1, 64),
                        offsets(),
                        Arbitraries.oneOf(Arbitraries.longs().between(-300, 300), Arbitraries.longs(),
                                Arbitraries.of(Long.MAX_VALUE, Long.MIN_VALUE, -1L, 0L)),
                        Arbitraries.of(Overflow.values()))
                .as((kind, s, bits, off, v, ow) -> new FieldOp(kind, s || bits == 64, bits, off, v, ow));
    }

    @Provide
    Arbitrary<List<Action>> actions() {
        Arbitrary<Action> setBit = Combinators.combine(keys(), offsets(), Arbitraries.of(true, false)).as(SetBit::new);
        Arbitrary<Action> getBit = Combinators.combine(keys(), offsets()).as(GetBit::new);
        Arbitrary<Action> count = Combinators.combine(keys(), Arbitraries.of(true, false), bounds(), bounds(),
                Arbitraries.of(true, false)).as(Count::new);
        Arbitrary<Action> pos = Combinators.combine(keys(), Arbitraries.integers().between(0, 1),
                Arbitraries.of(true, false), bounds(), Arbitraries.of(true, false), bounds(),
                Arbitraries.of(true, false)).as((k, bit, hs, s, he, e, ib) -> new Pos(k, bit, hs, s, hs && he, e, ib));
        Arbitrary<Action> field = Combinators.combine(keys(), fieldOps().list().ofMinSize(0).ofMaxSize(4))
                .as(Field::new);
        Arbitrary<Action> raw = Combinators.combine(keys(),
                Arbitraries.oneOf(Arbitraries.integers().between(0, 40),
                        Arbitraries.integers().between(BLOB - 3, BLOB + 3), Arbitraries.integers().between(0, 3 * BLOB)),
                Arbitraries.longs()).as(SetRaw::new);
        Arbitrary<Action> op = Combinators.combine(Arbitraries.of(BitOp.values()), keys(), keys(), keys()).as(Op::new);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, setBit), net.jqwik.api.Tuple.of(3, getBit), net.jqwik.api.Tuple.of(3, count),
                net.jqwik.api.Tuple.of(3, pos), net.jqwik.api.Tuple.of(4, field), net.jqwik.api.Tuple.of(1, raw),
                net.jqwik.api.Tuple.of(1, op)).list().ofMinSize(1).ofMaxSize(30);
    }

    // ------------------------------------------------------------------ the property

    @Property(tries = 150)
    void bitOpsMatchTheModel(@ForAll("actions") List<Action> actions) throws IOException {
        Path dir = Files.createTempDirectory("bitops-model");
        try (Store store = Store.open(dir, new ManualClock(TestData.T0))) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            byte[][] model = new byte[KEYS.length][]; // null: no key
            int step = 0;
            for (Action a : actions) {
                String where = "step " + step++ + " " + a;
                apply(ks, model, a, where);
                for (int k = 0; k < KEYS.length; k++) {
                    StringValue v = ks.get(KEYS[k]);
                    assertArrayEquals(model[k], v == null ? null : v.toBytes(), where + ": value of key " + k);
                }
            }
        } finally {
            deleteTree(dir);
        }
    }

    private static void apply(Keyspace ks, byte[][] model, Action a, String where) {
        BitOps bits = ks.bits();
        if (a instanceof SetBit s) {
            byte[] m = model[s.key()];
            long idx = s.offset() >>> 3;
            int was = bit(m, s.offset());
            m = grow(m, idx + 1);
            setBit(m, s.offset(), s.on() ? 1 : 0);
            model[s.key()] = m;
            BitOps.BitResult r = bits.setBit(KEYS[s.key()], s.offset(), s.on());
            assertEquals(new BitOps.BitResult(OpStatus.OK, was), r, where);
        } else if (a instanceof GetBit g) {
            assertEquals(new BitOps.BitResult(OpStatus.OK, bit(model[g.key()], g.offset())),
                    bits.getBit(KEYS[g.key()], g.offset()), where);
        } else if (a instanceof Count c) {
            assertEquals(new BitOps.BitResult(OpStatus.OK, modelCount(model[c.key()], c)),
                    bits.bitCount(KEYS[c.key()], c.ranged(), c.start(), c.end(), c.isBit()), where);
        } else if (a instanceof Pos p) {
            assertEquals(new BitOps.BitResult(OpStatus.OK, modelPos(model[p.key()], p)),
                    bits.bitPos(KEYS[p.key()], p.bit(), p.hasStart(), p.start(), p.hasEnd(), p.end(), p.isBit()), where);
        } else if (a instanceof Field f) {
            Long[] expected = modelField(model, f);
            FieldResult r = bits.bitField(KEYS[f.key()], f.ops());
            assertEquals(OpStatus.OK, r.status(), where);
            for (int i = 0; i < expected.length; i++) {
                Long got = r.failed()[i] ? null : r.values()[i];
                assertEquals(expected[i], got, where + ": reply " + i);
            }
        } else if (a instanceof SetRaw s) {
            byte[] v = TestData.pattern(s.length(), s.seed());
            ks.set(KEYS[s.key()], v, SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
            model[s.key()] = v.clone();
        } else if (a instanceof Op o) {
            boolean not = o.op() == BitOp.NOT;
            byte[][] src = not ? new byte[][] {model[o.a()]} : new byte[][] {model[o.a()], model[o.b()]};
            byte[][] srcKeys = not ? new byte[][] {KEYS[o.a()]} : new byte[][] {KEYS[o.a()], KEYS[o.b()]};
            byte[] out = modelOp(o.op(), src);
            model[o.dest()] = out;
            assertEquals(new BitOps.BitResult(OpStatus.OK, out == null ? 0 : out.length),
                    bits.bitOp(o.op(), KEYS[o.dest()], srcKeys), where);
        }
    }

    // ------------------------------------------------------------------ the model

    private static int bit(byte[] m, long offset) {
        long idx = offset >>> 3;
        if (m == null || idx >= m.length) {
            return 0;
        }
        return (m[(int) idx] >> (7 - (int) (offset & 7))) & 1;
    }

    private static void setBit(byte[] m, long offset, int v) {
        int idx = (int) (offset >>> 3);
        int mask = 1 << (7 - (int) (offset & 7));
        m[idx] = (byte) (v == 1 ? m[idx] | mask : m[idx] & ~mask);
    }

    private static byte[] grow(byte[] m, long len) {
        if (m == null) {
            return new byte[(int) len];
        }
        return m.length >= len ? m : Arrays.copyOf(m, (int) len);
    }

    /** Redis's index rules: negatives from the end, then clamped into the string. */
    private static long[] range(long start, long end, long total) {
        if (start < 0) {
            start += total;
        }
        if (end < 0) {
            end += total;
        }
        start = Math.max(0, start);
        end = Math.max(0, end);
        if (end >= total) {
            end = total - 1;
        }
        return new long[] {start, end};
    }

    private static long modelCount(byte[] m, Count c) {
        if (m == null) {
            return 0;
        }
        long first = 0;
        long last = m.length * 8L - 1;
        if (c.ranged()) {
            if (c.start() < 0 && c.end() < 0 && c.start() > c.end()) {
                return 0;
            }
            long total = c.isBit() ? m.length * 8L : m.length;
            long[] r = range(c.start(), c.end(), total);
            if (r[0] > r[1]) {
                return 0;
            }
            first = c.isBit() ? r[0] : r[0] * 8;
            last = c.isBit() ? r[1] : r[1] * 8 + 7;
        }
        long n = 0;
        for (long i = first; i <= last; i++) {
            n += bit(m, i);
        }
        return n;
    }

    private static long modelPos(byte[] m, Pos p) {
        if (m == null) {
            return p.bit() == 1 ? -1 : 0;
        }
        long total = p.isBit() ? m.length * 8L : m.length;
        long[] r = p.hasStart() ? range(p.start(), p.hasEnd() ? p.end() : total - 1, total) : new long[] {0, total - 1};
        if (r[0] > r[1]) {
            return -1;
        }
        long first = p.isBit() ? r[0] : r[0] * 8;
        long last = p.isBit() ? r[1] : r[1] * 8 + 7;
        for (long i = first; i <= last; i++) {
            if (bit(m, i) == p.bit()) {
                return i;
            }
        }
        if (p.bit() == 0 && !p.hasEnd()) {
            return (last / 8 + 1) * 8;
        }
        return -1;
    }

    private static Long[] modelField(byte[][] model, Field f) {
        byte[] m = model[f.key()];
        long highest = -1;
        for (FieldOp op : f.ops()) {
            if (op.kind() != FieldKind.GET) {
                highest = Math.max(highest, op.offset() + op.bits() - 1);
            }
        }
        if (highest >= 0) {
            m = grow(m, (highest >>> 3) + 1);
            model[f.key()] = m;
        }
        Long[] out = new Long[f.ops().size()];
        for (int i = 0; i < out.length; i++) {
            FieldOp op = f.ops().get(i);
            BigInteger raw = BigInteger.ZERO;
            for (int j = 0; j < op.bits(); j++) {
                raw = raw.shiftLeft(1).or(BigInteger.valueOf(bit(m, op.offset() + j)));
            }
            BigInteger mod = BigInteger.ONE.shiftLeft(op.bits());
            BigInteger min = op.signed() ? BigInteger.ONE.shiftLeft(op.bits() - 1).negate() : BigInteger.ZERO;
            BigInteger max = op.signed() ? BigInteger.ONE.shiftLeft(op.bits() - 1).subtract(BigInteger.ONE)
                    : mod.subtract(BigInteger.ONE);
            BigInteger cur = op.signed() && raw.testBit(op.bits() - 1) ? raw.subtract(mod) : raw;
            if (op.kind() == FieldKind.GET) {
                out[i] = cur.longValueExact();
                continue;
            }
            BigInteger want;
            if (op.kind() == FieldKind.INCRBY) {
                want = cur.add(BigInteger.valueOf(op.value()));
            } else if (op.signed()) {
                want = BigInteger.valueOf(op.value());
            } else {
                // an unsigned field takes the value as C's uint64_t
                want = new BigInteger(Long.toUnsignedString(op.value()));
            }
            BigInteger next = want;
            if (want.compareTo(min) < 0 || want.compareTo(max) > 0) {
                switch (op.overflow()) {
                    case FAIL -> next = null;
                    case SAT -> {
                        next = want.compareTo(min) < 0 ? min : max;
                        // Redis's quirk, kept: its check computes max - value in 64 bits, and when
                        // that wraps (a SET far below the range) it saturates to the top
                        if (op.signed() && op.kind() == FieldKind.SET && op.bits() < 64
                                && max.subtract(want).compareTo(BigInteger.valueOf(Long.MAX_VALUE)) > 0) {
                            next = max;
                        }
                    }
                    case WRAP -> {
                        next = want.mod(mod);
                        if (op.signed() && next.compareTo(max) > 0) {
                            next = next.subtract(mod);
                        }
                    }
                }
            }
            if (next == null) {
                out[i] = null;
                continue;
            }
            out[i] = op.kind() == FieldKind.INCRBY ? next.longValueExact() : cur.longValueExact();
            BigInteger bitsOf = next.mod(mod);
            for (int j = 0; j < op.bits(); j++) {
                setBit(m, op.offset() + j, bitsOf.testBit(op.bits() - 1 - j) ? 1 : 0);
            }
        }
        return out;
    }

    /** BITOP on the model: null (the key deleted) when every source is empty or missing. */
    private static byte[] modelOp(BitOp op, byte[][] src) {
        int max = 0;
        for (byte[] s : src) {
            max = Math.max(max, s == null ? 0 : s.length);
        }
        if (max == 0) {
            return null;
        }
        byte[] out = new byte[max];
        for (int i = 0; i < max; i++) {
            int acc = at(src[0], i);
            for (int j = 1; j < src.length; j++) {
                int v = at(src[j], i);
                acc = switch (op) {
                    case AND -> acc & v;
                    case OR -> acc | v;
                    case XOR -> acc ^ v;
                    case NOT -> throw new IllegalStateException();
                };
            }
            out[i] = (byte) (op == BitOp.NOT ? ~acc : acc);
        }
        return out;
    }

    private static int at(byte[] s, int i) {
        return s == null || i >= s.length ? 0 : s[i] & 0xff;
    }

    static void deleteTree(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            List<Path> all = new ArrayList<>(walk.toList());
            all.sort(Comparator.reverseOrder());
            for (Path p : all) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
