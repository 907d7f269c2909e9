package dev.cajon.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * RESP2 reply encoding straight into a {@link ByteBuf}. Frequent replies are encoded once
 * ({@link #OK}, {@link #PONG}, ...) and copied with a single {@code writeBytes}. Integers are
 * written digit by digit, with no String in between.
 */
public final class Resp {
    public static final byte[] OK = ascii("+OK\r\n");
    public static final byte[] PONG = ascii("+PONG\r\n");
    public static final byte[] QUEUED = ascii("+QUEUED\r\n");
    public static final byte[] NULL_BULK = ascii("$-1\r\n");
    public static final byte[] NULL_ARRAY = ascii("*-1\r\n");
    public static final byte[] EMPTY_BULK = ascii("$0\r\n\r\n");
    public static final byte[] EMPTY_ARRAY = ascii("*0\r\n");
    public static final byte[] ZERO = ascii(":0\r\n");
    public static final byte[] ONE = ascii(":1\r\n");
    public static final byte[] MINUS_ONE = ascii(":-1\r\n");
    public static final byte[] MINUS_TWO = ascii(":-2\r\n");

    private static final byte[] CRLF = {'\r', '\n'};
    private static final int SHARED_INTS = 10_000;
    private static final byte[][] INT_REPLIES = new byte[SHARED_INTS][];

    static {
        for (int i = 0; i < SHARED_INTS; i++) {
            INT_REPLIES[i] = ascii(":" + i + "\r\n");
        }
    }

    private Resp() {
    }

    public static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    public static void raw(ByteBuf out, byte[] encoded) {
        out.writeBytes(encoded);
    }

    public static void simple(ByteBuf out, String s) {
        out.writeByte('+');
        out.writeCharSequence(s, StandardCharsets.UTF_8);
        out.writeBytes(CRLF);
    }

    /**
     * An error reply; {@code message} starts with its code, e.g. "ERR syntax error". Chars are
     * written as single bytes (ISO-8859-1: error texts carry client bytes verbatim), and CR or LF
     * become spaces, as Redis does, so a client's argument can never break the reply stream.
     */
    public static void error(ByteBuf out, String message) {
        out.writeByte('-');
        for (int i = 0, n = message.length(); i < n; i++) {
            char c = message.charAt(i);
            out.writeByte(c == '\r' || c == '\n' ? ' ' : c);
        }
        out.writeBytes(CRLF);
    }

    public static void integer(ByteBuf out, long v) {
        if (v >= 0 && v < SHARED_INTS) {
            out.writeBytes(INT_REPLIES[(int) v]);
            return;
        }
        out.writeByte(':');
        writeLong(out, v);
        out.writeBytes(CRLF);
    }

    public static void bulk(ByteBuf out, byte[] b) {
        bulk(out, b, 0, b.length);
    }

    public static void bulk(ByteBuf out, byte[] b, int off, int len) {
        out.writeByte('$');
        writeLong(out, len);
        out.writeBytes(CRLF);
        out.writeBytes(b, off, len);
        out.writeBytes(CRLF);
    }

    public static void bulk(ByteBuf out, String s) {
        bulk(out, s.getBytes(StandardCharsets.UTF_8));
    }

    /** A bulk string holding the decimal form of {@code v}. */
    public static void bulkLong(ByteBuf out, long v) {
        int len = digits(v);
        out.writeByte('$');
        writeLong(out, len);
        out.writeBytes(CRLF);
        writeLong(out, v);
        out.writeBytes(CRLF);
    }

    /** Only the "$<len>\r\n" prefix, for payloads written separately (file regions). */
    public static void bulkHeader(ByteBuf out, long len) {
        out.writeByte('$');
        writeLong(out, len);
        out.writeBytes(CRLF);
    }

    public static void crlf(ByteBuf out) {
        out.writeBytes(CRLF);
    }

    public static void nullBulk(ByteBuf out) {
        out.writeBytes(NULL_BULK);
    }

    public static void arrayHeader(ByteBuf out, long n) {
        out.writeByte('*');
        writeLong(out, n);
        out.writeBytes(CRLF);
    }

    /**
     * A double as C's {@code printf("%.17g")} writes it, which is what Redis 7.0's addReplyDouble
     * sends: 17 significant digits, trailing zeros dropped, an exponent of at least two digits
     * below 1e-4 and from 1e17; "inf", "-inf" and "nan" for the special values.
     */
    public static String formatDouble(double d) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0) {
            return 1 / d < 0 ? "-0" : "0";
        }
        java.math.BigDecimal v = new java.math.BigDecimal(d).round(new java.math.MathContext(17,
                java.math.RoundingMode.HALF_EVEN));
        int exp = v.precision() - v.scale() - 1;
        if (exp < -4 || exp >= 17) {
            String digits = v.unscaledValue().abs().toString();
            digits = digits.replaceFirst("0+$", "");
            StringBuilder sb = new StringBuilder();
            if (v.signum() < 0) {
                sb.append('-');
            }
            sb.append(digits.charAt(0));
            if (digits.length() > 1) {
                sb.append('.').append(digits, 1, digits.length());
            }
            sb.append(exp < 0 ? "e-" : "e+");
            int a = Math.abs(exp);
            if (a < 10) {
                sb.append('0');
            }
            return sb.append(a).toString();
        }
        String plain = v.setScale(Math.max(0, 16 - exp), java.math.RoundingMode.HALF_EVEN).toPlainString();
        if (plain.indexOf('.') >= 0) {
            plain = plain.replaceFirst("0+$", "").replaceFirst("\\.$", "");
        }
        return plain;
    }

    static int digits(long v) {
        if (v == Long.MIN_VALUE) {
            return 20;
        }
        int n = 1;
        if (v < 0) {
            n++;
            v = -v;
        }
        while (v >= 10) {
            v /= 10;
            n++;
        }
        return n;
    }

    /** Writes the decimal digits of {@code v}. */
    public static void writeLong(ByteBuf out, long v) {
        if (v == Long.MIN_VALUE) {
            out.writeCharSequence("-9223372036854775808", StandardCharsets.US_ASCII);
            return;
        }
        if (v < 0) {
            out.writeByte('-');
            v = -v;
        }
        if (v < 10) {
            out.writeByte((int) ('0' + v));
            return;
        }
        int len = digits(v);
        int end = out.writerIndex() + len;
        out.ensureWritable(len);
        int p = end;
        while (v > 0) {
            out.setByte(--p, (int) ('0' + v % 10));
            v /= 10;
        }
        out.writerIndex(end);
    }
}
