package dev.cajon.protocol;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The reference the decoder fuzzer compares against: Redis's request parsing (processInputBuffer,
 * processMultibulkBuffer, processInlineBuffer in networking.c) written as the simplest thing that
 * could work, over the whole input at once, with no state kept between reads. The decoder must give
 * the same commands and the same error whatever the reads look like.
 *
 * <p>Two kinds of input are compared only up to a point, the commands before it: where Redis's answer
 * depends on how the bytes arrived ({@link Tail#READS_MATTER}: a count line or an inline line right
 * at the 64 KiB limit, refused or not depending on whether a read ended before its end), and where
 * the decoder does not follow Redis and says so ({@link Tail#UNSPECIFIED}: a header line whose CR is
 * not followed by LF, which Redis skips unseen and netty-codec-redis refuses; an invalid count or
 * length whose line ends the input with its CR, which the decoder refuses before Redis would). It follows the decoder's one documented difference: a bulk payload
 * not followed by CRLF is {@code invalid bulk length}. The splitting of an inline line is
 * {@link InlineSplitter}'s (sdssplitargs), tested on its own by {@code InlineSplitterTest}.
 */
final class RespModel {
    enum Tail {
        /** Everything was decoded, or the rest is an incomplete command Redis waits for. */
        COMPLETE,
        /** The last event is the protocol error Redis sends before it closes the connection. */
        ERROR,
        /** What follows the events is not specified, but must not depend on the reads. */
        UNSPECIFIED,
        /** What follows the events depends on the reads (as it does in Redis). */
        READS_MATTER
    }

    /** Events in {@link DecoderHarness#describe} form. */
    record Result(List<String> events, Tail tail) {
    }

    private final byte[] in;
    private final long maxBulk;
    private final boolean auth;
    private final List<String> events = new ArrayList<>();
    private int p;

    private RespModel(byte[] in, long maxBulk, boolean auth) {
        this.in = in;
        this.maxBulk = Math.min(maxBulk, RequestDecoder.MAX_BULK);
        this.auth = auth;
    }

    static Result parse(byte[] in, DecoderLimits limits) {
        return new RespModel(in, limits.maxBulk(), limits.authRequired()).run();
    }

    private Result run() {
        while (p < in.length) {
            Tail t = in[p] == '*' ? multibulk() : inline();
            if (t != null) {
                return new Result(events, t);
            }
        }
        return new Result(events, Tail.COMPLETE);
    }

    private Result done(Tail t) {
        return new Result(events, t);
    }

    private Tail error(String detail) {
        events.add(DecoderHarness.err(detail));
        return Tail.ERROR;
    }

    /** One inline command; null to go on, else how the input ends. */
    private Tail inline() {
        int nl = indexOf((byte) '\n', p);
        if (nl < 0) {
            return in.length - p > RequestDecoder.INLINE_MAX ? error("too big inline request") : Tail.COMPLETE;
        }
        int len = nl - p; // the line and its '\r', if any
        if (len > RequestDecoder.INLINE_MAX + 1) {
            return error("too big inline request");
        }
        if (len == RequestDecoder.INLINE_MAX + 1) {
            return Tail.READS_MATTER; // refused only if a read ended before the '\n'
        }
        int end = nl > p && in[nl - 1] == '\r' ? nl - 1 : nl;
        byte[][] argv = InlineSplitter.split(Arrays.copyOfRange(in, p, end), 0, end - p);
        p = nl + 1;
        if (argv == null) {
            return error("unbalanced quotes in request");
        }
        if (argv.length > 0) {
            events.add(DecoderHarness.describe(new Argv(argv, true)));
        }
        return null;
    }

    /** One multibulk command; null to go on, else how the input ends. */
    private Tail multibulk() {
        int cr = indexOf((byte) '\r', p + 1);
        if (cr < 0) {
            return in.length - p > RequestDecoder.INLINE_MAX ? error("too big mbulk count string") : Tail.COMPLETE;
        }
        if (cr - p > RequestDecoder.INLINE_MAX - 2) {
            return Tail.READS_MATTER; // "too big mbulk count string" if a read ended before the '\r'
        }
        Long count = redisLong(p + 1, cr);
        if (cr + 1 >= in.length) {
            // Redis waits for the byte after '\r' before it reads the count; the decoder refuses an
            // invalid count at once (the same error Redis sends once one more byte arrives)
            return count == null || count > Integer.MAX_VALUE ? Tail.UNSPECIFIED : Tail.COMPLETE;
        }
        if (in[cr + 1] != '\n') {
            return Tail.UNSPECIFIED;
        }
        if (count == null || count > Integer.MAX_VALUE) {
            return error("invalid multibulk length");
        }
        long n = count;
        if (n > RequestDecoder.UNAUTH_MAX_ARGS && auth) {
            return error("unauthenticated multibulk length");
        }
        p = cr + 2;
        if (n <= 0) {
            return null; // Redis ignores "*0" and negative counts
        }
        List<byte[]> args = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            if (p >= in.length) {
                return Tail.COMPLETE;
            }
            int hcr = indexOf((byte) '\r', p);
            if (in[p] != '$') {
                // Redis answers once the line's '\r' and one more byte are in; the decoder may answer
                // as soon as netty's codec sees the byte: only a complete line is compared
                if (hcr < 0 || hcr + 1 >= in.length) {
                    return Tail.UNSPECIFIED;
                }
                return error("expected '$', got '" + (char) (in[p] & 0xFF) + "'");
            }
            if (hcr < 0) {
                return in.length - p > RequestDecoder.INLINE_MAX ? error("too big bulk count string") : Tail.COMPLETE;
            }
            if (hcr - p > RequestDecoder.INLINE_MAX - 2) {
                return Tail.READS_MATTER;
            }
            Long bulkLen = redisLong(p + 1, hcr);
            if (hcr + 1 >= in.length) {
                return bulkLen == null || bulkLen < 0 ? Tail.UNSPECIFIED : Tail.COMPLETE; // as for the count
            }
            if (in[hcr + 1] != '\n') {
                return Tail.UNSPECIFIED;
            }
            if (bulkLen == null || bulkLen < 0 || bulkLen > maxBulk) {
                return error("invalid bulk length");
            }
            long len = bulkLen;
            if (len > RequestDecoder.UNAUTH_MAX_BULK && auth) {
                return error("unauthenticated bulk length");
            }
            int start = hcr + 2;
            long end = start + len;
            if (end + 2 > in.length) {
                // waiting for the payload and its CRLF; a wrong terminator byte already in is refused
                // by the decoder now, by Redis never (it does not look): not compared
                boolean wrong = end < in.length && in[(int) end] != '\r';
                return wrong ? Tail.UNSPECIFIED : Tail.COMPLETE;
            }
            if (in[(int) end] != '\r' || in[(int) end + 1] != '\n') {
                return error("invalid bulk length"); // the decoder's documented difference
            }
            args.add(Arrays.copyOfRange(in, start, (int) end));
            p = (int) end + 2;
        }
        events.add(DecoderHarness.describe(new Argv(args.toArray(new byte[0][]), false)));
        return null;
    }

    private int indexOf(byte b, int from) {
        for (int i = from; i < in.length; i++) {
            if (in[i] == b) {
                return i;
            }
        }
        return -1;
    }

    /** Redis's string2ll: optional '-', digits without a leading zero, no "-0"; null if not. */
    private Long redisLong(int from, int to) {
        String s = new String(in, from, to - from, java.nio.charset.StandardCharsets.ISO_8859_1);
        if (!s.matches("0|-?[1-9][0-9]{0,19}")) {
            return null;
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return null; // out of range
        }
    }
}
