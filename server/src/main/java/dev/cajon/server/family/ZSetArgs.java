package dev.cajon.server.family;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.command.CommandError;
import dev.cajon.storage.ZSetOps.LexBound;
import dev.cajon.storage.ZSetOps.LexRange;
import dev.cajon.storage.ZSetOps.ScoreRange;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The sorted-set commands' arguments as Redis 7.0.15 reads them (t_zset.c, util.c): a score
 * ({@code string2d}, no leading space, no NaN), and the ends of a score range ({@code
 * zslParseRange}: {@code (} for exclusive, {@code -inf}/{@code +inf}, C's strtod) and of a lex
 * range ({@code zslParseLexRange}: {@code [}, {@code (}, {@code -}, {@code +}), each with Redis's
 * error text.
 */
final class ZSetArgs {
    private ZSetArgs() {
    }

    private static boolean isSpace(int b) {
        return b == ' ' || b == '\t' || b == '\n' || b == 0x0b || b == '\f' || b == '\r';
    }

    /**
     * The end of an exponent's optional sign and digits starting at {@code k} (just after the 'e'
     * or 'p'), or -1 when no digit follows: then the letter is not part of the number.
     */
    private static int exponentEnd(byte[] b, int k) {
        if (k < b.length && (b[k] == '+' || b[k] == '-')) {
            k++;
        }
        if (k >= b.length || !isDigit(b[k])) {
            return -1;
        }
        while (k < b.length && isDigit(b[k])) {
            k++;
        }
        return k;
    }

    private static boolean isDigit(int b) {
        return b >= '0' && b <= '9';
    }

    private static boolean isHex(int b) {
        return isDigit(b) || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F';
    }

    private static boolean matchesWord(byte[] b, int at, String word) {
        if (at + word.length() > b.length) {
            return false;
        }
        for (int i = 0; i < word.length(); i++) {
            if ((b[at + i] | 0x20) != word.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * C's strtod on {@code b[from..]}: the value and, in {@code end[0]}, where parsing stopped
     * (== from when nothing was converted); {@code end[1]} is 1 when the value overflowed or
     * underflowed to zero (strtod's ERANGE with HUGE_VAL or 0). NaN for "nan".
     */
    static double strtod(byte[] b, int from, int[] end) {
        int i = from;
        end[1] = 0;
        while (i < b.length && isSpace(b[i])) {
            i++;
        }
        boolean neg = false;
        if (i < b.length && (b[i] == '+' || b[i] == '-')) {
            neg = b[i] == '-';
            i++;
        }
        if (matchesWord(b, i, "infinity")) {
            end[0] = i + 8;
            return neg ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (matchesWord(b, i, "inf")) {
            end[0] = i + 3;
            return neg ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (matchesWord(b, i, "nan")) {
            int j = i + 3;
            if (j < b.length && b[j] == '(') {
                int k = j + 1;
                while (k < b.length && (isDigit(b[k]) || (b[k] | 0x20) >= 'a' && (b[k] | 0x20) <= 'z' || b[k] == '_')) {
                    k++;
                }
                if (k < b.length && b[k] == ')') {
                    j = k + 1;
                }
            }
            end[0] = j;
            return Double.NaN;
        }
        StringBuilder sb = new StringBuilder(neg ? "-" : "");
        boolean nonZero = false;
        if (i + 1 < b.length && b[i] == '0' && (b[i + 1] | 0x20) == 'x'
                && (i + 2 < b.length && isHex(b[i + 2]) || i + 3 < b.length && b[i + 2] == '.' && isHex(b[i + 3]))) {
            int j = i + 2;
            sb.append("0x");
            int digits = 0;
            while (j < b.length && isHex(b[j])) {
                nonZero |= b[j] != '0';
                sb.append((char) b[j++]);
                digits++;
            }
            if (j < b.length && b[j] == '.') {
                sb.append('.');
                j++;
                while (j < b.length && isHex(b[j])) {
                    nonZero |= b[j] != '0';
                    sb.append((char) b[j++]);
                    digits++;
                }
            }
            if (digits == 0) {
                end[0] = from;
                return 0;
            }
            String exp = "p0";
            if (j < b.length && (b[j] | 0x20) == 'p') {
                int k = exponentEnd(b, j + 1);
                if (k > 0) {
                    exp = new String(b, j, k - j, StandardCharsets.ISO_8859_1);
                    j = k;
                }
            }
            sb.append(exp);
            end[0] = j;
        } else {
            int j = i;
            int digits = 0;
            while (j < b.length && isDigit(b[j])) {
                nonZero |= b[j] != '0';
                sb.append((char) b[j++]);
                digits++;
            }
            if (j < b.length && b[j] == '.') {
                int k = j + 1;
                StringBuilder frac = new StringBuilder(".");
                while (k < b.length && isDigit(b[k])) {
                    nonZero |= b[k] != '0';
                    frac.append((char) b[k++]);
                    digits++;
                }
                if (digits > 0) {
                    sb.append(frac);
                    j = k;
                }
            }
            if (digits == 0) {
                end[0] = from;
                return 0;
            }
            if (j < b.length && (b[j] | 0x20) == 'e') {
                int k = exponentEnd(b, j + 1);
                if (k > 0) {
                    // keep the exponent within what Double.parseDouble reads exactly
                    String e = new String(b, j + 1, k - j - 1, StandardCharsets.ISO_8859_1);
                    sb.append('e').append(clampExponent(e));
                    j = k;
                }
            }
            end[0] = j;
        }
        double v = Double.parseDouble(sb.toString());
        if (Double.isInfinite(v) || v == 0 && nonZero) {
            end[1] = 1;
        }
        return v;
    }

    private static String clampExponent(String e) {
        boolean neg = e.startsWith("-");
        String digits = e.startsWith("-") || e.startsWith("+") ? e.substring(1) : e;
        digits = digits.replaceFirst("^0+(?=\\d)", "");
        if (digits.length() > 6) {
            digits = "999999";
        }
        return (neg ? "-" : "") + digits;
    }

    /** Redis's string2d (getDoubleFromObject): the whole argument, no leading space, no overflow, not NaN. */
    static double parseScore(byte[] b, String error) {
        if (b.length == 0 || isSpace(b[0])) {
            throw new CommandError(error);
        }
        int[] end = new int[2];
        double v = strtod(b, 0, end);
        if (end[0] != b.length || end[1] == 1 || Double.isNaN(v)) {
            throw new CommandError(error);
        }
        return v;
    }

    /** One end of a score range, as Redis's zslParseRange: strtod up to the end (or a NUL), not NaN. */
    private static double rangeItem(byte[] b, boolean[] exclusive, int which) {
        int from = 0;
        if (b.length > 0 && b[0] == '(') {
            exclusive[which] = true;
            from = 1;
        }
        int[] end = new int[2];
        double v = strtod(b, from, end); // converting nothing leaves end[0] at from, and v 0, as strtod
        int stop = end[0];
        if (stop < b.length && b[stop] != 0 || Double.isNaN(v)) {
            throw new CommandError(RedisErrors.ZRANGE_MIN_MAX_NOT_FLOAT);
        }
        return v;
    }

    static ScoreRange scoreRange(byte[] min, byte[] max) {
        boolean[] ex = new boolean[2];
        double lo = rangeItem(min, ex, 0);
        double hi = rangeItem(max, ex, 1);
        return new ScoreRange(lo, ex[0], hi, ex[1]);
    }

    private static LexBound lexItem(byte[] b) {
        if (b.length == 0) {
            return null;
        }
        switch (b[0]) {
            case '+':
                return b.length == 1 || b[1] == 0 ? LexBound.PLUS : null;
            case '-':
                return b.length == 1 || b[1] == 0 ? LexBound.MINUS : null;
            case '(':
                return new LexBound(LexBound.Kind.EXCLUSIVE, Arrays.copyOfRange(b, 1, b.length));
            case '[':
                return new LexBound(LexBound.Kind.INCLUSIVE, Arrays.copyOfRange(b, 1, b.length));
            default:
                return null;
        }
    }

    static LexRange lexRange(byte[] min, byte[] max) {
        LexBound lo = lexItem(min);
        LexBound hi = lexItem(max);
        if (lo == null || hi == null) {
            throw new CommandError(RedisErrors.ZRANGE_MIN_MAX_NOT_LEX);
        }
        return new LexRange(lo, hi);
    }
}
