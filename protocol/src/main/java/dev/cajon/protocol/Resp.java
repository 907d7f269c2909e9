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
