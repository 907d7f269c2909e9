package dev.cajon.server;

import dev.cajon.storage.Clock;
import java.nio.file.Path;

/**
 * How to run a server: where to listen, where the data lives, which clock to use.
 *
 * @param bind     address to listen on (loopback by default)
 * @param port     TCP port; 0 picks a free one (tests)
 * @param dir      data directory
 * @param clock    time source for TTLs (tests inject a manual clock)
 * @param ioThreads event loop threads; 0 means one per core
 * @param activeExpiry run the expiry reaper threads (tests with a manual clock drive the wheel
 *                     themselves and turn it off)
 * @param expiryThreads reaper threads (one always, the others help when behind); 0 means one per core
 * @param expiryWarmup with active expiry: run the expiry path on a scratch store after start, so
 *                     that the first storm meets compiled code (see {@code ExpiryWarmup})
 * @param metricsPort port of the Prometheus endpoint ({@code GET /metrics}); {@link #METRICS_OFF} (the
 *                    default) serves none and records nothing, 0 picks a free port
 * @param metricsBind address the metrics endpoint listens on (loopback by default)
 */
public record ServerConfig(String bind, int port, Path dir, Clock clock, int ioThreads, boolean activeExpiry,
                           int expiryThreads, boolean expiryWarmup, int metricsPort, String metricsBind) {
    public static final String DEFAULT_BIND = "127.0.0.1";
    public static final int DEFAULT_PORT = 6379;
    public static final Path DEFAULT_DIR = Path.of("data");
    /** {@link #metricsPort} of a server without metrics. */
    public static final int METRICS_OFF = -1;
    public static final String DEFAULT_METRICS_BIND = "127.0.0.1";

    public static ServerConfig defaults() {
        return new ServerConfig(DEFAULT_BIND, DEFAULT_PORT, DEFAULT_DIR, Clock.SYSTEM, 0, true, 0, true,
                METRICS_OFF, DEFAULT_METRICS_BIND);
    }

    public ServerConfig withPort(int p) {
        return new ServerConfig(bind, p, dir, clock, ioThreads, activeExpiry, expiryThreads, expiryWarmup,
                metricsPort, metricsBind);
    }

    public ServerConfig withDir(Path d) {
        return new ServerConfig(bind, port, d, clock, ioThreads, activeExpiry, expiryThreads, expiryWarmup,
                metricsPort, metricsBind);
    }

    public ServerConfig withBind(String b) {
        return new ServerConfig(b, port, dir, clock, ioThreads, activeExpiry, expiryThreads, expiryWarmup,
                metricsPort, metricsBind);
    }

    public ServerConfig withClock(Clock c) {
        return new ServerConfig(bind, port, dir, c, ioThreads, activeExpiry, expiryThreads, expiryWarmup,
                metricsPort, metricsBind);
    }

    public ServerConfig withActiveExpiry(boolean on) {
        return new ServerConfig(bind, port, dir, clock, ioThreads, on, expiryThreads, expiryWarmup,
                metricsPort, metricsBind);
    }

    public ServerConfig withExpiryThreads(int n) {
        return new ServerConfig(bind, port, dir, clock, ioThreads, activeExpiry, n, expiryWarmup,
                metricsPort, metricsBind);
    }

    public ServerConfig withIoThreads(int n) {
        return new ServerConfig(bind, port, dir, clock, n, activeExpiry, expiryThreads, expiryWarmup,
                metricsPort, metricsBind);
    }

    public ServerConfig withExpiryWarmup(boolean on) {
        return new ServerConfig(bind, port, dir, clock, ioThreads, activeExpiry, expiryThreads, on,
                metricsPort, metricsBind);
    }

    /** Metrics on {@code bind:port} ({@link #METRICS_OFF}: none). */
    public ServerConfig withMetrics(int p, String b) {
        return new ServerConfig(bind, port, dir, clock, ioThreads, activeExpiry, expiryThreads, expiryWarmup, p, b);
    }

    public boolean metricsOn() {
        return metricsPort != METRICS_OFF;
    }
}
