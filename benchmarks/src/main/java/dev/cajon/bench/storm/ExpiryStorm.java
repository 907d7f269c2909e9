package dev.cajon.bench.storm;

import dev.cajon.bench.harness.CommandTemplate;
import dev.cajon.bench.harness.Deadline;
import dev.cajon.bench.harness.Harness;
import dev.cajon.bench.harness.MarkdownSection;
import dev.cajon.bench.harness.MachineInfo;
import dev.cajon.bench.harness.Reaper;
import dev.cajon.bench.harness.ServerProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The expiry storm: N keys whose deadlines all fall within two seconds, on Cajon and on
 * redis-server, one after the other.
 *
 * <h2>One server's run</h2>
 * <ol>
 *   <li>Start it on an empty data dir and load the keys without TTL ({@code keep:…}, 100k by
 *       default) that the foreground traffic reads and writes. How long that takes predicts how
 *       long the storm load will take.</li>
 *   <li>Start sampling DBSIZE every 10 ms on a connection of its own; it runs until the end.</li>
 *   <li>Quiet baseline: GET/SET on the {@code keep:} keys for a warm-up and then a few seconds,
 *       counting commands per 10 ms.</li>
 *   <li>Load the storm: {@code SET storm:… value PXAT deadline} for N keys over several pipelined
 *       connections. The deadlines are drawn uniformly from a window of 2 s that opens 2 s after
 *       the load starts, or, when the load is predicted to take longer than that allows, 0.5 s
 *       after its predicted end (with a safety factor). If the load still overruns the first
 *       deadline the attempt is discarded and retried once on a fresh server with the measured
 *       load time.</li>
 *   <li>As soon as the load is done the same GET/SET traffic starts again and runs until DBSIZE
 *       is back to the keys without TTL (plus a short tail for the chart), or until a cap.</li>
 *   <li>INFO stats before and after: {@code expired_keys} must have grown by exactly N.</li>
 * </ol>
 * {@link ServerRun#analyse} turns the samples into the report's numbers.
 *
 * <h2>Why PXAT by default</h2>
 * With absolute deadlines the last deadline is known to the millisecond, so "empty after the last
 * deadline" is not blurred by the time a pipelined SET spends in flight (with PX the server adds
 * the TTL to its own clock when the command arrives). {@code --ttl-form px} sends PX instead, with
 * each TTL computed from the same deadline just before the batch is written.
 */
@Command(name = "bench-side-by-side storm", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Expiry storm: N keys expiring within 2 s; reclamation delay, stale keys and"
                + " foreground GET/SET throughput, Cajon against redis-server.")
public final class ExpiryStorm implements Callable<Integer> {

    static final String DEFAULT_CAJON_CMD =
            "{home}/bin/cajon-server --bind 127.0.0.1 --port {port} --dir {dir}";
    static final String DEFAULT_REDIS_CMD =
            "redis-server --bind 127.0.0.1 --port {port} --dir {dir} --save \"\" --appendonly no";
    static final String DEFAULT_REDIS_AOF_CMD =
            "redis-server --bind 127.0.0.1 --port {port} --dir {dir} --save \"\""
                    + " --appendonly yes --appendfsync everysec";

    @Option(names = "--cajon-cmd", paramLabel = "TEMPLATE", description = "Default: ${DEFAULT-VALUE}")
    String cajonCmd = DEFAULT_CAJON_CMD;

    @Option(names = "--cajon-name", description = "Default: ${DEFAULT-VALUE}")
    String cajonName = "Cajon";

    @Option(names = "--redis-cmd", paramLabel = "TEMPLATE", description = "Default: ${DEFAULT-VALUE}")
    String redisCmd = DEFAULT_REDIS_CMD;

    @Option(names = "--aof", description = "Also run redis-server with an everysec AOF.")
    boolean aof;

    @Option(names = "--redis-aof-cmd", paramLabel = "TEMPLATE", description = "Default: ${DEFAULT-VALUE}")
    String redisAofCmd = DEFAULT_REDIS_AOF_CMD;

    @Option(names = "--only", split = ",", paramLabel = "NAME",
            description = "Run only these servers (by name, e.g. Cajon or Redis).")
    List<String> only = List.of();

    @Option(names = "--keys", description = "Keys with a TTL. Default: ${DEFAULT-VALUE}")
    int keys = 1_000_000;

    @Option(names = "--base-keys", description = "Keys without TTL, for the GET/SET traffic. Default: ${DEFAULT-VALUE}")
    int baseKeys = 100_000;

    @Option(names = "--value-size", description = "Default: ${DEFAULT-VALUE}")
    int valueSize = 32;

    @Option(names = "--lead", converter = Deadline.Converter.class,
            description = "Earliest first deadline after the start of the load. Default: 2s")
    Duration lead = Duration.ofSeconds(2);

    @Option(names = "--window", converter = Deadline.Converter.class,
            description = "Width of the deadline window. Default: 2s")
    Duration window = Duration.ofSeconds(2);

    @Option(names = "--gap", converter = Deadline.Converter.class,
            description = "Gap between the predicted end of a slow load and the first deadline. Default: 500ms")
    Duration gap = Duration.ofMillis(500);

    @Option(names = "--load-safety", description = "Factor on the predicted load time. Default: ${DEFAULT-VALUE}")
    double loadSafety = 1.5;

    @Option(names = "--ttl-form", description = "pxat (absolute deadlines) or px. Default: ${DEFAULT-VALUE}")
    String ttlForm = "pxat";

    @Option(names = "--load-connections", description = "Default: ${DEFAULT-VALUE}")
    int loadConnections = 4;

    @Option(names = "--batch", description = "Loader batch (commands per write). Default: ${DEFAULT-VALUE}")
    int batch = 1000;

    @Option(names = "--in-flight", description = "Loader batches in flight per connection. Default: ${DEFAULT-VALUE}")
    int inFlight = 2;

    @Option(names = "--connections", description = "GET/SET connections. Default: ${DEFAULT-VALUE}")
    int connections = 4;

    @Option(names = "--depth", description = "GET/SET commands in flight per connection. Default: ${DEFAULT-VALUE}")
    int depth = 16;

    @Option(names = "--set-ratio", description = "Share of SETs in the GET/SET traffic. Default: ${DEFAULT-VALUE}")
    double setRatio = 0.5;

    @Option(names = "--warmup", converter = Deadline.Converter.class,
            description = "GET/SET before the quiet baseline, not counted (a JVM server needs its JIT"
                    + " warm). Default: 5s")
    Duration warmup = Duration.ofSeconds(5);

    @Option(names = "--warmup-expiring", description = "Keys with a TTL that expire during the warm-up"
            + " (PXAT spread over 2 s from 0.5 s after the warm-up starts), so that the storm meets a"
            + " server whose expiry path is warm, as the GET/SET warm-up does for the foreground;"
            + " 0 for a cold storm. Default: ${DEFAULT-VALUE}")
    int warmupExpiring = 100_000;

    @Option(names = "--paced", description = "From the storm load on, offer GET/SET at this fraction of"
            + " the server's own quiet rate instead of as fast as it answers (0.5: half), and report what"
            + " the storm costs a server with room to spare. Not the target's measure, which is unpaced."
            + " Default: 0 (unpaced)")
    double paced = 0;

    @Option(names = "--quiet", converter = Deadline.Converter.class,
            description = "Quiet baseline (no TTL keys), measured before the storm and again after it."
                    + " Default: 5s")
    Duration quiet = Duration.ofSeconds(5);

    @Option(names = "--sample-interval", converter = Deadline.Converter.class,
            description = "DBSIZE sampling interval. Default: 10ms")
    Duration sampleInterval = Duration.ofMillis(10);

    @Option(names = "--max-drain", converter = Deadline.Converter.class,
            description = "Give up waiting for DBSIZE to drop after the last deadline. Default: 60s")
    Duration maxDrain = Duration.ofSeconds(60);

    @Option(names = "--tail", converter = Deadline.Converter.class,
            description = "Keep sampling after the storm is over, for the chart. Default: 1s")
    Duration tail = Duration.ofSeconds(1);

    @Option(names = "--seed", description = "Seed of the deadlines and keys. Default: ${DEFAULT-VALUE}")
    long seed = 42;

    @Option(names = "--deadline", converter = Deadline.Converter.class,
            description = "Budget for the whole run. Default: 5m")
    Duration deadline = Duration.ofMinutes(5);

    @Option(names = "--start-timeout", converter = Deadline.Converter.class,
            description = "Timeout for a server to answer PING. Default: 120s")
    Duration startTimeout = Duration.ofSeconds(120);

    @Option(names = "--op-timeout", converter = Deadline.Converter.class,
            description = "Socket timeout of one reply. Default: 30s")
    Duration opTimeout = Duration.ofSeconds(30);

    @Option(names = "--out", description = "Markdown file to update (relative to the Cajon checkout)."
            + " Default: ${DEFAULT-VALUE}")
    Path out = Path.of("docs/BENCHMARKS.md");

    @Option(names = "--chart", description = "PNG chart (relative to the Cajon checkout). Default: ${DEFAULT-VALUE}")
    Path chart = Path.of("docs/bench-expiry-storm.png");

    @Option(names = "--print-only", description = "Print the table; write neither Markdown nor PNG.")
    boolean printOnly;

    @Option(names = "--redis-server", description = "redis-server for the version line. Default: ${DEFAULT-VALUE}")
    String redisServer = "redis-server";

    @Option(names = "--work-dir", description = "Parent of the run's own directory. Default: the temp dir")
    Path workDir;

    @Option(names = "--keep", description = "Keep the work dir (data dirs, server logs) at the end.")
    boolean keep;

    @Option(names = "--dump", paramLabel = "DIR",
            description = "Write each server's DBSIZE samples and 10 ms GET/SET counts as CSV into DIR.")
    Path dump;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    static final byte[] SET = {'S', 'E', 'T'};
    static final byte[] PXAT = {'P', 'X', 'A', 'T'};
    static final byte[] CONFIG = "CONFIG".getBytes(StandardCharsets.US_ASCII);
    static final byte[] RESETSTAT = "RESETSTAT".getBytes(StandardCharsets.US_ASCII);
    static final byte[] PX = {'P', 'X'};
    static final byte[] STORM_PREFIX = "storm:".getBytes(StandardCharsets.US_ASCII);
    static final int STORM_DIGITS = 10;
    static final byte[] KEEP_PREFIX = "keep:".getBytes(StandardCharsets.US_ASCII);
    static final byte[] WARM_PREFIX = "warm:".getBytes(StandardCharsets.US_ASCII);
    static final int KEEP_DIGITS = 11;

    private final PrintStream log = System.err;
    private byte[] value;

    /** The load overran the first deadline; the attempt is void. */
    private static final class LoadOverrun extends IOException {
        private static final long serialVersionUID = 1L;
        final double loadMillis;

        LoadOverrun(String message, double loadMillis) {
            super(message);
            this.loadMillis = loadMillis;
        }
    }

    public static void main(String[] args) {
        Harness.main(new ExpiryStorm(), args);
    }

    @Override
    public Integer call() throws Exception {
        validate();
        value = valueBytes(valueSize);
        Path home = Harness.home();
        Path work = workDir != null
                ? Files.createTempDirectory(Files.createDirectories(workDir), "cajon-expiry-storm-")
                : Files.createTempDirectory("cajon-expiry-storm-");
        if (!keep) {
            Reaper.deleteOnExit(work);
        }
        Deadline budget = new Deadline(deadline);
        String commandLine = Harness.commandLine("bench-side-by-side storm",
                spec.commandLine().getParseResult().originalArgs());
        ZonedDateTime started = ZonedDateTime.now(ZoneOffset.UTC);
        String loadBefore = MachineInfo.loadAverage();

        List<ServerRun.Target> targets = new ArrayList<>();
        targets.add(new ServerRun.Target(cajonName, "a-" + slug(cajonName),
                new CommandTemplate(cajonCmd).requireLoopback()));
        targets.add(new ServerRun.Target("Redis", "b-redis", new CommandTemplate(redisCmd).requireLoopback()));
        if (aof) {
            targets.add(new ServerRun.Target("Redis AOF", "c-redis-aof",
                    new CommandTemplate(redisAofCmd).requireLoopback()));
        }
        if (!only.isEmpty()) {
            targets.removeIf(t -> only.stream().noneMatch(o -> o.equalsIgnoreCase(t.name())));
        }
        if (targets.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--only matches no server");
        }

        List<ServerRun> runs = new ArrayList<>();
        try {
            for (ServerRun.Target t : targets) {
                runs.add(runWithRetry(t, work, home, budget));
            }
        } finally {
            Reaper.killAll();
        }
        String loadAfter = MachineInfo.loadAverage();
        for (ServerRun r : runs) {
            r.analyse();
            if (dump != null) {
                r.dump(dump.resolve(r.target.slug()));
            }
        }

        StormReport report = new StormReport(this, runs, commandLine, started, home, loadBefore, loadAfter);
        String markdown = report.markdown(home.resolve(out).toAbsolutePath().getParent()
                .relativize(home.resolve(chart).toAbsolutePath()).toString());
        System.out.println(markdown);
        if (!printOnly) {
            Path png = home.resolve(chart);
            try {
                StormChart.write(png, runs, this);
                log.println("chart: " + png);
            } catch (IOException | RuntimeException e) {
                log.println("chart failed: " + e);
            }
            Path md = home.resolve(out);
            MarkdownSection.write(md, "expiry-storm", markdown);
            log.println("updated: " + md);
        }
        if (keep) {
            log.println("kept work dir: " + work);
        } else {
            Harness.deleteTree(work);
        }
        return runs.stream().anyMatch(r -> r.error != null) ? 2 : 0;
    }

    private void validate() {
        if (keys < 1 || baseKeys < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--keys and --base-keys must be positive");
        }
        if (Long.toString(keys - 1L).length() > STORM_DIGITS || Long.toString(baseKeys - 1L).length() > KEEP_DIGITS) {
            throw new CommandLine.ParameterException(spec.commandLine(), "too many keys for the key format");
        }
        if (!ttlForm.equals("pxat") && !ttlForm.equals("px")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--ttl-form is pxat or px");
        }
        if (valueSize < 1 || depth < 1 || connections < 1 || loadConnections < 1 || batch < 1 || inFlight < 1
                || setRatio < 0 || setRatio > 1 || loadSafety < 1 || window.isNegative() || sampleInterval.isZero()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "an option is out of range");
        }
    }

    /** One server: a fresh start; a second one, on a fresh dir, if the load overran the window. */
    private ServerRun runWithRetry(ServerRun.Target t, Path work, Path home, Deadline budget) {
        double predictedOverride = Double.NaN;
        ServerRun r = null;
        for (int attempt = 1; attempt <= 2; attempt++) {
            r = new ServerRun(t);
            r.attempt = attempt;
            if (budget.expired()) {
                r.error = "global deadline reached before it started";
                return r;
            }
            Path dir = work.resolve(t.slug() + "-" + attempt);
            ServerProcess server = new ServerProcess(t.name(), t.template(), dir.resolve("data"),
                    dir.resolve("server.log"), home);
            try {
                measure(server, r, budget, predictedOverride);
                return r;
            } catch (LoadOverrun e) {
                log.println(t.name() + ": " + e.getMessage() + (attempt == 1 ? "; retrying on a fresh server" : ""));
                r.error = e.getMessage();
                predictedOverride = e.loadMillis;
            } catch (IOException | RuntimeException e) {
                r.error = e.getMessage() == null ? e.toString() : e.getMessage();
                log.println(t.name() + ": FAILED: " + r.error);
                if (server.isAlive()) {
                    log.println("end of " + server.logFile() + ":\n" + server.logTail(15));
                }
                return r;
            } finally {
                server.stop();
            }
        }
        return r;
    }

    private void measure(ServerProcess server, ServerRun r, Deadline budget, double predictedOverride)
            throws IOException {
        String name = r.target.name();
        int timeout = (int) opTimeout.toMillis();
        r.loadAverageBefore = MachineInfo.loadAverage();
        Duration started = server.start(budget.cap(startTimeout));
        r.startMillis = started.toMillis();
        int port = server.port();
        log.printf("%s: started in %d ms (pid %d, %s)%n", name, r.startMillis, server.pid(),
                ServerProcess.display(server.argv()));
        Timeline time = new Timeline();
        r.keys = keys;
        r.base = baseKeys;
        try (RespConn c = new RespConn(port, timeout)) {
            long d = dbsize(c);
            if (d != 0) {
                throw new IOException("DBSIZE on the fresh data dir is " + d + ", not 0");
            }
        }

        // 1. keys without TTL
        long baseNanos = Loader.load(port, baseKeys, loadConnections, batch, inFlight, timeout, budget,
                (c, i) -> c.array(3).bulk(SET).bulkKey(KEEP_PREFIX, i, KEEP_DIGITS).bulk(value),
                i -> "SET keep:" + i);
        r.baseLoadMillis = baseNanos / 1e6;
        log.printf("%s: %,d keys without TTL loaded in %.0f ms%n", name, baseKeys, r.baseLoadMillis);

        try (DbsizeSampler sampler = new DbsizeSampler(port, timeout, time, sampleInterval.toNanos() / 1000).start()) {
            // 2. quiet baseline
            MixedLoad quietLoad = new MixedLoad(port, connections, depth, baseKeys, setRatio, KEEP_PREFIX,
                    KEEP_DIGITS, value, timeout, time, budget, seed);
            try (quietLoad) {
                quietLoad.start();
                double warmupEnd = time.now() + warmup.toMillis();
                warmExpiry(port, name, timeout, budget);
                sleepUntil(time, warmupEnd, budget);
                awaitBaseOnly(port, timeout, time, budget);
                r.quietFrom = time.now();
                sleepUntil(time, r.quietFrom + quiet.toMillis(), budget);
                r.quietTo = time.now();
            }
            checkMixed(quietLoad, "quiet baseline");
            r.quietOps = quietLoad.ops();
            r.quietRtt = quietLoad.maxRttMicros();
            r.misses += quietLoad.misses();
            r.badReplies += quietLoad.badReplies();
            log.printf("%s: quiet GET/SET %,.0f ops/s%n", name,
                    StormAnalysis.throughput(r.quietOps, r.quietFrom, r.quietTo));

            try (RespConn c = new RespConn(port, timeout)) {
                // INFO stats counters from zero, so that a server's own lag figures (Cajon's wheel
                // histogram) describe the storm alone, not the warm-up keys as well
                c.array(2).bulk(CONFIG).bulk(RESETSTAT);
                c.flush();
                if (!c.readOk()) {
                    throw new IOException("CONFIG RESETSTAT was refused");
                }
                r.expiryInfoBefore = expiryFields(c);
            }

            // 3. the storm load. Its duration is predicted from the load of the keep: keys. On a cold
            // JVM that overestimates, which only costs waiting; overwriting the keep: keys on the
            // warm server was tried and underestimates badly (inserting new keys into a growing
            // map is several times slower than overwriting), which costs a retry.
            double rate = baseKeys / (baseNanos / 1e9);
            r.predictedLoadMillis = Double.isNaN(predictedOverride) ? keys / rate * 1000 : predictedOverride;
            int widthMs = (int) window.toMillis();
            SplittableRandom rnd = new SplittableRandom(seed);
            int[] offsets = new int[keys];
            for (int i = 0; i < keys; i++) {
                offsets[i] = rnd.nextInt(widthMs + 1);
            }
            r.ttlForm = ttlForm.toUpperCase(Locale.ROOT);
            r.loadStart = time.now();
            r.windowStart = Math.ceil(r.loadStart + Math.max(lead.toMillis(),
                    loadSafety * r.predictedLoadMillis + gap.toMillis()));
            r.windowWidth = widthMs;
            long windowEpoch = time.toEpochMillis(r.windowStart);
            double[] dl = new double[keys];
            for (int i = 0; i < keys; i++) {
                dl[i] = time.fromEpochMillis(windowEpoch + offsets[i]);
            }
            Arrays.sort(dl);
            r.deadlines = dl;
            r.firstDeadline = dl[0];
            r.lastDeadline = dl[keys - 1];
            boolean px = ttlForm.equals("px");
            long stormNanos = Loader.load(port, keys, loadConnections, batch, inFlight, timeout, budget, (c, i) -> {
                c.array(5).bulk(SET).bulkKey(STORM_PREFIX, i, STORM_DIGITS).bulk(value);
                long at = windowEpoch + offsets[i];
                if (px) {
                    c.bulk(PX).bulk(Math.max(1, at - System.currentTimeMillis()));
                } else {
                    c.bulk(PXAT).bulk(at);
                }
            }, i -> "SET storm:" + i + " ... " + r.ttlForm);
            r.loadEnd = time.now();
            MixedLoad stormLoad = new MixedLoad(port, connections, depth, baseKeys, setRatio, KEEP_PREFIX,
                    KEEP_DIGITS, value, timeout, time, budget, seed + 1);
            if (paced > 0) {
                r.offeredRate = paced * StormAnalysis.throughput(r.quietOps, r.quietFrom, r.quietTo);
                stormLoad.paced(r.offeredRate);
            }
            try (stormLoad) {
                stormLoad.start();
                r.stormLoadFrom = r.loadEnd;
                log.printf("%s: %,d keys with %s loaded in %.0f ms (predicted %.0f ms); deadlines"
                                + " %.2f s .. %.2f s after the load started%n", name, keys, r.ttlForm,
                        stormNanos / 1e6, r.predictedLoadMillis, (r.firstDeadline - r.loadStart) / 1000,
                        (r.lastDeadline - r.loadStart) / 1000);
                if (r.loadEnd > r.firstDeadline) {
                    throw new LoadOverrun(String.format(Locale.ROOT,
                            "the load took %.0f ms and overran the first deadline by %.0f ms",
                            stormNanos / 1e6, r.loadEnd - r.firstDeadline), stormNanos / 1e6);
                }
                // 4. the storm: wait until DBSIZE is back to the keys without TTL
                if (awaitDrain(r, sampler, time, budget)) {
                    // 5. quiet again, same traffic: the baseline once more, with a warm server
                    r.postQuietFrom = time.now();
                    sleepUntil(time, r.postQuietFrom + quiet.toMillis(), budget);
                    r.postQuietTo = time.now();
                }
                r.stormLoadTo = time.now();
            }
            r.samples = sampler.samples();
            if (sampler.failure() != null) {
                throw new IOException("DBSIZE sampling failed: " + sampler.failure().getMessage(), sampler.failure());
            }
            checkMixed(stormLoad, "storm");
            r.stormOps = stormLoad.ops();
            r.stormRtt = stormLoad.maxRttMicros();
            r.misses += stormLoad.misses();
            r.badReplies += stormLoad.badReplies();
        }

        // 6. counters and final state
        try (RespConn c = new RespConn(port, timeout)) {
            r.expiryInfoAfter = expiryFields(c);
            r.lagInfo = lagFields(c);
            r.finalDbsize = dbsize(c);
        }
        r.loadAverageAfter = MachineInfo.loadAverage();
        if (r.misses > 0) {
            r.notes.add(String.format(Locale.ROOT, "%,d GETs of keys without TTL found nothing", r.misses));
        }
        if (r.badReplies > 0) {
            r.notes.add(String.format(Locale.ROOT, "%,d unexpected GET/SET replies", r.badReplies));
        }
        log.printf("%s: done; DBSIZE %,d, expired_keys %s -> %s%n", name, r.finalDbsize,
                r.expiryInfoBefore.get("expired_keys"), r.expiryInfoAfter.get("expired_keys"));
    }

    /**
     * Waits until DBSIZE has been back at the keys without TTL after the last deadline, and the
     * +500 ms point and a tail for the chart have passed (true); or until --max-drain after the
     * last deadline, or the global deadline (false).
     */
    private boolean awaitDrain(ServerRun r, DbsizeSampler sampler, Timeline time, Deadline budget) {
        double emptySeen = Double.NaN;
        while (true) {
            double now = time.now();
            if (budget.expired()) {
                r.notes.add("the global deadline cut the wait for DBSIZE to drop");
                return false;
            }
            if (!sampler.isRunning()) {
                return false; // its failure is reported by the caller
            }
            if (now > r.lastDeadline + maxDrain.toMillis()) {
                r.notes.add(String.format(Locale.ROOT, "gave up %d s after the last deadline with %,d TTL"
                        + " keys still counted", maxDrain.toSeconds(), sampler.lastValue() - r.base));
                return false;
            }
            if (Double.isNaN(emptySeen) && sampler.lastValue() >= 0 && sampler.lastValue() <= r.base
                    && sampler.lastReceived() >= r.lastDeadline) {
                emptySeen = now;
            }
            if (!Double.isNaN(emptySeen) && now >= Math.max(r.lastDeadline + 500, emptySeen) + tail.toMillis()) {
                return true;
            }
            LockSupport.parkNanos(5_000_000L);
        }
    }

    /**
     * The expiry warm-up: {@code --warmup-expiring} keys whose deadlines spread over 2 s starting
     * 0.5 s after they are loaded, 50k deletions a second for the default, a tenth of the storm's
     * rate. Without it a JVM server meets the storm with a reclaim path that the JIT has never seen
     * (measured: Cajon's ran interpreted and then C1-compiled for the storm's first 0.8 s, and its
     * C2 compile took 0.3 core-seconds in the middle of the storm); the GET/SET warm-up exists for
     * the same reason. Redis gets the same keys.
     */
    private void warmExpiry(int port, String name, int timeout, Deadline budget) throws IOException {
        if (warmupExpiring <= 0) {
            return;
        }
        long first = System.currentTimeMillis() + 500;
        int widthMs = 2000;
        int n = warmupExpiring;
        long nanos = Loader.load(port, n, loadConnections, batch, inFlight, timeout, budget,
                (c, i) -> c.array(5).bulk(SET).bulkKey(WARM_PREFIX, i, STORM_DIGITS).bulk(value).bulk(PXAT)
                        .bulk(first + (long) i * widthMs / n),
                i -> "SET warm:" + i + " ... PXAT");
        log.printf("%s: %,d warm-up keys with PXAT loaded in %.0f ms%n", name, n, nanos / 1e6);
    }

    /** Waits (up to --max-drain) until DBSIZE is down to the keys without TTL: the warm-up keys are gone. */
    private void awaitBaseOnly(int port, int timeout, Timeline time, Deadline budget)
            throws IOException {
        if (warmupExpiring <= 0) {
            return;
        }
        double giveUp = time.now() + maxDrain.toMillis();
        try (RespConn c = new RespConn(port, timeout)) {
            long d;
            while ((d = dbsize(c)) > baseKeys) {
                if (time.now() > giveUp || budget.expired()) {
                    throw new IOException(String.format(Locale.ROOT, "%,d warm-up keys still counted %d s"
                            + " after the warm-up", d - baseKeys, maxDrain.toSeconds()));
                }
                LockSupport.parkNanos(10_000_000L);
            }
        }
    }

    private static void checkMixed(MixedLoad m, String phase) throws IOException {
        if (m.failure() != null) {
            throw new IOException("GET/SET traffic failed during the " + phase + ": " + m.failure());
        }
    }

    private static void sleepUntil(Timeline time, double t, Deadline budget) {
        double now;
        while ((now = time.now()) < t && !budget.expired()) {
            LockSupport.parkNanos((long) Math.min(50e6, (t - now) * 1e6));
        }
    }

    static long dbsize(RespConn c) throws IOException {
        c.array(1).bulk(new byte[] {'D', 'B', 'S', 'I', 'Z', 'E'});
        c.flush();
        return c.readInteger();
    }

    /** INFO stats fields about expiry: expired_keys, and Redis's expire-cycle counters. */
    static Map<String, String> expiryFields(RespConn c) throws IOException {
        Map<String, String> all = infoFields(c, "stats");
        Map<String, String> out = new LinkedHashMap<>();
        all.forEach((k, v) -> {
            if (k.startsWith("expired_") || k.startsWith("expire_")) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** Any INFO field that looks like an expiry lag (e.g. a wheel's worst lag), from all sections. */
    static Map<String, String> lagFields(RespConn c) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String section : List.of("default", "stats", "all")) {
            infoFields(c, section).forEach((k, v) -> {
                String l = k.toLowerCase(Locale.ROOT);
                if (l.contains("lag") && (l.contains("expir") || l.contains("wheel") || l.contains("reclaim"))) {
                    out.put(k, v);
                }
            });
        }
        return out;
    }

    static Map<String, String> infoFields(RespConn c, String section) throws IOException {
        Object reply = c.call("INFO", section);
        Map<String, String> out = new LinkedHashMap<>();
        if (!(reply instanceof byte[])) {
            return out;
        }
        for (String line : RespConn.text(reply).split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                out.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return out;
    }

    static byte[] valueBytes(int size) {
        byte[] v = new byte[size];
        byte[] text = "storm-value-".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < size; i++) {
            v[i] = i < text.length ? text[i] : (byte) ('a' + (i % 26));
        }
        return v;
    }

    static String slug(String name) {
        return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
    }
}
