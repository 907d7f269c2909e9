package dev.cajon.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.redis.ArrayHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringRedisContent;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.LastBulkStringRedisContent;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.RedisDecoderBridge;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
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
 *       {@link RedisDecoder}; this class validates what it hands over (every element must be a
 *       bulk string: no nested arrays, integers or nulls) and copies each argument out.</li>
 *   <li>anything else is an inline command: a line ended by LF or CRLF, split like
 *       {@code sdssplitargs} ({@link InlineSplitter}). The codec cannot do this: it requires
 *       CRLF and does not split quotes.</li>
 * </ul>
 *
 * <h2>The one subtle part: the codec reads ahead</h2>
 * The codec's decode loop does not stop at the end of a command. Frames are delivered through a
 * sink that records {@code in.readerIndex()} each time a command completes (the "boundary"). If
 * the codec then meets something that is not a multibulk command (an inline line, or a top-level
 * {@code $}/{@code :}/{@code +}), the reader index is wound back to the boundary, a fresh codec
 * instance replaces the confused one, and that line is decoded as inline, which is what Redis does.
 *
 * <h2>Errors</h2>
 * Redis's texts: {@code invalid multibulk length}, {@code invalid bulk length},
 * {@code expected '$', got 'X'}, {@code unbalanced quotes in request},
 * {@code too big inline request}. Commands decoded before the error are still emitted first.
 */
public final class RequestDecoder extends ByteToMessageDecoder {
    /** Redis's PROTO_INLINE_MAX_SIZE. */
    static final int INLINE_MAX = 64 * 1024;
    /** Arguments above this size are accumulated in a heap array sized by the header. */
    private static final int MAX_MULTIBULK = Integer.MAX_VALUE;

    private RedisDecoder codec = new RedisDecoder(false);
    private final Sink sink = new Sink();
    private boolean failed;

    // ---- the command being assembled from codec frames
    private boolean inCommand;
    private byte[][] args;
    private int argc;
    private byte[] bulk;
    private int bulkFill;
    /** in.readerIndex() where the current element (or command) began. */
    private int elementStart;
    private int boundary;
    /** Set by the sink when decoding must stop: a protocol error or a rewind to inline mode. */
    private ProtocolError error;
    private boolean rewind;

    private ByteBuf current;
    private List<Object> currentOut;
    /** Counts decode() calls: indexes recorded in an earlier call may have been shifted. */
    private long call;
    private long elementStartCall = -1;
    /** First byte of the element being decoded, once seen; -1 before. */
    private int elementFirstByte = -1;
    /** The codec consumed a command's '*' in an earlier call and waits for the rest of "<n>\r\n". */
    private boolean starConsumedEarlier;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        call++;
        try {
            decodeAll(ctx, in, out);
        } finally {
            // remember what later calls cannot recompute (the cumulation may shift indexes)
            starConsumedEarlier = inCommand && args == null;
            if (elementFirstByte < 0 && args != null && bulk == null && elementStartCall == call
                    && elementStart < in.writerIndex()) {
                elementFirstByte = in.getByte(elementStart) & 0xFF;
            }
        }
    }

    private void decodeAll(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        while (!failed && in.isReadable()) {
            if (!inCommand && in.getByte(in.readerIndex()) != '*') {
                if (!decodeInline(in, out)) {
                    return;
                }
                continue;
            }
            if (!inCommand) {
                inCommand = true;
                args = null;
                argc = 0;
                starConsumedEarlier = false;
            }
            boundary = in.readerIndex();
            int before = in.readerIndex();
            current = in;
            currentOut = out;
            rewind = false;
            error = null;
            try {
                RedisDecoderBridge.decode(codec, ctx, in, sink);
            } catch (Exception e) {
                if (error == null && !rewind) {
                    onCodecError(in);
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
            if (in.readerIndex() == before) {
                return; // need more bytes
            }
        }
        if (failed) {
            in.skipBytes(in.readableBytes());
        }
    }

    /** The codec threw: work out which Redis error (or which legal case) it was. */
    private void onCodecError(ByteBuf in) {
        codec = new RedisDecoder(false);
        if (args == null) {
            // failed on the multibulk header "*<n>\r\n", or on the type byte after a boundary
            in.readerIndex(boundary);
            int digits;
            if (starConsumedEarlier) {
                digits = boundary;
            } else if (in.getByte(boundary) == '*') {
                digits = boundary + 1;
            } else {
                rewind = true;
                resetCommand();
                return;
            }
            int nl = in.indexOf(digits, in.writerIndex(), (byte) '\n');
            if (nl < 0) {
                error = new ProtocolError("invalid multibulk length");
                return;
            }
            long n = parseRedisLong(in, digits, nl > digits && in.getByte(nl - 1) == '\r' ? nl - 1 : nl);
            if (n != Long.MIN_VALUE && n <= 0) {
                // Redis ignores "*0" and negative counts
                in.readerIndex(nl + 1);
                resetCommand();
                return;
            }
            error = new ProtocolError("invalid multibulk length");
            return;
        }
        if (bulk != null) {
            error = new ProtocolError("invalid bulk length");
            return;
        }
        int first = elementFirstByte;
        if (first < 0 && elementStartCall == call && elementStart < in.writerIndex()) {
            first = in.getByte(elementStart) & 0xFF;
        }
        if (first >= 0 && first != '$' && first != '-' && (first < '0' || first > '9')) {
            error = new ProtocolError("expected '$', got '" + (char) first + "'");
        } else {
            error = new ProtocolError("invalid bulk length");
        }
    }
    private static long parseRedisLong(ByteBuf in, int from, int to) {
        if (to <= from || to - from > 20) {
            return Long.MIN_VALUE;
        }
        boolean neg = in.getByte(from) == '-';
        int i = neg ? from + 1 : from;
        if (i == to) {
            return Long.MIN_VALUE;
        }
        long v = 0;
        for (; i < to; i++) {
            int d = in.getByte(i) - '0';
            if (d < 0 || d > 9) {
                return Long.MIN_VALUE;
            }
            v = v * 10 + d;
        }
        return neg ? -v : v;
    }

    private void fail(ByteBuf in, List<Object> out, ProtocolError e) {
        failed = true;
        releaseCommand();
        in.skipBytes(in.readableBytes());
        out.add(e);
    }

    private void resetCommand() {
        inCommand = false;
        args = null;
        argc = 0;
        bulk = null;
        bulkFill = 0;
    }

    private void releaseCommand() {
        resetCommand();
    }

    /** Receives codec frames one by one as the codec produces them. */
    private final class Sink extends AbstractList<Object> {
        @Override
        public boolean add(Object msg) {
            try {
                if (error != null || rewind) {
                    return true; // already stopping: drop the read-ahead
                }
                onFrame(msg);
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
        if (!inCommand) {
            // the codec went on past the boundary into a new command
            if (!(msg instanceof ArrayHeaderRedisMessage)) {
                rewind = true;
                return;
            }
            inCommand = true;
        }
        if (args == null) {
            if (!(msg instanceof ArrayHeaderRedisMessage)) {
                rewind = true;
                return;
            }
            long n = ((ArrayHeaderRedisMessage) msg).length();
            if (n <= 0) {
                // "*0" and "*-1" are ignored by Redis
                resetCommand();
                boundary = in.readerIndex();
                return;
            }
            if (n > MAX_MULTIBULK) {
                error = new ProtocolError("invalid multibulk length");
                return;
            }
            args = new byte[(int) Math.min(n, 1024)][];
            argsExpected = (int) n;
            argc = 0;
            markElementStart(in);
            return;
        }
        if (bulk == null) {
            // expecting the start of element argc
            if (msg instanceof FullBulkStringRedisMessage) {
                FullBulkStringRedisMessage full = (FullBulkStringRedisMessage) msg;
                if (full.isNull()) {
                    error = new ProtocolError("invalid bulk length");
                    return;
                }
                ByteBuf c = full.content();
                byte[] b = new byte[c.readableBytes()];
                c.getBytes(c.readerIndex(), b);
                addArg(b);
                return;
            }
            if (msg instanceof BulkStringHeaderRedisMessage) {
                int len = ((BulkStringHeaderRedisMessage) msg).bulkStringLength();
                bulk = new byte[len];
                bulkFill = 0;
                return;
            }
            char got = msg instanceof ArrayHeaderRedisMessage ? '*'
                    : msg instanceof IntegerRedisMessage ? ':'
                    : msg instanceof SimpleStringRedisMessage ? '+'
                    : msg instanceof ErrorRedisMessage ? '-' : '?';
            error = new ProtocolError("expected '$', got '" + got + "'");
            return;
        }
        if (msg instanceof BulkStringRedisContent) {
            ByteBuf c = ((BulkStringRedisContent) msg).content();
            int n = c.readableBytes();
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

    private int argsExpected;

    private void addArg(byte[] b) {
        if (argc == args.length) {
            byte[][] grown = new byte[(int) Math.min((long) args.length * 2, argsExpected)][];
            System.arraycopy(args, 0, grown, 0, argc);
            args = grown;
        }
        args[argc++] = b;
        ByteBuf in = current;
        markElementStart(in);
        if (argc == argsExpected) {
            currentOut.add(new Argv(args, false));
            resetCommand();
            boundary = in.readerIndex();
        }
    }

    private void markElementStart(ByteBuf in) {
        elementStart = in.readerIndex();
        elementStartCall = call;
        elementFirstByte = -1;
    }

    /** Decodes one inline line if complete. Returns false when more bytes are needed. */
    private boolean decodeInline(ByteBuf in, List<Object> out) {
        int start = in.readerIndex();
        int nl = in.indexOf(start, in.writerIndex(), (byte) '\n');
        if (nl < 0) {
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
