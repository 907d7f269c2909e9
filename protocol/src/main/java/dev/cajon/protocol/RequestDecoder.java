package dev.cajon.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.redis.ArrayHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringRedisContent;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.LastBulkStringRedisContent;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.RedisDecoderBridge;
import io.netty.util.ReferenceCountUtil;
import java.util.AbstractList;
import java.util.List;

/**
 * Turns the bytes of a client connection into {@link Argv} commands, or one {@link ProtocolError}
 * after which nothing more is decoded.
 *
 * <h2>How it splits the work</h2>
 * At each command boundary it looks at the first byte, as Redis does:
 * <ul>
 *   <li>{@code *} starts a RESP multibulk command. Framing is done by netty-codec-redis's
 *       {@link RedisDecoder}; this class validates what it hands over with Redis's rules (every
 *       element a bulk string; counts and lengths without leading zeros or "-0"; no null
 *       arguments) and copies each argument out.</li>
 *   <li>anything else is an inline command: a line ended by LF or CRLF, split like
 *       {@code sdssplitargs} ({@link InlineSplitter}). The codec cannot do this: it requires
 *       CRLF and does not split quotes.</li>
 * </ul>
 *
 * <h2>The subtle part: the codec reads ahead and keeps state</h2>
 * The codec's decode loop does not stop at the end of a command, and between reads it may hold a
 * half-read header (it consumes a {@code *} or {@code $} before it has the line). Two rules keep
 * this class in charge of the byte stream:
 * <ol>
 *   <li>Frames arrive through a sink that records the reader index where each command and each
 *       element starts ({@code boundary}, {@code elementStart}). If the codec runs past a
 *       command into something that is not multibulk (an inline line, a top-level {@code $}),
 *       the reader index is wound back to the boundary and that line is decoded as inline.</li>
 *   <li>Whenever the codec stops for want of bytes outside a bulk payload, the reader index is
 *       wound back to the start of the unfinished header and the codec is replaced by a fresh
 *       one. So no header is ever split across reads inside the codec, the recorded indexes are
 *       always from the current read (the cumulation buffer may move bytes between reads), and
 *       the byte that starts the next element is always at hand for error messages.</li>
 * </ol>
 *
 * <h2>Errors</h2>
 * Redis's texts: {@code invalid multibulk length}, {@code invalid bulk length},
 * {@code expected '$', got 'X'}, {@code too big mbulk count string},
 * {@code too big bulk count string}, {@code unbalanced quotes in request},
 * {@code too big inline request}, and before AUTH {@code unauthenticated multibulk length} and
 * {@code unauthenticated bulk length} (see {@link DecoderLimits}). Past
 * {@code client-query-buffer-limit} it emits {@link #QUERY_BUFFER_FULL}, which closes the
 * connection without a reply. Commands decoded before the error are emitted first.
 *
 * <p>Before AUTH, commands are decoded one at a time: the sink stops the codec right after a
 * command (it throws), the rest of the bytes stay in the buffer, and Netty's decode loop hands
 * the command to the connection, which runs it, before it calls {@link #decode} again. So an
 * AUTH lifts the limits for the very next command of the same pipeline, as in Redis.
 * One deliberate difference: Redis does not check the CRLF after a bulk payload; the codec does,
 * so a malformed payload terminator closes the connection with {@code invalid bulk length}.
 */
public final class RequestDecoder extends ByteToMessageDecoder {
    /** Redis's PROTO_INLINE_MAX_SIZE: the longest inline line or count line. */
    static final int INLINE_MAX = 64 * 1024;
    /** Redis's proto-max-bulk-len default, and the most the codec accepts. */
    public static final long MAX_BULK = 512L * 1024 * 1024;
    /** Redis's limits before AUTH (processMultibulkBuffer): arguments, and bytes per bulk. */
    static final int UNAUTH_MAX_ARGS = 10;
    static final int UNAUTH_MAX_BULK = 16 * 1024;
    /** The connection closes without a reply: client-query-buffer-limit was passed. */
    public static final ProtocolError QUERY_BUFFER_FULL = new ProtocolError("query buffer limit");
    /** Thrown from the sink to stop the codec right after a command (one at a time before AUTH). */
    private static final RuntimeException STOP = new RuntimeException("stop after a command", null, false, false) {
    };
    /**
     * A bulk argument starts with the bytes of it already received, at least this much, and grows
     * (doubling) as the rest arrives: what it announced is never allocated ahead of its bytes, so
     * a swarm of connections announcing 512 MB each and sending nothing costs 4 KiB each.
     */
    private static final int INITIAL_BULK = 4 * 1024;

    private static final int NO_PENDING = 0;
    private static final int PENDING_MBULK = 1;
    private static final int PENDING_BULK = 2;

    private final DecoderLimits limits;
    private RedisDecoder codec = new RedisDecoder(false);
    /** The sink threw {@link #STOP}: a command is complete and must run before the next is read. */
    private boolean stopped;
    private final Sink sink = new Sink();
    private boolean failed;

    // ---- the command being assembled from codec frames
    private boolean inCommand;
    private byte[][] args;
    private int argc;
    private int argsExpected;
    private byte[] bulk;
    private int bulkLen;
    private int bulkFill;
    /** Reader index where the current command starts (or the next one will). This read only. */
    private int boundary;
    /** Reader index where the current element's "$" is. This read only. */
    private int elementStart;
    /** A count line the codec refused before its end arrived: wait for it, as Redis does. */
    private int pendingHeader = NO_PENDING;
    /** Set by the sink when decoding must stop: a protocol error or a rewind to inline mode. */
    private ProtocolError error;
    private boolean rewind;

    private ByteBuf current;
    private List<Object> currentOut;

    public RequestDecoder() {
        this(DecoderLimits.DEFAULT);
    }

    public RequestDecoder(DecoderLimits limits) {
        this.limits = limits;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        // the previous read ended at a header start (rule 2): re-anchor the indexes there
        if (!inCommand || args == null) {
            boundary = in.readerIndex();
        }
        if (args != null && bulk == null) {
            elementStart = in.readerIndex();
        }
        while (!failed && in.isReadable()) {
            if (!out.isEmpty() && limits.authRequired()) {
                return; // before AUTH: one command at a time, so that AUTH counts for the next
            }
            if ((long) in.readableBytes() + bulkFill > limits.maxQueryBuffer()) {
                fail(in, out, QUERY_BUFFER_FULL);
                return;
            }
            if (pendingHeader != NO_PENDING) {
                checkPendingHeader(in, out);
                return;
            }
            if (!inCommand) {
                boundary = in.readerIndex();
                if (in.getByte(boundary) != '*') {
                    if (!decodeInline(in, out)) {
                        return;
                    }
                    continue;
                }
                inCommand = true;
                args = null;
            }
            current = in;
            currentOut = out;
            rewind = false;
            error = null;
            boolean skipped = false;
            try {
                RedisDecoderBridge.decode(codec, ctx, in, sink);
            } catch (Exception e) {
                if (stopped) {
                    // a command is complete and out: the rest waits in the buffer for the next call
                    stopped = false;
                    in.readerIndex(boundary);
                    codec = new RedisDecoder(false);
                    return;
                }
                if (error == null && !rewind) {
                    skipped = onCodecError(in);
                }
            } finally {
                current = null;
                currentOut = null;
            }
            if (error != null) {
                fail(in, out, error);
                return;
            }
            if (rewind) {
                // the codec ran past a command into something that is not multibulk
                in.readerIndex(boundary);
                codec = new RedisDecoder(false);
                resetCommand();
                continue;
            }
            if (skipped || pendingHeader != NO_PENDING) {
                continue;
            }
            // the codec wants more bytes: rule 2
            ProtocolError early = inCommand && args != null && bulk == null ? refusedElementLine(in) : null;
            if (early != null) {
                fail(in, out, early);
                return;
            }
            if (bulk == null) {
                int anchor = inCommand && args != null ? elementStart : boundary;
                if (in.readerIndex() != anchor) {
                    in.readerIndex(anchor);
                    codec = new RedisDecoder(false);
                }
            }
            return;
        }
    }

    /**
     * The codec threw. Works out Redis's answer: an error, a wait for the rest of an overlong
     * count line, a rewind to inline mode, or (for a negative count, which Redis ignores) a skip.
     * Returns true when decoding can go on at once (the skip).
     */
    private boolean onCodecError(ByteBuf in) {
        codec = new RedisDecoder(false);
        if (!inCommand) {
            rewind = true; // not multibulk after a boundary: an inline line (or garbage) follows
            return false;
        }
        if (args == null) {
            int cr = in.indexOf(boundary + 1, in.writerIndex(), (byte) '\r');
            if (cr < 0) {
                in.readerIndex(boundary);
                pendingHeader = PENDING_MBULK;
                return false;
            }
            long n = redisLong(in, boundary + 1, cr);
            if (n != Long.MIN_VALUE && n <= 0) {
                in.readerIndex(Math.min(cr + 2, in.writerIndex()));
                resetCommand();
                return true;
            }
            error = new ProtocolError("invalid multibulk length");
            return false;
        }
        if (bulk != null) {
            error = new ProtocolError("invalid bulk length");
            return false;
        }
        int first = in.getByte(elementStart) & 0xFF;
        if (first != '$') {
            error = expectedDollar(first);
            return false;
        }
        int cr = in.indexOf(elementStart + 1, in.writerIndex(), (byte) '\r');
        if (cr < 0) {
            in.readerIndex(elementStart);
            pendingHeader = PENDING_BULK;
            return false;
        }
        error = new ProtocolError("invalid bulk length");
        return false;
    }

    /**
     * The error Redis sends for an element line the codec is still waiting on, or null. Redis
     * judges an element's line as soon as it has its '\r' and one byte more: one that does not
     * start with '$' ({@code "*1\r\n-\r-"}), or whose length is not a valid one ({@code "$-0"},
     * {@code "$00"}, which the codec reads as 0 and waits for the empty payload), is refused then.
     * Without this the client would get no answer until it sent more.
     */
    private ProtocolError refusedElementLine(ByteBuf in) {
        if (elementStart >= in.writerIndex()) {
            return null;
        }
        int cr = in.indexOf(elementStart, in.writerIndex(), (byte) '\r');
        if (cr < 0 || cr + 1 >= in.writerIndex()) {
            return null;
        }
        int first = in.getByte(elementStart) & 0xFF;
        if (first != '$') {
            return expectedDollar(first);
        }
        long len = redisLong(in, elementStart + 1, cr);
        return len == Long.MIN_VALUE || len < 0 ? new ProtocolError("invalid bulk length") : null;
    }

    private static ProtocolError expectedDollar(int got) {
        return new ProtocolError("expected '$', got '" + (char) got + "'");
    }

    /** Waits for the end of an overlong count line; Redis gives up after 64 KiB. */
    private void checkPendingHeader(ByteBuf in, List<Object> out) {
        int start = in.readerIndex();
        boolean mbulk = pendingHeader == PENDING_MBULK;
        if (in.indexOf(start + 1, in.writerIndex(), (byte) '\r') >= 0) {
            fail(in, out, new ProtocolError(mbulk ? "invalid multibulk length" : "invalid bulk length"));
        } else if (in.readableBytes() > INLINE_MAX) {
            fail(in, out, new ProtocolError(mbulk ? "too big mbulk count string" : "too big bulk count string"));
        }
    }

    /**
     * Redis's string2ll over {@code in[from, to)}: optional '-', no '+', no leading zeros, no
     * "-0", at most 20 characters. Long.MIN_VALUE when it is not a valid number. Redis's own
     * LLONG_MIN, "-9223372036854775808", is valid (a count Redis ignores, as any negative one): it is
     * returned as {@code Long.MIN_VALUE + 1}, which every caller treats alike (a negative number).
     */
    private static long redisLong(ByteBuf in, int from, int to) {
        int len = to - from;
        if (len <= 0 || len > 20) {
            return Long.MIN_VALUE;
        }
        if (len == 1 && in.getByte(from) == '0') {
            return 0;
        }
        int i = from;
        boolean neg = in.getByte(i) == '-';
        if (neg) {
            i++;
        }
        if (i == to || in.getByte(i) < '1' || in.getByte(i) > '9') {
            return Long.MIN_VALUE;
        }
        // accumulated as a negative number: its range holds one more than the positive one
        long v = 0;
        for (; i < to; i++) {
            int d = in.getByte(i) - '0';
            if (d < 0 || d > 9 || v < (Long.MIN_VALUE + d) / 10) {
                return Long.MIN_VALUE;
            }
            v = v * 10 - d;
        }
        if (!neg) {
            return v == Long.MIN_VALUE ? Long.MIN_VALUE : -v; // 9223372036854775808 is out of range
        }
        return v == Long.MIN_VALUE ? Long.MIN_VALUE + 1 : v;
    }

    private void fail(ByteBuf in, List<Object> out, ProtocolError e) {
        failed = true;
        resetCommand();
        in.skipBytes(in.readableBytes());
        out.add(e);
    }

    private void resetCommand() {
        inCommand = false;
        args = null;
        argc = 0;
        bulk = null;
        bulkFill = 0;
        pendingHeader = NO_PENDING;
    }

    /** Receives codec frames one by one as the codec produces them. */
    private final class Sink extends AbstractList<Object> {
        @Override
        public boolean add(Object msg) {
            try {
                if (error == null && !rewind) {
                    onFrame(msg);
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
            return true;
        }

        @Override
        public Object get(int index) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int size() {
            return 0;
        }
    }

    private void onFrame(Object msg) {
        ByteBuf in = current;
        if (!inCommand || args == null) {
            if (!(msg instanceof ArrayHeaderRedisMessage)) {
                rewind = true; // a top-level '$', ':', '+', '-': Redis reads that line as inline
                return;
            }
            inCommand = true;
            // the line is "*<n>\r\n" from the boundary to here
            long n = redisLong(in, boundary + 1, in.readerIndex() - 2);
            if (n == Long.MIN_VALUE || n > Integer.MAX_VALUE) {
                error = new ProtocolError("invalid multibulk length");
                return;
            }
            if (n > UNAUTH_MAX_ARGS && limits.authRequired()) {
                error = new ProtocolError("unauthenticated multibulk length");
                return;
            }
            if (n <= 0) {
                resetCommand(); // Redis ignores "*0" and negative counts
                boundary = in.readerIndex();
                return;
            }
            args = new byte[(int) Math.min(n, 1024)][];
            argsExpected = (int) n;
            argc = 0;
            elementStart = in.readerIndex();
            return;
        }
        if (bulk == null) {
            int first = in.getByte(elementStart) & 0xFF;
            if (first != '$') {
                error = expectedDollar(first);
                return;
            }
            if (msg instanceof FullBulkStringRedisMessage) {
                FullBulkStringRedisMessage full = (FullBulkStringRedisMessage) msg;
                // "$0\r\n\r\n" (null "$-1" is not an argument): the count must be exactly "0"
                if (full.isNull() || redisLong(in, elementStart + 1, in.readerIndex() - 4) != 0) {
                    error = new ProtocolError("invalid bulk length");
                    return;
                }
                addArg(new byte[0]);
                return;
            }
            if (msg instanceof BulkStringHeaderRedisMessage) {
                long len = redisLong(in, elementStart + 1, in.readerIndex() - 2);
                if (len < 0 || len > Math.min(MAX_BULK, limits.maxBulk())) {
                    error = new ProtocolError("invalid bulk length");
                    return;
                }
                if (len > UNAUTH_MAX_BULK && limits.authRequired()) {
                    error = new ProtocolError("unauthenticated bulk length");
                    return;
                }
                bulkLen = (int) len;
                bulk = new byte[Math.min(bulkLen, Math.max(INITIAL_BULK, in.readableBytes()))];
                bulkFill = 0;
                return;
            }
            error = new ProtocolError("invalid bulk length");
            return;
        }
        if (msg instanceof BulkStringRedisContent) {
            ByteBuf c = ((BulkStringRedisContent) msg).content();
            int n = c.readableBytes();
            if (bulkFill + n > bulk.length) {
                bulk = java.util.Arrays.copyOf(bulk, (int) Math.min(bulkLen,
                        Math.max((long) bulkFill + n, (long) bulk.length * 2)));
            }
            c.getBytes(c.readerIndex(), bulk, bulkFill, n);
            bulkFill += n;
            if (msg instanceof LastBulkStringRedisContent) {
                byte[] b = bulk;
                bulk = null;
                addArg(b);
            }
            return;
        }
        error = new ProtocolError("invalid bulk length");
    }

    private void addArg(byte[] b) {
        if (argc == args.length) {
            byte[][] grown = new byte[(int) Math.min((long) args.length * 2, argsExpected)][];
            System.arraycopy(args, 0, grown, 0, argc);
            args = grown;
        }
        args[argc++] = b;
        ByteBuf in = current;
        elementStart = in.readerIndex();
        if (argc == argsExpected) {
            currentOut.add(new Argv(args, false));
            resetCommand();
            boundary = in.readerIndex();
            if (limits.authRequired()) {
                stopped = true;
                throw STOP;
            }
        }
    }

    /**
     * Decodes one inline line if complete. Returns false when more bytes are needed. Lines over
     * 64 KiB are refused whether or not their newline has arrived (Redis reads at most 16 KiB at a
     * time, so it never sees such a line whole).
     */
    private boolean decodeInline(ByteBuf in, List<Object> out) {
        int start = in.readerIndex();
        int nl = in.indexOf(start, in.writerIndex(), (byte) '\n');
        // nl - start counts the line and its '\r': a line of up to 64 KiB is a command
        if (nl < 0 || nl - start > INLINE_MAX + 1) {
            if (in.readableBytes() > INLINE_MAX) {
                fail(in, out, new ProtocolError("too big inline request"));
            }
            return false;
        }
        int end = nl;
        if (end > start && in.getByte(end - 1) == '\r') {
            end--;
        }
        byte[] line = new byte[end - start];
        in.getBytes(start, line);
        in.readerIndex(nl + 1);
        byte[][] argv = InlineSplitter.split(line, 0, line.length);
        if (argv == null) {
            fail(in, out, new ProtocolError("unbalanced quotes in request"));
            return true;
        }
        if (argv.length > 0) {
            out.add(new Argv(argv, true));
        }
        return true;
    }
}
