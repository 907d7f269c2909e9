package dev.cajon.server.testkit;

import dev.cajon.protocol.Argv;
import dev.cajon.server.ServerContext;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.command.ReplyOutput;
import dev.cajon.server.session.ClientSession;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One in-process connection: its own {@link ClientSession} and {@link Ctx}, replies collected in
 * a heap buffer. {@code run("set", "k", "v")} dispatches exactly as the Netty handler does and
 * parses the single reply the command must produce.
 *
 * <p>Large values that a real connection would send with sendfile ({@link #streamFile}) are read
 * into the buffer here and their channel closed, so the bytes a socket would carry are what the
 * test sees. Not thread-safe: use one client per thread, like one connection per event loop.
 */
public final class Client implements ReplyOutput, AutoCloseable {
    private final ServerContext context;
    private final ClientSession session;
    private final Ctx ctx;
    private ByteBuf buf = Unpooled.buffer(256);
    private byte[] lastRaw = new byte[0];
    private int streamedRegions;
    private long streamedBytes;
    private boolean closed;

    Client(ServerContext context, String addr) {
        this.context = context;
        this.session = context.newSession(addr, "127.0.0.1:6379");
        this.ctx = new Ctx(context, session, this);
    }

    /**
     * Runs one command and returns its parsed reply. Arguments may be {@code String} (UTF-8),
     * {@code byte[]} (binary-safe, used as is) or anything else (its {@code toString()}).
     */
    public Reply run(Object... args) {
        return RespParser.parseOne(runRaw(args));
    }

    /** Runs one command and returns the exact bytes of its reply. */
    public byte[] runRaw(Object... args) {
        if (closed) {
            throw new IllegalStateException("client closed");
        }
        buf.clear();
        context.dispatcher().dispatch(ctx, argv(args));
        byte[] out = new byte[buf.readableBytes()];
        buf.readBytes(out);
        if (buf.capacity() > (1 << 20)) {
            // do not keep a 20 MiB buffer alive for the rest of the test
            buf.release();
            buf = Unpooled.buffer(256);
        }
        lastRaw = out;
        return out;
    }

    /** The raw bytes of the last reply. */
    public byte[] lastRaw() {
        return lastRaw.clone();
    }

    /** The raw bytes of the last reply as ISO-8859-1 text, for exact comparisons. */
    public String lastRawString() {
        return new String(lastRaw, StandardCharsets.ISO_8859_1);
    }

    public static Argv argv(Object... args) {
        byte[][] a = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            a[i] = bytes(args[i]);
        }
        return new Argv(a, false);
    }

    static byte[] bytes(Object o) {
        if (o instanceof byte[] b) {
            return b;
        }
        if (o instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        return String.valueOf(o).getBytes(StandardCharsets.UTF_8);
    }

    public ClientSession session() {
        return session;
    }

    public long id() {
        return session.id();
    }

    /** How many file regions replies have streamed so far (blob values go this way). */
    public int streamedRegions() {
        return streamedRegions;
    }

    public long streamedBytes() {
        return streamedBytes;
    }

    // ------------------------------------------------------------------ ReplyOutput

    @Override
    public ByteBuf buffer() {
        return buf;
    }

    @Override
    public void streamFile(FileChannel file, long position, long length) {
        try (FileChannel ch = file) {
            buf.ensureWritable((int) Math.min(Integer.MAX_VALUE, length));
            long done = 0;
            while (done < length) {
                int n = buf.writeBytes(ch, position + done, (int) Math.min(Integer.MAX_VALUE, length - done));
                if (n < 0) {
                    throw new AssertionError("blob file shorter than the announced bulk: " + done + " of " + length);
                }
                done += n;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        streamedRegions++;
        streamedBytes += length;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        context.sessionClosed(session);
        buf.release();
    }

    /** Runs several commands and returns their replies in order. */
    public List<Reply> runAll(List<Object[]> commands) {
        List<Reply> out = new ArrayList<>(commands.size());
        for (Object[] c : commands) {
            out.add(run(c));
        }
        return out;
    }
}
