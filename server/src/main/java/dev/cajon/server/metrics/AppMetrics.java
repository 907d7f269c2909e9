package dev.cajon.server.metrics;

import dev.cajon.server.command.CommandSpec;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.Store;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.ToLongFunction;

/**
 * The meters of one app, tagged {@code app}: {@code cajon_commands_total} and
 * {@code cajon_command_errors_total} by command, {@code cajon_app_keys},
 * {@code cajon_app_live_bytes} (once storage counts them), {@code cajon_app_expired_keys_total}
 * and {@code cajon_app_quota_rejected_total}.
 *
 * <p>Shared by every connection of the app, on any event loop (Micrometer's counters are striped
 * adders, so two loops counting one command do not write one cache line). The per-command
 * counters sit in arrays indexed by {@link CommandSpec#index()} and are registered the first time
 * the app runs that command (a racing second registration gets the same meter back from the
 * registry, so the slot holds one meter either way).
 */
public final class AppMetrics {
    private final ServerMetrics server;
    private final String app;
    private final AtomicReferenceArray<Counter> commands;
    private final AtomicReferenceArray<Counter> errors;
    private final Counter quotaRejected;
    /** Every meter of this app, to remove them when the app is deleted. */
    private final List<Meter> meters = new CopyOnWriteArrayList<>();
    // summed over the app's keyspaces by refresh(), once per scrape
    private volatile long keys;
    private volatile long expired;
    private volatile long liveBytes;

    AppMetrics(ServerMetrics server, String app) {
        this.server = server;
        this.app = app;
        this.commands = new AtomicReferenceArray<>(server.commandRows());
        this.errors = new AtomicReferenceArray<>(server.commandRows());
        MeterRegistry r = server.registry();
        meters.add(Gauge.builder("cajon.app.keys", this, a -> a.keys).tag("app", app)
                .description("Keys the app holds, over all its dbs (expired keys count until reclaimed, as in Redis)")
                .strongReference(true).register(r));
        meters.add(FunctionCounter.builder("cajon.app.expired.keys", this, a -> a.expired).tag("app", app)
                .description("Keys of the app removed because their TTL passed, since their keyspace opened")
                .register(r));
        if (server.liveBytes() != null) {
            meters.add(Gauge.builder("cajon.app.live", this, a -> a.liveBytes).tag("app", app).baseUnit("bytes")
                    .description("Bytes the app's keys and values take, as its quota counts them")
                    .strongReference(true).register(r));
        }
        quotaRejected = Counter.builder("cajon.app.quota.rejected").tag("app", app)
                .description("Writes refused because the app was over its quota (-OOM)")
                .register(r);
        meters.add(quotaRejected);
    }

    public String app() {
        return app;
    }

    /**
     * Counts one command the app ran, and its error when it answered one. Returns false for a
     * row that was never registered in the command table ({@code index} -1), which is not counted.
     */
    boolean count(int i, CommandSpec spec, boolean error) {
        if (i < 0 || i >= commands.length()) {
            return false;
        }
        Counter n = commands.getAcquire(i);
        if (n == null) {
            n = register(commands, i, "cajon.commands", "Commands the app ran", spec);
        }
        n.increment();
        if (error) {
            Counter e = errors.getAcquire(i);
            if (e == null) {
                e = register(errors, i, "cajon.command.errors", "Commands of the app that answered an error", spec);
            }
            e.increment();
        }
        return true;
    }

    private Counter register(AtomicReferenceArray<Counter> slots, int i, String name, String what, CommandSpec spec) {
        Counter c = Counter.builder(name).tag("app", app).tag("command", spec.name()).description(what)
                .register(server.registry());
        if (slots.compareAndExchange(i, null, c) == null) {
            meters.add(c);
        }
        return c;
    }

    /** A write refused by the app's quota (the dispatcher's OOM check calls this). */
    public void quotaRejected() {
        quotaRejected.increment();
    }

    public long quotaRejectedCount() {
        return (long) quotaRejected.count();
    }

    /** Sums the app's keyspaces (see {@link ServerMetrics#refresh}). */
    void refresh(Store store) {
        long[] sum = new long[3];
        ToLongFunction<Keyspace> bytes = server.liveBytes();
        store.forEachKeyspace(app, (db, ks) -> {
            sum[0] += ks.size();
            sum[1] += ks.expiredCount();
            if (bytes != null) {
                sum[2] += bytes.applyAsLong(ks);
            }
        });
        keys = sum[0];
        // a keyspace that closes takes its count with it: Prometheus reads the drop as a reset
        expired = sum[1];
        liveBytes = sum[2];
    }

    void removeFrom(MeterRegistry registry) {
        for (Meter m : meters) {
            registry.remove(m);
        }
    }
}
