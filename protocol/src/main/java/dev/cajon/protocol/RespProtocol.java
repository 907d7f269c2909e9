package dev.cajon.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * The reply types whose encoding depends on the connection's protocol (HELLO 2 or HELLO 3), as
 * Redis's {@code addReplyMapLen}, {@code addReplyNull}, {@code addReplyDouble} ... choose between
 * RESP2 and RESP3.
 *
 * <p>What must stay true: a connection holds one of the two instances ({@link #RESP2} or
 * {@link #RESP3}), chosen once by HELLO, and a handler never branches on the protocol. The
 * per-protocol parts are data (the null reply's bytes, the map's type byte and length factor), so
 * the RESP2 hot path (GET's null, MGET's array) reads a field and writes bytes exactly as before.
 * Only the rare types (double, boolean, verbatim, big number) test {@link #resp3} inside their
 * encoder.
 */
public final class RespProtocol {
    private static final byte[] NULL3 = Resp.ascii("_\r\n");
    private static final byte[] TRUE3 = Resp.ascii("#t\r\n");
    private static final byte[] FALSE3 = Resp.ascii("#f\r\n");

    /** RESP2: maps are flat arrays of 2n elements, sets are arrays, nulls are {@code $-1} / {@code *-1}. */
    public static final RespProtocol RESP2 = new RespProtocol(2);
    /** RESP3: {@code %} maps, {@code ~} sets, {@code _} null, {@code ,} doubles, {@code #} booleans. */
    public static final RespProtocol RESP3 = new RespProtocol(3);

    private final int version;
    private final boolean resp3;
    /** The null bulk string: {@code $-1} or {@code _}. */
    private final byte[] nullBulk;
    /** The null array (EXEC aborted by WATCH): {@code *-1} or {@code _}. */
    private final byte[] nullArray;
    private final byte mapType;
    private final int mapFactor;
    private final byte setType;
    private final byte pushType;
    private final byte[] emptyMap;
    private final byte[] emptySet;

    private RespProtocol(int version) {
        this.version = version;
        this.resp3 = version == 3;
        this.nullBulk = resp3 ? NULL3 : Resp.NULL_BULK;
        this.nullArray = resp3 ? NULL3 : Resp.NULL_ARRAY;
        this.mapType = (byte) (resp3 ? '%' : '*');
        this.mapFactor = resp3 ? 1 : 2;
        this.setType = (byte) (resp3 ? '~' : '*');
        this.pushType = (byte) (resp3 ? '>' : '*');
        this.emptyMap = Resp.ascii(resp3 ? "%0\r\n" : "*0\r\n");
        this.emptySet = Resp.ascii(resp3 ? "~0\r\n" : "*0\r\n");
    }

    /** The instance for HELLO's protover: 2 or 3, else null (NOPROTO). */
    public static RespProtocol of(long version) {
        return version == 2 ? RESP2 : version == 3 ? RESP3 : null;
    }

    public int version() {
        return version;
    }

    public boolean isResp3() {
        return resp3;
    }

    public void nullBulk(ByteBuf out) {
        out.writeBytes(nullBulk);
    }

    public void nullArray(ByteBuf out) {
        out.writeBytes(nullArray);
    }

    /** A map of {@code n} key/value pairs follows (RESP2: an array of 2n elements). */
    public void mapHeader(ByteBuf out, long n) {
        if (n == 0) {
            out.writeBytes(emptyMap);
            return;
        }
        aggregate(out, mapType, n * mapFactor);
    }

    /** A set of {@code n} members follows (RESP2: an array). */
    public void setHeader(ByteBuf out, long n) {
        if (n == 0) {
            out.writeBytes(emptySet);
            return;
        }
        aggregate(out, setType, n);
    }

    /** An out-of-band push of {@code n} elements follows (RESP2: an array, as Pub/Sub messages). */
    public void pushHeader(ByteBuf out, long n) {
        aggregate(out, pushType, n);
    }

    /** A boolean: RESP3 {@code #t} / {@code #f}, RESP2 the integers 1 / 0. */
    public void bool(ByteBuf out, boolean v) {
        out.writeBytes(resp3 ? (v ? TRUE3 : FALSE3) : (v ? Resp.ONE : Resp.ZERO));
    }

    /** A double as Redis 7.0 writes it ({@code %.17g}, {@code inf}): RESP3 {@code ,}, RESP2 a bulk string. */
    public void doubleValue(ByteBuf out, double d) {
        String s = Resp.formatDouble(d);
        if (resp3) {
            out.writeByte(',');
            out.writeCharSequence(s, StandardCharsets.US_ASCII);
            Resp.crlf(out);
        } else {
            Resp.bulk(out, s);
        }
    }

    /**
     * A verbatim string (INFO, CLIENT LIST): RESP3 {@code =len\r\ntxt:...}, RESP2 a bulk string.
     * {@code format} is three characters, "txt" or "mkd".
     */
    public void verbatim(ByteBuf out, String format, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        if (!resp3) {
            Resp.bulk(out, b);
            return;
        }
        out.writeByte('=');
        Resp.writeLong(out, b.length + 4L);
        Resp.crlf(out);
        out.writeCharSequence(format, StandardCharsets.US_ASCII);
        out.writeByte(':');
        out.writeBytes(b);
        Resp.crlf(out);
    }

    /** A big number given as its decimal digits: RESP3 {@code (}, RESP2 a bulk string. */
    public void bigNumber(ByteBuf out, String digits) {
        if (!resp3) {
            Resp.bulk(out, digits);
            return;
        }
        out.writeByte('(');
        out.writeCharSequence(digits, StandardCharsets.US_ASCII);
        Resp.crlf(out);
    }

    private static void aggregate(ByteBuf out, byte type, long n) {
        out.writeByte(type);
        Resp.writeLong(out, n);
        Resp.crlf(out);
    }

    @Override
    public String toString() {
        return "RESP" + version;
    }
}
