package dev.cajon.server.net;

import dev.cajon.protocol.Argv;
import dev.cajon.protocol.DecoderLimits;
import dev.cajon.protocol.ProtocolError;
import dev.cajon.protocol.RequestDecoder;
import dev.cajon.protocol.Resp;
import dev.cajon.server.ServerContext;
import dev.cajon.server.blocking.BlockingKeys;
import dev.cajon.server.command.CommandSpec;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.command.ReplyOutput;
import dev.cajon.server.limits.NetLimits;
import dev.cajon.server.session.ClientPause;
import dev.cajon.server.session.ClientSession;
import dev.cajon.storage.HeldViews;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultFileRegion;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One per connection, after the {@code RequestDecoder}: runs each decoded command and collects
 * the replies of a whole read batch in one buffer, which is written and flushed once in
 * {@link #channelReadComplete} (one syscall per batch, however deep the pipeline).
 *
 * <p>Back-pressure: before each command, if the connection's pending output in memory (the batch
 * and what the socket has not taken yet) is over {@link NetLimits#PAUSE_BYTES}, or a blob file is still being sent ({@link NetLimits#MAX_OPEN_FILES}),
 * the batch is flushed and, if that did not drain it, the connection is throttled: it stops
 * running commands mid-batch, keeps the rest of the read (already decoded, at most one read's
 * worth) in {@link #waiting}, and stops reading (autoRead off, so further input waits in the
 * socket). It resumes when the socket becomes writable or the blob file is sent. So a client that
 * pipelines GETs of large values and never reads holds one blob file descriptor and a few MiB.
 *
 * <p>client-output-buffer-limit: after each command, pending output held in memory (values
 * streamed from files not counted) past the hard limit, or past the soft limit for longer than
 * its seconds, closes the connection at once, as Redis does.
 *
 * <p>CLIENT PAUSE: before a command is dispatched, while a pause is on, the connection asks
 * {@link ClientPause} whether it must wait (after the dispatcher's own generic checks would have
 * passed: their errors are answered at once, as in Redis). A postponed command is kept with
 * every command decoded after it, reading stops (autoRead off, so the client holds no event
 * loop and its input waits in the socket), and the connection resumes on its own event loop when
 * UNPAUSE resumes it or its timer, set for the pause's end by the server's clock, fires; then the
 * kept commands run in order, and one of them may be postponed again by a newer pause.
 *
 * <p>CLIENT REPLY OFF and SKIP: the replies a command wrote are cut off the batch buffer after
 * it ran (its writer index reset), and a large value it would stream from a file is not
 * streamed; as in Redis, error replies are dropped too.
 *
 * <p>Blocking commands (BLPOP ...): a command that blocks parks here ({@link #park}); the
 * connection runs nothing after it until {@link #unpark} (from whichever thread served it or
 * timed it out) writes its reply on this event loop and resumes the commands that waited. Reading
 * goes on meanwhile, as in Redis, so a client that disconnects while blocked is seen and leaves
 * the {@link BlockingKeys} registry.
 *
 * <p>CLIENT KILL: the session is marked killed from whichever thread ran the KILL; this connection
 * then closes on its own event loop and runs nothing it has not started yet.
 */
public final class ConnectionHandler extends ChannelInboundHandlerAdapter
        implements ReplyOutput, ClientPause.Waiter, DecoderLimits, BlockingKeys.Host {
    private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

    private final ServerContext server;
    /** The fsync policy; under {@code always} {@link #flushBatch} waits for the sync of its batch. */
    private final dev.cajon.storage.durability.Durability durability;
    /** Replies wait in {@link GroupCommit} for this loop turn's sync. */
    private boolean deferred;
    private ChannelHandlerContext ctx;
    private ClientSession session;
    private Ctx command;
    private ByteBuf batch;
    private boolean closing;
    /** A command waits for CLIENT PAUSE to end; it is the first of {@link #waiting}. */
    private boolean postponed;
    /** The postponed command and what was decoded after it, in order (Argv or ProtocolError). */
    private final WaitingInput waiting = new WaitingInput();
    /** Fires just after the pause's end time, to ask again. */
    private ScheduledFuture<?> pauseTimer;
    /** Commands wait for pending output to drain (back-pressure); the first of {@link #waiting} is next. */
    private boolean throttled;
    /** Inside {@link #drain}: a write completing during a flush must not start another. */
    private boolean draining;
    /**
     * Blob files queued or being sent. Netty counts a file region as 0 bytes pending, so they are
     * bounded by their number ({@link NetLimits#MAX_OPEN_FILES}), not by the byte counts.
     */
    private int openFiles;
    /** The output buffer limits' state for this connection. */
    private final OutputLimit outputLimit;
    private final java.util.function.LongSupplier pending = this::pendingBytes;
    /** Refused at connect (maxclients, protected mode): no session, nothing runs. */
    private boolean refused;
    /** A blocking command waits for a key ({@link #park}); nothing after it runs meanwhile. */
    private BlockingKeys.Waiter blocked;
    /** Last read or command, for {@code timeout}; read by the sweeper thread. */
    private volatile long lastInteraction;
    /** Writes of this connection's commands held in a collection view could not be applied: it closes. */
    private boolean lostWrites;
    /**
     * Whether a read that ends with a view held leaves it for the end of the loop's turn (on by
     * default; {@code -Dcajon.heldviews.turn=false} applies it at the end of each read instead).
     */
    private static final boolean ACROSS_TURN = !"false".equals(System.getProperty("cajon.heldviews.turn"));
    private final Runnable onLost = () -> lostWrites = true;

    public ConnectionHandler(ServerContext server) {
        this.server = server;
        this.durability = server.store().durability();
        this.outputLimit = new OutputLimit(server.netLimits(), server.clock()::nowMillis);
    }

    // ---------------------------------------------------------------- DecoderLimits

    @Override
    public long maxBulk() {
        return server.netLimits().protoMaxBulkLen();
    }

    @Override
    public boolean authRequired() {
        return session != null && !session.authenticated();
    }

    @Override
    public long maxQueryBuffer() {
        return server.netLimits().clientQueryBufferLimit();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        String refusal = Admission.refusal(server, ctx.channel().remoteAddress());
        if (refusal != null) {
            refused = true;
            closing = true;
            ctx.writeAndFlush(Unpooled.copiedBuffer(refusal, java.nio.charset.StandardCharsets.US_ASCII))
                    .addListener(ChannelFutureListener.CLOSE);
            return;
        }
        KeepAlive.apply(ctx.channel(), server.netLimits().tcpKeepalive());
        lastInteraction = server.clock().nowMillis();
        server.connections().add(this);
        String remote = String.valueOf(ctx.channel().remoteAddress()).replaceFirst("^.*?/", "");
        String local = String.valueOf(ctx.channel().localAddress()).replaceFirst("^.*?/", "");
        session = server.newSession(remote, local);
        session.onKill(() -> onLoop(this::closeKilled));
        ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer(); // CLIENT LIST's omem and qbuf
        session.buffers(() -> out == null ? 0 : out.totalPendingWriteBytes(), waiting::bytes);
        command = new Ctx(server, session, this);
        HeldViews.enableOnThisThread(ctx.executor()); // this loop's commands may keep a collection open (see HeldViews)
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
        if (session.repliesSuppressed()) {
            // CLIENT REPLY OFF or SKIP: the bulk header in the batch is cut off after the command
            closeQuietly(file);
            return;
        }
        if (batch != null && batch.isReadable()) {
            durability.beforeReply();
            server.stats().netOutputBytes.add(batch.readableBytes());
            ctx.write(batch, ctx.voidPromise());
        } else if (batch != null) {
            batch.release();
        }
        batch = null;
        server.stats().netOutputBytes.add(length);
        openFiles++;
        ctx.write(new DefaultFileRegion(file, position, length)).addListener(f -> fileSent());
    }

    /** A blob file was sent (or the connection failed): its descriptor is closed; go on. */
    private void fileSent() {
        openFiles--;
        if (throttled) {
            resumeInput();
        }
    }

    private static void closeQuietly(FileChannel file) {
        try {
            file.close();
        } catch (IOException e) {
            log.debug("closing a blob file: {}", e.toString());
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            return;
        }
        // the decoder hands over a whole read's commands even once reading has stopped: they wait
        // in order behind a postponed or throttled command
        waiting.addLast(msg);
        if (!postponed && !throttled && blocked == null) {
            drain();
        } else if (blocked != null && waiting.bytes() > maxQueryBuffer()) {
            closeForQueryBuffer(); // a blocked client goes on reading (see WaitingInput)
        }
    }

    /** Runs the waiting commands in order until one must wait (pause, back-pressure) or all ran. */
    private void drain() {
        if (draining) {
            return;
        }
        draining = true;
        try {
            while (!waiting.isEmpty() && !closing && !postponed && blocked == null) {
                if (mustThrottle()) {
                    return;
                }
                if (!handle(waiting.pollFirst())) {
                    return;
                }
                if (overOutputLimit()) {
                    closeForOutputLimit();
                    return;
                }
            }
        } finally {
            draining = false;
        }
    }

    /**
     * Applies what this thread's commands left in a held collection view ({@link HeldViews}) before
     * their replies can leave. If those writes were lost (a full map, the key changed while it
     * grew), the connection closes with none of the replies sent.
     */
    private void releaseHeld() {
        HeldViews.release();
        if (lostWrites && !closing) {
            dropAndClose();
        }
    }

    /** Back-pressure before a command: true when it must wait for the output to drain. */
    private boolean mustThrottle() {
        if (!overPause()) {
            throttled = false;
            return false;
        }
        flushBatch(false);
        if (!overPause()) {
            throttled = false;
            return false;
        }
        throttled = true;
        ctx.channel().config().setAutoRead(false);
        return true;
    }

    private boolean overPause() {
        // '>' as Netty's writability: past the high-water mark the socket becomes unwritable, and
        // its return below the low-water mark is what resumes a throttled connection
        return openFiles >= NetLimits.MAX_OPEN_FILES || pendingBytes() > NetLimits.PAUSE_BYTES;
    }

    /**
     * Output in memory not yet taken by the socket: the batch and the channel's outbound buffer
     * (Netty's count, which is what writability follows; blob file regions count as 0).
     */
    private long pendingBytes() {
        ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
        return (batch == null ? 0 : batch.readableBytes()) + (out == null ? 0 : out.totalPendingWriteBytes());
    }

    /** Redis's client output buffer limits, on the output held in memory ({@link OutputLimit}). */
    private boolean overOutputLimit() {
        return outputLimit.exceeded(pending);
    }

    private void closeForOutputLimit() {
        log.warn("Client id={} addr={} closed for overcoming of output buffer limits.", session.id(), session.addr());
        dropAndClose();
    }

    private void closeForQueryBuffer() {
        log.warn("Closing client that reached max query buffer length: id={} addr={}", session.id(), session.addr());
        dropAndClose();
    }

    /** Closes at once; replies not yet sent are dropped, as when Redis frees a client. */
    private void dropAndClose() {
        HeldViews.release(); // the commands that ran are applied (their replies are dropped)
        closing = true;
        dropWaiting();
        if (batch != null) {
            batch.release();
            batch = null;
        }
        ctx.close();
    }

    /** {@code timeout}: called by the sweeper from another thread. */
    void closeIdle() {
        onLoop(() -> {
            if (!closing && !postponed && blocked == null) { // a blocked client times out by its own timeout
                log.debug("Closing idle client id={}", session.id());
                dropAndClose();
            }
        });
    }

    long lastInteractionMillis() {
        return lastInteraction;
    }

    /** Back-pressure eased (writable again, or a blob file was sent): run what waits. */
    private void resumeInput() {
        if (closing || draining || postponed || blocked != null) {
            return;
        }
        drain();
        if (closing) {
            return;
        }
        flushBatch(false);
        if (!postponed && !throttled && ctx.channel().isWritable()) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    /**
     * Runs one decoded message. Returns false when it did not run: it was postponed (and is then
     * first in {@link #waiting}), or the connection is closing.
     */
    private boolean handle(Object msg) {
        if (session.killed()) {
            closeKilled();
            return false;
        }
        if (msg instanceof Argv) {
            Argv argv = (Argv) msg;
            CommandSpec pausable = server.clientPause().mayBeActive() ? server.dispatcher().runnable(session, argv) : null;
            if (pausable != null && server.clientPause().postpone(writes(pausable), this)) {
                postpone(argv, pausable);
                return false;
            }
            run(argv);
            if (blocked != null) {
                return false;
            }
            if (session.shouldClose()) {
                closing = true;
                flushBatch(true);
                return false;
            }
        } else if (msg == RequestDecoder.QUERY_BUFFER_FULL) {
            closeForQueryBuffer();
            return false;
        } else if (msg instanceof ProtocolError) {
            if (!session.repliesSuppressed()) {
                Resp.error(buffer(), ((ProtocolError) msg).message());
            }
            closing = true;
            flushBatch(true);
            return false;
        }
        return true;
    }

    /** Dispatches one command; under CLIENT REPLY OFF or SKIP, what it wrote is cut off again. */
    private void run(Argv argv) {
        HeldViews.owner(onLost);
        ByteBuf before = batch;
        int mark = before == null ? 0 : before.writerIndex();
        server.dispatcher().dispatch(command, argv);
        boolean drop = session.repliesSuppressed();
        session.replyCommandDone();
        if (drop && batch != null) {
            // no file was streamed meanwhile (streamFile streams nothing while suppressed), so the
            // batch is the one from before or a new one
            batch.writerIndex(batch == before ? mark : 0);
        }
    }

    /** Whether a command writes, for CLIENT PAUSE WRITE: EXEC does when it has a write queued. */
    private boolean writes(CommandSpec spec) {
        return ClientPause.writes(spec) || spec.name().equals("exec") && session.transaction().queuedWrite();
    }

    private void postpone(Argv argv, CommandSpec spec) {
        postponed = true;
        waiting.addFirst(argv);
        session.postponed(true);
        session.touched(spec.name(), server.clock().nowMillis()); // CLIENT LIST shows cmd= of the waiting command
        ctx.channel().config().setAutoRead(false);
        long delay = server.clientPause().endMillis() - server.clock().nowMillis() + 1;
        pauseTimer = ctx.executor().schedule(this::resumeNow, Math.max(1, delay), TimeUnit.MILLISECONDS);
    }

    /** {@link ClientPause.Waiter}: the pause ended by UNPAUSE; called from any thread. */
    @Override
    public void resume() {
        onLoop(this::resumeNow);
    }

    /** On this connection's event loop: runs the kept commands, in order, until one waits again. */
    private void resumeNow() {
        if (!postponed || closing) {
            return;
        }
        postponed = false;
        session.postponed(false);
        cancelPauseTimer();
        server.clientPause().leave(this);
        resumeInput();
    }

    private void cancelPauseTimer() {
        if (pauseTimer != null) {
            pauseTimer.cancel(false);
            pauseTimer = null;
        }
    }

    /** CLIENT KILL from another client, on this connection's event loop: close, run nothing more. */
    private void closeKilled() {
        if (closing) {
            return;
        }
        closing = true;
        dropWaiting();
        if (batch != null) {
            batch.release();
            batch = null;
        }
        ctx.close();
    }

    private void dropWaiting() {
        waiting.clear();
        if (blocked != null) {
            server.blocking().cancel(blocked);
            blocked = null;
            session.postponed(false);
        }
        cancelPauseTimer();
        if (postponed) {
            postponed = false;
            session.postponed(false);
            server.clientPause().leave(this);
        }
    }

    /** Runs {@code task} on this connection's event loop, unless the server is shutting it down. */
    private void onLoop(Runnable task) {
        try {
            ctx.executor().execute(task);
        } catch (RejectedExecutionException e) {
            log.debug("connection {}: event loop stopped", session.id());
        }
    }

    // ---------------------------------------------------------------- BlockingKeys.Host

    @Override
    public void park(BlockingKeys.Waiter w) {
        blocked = w;
        // CLIENT LIST's flag b, as for a client CLIENT PAUSE holds (never both at once: a paused
        // client runs no command, a blocked one is never dispatched)
        session.postponed(true);
    }

    @Override
    public void unpark(java.util.function.Consumer<Ctx> reply) {
        onLoop(() -> {
            if (closing || blocked == null) {
                return;
            }
            blocked = null;
            session.postponed(false);
            reply.accept(command);
            flushBatch(false);
            resumeInput();
        });
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, long delayMs) {
        return ctx.executor().schedule(task, delayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        lastInteraction = server.clock().nowMillis();
        // a collection view still held: the other connections of this turn may add to it, and
        // these replies leave once it is applied, at the end of the turn (GroupCommit)
        boolean held = ACROSS_TURN && HeldViews.holding();
        if (!held) {
            releaseHeld();
            if (lostWrites) {
                return;
            }
        }
        if (held || durability.syncBeforeReply() && batch != null && batch.isReadable()) {
            // appendfsync always: one sync for every connection of this turn of the loop
            if (!deferred) {
                deferred = true;
                GroupCommit.defer(this, ctx.executor(), durability);
            }
        } else {
            flushBatch(false);
        }
        // replies are on their way; in an expiry backlog this loop now deletes a few due keys
        server.assistExpiry();
    }

    /** {@link GroupCommit}: this turn's sync ran; the replies go now (after a sync of anything newer). */
    void flushDeferred() {
        deferred = false;
        if (!closing) {
            flushBatch(false);
        }
    }

    private void flushBatch(boolean thenClose) {
        releaseHeld();
        if (lostWrites) {
            return;
        }
        ByteBuf b = batch;
        batch = null;
        if (b != null && b.isReadable()) {
            // appendfsync always: the writes this batch made (and any it read) reach the disk
            // before its replies leave, once per batch (the group commit, see Durability)
            durability.beforeReply();
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
        if (ctx.channel().isWritable() && !postponed) {
            if (throttled) {
                resumeInput();
            } else {
                ctx.channel().config().setAutoRead(true);
            }
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (refused) {
            super.channelInactive(ctx);
            return;
        }
        server.connections().remove(this);
        server.netLimits().disconnected();
        dropWaiting();
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
