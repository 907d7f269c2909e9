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
 * @param ioThreads event loop threads; 0 means {@link #autoIoThreads}: one per core but one, at least one
 * @param activeExpiry run the expiry reaper threads (tests with a manual clock drive the wheel
 *                     themselves and turn it off)
 * @param expiryThreads reaper threads (one always, the others help when behind); 0 means one per core
 * @param expiryWarmup with active expiry: run the expiry path on a scratch store after start, so
 *                     that the first storm meets compiled code (see {@code ExpiryWarmup})
 * @param requirepass the password of the {@code default} user (the admin), or null: then, as in a
 *                    Redis without requirepass, default has none and every connection starts
 *                    authenticated as default. Never logged: {@link #toString()} hides it.
 * @param metricsPort port of the Prometheus endpoint ({@code GET /metrics}); {@link #METRICS_OFF} (the
 *                    default) serves none and records nothing, 0 picks a free port
 * @param metricsBind address the metrics endpoint listens on (loopback by default)
 * @param appMaxKeys  the key quota of every app without one of its own (0: none)
 * @param appMaxBytes the byte quota of every app without one of its own (0: none)
 * @param net         the connection limits (Redis's maxclients, timeout, proto-max-bulk-len, ...)
 * @param maxOpenKeyspaces at most this many keyspaces (app, db) have their map mapped; past it the
 *                    least recently used are released (each mapped one holds a file descriptor)
 * @param keyspaceIdleSeconds a keyspace unused this long is released (0: only past the budget)
 * @param configFile  the file given with {@code --config}, absolute (null: none); CONFIG REWRITE writes it
 * @param appendfsync the fsync policy at start (Redis's appendfsync; CONFIG SET changes it at run time)
 */
public record ServerConfig(String bind, int port, Path dir, Clock clock, int ioThreads, boolean activeExpiry,
                           int expiryThreads, boolean expiryWarmup, String requirepass, int metricsPort,
                           String metricsBind, long appMaxKeys, long appMaxBytes,
                           dev.cajon.server.limits.NetSettings net, int maxOpenKeyspaces, long keyspaceIdleSeconds,
                           Path configFile, dev.cajon.storage.durability.FsyncPolicy appendfsync) {
    public static final String DEFAULT_BIND = "127.0.0.1";
    public static final int DEFAULT_PORT = 6379;
    public static final Path DEFAULT_DIR = Path.of("data");
    /** Mapped keyspaces at most: 256 descriptors, a quarter of the usual soft limit of 1024. */
    public static final int DEFAULT_MAX_OPEN_KEYSPACES = 256;
    /** A keyspace unused for a minute gives its memory back; its next command reopens it (5-8 ms at the median from a cold page cache, docs/BENCHMARKS.md). */
    public static final long DEFAULT_KEYSPACE_IDLE_SECONDS = 60;
    /** {@link #metricsPort} of a server without metrics. */
    public static final int METRICS_OFF = -1;
    public static final String DEFAULT_METRICS_BIND = "127.0.0.1";

    public static ServerConfig defaults() {
        return new ServerConfig(DEFAULT_BIND, DEFAULT_PORT, DEFAULT_DIR, Clock.SYSTEM, 0, true, 0, true, null, METRICS_OFF,
                DEFAULT_METRICS_BIND, 0, 0, dev.cajon.server.limits.NetSettings.defaults(), DEFAULT_MAX_OPEN_KEYSPACES,
                DEFAULT_KEYSPACE_IDLE_SECONDS, null, dev.cajon.storage.durability.FsyncPolicy.EVERYSEC);
    }

    public ServerConfig withPort(int p) {
        return new ServerConfig(bind, p, dir, clock, ioThreads, activeExpiry, expiryThreads, expiryWarmup, requirepass,
                metricsPort, metricsBind, appMaxKeys, appMaxBytes, net, maxOpenKeyspaces, keyspaceIdleSeconds, configFile, appendfsync);
    }

    public ServerConfig withDir(Path d) {
        return new ServerConfig(bind, port, d, clock, ioThreads, activeExpiry, expiryThreads, expiryWarmup, requirepass,
                metricsPort, metricsBind, appMaxKeys, appMaxBytes, net, maxOpenKeyspaces, keyspaceIdleSeconds, configFile, appendfsync);
    }

    public ServerConfig withBind(String b) {
        return new ServerConfig(b, port, dir, clock, ioThreads, activeExpiry, expiryThreads, expiryWarmup, requirepass,
                metricsPort, metricsBind, appMaxKeys, appMaxBytes, net, maxOpenKeyspaces, keyspaceIdleSeconds, configFile, appendfsync);
    }

    public ServerConfig withClock(Clock c) {
        return new ServerConfig(bind, port, dir, c, ioThreads, activeExpiry, expiryThreads, expiryWarmup, requirepass,
                metricsPort, metricsBind, appMaxKeys, appMaxBytes, net, maxOpenKeyspaces, keyspaceIdleSeconds, configFile, appendfsync);
    }

    public ServerConfig withActiveExpiry(boolean on) {
        return new ServerConfig(bind, port, dir, clock, ioThreads, on, expiryThreads, expiryWarmup, requirepass,
                metricsPort, metricsBind, appMaxKeys, appMaxBytes, net, maxOpenKeyspaces, keyspaceIdleSeconds, configFile, appendfsync);
    }

    public ServerConfig withExpiryThreads(int n) {
        return new ServerConfig(bind, port, dir, clock, ioThreads, activeExpiry, n, expiryWarmup, requirepass,
                metricsPort, metricsBind, appMaxKeys, appMaxBytes, net, maxOpenKeyspaces, keyspaceIdleSeconds, configFile, appendfsync);
    }

    public ServerConfig withIoThreads(int n) {
        return new ServerConfig(bind, port, dir, clock, n, activeExpiry, expiryThreads, expiryWarmup, requirepass,
                metricsPort, metricsBind, appMaxKeys, appMaxBytes, net, maxOpenKeyspaces, keyspaceIdleSeconds, configFile, appendfsync);
    }

    public ServerConfig withExpiryWarmup(boolean on) {
        return new ServerConfig(bind, port, dir, clock, ioThreads, activeExpiry, expiryThreads, on, requirepass,
                metricsPort, metricsBind, appMaxKeys, appMaxBytes, net, maxOpenKeyspaces, keyspaceIdleSeconds, configFile, appendfsync);
    }

    /** {@code --requirepass}: the default user needs this password (null: no password). */
    public ServerConfig withRequirepass(String pass) {
        return new ServerConfig(bind, port, dir, clock, ioThreads, activeExpiry, expiryThreads, expiryWarmup, pass,
                metricsPort, metricsBind, appMaxKeys, appMaxBytes, net, maxOpenKeyspaces, keyspaceIdleSeconds, configFile, appendfsync);
    }

    /** The record's fields, with the password hidden. */
    public ServerConfig withMetrics(int p, String b) {
        return new ServerConfig(bind, port, dir, clock, ioThreads, activeExpiry, expiryThreads, expiryWarmup, requirepass,
                p, b, appMaxKeys, appMaxBytes, net, maxOpenKeyspaces, keyspaceIdleSeconds, configFile, appendfsync);
    }

    /** {@code --app-max-keys} and {@code --app-max-bytes}: the quota of apps without their own. */
    public ServerConfig withAppQuota(long keys, long bytes) {
        return new ServerConfig(bind, port, dir, clock, ioThreads, activeExpiry, expiryThreads, expiryWarmup, requirepass,
                metricsPort, metricsBind, keys, bytes, net, maxOpenKeyspaces, keyspaceIdleSeconds, configFile, appendfsync);
    }

    /** The connection limits: {@code --maxclients}, {@code --timeout}, ... */
    public ServerConfig withNet(dev.cajon.server.limits.NetSettings n) {
        return new ServerConfig(bind, port, dir, clock, ioThreads, activeExpiry, expiryThreads, expiryWarmup, requirepass,
                metricsPort, metricsBind, appMaxKeys, appMaxBytes, n, maxOpenKeyspaces, keyspaceIdleSeconds, configFile, appendfsync);
    }

    /** {@code --max-open-keyspaces} and {@code --keyspace-idle}: when idle keyspaces are released. */
    public ServerConfig withIdleKeyspaces(int maxOpen, long idleSeconds) {
        return new ServerConfig(bind, port, dir, clock, ioThreads, activeExpiry, expiryThreads, expiryWarmup, requirepass,
                metricsPort, metricsBind, appMaxKeys, appMaxBytes, net, maxOpen, idleSeconds, configFile, appendfsync);
    }

    /** {@code --config}: the file CONFIG REWRITE writes back (null: none). */
    public ServerConfig withConfigFile(Path file) {
        return new ServerConfig(bind, port, dir, clock, ioThreads, activeExpiry, expiryThreads, expiryWarmup, requirepass,
                metricsPort, metricsBind, appMaxKeys, appMaxBytes, net, maxOpenKeyspaces, keyspaceIdleSeconds, file, appendfsync);
    }

    /** {@code --appendfsync}: always, everysec (the default) or no. */
    public ServerConfig withAppendfsync(dev.cajon.storage.durability.FsyncPolicy p) {
        return new ServerConfig(bind, port, dir, clock, ioThreads, activeExpiry, expiryThreads, expiryWarmup, requirepass,
                metricsPort, metricsBind, appMaxKeys, appMaxBytes, net, maxOpenKeyspaces, keyspaceIdleSeconds, configFile, p);
    }

    public boolean metricsOn() {
        return metricsPort != METRICS_OFF;
    }

    @Override
    public String toString() {
        return "ServerConfig[bind=" + bind + ", port=" + port + ", dir=" + dir + ", clock=" + clock + ", ioThreads="
                + ioThreads + ", activeExpiry=" + activeExpiry + ", expiryThreads=" + expiryThreads
                + ", expiryWarmup=" + expiryWarmup + ", requirepass=" + (requirepass == null ? "none" : "(hidden)")
                + ", metricsPort=" + metricsPort + ", metricsBind=" + metricsBind + ", appMaxKeys=" + appMaxKeys
                + ", appMaxBytes=" + appMaxBytes + ", net=" + net + ", maxOpenKeyspaces=" + maxOpenKeyspaces
                + ", keyspaceIdleSeconds=" + keyspaceIdleSeconds + ", configFile=" + configFile
                + ", appendfsync=" + appendfsync.word() + "]";
    }

    /**
     * The event loops when none are asked for: one per core but one, and at least one. The core
     * left over runs what is not an event loop (the fsync thread, the expiry reapers, the
     * lazyfree thread, the GC) and, on a small machine, the clients. Measured on 2 cores with
     * redis-benchmark on the same machine (-c 50, alternating A/B, 4-6 rounds): one loop against
     * two did HSET 93k against 71k rps at -P 16, SADD 88k against 71k, LPUSH 123k against 112k,
     * LPOP 222k against 195k, ZADD 30k against 28k and GET 472k against 415k; at -P 1 one loop
     * was 2-19 % ahead on every test. With two loops on one hot key (each of those tests writes
     * one key) the loops wait for each other's stripe, and the spin steals the core the holder
     * or the clients need. Only 2 cores were measured; on bigger machines this keeps all but one.
     */
    public static int autoIoThreads(int cores) {
        return Math.max(1, cores - 1);
    }
}
