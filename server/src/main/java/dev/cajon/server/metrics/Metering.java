package dev.cajon.server.metrics;

import dev.cajon.server.ServerContext;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.session.ClientSession;
import io.netty.buffer.ByteBuf;

/**
 * What the dispatcher asks per command: the meters of the session's app, or null when the server
 * runs without metrics.
 *
 * <p>The session keeps the answer with the app it was found for, compared by identity with
 * {@link ClientSession#app()} on every command: one volatile read and a compare while the app
 * stays the same (AUTH changes it, and the next command looks again). Without metrics the cached
 * answer is null, so a server without metrics pays that compare and a null check per command.
 */
public final class Metering {
    private Metering() {
    }

    /** The meters of {@code c}'s app, or null without metrics. */
    public static AppMetrics of(Ctx c) {
        ClientSession s = c.session();
        String app = s.app();
        if (app == s.metricsApp()) {
            return s.appMetrics();
        }
        return resolve(c.server(), s, app);
    }

    /** For a check outside the command path (the quota's OOM refusal): the meters of the session's app, or null. */
    public static AppMetrics of(ServerContext server, ClientSession s) {
        String app = s.app();
        return app == s.metricsApp() ? s.appMetrics() : resolve(server, s, app);
    }

    private static AppMetrics resolve(ServerContext server, ClientSession s, String app) {
        ServerMetrics m = ServerMetrics.of(server);
        AppMetrics a = m == null ? null : m.app(app);
        s.appMetrics(app, a);
        return a;
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
