package dev.cajon.server.net;

import dev.cajon.protocol.Argv;
import dev.cajon.protocol.ProtocolError;
import dev.cajon.protocol.Resp;
import dev.cajon.server.ServerContext;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.command.ReplyOutput;
import dev.cajon.server.session.ClientSession;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultFileRegion;
import java.io.IOException;
import java.nio.channels.FileChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One per connection, after the {@code RequestDecoder}: runs each decoded command and collects
 * the replies of a whole read batch in one buffer, which is written and flushed once in
 * {@link #channelReadComplete} (one syscall per batch, however deep the pipeline).
 *
 * <p>Back-pressure: when the socket's outbound buffer passes its high-water mark, reading stops
 * until it drains, so a client that pipelines without reading cannot grow our memory unbounded.
 */
public final class ConnectionHandler extends ChannelInboundHandlerAdapter implements ReplyOutput {
    private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

    private final ServerContext server;
    private ChannelHandlerContext ctx;
    private ClientSession session;
    private Ctx command;
    private ByteBuf batch;
    private boolean closing;

    public ConnectionHandler(ServerContext server) {
        this.server = server;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        String remote = String.valueOf(ctx.channel().remoteAddress()).replaceFirst("^.*?/", "");
        String local = String.valueOf(ctx.channel().localAddress()).replaceFirst("^.*?/", "");
        session = server.newSession(remote, local);
        command = new Ctx(server, session, this);
        super.channelActive(ctx);
    }

    @Override
    public ByteBuf buffer() {
        if (batch == null) {
            batch = ctx.alloc().ioBuffer(256);
        }
        return batch;
    }

    @Override
    public void streamFile(FileChannel file, long position, long length) {
        if (batch != null && batch.isReadable()) {
            server.stats().netOutputBytes.add(batch.readableBytes());
            ctx.write(batch, ctx.voidPromise());
        } else if (batch != null) {
            batch.release();
        }
        batch = null;
        server.stats().netOutputBytes.add(length);
        ctx.write(new DefaultFileRegion(file, position, length), ctx.voidPromise());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            return;
        }
        if (msg instanceof Argv) {
            Argv argv = (Argv) msg;
            server.dispatcher().dispatch(command, argv);
            if (session.shouldClose()) {
                closing = true;
                flushBatch(true);
            }
        } else if (msg instanceof ProtocolError) {
            Resp.error(buffer(), ((ProtocolError) msg).message());
            closing = true;
            flushBatch(true);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flushBatch(false);
        // replies are on their way; in an expiry backlog this loop now deletes a few due keys
        server.assistExpiry();
    }

    private void flushBatch(boolean thenClose) {
        ByteBuf b = batch;
        batch = null;
        if (b != null && b.isReadable()) {
            server.stats().netOutputBytes.add(b.readableBytes());
            ctx.write(b, ctx.voidPromise());
        } else if (b != null) {
            b.release();
        }
        if (thenClose) {
            ctx.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.flush();
        if (!ctx.channel().isWritable()) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            ctx.channel().config().setAutoRead(true);
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (batch != null) {
            batch.release();
            batch = null;
        }
        if (session != null) {
            server.sessionClosed(session);
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            log.debug("connection {} closed: {}", session == null ? "?" : session.id(), cause.toString());
        } else {
            log.warn("connection {} failed", session == null ? "?" : session.id(), cause);
        }
        ctx.close();
    }
}
