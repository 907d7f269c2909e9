package dev.cajon.storage;

import dev.cajon.storage.BitOps.FieldKind;
import dev.cajon.storage.BitOps.FieldOp;
import dev.cajon.storage.BitOps.Overflow;
import dev.cajon.storage.BitOps.Patch;
import dev.cajon.storage.BitOps.Str;
import java.util.List;

/**
 * BITFIELD's arithmetic: reading and writing fields of 1 to 64 bits at any bit offset of a string,
 * and Redis's overflow rules (WRAP, SAT, FAIL) for signed and unsigned fields. {@link BitOps}
 * holds the key's stripe, reads the string and writes it back once; this class only computes,
 * over the string and the patch of bytes changed so far, so that each field sees the ones before
 * it in the same command.
 */
final class BitFields {
    private BitFields() {
    }

    /**
     * Runs {@code ops} in order over {@code s} as patched by {@code p}: GETs and INCRBY/SET
     * replies into {@code values}, an OVERFLOW FAIL refusal into {@code failed}. Returns whether
     * any field's bits changed.
     */
    static boolean apply(Str s, Patch p, List<FieldOp> ops, long[] values, boolean[] failed) {
        boolean changed = false;
        for (int i = 0; i < ops.size(); i++) {
            FieldOp op = ops.get(i);
            long raw = getField(s, p, op.offset(), op.bits());
            long cur = op.signed() ? signExtend(raw, op.bits()) : raw;
            if (op.kind() == FieldKind.GET) {
                values[i] = cur;
                continue;
            }
            long[] next = new long[1];
            boolean overflow;
            long reply;
            if (op.kind() == FieldKind.INCRBY) {
                overflow = op.signed() ? signedOverflow(cur, op.value(), op.bits(), op.overflow(), next)
                        : unsignedOverflow(cur, op.value(), op.bits(), op.overflow(), next);
                if (!overflow) {
                    next[0] = cur + op.value();
                }
                reply = next[0];
            } else {
                overflow = op.signed() ? signedOverflow(op.value(), 0, op.bits(), op.overflow(), next)
                        : unsignedOverflow(op.value(), 0, op.bits(), op.overflow(), next);
                if (!overflow) {
                    next[0] = op.value();
                }
                reply = cur;
            }
            if (overflow && op.overflow() == Overflow.FAIL) {
                failed[i] = true;
                continue;
            }
            values[i] = reply;
            setField(s, p, op.offset(), op.bits(), next[0]);
            changed |= next[0] != cur;
        }
        return changed;
    }

    /** The (at most 9) bytes a field of {@code bits} bits at bit {@code offset} spans, as patched. */
    static int[] window(Str s, Patch p, long offset, int bits) {
        long first = offset >>> 3;
        int[] w = new int[(int) (((offset + bits - 1) >>> 3) - first + 1)];
        for (int i = 0; i < w.length; i++) {
            w[i] = p.byteAt(s, first + i);
        }
        return w;
    }

    /** The {@code bits}-bit unsigned field at bit {@code offset} (zeros past the end), as Redis's getUnsignedBitfield. */
    static long getField(Str s, Patch p, long offset, int bits) {
        int[] w = window(s, p, offset, bits);
        int o = (int) (offset & 7);
        long v = 0;
        for (int j = 0; j < bits; j++, o++) {
            v = (v << 1) | ((w[o >>> 3] >> (7 - (o & 7))) & 1);
        }
        return v;
    }

    /** Stores the low {@code bits} bits of {@code value} at bit {@code offset}, as Redis's setUnsignedBitfield. */
    static void setField(Str s, Patch p, long offset, int bits, long value) {
        int[] w = window(s, p, offset, bits);
        int o = (int) (offset & 7);
        for (int j = 0; j < bits; j++, o++) {
            int bitval = (int) ((value >>> (bits - 1 - j)) & 1);
            int mask = 1 << (7 - (o & 7));
            w[o >>> 3] = bitval != 0 ? w[o >>> 3] | mask : w[o >>> 3] & ~mask;
        }
        long first = offset >>> 3;
        for (int i = 0; i < w.length; i++) {
            p.put(first + i, w[i]);
        }
    }

    static long signExtend(long raw, int bits) {
        if (bits < 64 && (raw & (1L << (bits - 1))) != 0) {
            raw |= -1L << bits;
        }
        return raw;
    }

    /**
     * Redis's checkUnsignedBitfieldOverflow: whether {@code value + incr} leaves the {@code bits}-bit
     * unsigned range ({@code value} compared as unsigned, as C's uint64_t); under WRAP or SAT the
     * value to store is put in {@code limit[0]}.
     */
    static boolean unsignedOverflow(long value, long incr, int bits, Overflow ow, long[] limit) {
        long max = bits == 64 ? -1L : (1L << bits) - 1;
        long maxincr = max - value;
        long minincr = -value;
        if (Long.compareUnsigned(value, max) > 0 || incr > 0 && incr > maxincr) {
            if (ow == Overflow.WRAP) {
                limit[0] = (value + incr) & ~(-1L << bits);
            } else if (ow == Overflow.SAT) {
                limit[0] = max;
            }
            return true;
        } else if (incr < 0 && incr < minincr) {
            if (ow == Overflow.WRAP) {
                limit[0] = (value + incr) & ~(-1L << bits);
            } else if (ow == Overflow.SAT) {
                limit[0] = 0;
            }
            return true;
        }
        return false;
    }

    /** Redis's checkSignedBitfieldOverflow, with C's wrapping arithmetic (Java's long does the same). */
    static boolean signedOverflow(long value, long incr, int bits, Overflow ow, long[] limit) {
        long max = bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1;
        long min = -max - 1;
        long maxincr = max - value;
        long minincr = min - value;
        boolean up = value > max || (bits != 64 && incr > maxincr) || (value >= 0 && incr > 0 && incr > maxincr);
        boolean down = !up && (value < min || (bits != 64 && incr < minincr)
                || (value < 0 && incr < 0 && incr < minincr));
        if (!up && !down) {
            return false;
        }
        if (ow == Overflow.WRAP) {
            long c = value + incr;
            if (bits < 64) {
                long mask = -1L << bits;
                long msb = 1L << (bits - 1);
                c = (c & msb) != 0 ? c | mask : c & ~mask;
            }
            limit[0] = c;
        } else if (ow == Overflow.SAT) {
            limit[0] = up ? max : min;
        }
        return true;
    }
}
