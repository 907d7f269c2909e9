package dev.cajon.server.metrics;

import dev.cajon.server.ServerContext;
import dev.cajon.server.command.CommandSpec;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.expiry.ExpiryWheel;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * One server's metrics, on Micrometer, scraped in Prometheus's text format: per app (commands and
 * errors by command, keys, live bytes, expired keys, writes refused by the quota, see
 * {@link AppMetrics}), and for the server: connections, a latency histogram per command, the
 * expiry wheel's lag, and the JVM through Micrometer's own binders.
 *
 * <p>What stays true on the command path (see {@link Metering}): each meter is resolved once, per
 * (app, command) for the counters in {@link AppMetrics}, into arrays indexed by
 * {@link CommandSpec#index()}, and per (thread, command) for the latency histograms of
 * {@link CommandLatency}; a command then costs a counter increment and, when it is timed (every
 * expensive command, one cheap command in 8), two {@code System.nanoTime()} reads and three plain
 * stores, with no string built, no map looked up, nothing allocated and no cache line shared
 * between event loops. Meters are registered on first use, so a thousand apps that each run a
 * handful of commands hold a handful of counters each, not one per row of the command table.
 *
 * <p>Micrometer's registry serves everything, the JVM binders and the per-app meters as
 * Micrometer meters; only the latency histograms are a Prometheus collector of Cajon's own in
 * that registry, because a Micrometer timer cost the server 9-14 % of its pipelined throughput
 * (see {@link CommandLatency}). The registry's wall clock is read once a second
 * ({@link CoarseClock}).
 *
 * <p>Gauges that read storage (keys, live bytes, expired keys) are computed once per scrape by
 * {@link #refresh()}, one walk of each app's keyspaces, rather than once per gauge.
 *
 * <p>A server's metrics are found from its {@link ServerContext} through {@link #of}, a map the
 * metrics keep (so the context needs no field for them); a session looks once and keeps what it
 * found (see {@link Metering}).
 */
public final class ServerMetrics implements AutoCloseable {
    /** Each keyspace's bytes in use (what the byte quota counts), for {@code cajon_app_live_bytes}. */
    static final ToLongFunction<Keyspace> LIVE_BYTES = Keyspace::liveBytes;

    private static final Map<ServerContext, ServerMetrics> ATTACHED = new ConcurrentHashMap<>();

    private final ServerContext server;
    /** The one metrics thread: ticks {@link #clock} and answers the endpoint's scrapes. */
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "cajon-metrics");
        t.setDaemon(true);
        return t;
    });
    private final CoarseClock clock = new CoarseClock();
    private final PrometheusMeterRegistry registry =
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, new PrometheusRegistry(), clock);
    private final JvmGcMetrics gc = new JvmGcMetrics();
    private final CommandLatency latency;
    private final Map<String, AppMetrics> apps = new ConcurrentHashMap<>();
    private final ToLongFunction<Keyspace> liveBytes;
    private volatile boolean closed;

    private ServerMetrics(ServerContext server, ToLongFunction<Keyspace> liveBytes) {
        this.server = server;
        this.liveBytes = liveBytes;
        this.latency = new CommandLatency(server.table());
        registry.getPrometheusRegistry().register(latency);
        executor.scheduleAtFixedRate(clock::tick, 1, 1, TimeUnit.SECONDS);
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        Gauge.builder("cajon.connected.clients", server, s -> s.clients().size())
                .description("Client connections open now (INFO connected_clients)")
                .strongReference(true).register(registry);
        FunctionCounter.builder("cajon.connections.received", server, s -> s.stats().connectionsReceived.sum())
                .description("Client connections accepted since the start (INFO total_connections_received;"
                        + " CONFIG RESETSTAT restarts it, which Prometheus reads as a counter reset)")
                .register(registry);
        Gauge.builder("cajon.keyspaces.mapped", server, s -> s.store().mappedKeyspaces())
                .description("Keyspaces (app, db) whose map is mapped now; the others cost no memory and no"
                        + " descriptor (--max-open-keyspaces, --keyspace-idle)")
                .strongReference(true).register(registry);
        Gauge.builder("cajon.keyspaces", server, s -> s.store().keyspaces().size())
                .description("Keyspaces (app, db) that exist, mapped or not")
                .strongReference(true).register(registry);
        FunctionCounter.builder("cajon.keyspace.idle.releases", server, s -> s.store().idleReleases())
                .description("Times an idle keyspace was closed (reopened on its next command)")
                .register(registry);
        FunctionCounter.builder("cajon.fsync.calls", server, s -> s.store().durability().syncs())
                .description("fsync/fdatasync calls on map files, journals, blobs and their directories"
                        + " (INFO fsyncs_total; the appendfsync policy decides how many)")
                .register(registry);
        FunctionCounter.builder("cajon.fsync.errors", server, s -> s.store().durability().errors())
                .description("Syncs that failed with an I/O error (INFO fsync_errors)")
                .register(registry);
        Gauge.builder("cajon.fsync.last.pass.seconds", server, s -> s.store().durability().lastPassMicros() / 1e6)
                .description("How long the last sync pass took (INFO fsync_last_us)")
                .strongReference(true).register(registry);
        ExpiryWheel wheel = server.wheel();
        if (wheel != null) {
            bindWheel(wheel);
        }
    }

    private void bindWheel(ExpiryWheel w) {
        Gauge.builder("cajon.expire.wheel.lag.p99", w, x -> x.lagPercentileMillis(0.99) / 1000.0).baseUnit("seconds")
                .description("99th percentile of how long after its deadline an expired key was reclaimed, over"
                        + " every key since the start or CONFIG RESETSTAT (INFO expire_wheel_lag_p99_ms)")
                .strongReference(true).register(registry);
        Gauge.builder("cajon.expire.wheel.max.lag", w, x -> x.maxLagMillis() / 1000.0).baseUnit("seconds")
                .description("Longest time a key stayed past its deadline before it was reclaimed"
                        + " (INFO expire_wheel_max_lag_ms)")
                .strongReference(true).register(registry);
        Gauge.builder("cajon.expire.wheel.behind", w, x -> x.behindMillis() / 1000.0).baseUnit("seconds")
                .description("How far reclamation is behind the clock right now (0 when every due key is taken)")
                .strongReference(true).register(registry);
        Gauge.builder("cajon.expire.wheel.records", w, ExpiryWheel::scheduled)
                .description("Deadlines filed in the expiry wheel (INFO expire_wheel_records)")
                .strongReference(true).register(registry);
        FunctionCounter.builder("cajon.expire.wheel.reclaimed.keys", w, ExpiryWheel::reclaimedCount)
                .description("Keys the expiry wheel reclaimed (INFO expire_wheel_reclaimed_keys)")
                .register(registry);
    }

    /**
     * Metrics for {@code server}, found by {@link #of} from then on (before its first command:
     * a session that ran one without metrics keeps running without them until its app changes).
     */
    public static ServerMetrics attach(ServerContext server) {
        ServerMetrics m = new ServerMetrics(server, LIVE_BYTES);
        if (ATTACHED.putIfAbsent(server, m) != null) {
            m.close();
            throw new IllegalStateException("metrics are already attached to this server");
        }
        return m;
    }

    /** The metrics attached to {@code server}, or null when it runs without. */
    public static ServerMetrics of(ServerContext server) {
        return ATTACHED.get(server);
    }

    /**
     * The meters of {@code app}, created on first use. For the quota check (a session's app's
     * meters are at hand through {@link Metering#of}) and for the apps registry, which may create
     * an app's meters up front.
     */
    public AppMetrics app(String app) {
        AppMetrics m = apps.get(app);
        return m != null ? m : apps.computeIfAbsent(app, a -> new AppMetrics(this, a));
    }

    /** ACL DELUSER: the app's meters leave the registry (its connections are closed first). */
    public void forget(String app) {
        AppMetrics m = apps.remove(app);
        if (m != null) {
            m.removeFrom(registry);
        }
    }

    CommandLatency latency() {
        return latency;
    }

    int commandRows() {
        return server.table().indexCount();
    }

    PrometheusMeterRegistry registry() {
        return registry;
    }

    ServerContext server() {
        return server;
    }

    /** The metrics thread, which the endpoint runs its scrapes on. */
    ScheduledExecutorService executor() {
        return executor;
    }

    ToLongFunction<Keyspace> liveBytes() {
        return liveBytes;
    }

    /**
     * Brings the storage gauges up to date: every app with an open keyspace gets its meters (so a
     * scrape after a restart shows apps that have not run a command yet), and each app's keys,
     * live bytes and expired keys are summed over its keyspaces, once.
     */
    public void refresh() {
        if (closed) {
            return;
        }
        for (Keyspace ks : server.store().keyspaces()) {
            app(appOf(ks));
        }
        for (AppMetrics a : new ArrayList<>(apps.values())) {
            a.refresh(server.store());
        }
    }

    /** The app of a keyspace: {@code Store} names each one "app/db". */
    static String appOf(Keyspace ks) {
        String n = ks.name();
        int slash = n.lastIndexOf('/');
        return slash < 0 ? n : n.substring(0, slash);
    }

    /** The Prometheus text format (version 0.0.4) that {@link #scrape} writes. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /** Every meter, up to date, in the Prometheus text format. */
    public synchronized void scrape(OutputStream out) throws IOException {
        refresh();
        registry.scrape(out, CONTENT_TYPE);
    }

    /** {@link #scrape(OutputStream)} as a string (tests, tools). */
    public synchronized String scrape() {
        refresh();
        return registry.scrape(CONTENT_TYPE);
    }

    List<AppMetrics> apps() {
        return List.copyOf(apps.values());
    }

    /** Detaches from the server and releases the GC listeners; meters recorded after this are dropped. */
    @Override
    public void close() {
        closed = true;
        ATTACHED.remove(server, this);
        executor.shutdownNow();
        try {
            executor.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        gc.close();
        registry.close();
    }
}
