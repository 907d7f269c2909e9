package dev.cajon.storage;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * Redis's number rules, in one place: {@code string2ll} for integers and {@code string2ld} plus
 * x87 long double arithmetic for INCRBYFLOAT. Both the argument parser and the counter code use
 * these, so "not an integer" means exactly the same thing everywhere.
 */
public final class Numbers {
    private static final int MAX_LONG_CHARS = 20;
    private static final int MAX_LONG_DOUBLE_CHARS = 5 * 1024;
    /** Largest finite x87 extended value is just under 2^16384. */
    private static final BigDecimal LD_OVERFLOW = new BigDecimal(BigInteger.ONE.shiftLeft(16384));

    private Numbers() {
    }

    /**
     * True when {@code b[off, off+len)} is a canonical base-10 signed 64-bit integer as Redis's
     * {@code string2ll} accepts it: optional '-', no '+', no spaces, no leading zeros.
     */
    public static boolean isLong(byte[] b, int off, int len) {
        if (len == 0 || len > MAX_LONG_CHARS) {
            return false;
        }
        int i = off;
        int end = off + len;
        if (len == 1 && b[i] == '0') {
            return true;
        }
        boolean neg = false;
        if (b[i] == '-') {
            neg = true;
            i++;
            if (i == end) {
                return false;
            }
        }
        if (b[i] < '1' || b[i] > '9') {
            return false;
        }
        long v = 0;
        for (; i < end; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return false;
            }
            // accumulate negatively so Long.MIN_VALUE fits
            if (v < (Long.MIN_VALUE + d) / 10) {
                return false;
            }
            v = v * 10 - d;
        }
        return neg || v != Long.MIN_VALUE;
    }

    /** Parses a value that {@link #isLong} accepted. */
    public static long parseLong(byte[] b, int off, int len) {
        int i = off;
        int end = off + len;
        boolean neg = b[i] == '-';
        if (neg) {
            i++;
        }
        long v = 0;
        for (; i < end; i++) {
            v = v * 10 - (b[i] - '0');
        }
        return neg ? v : -v;
    }

    /** Decimal ASCII bytes of {@code v}, as Redis prints integers. */
    public static byte[] toBytes(long v) {
        byte[] out = new byte[decimalLength(v)];
        writeDecimal(v, out, 0);
        return out;
    }

    /** How many bytes the decimal form of {@code v} takes. */
    public static int decimalLength(long v) {
        if (v == Long.MIN_VALUE) {
            return 20;
        }
        int n = v < 0 ? 2 : 1;
        for (long x = Math.abs(v); x >= 10; x /= 10) {
            n++;
        }
        return n;
    }

    /** Writes the decimal form of {@code v} at {@code out[off]} ({@link #decimalLength} bytes). */
    public static void writeDecimal(long v, byte[] out, int off) {
        int p = off + decimalLength(v);
        // work on the negative value so Long.MIN_VALUE needs no special case
        long x = v < 0 ? v : -v;
        do {
            out[--p] = (byte) ('0' - x % 10);
            x /= 10;
        } while (x != 0);
        if (v < 0) {
            out[off] = '-';
        }
    }

    /** {@link #parseLongDouble} result for "inf"/"infinity" (any case, optional sign). */
    public static final BigDecimal POSITIVE_INFINITY = new BigDecimal(BigInteger.ONE, -100_000);
    public static final BigDecimal NEGATIVE_INFINITY = new BigDecimal(BigInteger.ONE.negate(), -100_000);
    /** Half the smallest x87 subnormal: anything smaller underflows to zero (ERANGE). */
    private static final BigDecimal UNDERFLOW = new BigDecimal(BigInteger.valueOf(5).pow(16446), 16446);

    public static boolean isInfinite(BigDecimal v) {
        return v == POSITIVE_INFINITY || v == NEGATIVE_INFINITY;
    }

    /**
     * Parses like Redis's {@code string2ld} on top of glibc's {@code strtold}: no leading or
     * trailing space, the whole string must be a number (decimal, or hexadecimal such as
     * {@code 0x1p3}), NaN refused, a literal infinity accepted (returned as
     * {@link #POSITIVE_INFINITY}/{@link #NEGATIVE_INFINITY}), a value that overflows or
     * underflows to zero refused. Returns the value rounded to x87 long double precision, or null
     * when Redis would refuse it.
     */
    public static BigDecimal parseLongDouble(byte[] b, int off, int len) {
        if (len == 0 || len >= MAX_LONG_DOUBLE_CHARS) {
            return null;
        }
        if (isSpace(b[off]) || isSpace(b[off + len - 1])) {
            return null;
        }
        String s = new String(b, off, len, java.nio.charset.StandardCharsets.ISO_8859_1);
        boolean neg = s.startsWith("-");
        String body = neg || s.startsWith("+") ? s.substring(1) : s;
        String lower = body.toLowerCase(java.util.Locale.ROOT);
        if (lower.equals("inf") || lower.equals("infinity")) {
            return neg ? NEGATIVE_INFINITY : POSITIVE_INFINITY;
        }
        BigDecimal v;
        if (lower.startsWith("0x")) {
            v = parseHex(lower.substring(2));
        } else {
            v = parseDecimal(body);
        }
        if (v == null) {
            return null;
        }
        if (neg) {
            v = v.negate();
        }
        if (v.signum() != 0 && v.abs().compareTo(UNDERFLOW) <= 0) {
            return null;
        }
        return roundToLongDouble(v);
    }

    private static BigDecimal parseDecimal(String body) {
        if (body.isEmpty() || !(Character.isDigit(body.charAt(0)) || body.charAt(0) == '.')) {
            return null;
        }
        try {
            return new BigDecimal(body);
        } catch (NumberFormatException | ArithmeticException e) {
            return null;
        }
    }

    /** strtold's hexadecimal form after "0x": hex digits, optional fraction, optional p-exponent. */
    private static BigDecimal parseHex(String h) {
        int p = h.indexOf('p');
        String mant = p < 0 ? h : h.substring(0, p);
        long exp = 0;
        if (p >= 0) {
            String e = h.substring(p + 1);
            if (e.isEmpty() || !e.matches("[+-]?\\d{1,9}")) {
                return null;
            }
            exp = Long.parseLong(e.startsWith("+") ? e.substring(1) : e);
        }
        int dot = mant.indexOf('.');
        String digits = dot < 0 ? mant : mant.substring(0, dot) + mant.substring(dot + 1);
        if (digits.isEmpty() || !digits.matches("[0-9a-f]+") || mant.indexOf('.', dot + 1) > 0) {
            return null;
        }
        int fracDigits = dot < 0 ? 0 : mant.length() - dot - 1;
        long e2 = exp - 4L * fracDigits;
        if (Math.abs(e2) > 40_000) {
            return null;
        }
        BigDecimal m = new BigDecimal(new BigInteger(digits, 16));
        return scaleByPow2(m, (int) e2);
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == '\f';
    }

    /**
     * Rounds an exact decimal to the nearest x87 80-bit long double (64-bit significand, round
     * half to even), which is what Redis's {@code long double} arithmetic produces. Returns null
     * on overflow to infinity.
     */
    public static BigDecimal roundToLongDouble(BigDecimal v) {
        if (v.signum() == 0) {
            return BigDecimal.ZERO;
        }
        BigDecimal abs = v.abs();
        if (abs.compareTo(LD_OVERFLOW) >= 0) {
            return null;
        }
        // find e with 2^63 <= abs / 2^e < 2^64
        int e = (int) Math.floor(estimateLog2(abs)) - 63;
        BigDecimal scaled = scaleByPow2(abs, -e);
        while (scaled.compareTo(POW2_63) < 0) {
            e--;
            scaled = scaleByPow2(abs, -e);
        }
        while (scaled.compareTo(POW2_64) >= 0) {
            e++;
            scaled = scaleByPow2(abs, -e);
        }
        BigDecimal mant = scaled.setScale(0, RoundingMode.HALF_EVEN);
        BigDecimal r = scaleByPow2(mant, e);
        return v.signum() < 0 ? r.negate() : r;
    }

    private static final BigDecimal POW2_63 = new BigDecimal(BigInteger.ONE.shiftLeft(63));
    private static final BigDecimal POW2_64 = new BigDecimal(BigInteger.ONE.shiftLeft(64));

    private static double estimateLog2(BigDecimal abs) {
        // log2(unscaled * 10^-scale)
        BigInteger u = abs.unscaledValue();
        int bits = u.bitLength();
        double top = bits > 60 ? u.shiftRight(bits - 60).doubleValue() * Math.pow(2, bits - 60) : u.doubleValue();
        double lg = bits > 1000 ? bits : Math.log(top) / Math.log(2);
        return lg - abs.scale() * (Math.log(10) / Math.log(2));
    }

    private static BigDecimal scaleByPow2(BigDecimal v, int e) {
        if (e >= 0) {
            return v.multiply(new BigDecimal(BigInteger.ONE.shiftLeft(e)));
        }
        // exact: 2^-k = 5^k / 10^k
        return v.multiply(new BigDecimal(BigInteger.valueOf(5).pow(-e))).scaleByPowerOfTen(e);
    }

    /**
     * Formats like Redis's {@code ld2string(..., LD_STR_HUMAN)}: {@code %.17Lf} then trailing
     * zeros (and a trailing dot) removed; "-0" becomes "0".
     */
    public static byte[] formatLongDouble(BigDecimal v) {
        String s = v.setScale(17, RoundingMode.HALF_EVEN).toPlainString();
        if (s.indexOf('.') >= 0) {
            int end = s.length();
            while (s.charAt(end - 1) == '0') {
                end--;
            }
            if (s.charAt(end - 1) == '.') {
                end--;
            }
            s = s.substring(0, end);
        }
        if (s.equals("-0")) {
            s = "0";
        }
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

}
