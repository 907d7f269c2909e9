package dev.cajon.server.metrics;

import dev.cajon.server.ServerContext;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.session.ClientSession;
import io.netty.buffer.ByteBuf;

/**
 * What the dispatcher asks per command: what the session records into, or null when the server
 * runs without metrics.
 *
 * <p>The session keeps the answer ({@link SessionMetrics}) with the app and the thread it was
 * found for, both compared by identity on every command: a volatile read and two compares while
 * they stay the same (AUTH changes the app, and the next command looks again; a connection never
 * moves to another event loop, but if a session ran elsewhere it would look again rather than
 * write another thread's histogram). Without metrics the answer says so, and a server without
 * metrics pays those compares and a null check per command.
 */
public final class Metering {
    private Metering() {
    }

    /** What {@code c}'s session records into, or null without metrics. */
    public static SessionMetrics of(Ctx c) {
        ClientSession s = c.session();
        SessionMetrics m = s.metrics();
        if (m == null || m.app != s.app() || m.thread != Thread.currentThread()) {
            m = resolve(c.server(), s);
        }
        return m.on() ? m : null;
    }

    /**
     * The meters of the session's app, or null without metrics: for a check outside the command
     * path (the quota's OOM refusal counts {@link AppMetrics#quotaRejected()} here).
     */
    public static AppMetrics app(ServerContext server, ClientSession s) {
        SessionMetrics m = s.metrics();
        if (m == null || m.app != s.app() || m.thread != Thread.currentThread()) {
            m = resolve(server, s);
        }
        return m.app();
    }

    private static SessionMetrics resolve(ServerContext server, ClientSession s) {
        String app = s.app();
        ServerMetrics metrics = ServerMetrics.of(server);
        SessionMetrics m = metrics == null
                ? new SessionMetrics(app, Thread.currentThread(), null, null, 0)
                : new SessionMetrics(app, Thread.currentThread(), metrics.app(app), metrics.latency().recorder(),
                        metrics.commandRows());
        s.metrics(m);
        return m;
    }

    /**
     * Whether the command answered an error: the first byte it wrote at {@code mark} of
     * {@code out} is '-'. Every error reply goes through {@code Ctx.error}, which writes one
     * RESP error; a reply that went elsewhere (a large value streamed from its file) is no error.
     */
    public static boolean repliedError(Ctx c, ByteBuf out, int mark) {
        return c.out() == out && out.writerIndex() > mark && out.getByte(mark) == '-';
    }
}
