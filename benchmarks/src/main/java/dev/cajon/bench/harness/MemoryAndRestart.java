package dev.cajon.bench.harness;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Memory per key, disk per key and restart time, for Cajon and for redis-server.
 *
 * <p>For each server in turn (never two at once, so their RSS and CPU do not mix): start it on an
 * empty data dir, load N keys (default 1M, 16-byte names, 32-byte values) with a pipelined
 * raw-socket loader, and measure how much the resident set of its process tree grew and how much
 * the data dir holds. Then make the data durable the server's own way (Redis without persistence:
 * {@code SAVE} writes the RDB; AOF Redis and Cajon: nothing to do), stop it with SIGTERM, start it
 * again on the same data dir, and time from the start of the process until the first
 * {@code +PONG}. Redis answers {@code -LOADING} while it reads its RDB or AOF, so the first PONG
 * really marks the end of loading. Finally DBSIZE and a few GETs check that the data came back.
 *
 * <p>What it does not measure: a cold page cache. The data files were just written and are still
 * cached, so this is a warm restart, the common case after a deploy or a crash loop.
 */
@Command(name = "bench-side-by-side memory-restart", mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "RSS and disk per key, and restart time to first PONG, for Cajon and redis-server.")
public final class MemoryAndRestart implements Callable<Integer> {

    @Option(names = {"--cajon-cmd", "--b-cmd"}, paramLabel = "TEMPLATE",
            description = "Default: ${DEFAULT-VALUE}")
    String cajonCmd = SideBySide.DEFAULT_CAJON_CMD;

    @Option(names = "--cajon-name", description = "Default: ${DEFAULT-VALUE}")
    String cajonName = "Cajon";

    @Option(names = "--cajon-persist", paramLabel = "COMMAND",
            description = "Command sent before the restart to make the data durable (e.g. SAVE when a"
                    + " redis-server stands in for Cajon). Default: none")
    String cajonPersist = "";

    @Option(names = "--redis-cmd", paramLabel = "TEMPLATE", description = "Default: ${DEFAULT-VALUE}")
    String redisCmd = SideBySide.DEFAULT_REDIS_CMD;

    @Option(names = "--redis-aof-cmd", paramLabel = "TEMPLATE", description = "Default: ${DEFAULT-VALUE}")
    String redisAofCmd = SideBySide.DEFAULT_REDIS_AOF_CMD;

    @Option(names = "--no-aof", description = "Skip AOF redis-server.")
    boolean noAof;

    @Option(names = "--only", split = ",", paramLabel = "NAME",
            description = "Run only these servers (by name, e.g. Cajon).")
    List<String> only = List.of();

    @Option(names = "--keys", description = "Default: ${DEFAULT-VALUE}")
    int keys = 1_000_000;

    @Option(names = "--key-size", description = "Default: ${DEFAULT-VALUE}")
    int keySize = 16;

    @Option(names = "--value-size", description = "Default: ${DEFAULT-VALUE}")
    int valueSize = 32;

    @Option(names = "--restarts", description = "How many times to restart and time. Default: ${DEFAULT-VALUE}")
    int restarts = 3;

    @Option(names = "--batch", description = "Loader pipeline depth. Default: ${DEFAULT-VALUE}")
    int batch = 1000;

    @Option(names = "--settle", converter = Deadline.Converter.class,
            description = "Pause before each RSS reading, as an operator would look a few seconds"
                    + " after the load. Default: 5s")
    Duration settle = Duration.ofSeconds(5);

    @Option(names = "--loader", description = "pipe: redis-cli --pipe of a file of SETs, as an operator"
            + " bulk-loads; socket: the harness's own pipelined connection, --batch in flight."
            + " Default: ${DEFAULT-VALUE}")
    String loader = "pipe";

    @Option(names = "--no-gc-before-rss",
            description = "Skip the second reading of each RSS, taken after every JVM in the server's"
                    + " process tree ran a full GC (jcmd GC.run).")
    boolean noGc;

    @Option(names = "--deadline", converter = Deadline.Converter.class,
            description = "Budget for the whole run. Default: 20m")
    Duration deadline = Duration.ofMinutes(20);

    @Option(names = "--start-timeout", converter = Deadline.Converter.class,
            description = "Timeout for a server to answer PING after (re)start. Default: 180s")
    Duration startTimeout = Duration.ofSeconds(180);

    @Option(names = "--op-timeout", converter = Deadline.Converter.class,
            description = "Socket timeout of one reply (SAVE can be slow). Default: 120s")
    Duration opTimeout = Duration.ofSeconds(120);

    @Option(names = "--out", description = "Markdown file to update (relative to the Cajon checkout)."
            + " Default: ${DEFAULT-VALUE}")
    Path out = Path.of("docs/BENCHMARKS.md");

    @Option(names = "--print-only", description = "Print the table; do not write Markdown.")
    boolean printOnly;

    @Option(names = "--redis-server", description = "redis-server used for the version line."
            + " Default: ${DEFAULT-VALUE}")
    String redisServer = "redis-server";

    @Option(names = "--work-dir",
            description = "Parent of the run's own new directory for data dirs and logs. Default: the temp dir")
    Path workDir;

    @Option(names = "--keep", description = "Keep the work dir at the end.")
    boolean keep;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** One server to measure and how it makes its data durable before a restart. */
    record Target(String name, String slug, CommandTemplate template, String persist) {
    }

    /** Everything measured for one target; NaN or null where a step did not happen. */
    static final class Result {
        final Target target;
        Duration coldStart;
        /** As an operator sees it: {@code settle} after the step, no GC from outside. */
        ServerProcess.Rss rssEmpty;
        ServerProcess.Rss rssLoaded;
        /** The same, then after a full GC of every JVM in the tree (null with --no-gc-before-rss). */
        ServerProcess.Rss rssEmptyGc;
        ServerProcess.Rss rssLoadedGc;
        ServerProcess.Rss rssRestarted;
        Duration load;
        String dbsizeLoaded = "n/a";
        Duration persist;
        long diskLoaded = -1;
        long diskPersisted = -1;
        long apparentPersisted = -1;
        Duration stop;
        final List<Duration> restarts = new ArrayList<>();
        String dbsizeRestarted = "n/a";
        String spotCheck = "n/a";
        String error;
        boolean gcBeforeRss;

        Result(Target target) {
            this.target = target;
        }
    }

    private final PrintStream log = System.err;

    public static void main(String[] args) {
        Harness.main(new MemoryAndRestart(), args);
    }

    @Override
    public Integer call() throws Exception {
        int digits = Integer.toString(Math.max(0, keys - 1)).length();
        if (keySize < 4 + digits || valueSize < 4 + digits) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--key-size and --value-size must be at least " + (4 + digits) + " for " + keys + " keys");
        }
        Path home = Harness.home();
        // always a new directory of our own, even under --work-dir: it is deleted at the end
        Path work = workDir != null
                ? Files.createTempDirectory(Files.createDirectories(workDir), "cajon-memory-restart-")
                : Files.createTempDirectory("cajon-memory-restart-");
        if (!keep) {
            Reaper.deleteOnExit(work);
        }
        Deadline budget = new Deadline(deadline);
        String commandLine = Harness.commandLine("bench-side-by-side memory-restart",
                spec.commandLine().getParseResult().originalArgs());
        ZonedDateTime started = ZonedDateTime.now(ZoneOffset.UTC);

        List<Target> targets = new ArrayList<>();
        targets.add(new Target(cajonName, "a-" + SideBySide.slug(cajonName),
                new CommandTemplate(cajonCmd).requireLoopback(), cajonPersist));
        targets.add(new Target("Redis", "b-redis", new CommandTemplate(redisCmd).requireLoopback(), "SAVE"));
        if (!noAof) {
            targets.add(new Target("Redis AOF", "c-redis-aof",
                    new CommandTemplate(redisAofCmd).requireLoopback(), ""));
        }
        if (!only.isEmpty()) {
            targets.removeIf(t -> only.stream().noneMatch(o -> o.equalsIgnoreCase(t.name())));
        }

        List<Result> results = new ArrayList<>();
        try {
            for (Target t : targets) {
                Result r = new Result(t);
                results.add(r);
                if (budget.expired()) {
                    r.error = "deadline reached before it started";
                    continue;
                }
                Path dir = work.resolve(t.slug());
                ServerProcess server = new ServerProcess(t.name(), t.template(), dir.resolve("data"),
                        dir.resolve("server.log"), home);
                try {
                    measure(server, r, budget);
                } catch (IOException | RuntimeException e) {
                    r.error = e.getMessage();
                    log.println(t.name() + ": FAILED: " + e.getMessage());
                } finally {
                    server.stop();
                }
            }
        } finally {
            Reaper.killAll();
        }

        String markdown = report(results, commandLine, started, home);
        System.out.println(markdown);
        if (!printOnly) {
            Path md = home.resolve(out);
            MarkdownSection.write(md, "memory-restart", markdown);
            log.println("updated: " + md);
        }
        if (keep) {
            log.println("kept work dir: " + work);
        } else {
            Harness.deleteTree(work);
        }
        return results.stream().anyMatch(r -> r.error != null) ? 2 : 0;
    }

    private void measure(ServerProcess server, Result r, Deadline budget) throws IOException {
        String name = r.target.name();
        r.coldStart = server.start(budget.cap(startTimeout));
        log.printf("%s: started on an empty dir in %d ms (pid %d, %s)%n", name, r.coldStart.toMillis(),
                server.pid(), ServerProcess.display(server.argv()));
        r.rssEmpty = settledRss(server);
        r.rssEmptyGc = gcRss(server, r);

        long t0 = System.nanoTime();
        if (loader.equals("pipe")) {
            pipeLoad(server.port, server.dataDir.resolveSibling("load.resp"), budget);
        } else {
            load(server.port, budget);
        }
        r.load = Duration.ofNanos(System.nanoTime() - t0);
        log.printf("%s: loaded %,d keys in %.1f s%n", name, keys, r.load.toMillis() / 1000.0);
        r.dbsizeLoaded = dbsize(server.port);
        r.rssLoaded = settledRss(server);
        r.rssLoadedGc = gcRss(server, r);
        r.diskLoaded = du(server.dataDir, false);
        log.printf("%s: RSS %s -> %s, DBSIZE %s%n", name, mib(r.rssEmpty.total()),
                mib(r.rssLoaded.total()), r.dbsizeLoaded);

        if (!r.target.persist().isBlank()) {
            try (Resp c = new Resp(server.port, (int) opTimeout.toMillis())) {
                long p0 = System.nanoTime();
                Object reply = c.call(CommandTemplate.split(r.target.persist()).toArray(String[]::new));
                r.persist = Duration.ofNanos(System.nanoTime() - p0);
                if (reply instanceof Resp.Error e) {
                    throw new IOException(r.target.persist() + " failed: " + e.message());
                }
                if (r.target.persist().trim().equalsIgnoreCase("BGSAVE")) {
                    awaitBackgroundSave(c, budget);
                    r.persist = Duration.ofNanos(System.nanoTime() - p0);
                }
            }
            log.printf("%s: %s took %d ms%n", name, r.target.persist(), r.persist.toMillis());
        }
        r.stop = server.stop();
        // after the stop: whatever the server flushes on SIGTERM is on disk now
        r.diskPersisted = du(server.dataDir, false);
        r.apparentPersisted = du(server.dataDir, true);
        log.printf("%s: SIGTERM to exit %d ms; data dir %s (apparent %s)%n", name, r.stop.toMillis(),
                mib(r.diskPersisted), mib(r.apparentPersisted));

        if (budget.expired()) {
            throw new IOException("deadline reached before the restart");
        }
        // The first restart reads files the server just wrote; repeating it shows how much of the
        // number is noise from the shared machine. Each repetition is a plain SIGTERM and start.
        for (int i = 0; i < restarts; i++) {
            if (i > 0) {
                server.stop();
                if (budget.expired()) {
                    break;
                }
            }
            Duration d = server.start(budget.cap(startTimeout));
            r.restarts.add(d);
            log.printf("%s: restart %d, first PONG after %d ms%n", name, i + 1, d.toMillis());
        }
        r.dbsizeRestarted = dbsize(server.port);
        r.spotCheck = spotCheck(server.port);
        r.rssRestarted = settledRss(server);
        log.printf("%s: after restart DBSIZE %s, values %s, RSS %s%n", name, r.dbsizeRestarted,
                r.spotCheck, mib(r.rssRestarted.total()));
    }

    /** RSS {@code settle} after the step: what {@code ps} shows an operator, nobody forcing a GC. */
    private ServerProcess.Rss settledRss(ServerProcess server) {
        pause(settle);
        return server.rss();
    }

    /** A second reading after a full GC of every JVM in the tree (garbage then does not count). */
    private ServerProcess.Rss gcRss(ServerProcess server, Result r) {
        if (noGc || server.fullGc() == 0) {
            return null;
        }
        r.gcBeforeRss = true;
        pause(Duration.ofSeconds(2));
        return server.rss();
    }

    /**
     * The load as an operator does it: a file of SET commands in RESP, fed to
     * {@code redis-cli --pipe}, which writes as fast as the server takes it and checks every reply.
     */
    private void pipeLoad(int port, Path file, Deadline budget) throws IOException {
        try (var w = new java.io.BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            for (int i = 0; i < keys; i++) {
                byte[] k = key(i);
                byte[] v = value(i);
                w.write(("*3\r\n$3\r\nSET\r\n$" + k.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                w.write(k);
                w.write(("\r\n$" + v.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                w.write(v);
                w.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
        }
        ProcessBuilder pb = new ProcessBuilder("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port), "--pipe")
                .redirectInput(file.toFile()).redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(Math.max(1, budget.remaining().toSeconds()), java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("redis-cli --pipe did not finish within the deadline");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        Files.deleteIfExists(file);
        if (p.exitValue() != 0 || !out.contains("errors: 0, replies: " + keys)) {
            throw new IOException("redis-cli --pipe: " + out.strip());
        }
    }

    // ---------------------------------------------------------------- loader

    byte[] key(int i) {
        return pad("key:", i, keySize);
    }

    byte[] value(int i) {
        return pad("val:", i, valueSize);
    }

    /** prefix + i, zero-padded to exactly {@code size} bytes: "key:000000000042". */
    private static byte[] pad(String prefix, int i, int size) {
        String digits = Integer.toString(i);
        byte[] b = new byte[size];
        Arrays.fill(b, (byte) '0');
        byte[] p = prefix.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(p, 0, b, 0, p.length);
        byte[] d = digits.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(d, 0, b, size - d.length, d.length);
        return b;
    }

    /**
     * SETs keys 0..N-1 over one connection, {@code batch} commands in flight at a time: write a
     * batch, then read its replies. Every reply must be +OK; the first that is not stops the load.
     */
    private void load(int port, Deadline budget) throws IOException {
        byte[] set = "SET".getBytes(StandardCharsets.US_ASCII);
        try (Resp c = new Resp(port, (int) opTimeout.toMillis())) {
            for (int from = 0; from < keys; from += batch) {
                if (budget.expired()) {
                    throw new IOException("deadline reached after loading " + from + " keys");
                }
                int to = Math.min(keys, from + batch);
                for (int i = from; i < to; i++) {
                    c.send(set, key(i), value(i));
                }
                c.flush();
                for (int i = from; i < to; i++) {
                    Object reply = c.read();
                    if (!"OK".equals(reply)) {
                        throw new IOException("SET " + new String(key(i), StandardCharsets.US_ASCII)
                                + " answered " + Resp.text(reply));
                    }
                }
            }
        }
    }

    /** BGSAVE only forks; the RDB is written when INFO says no background save is running. */
    private void awaitBackgroundSave(Resp c, Deadline budget) throws IOException {
        while (!budget.expired()) {
            String info = Resp.text(c.call("INFO", "persistence"));
            if (info.contains("rdb_bgsave_in_progress:0")) {
                if (!info.contains("rdb_last_bgsave_status:ok")) {
                    throw new IOException("BGSAVE failed: rdb_last_bgsave_status is not ok");
                }
                return;
            }
            pause(Duration.ofMillis(10));
        }
        throw new IOException("deadline reached while waiting for BGSAVE");
    }

    private String dbsize(int port) {
        try (Resp c = new Resp(port, (int) opTimeout.toMillis())) {
            Object reply = c.call("DBSIZE");
            return reply instanceof Long n ? String.format(Locale.ROOT, "%,d", n)
                    : "n/a (" + Resp.text(reply) + ")";
        } catch (IOException e) {
            return "n/a (" + e.getMessage() + ")";
        }
    }

    /** GETs the first, last and a few keys in between and compares the values byte for byte. */
    private String spotCheck(int port) {
        int[] probes = {0, keys / 3, keys / 2, 2 * (keys / 3), keys - 1};
        int good = 0;
        try (Resp c = new Resp(port, (int) opTimeout.toMillis())) {
            for (int i : probes) {
                Object reply = c.call("GET", new String(key(i), StandardCharsets.US_ASCII));
                if (reply instanceof byte[] b && Arrays.equals(b, value(i))) {
                    good++;
                }
            }
        } catch (IOException e) {
            return "n/a (" + e.getMessage() + ")";
        }
        return good + "/" + probes.length + " match";
    }

    /** Bytes in a directory tree: allocated blocks ({@code du -B1}) or apparent sizes. */
    static long du(Path dir, boolean apparent) {
        List<String> argv = apparent ? List.of("du", "-s", "-b", dir.toString())
                : List.of("du", "-s", "-B1", dir.toString());
        String outText = MachineInfo.capture(argv, Duration.ofSeconds(60));
        try {
            return Long.parseLong(outText.split("\\s+")[0]);
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            return -1;
        }
    }

    private static void pause(Duration d) {
        ServerProcess.sleepMillis(d.toMillis());
    }

    // ---------------------------------------------------------------- report

    private String report(List<Result> results, String commandLine, ZonedDateTime started, Path home) {
        StringBuilder md = new StringBuilder();
        md.append("## Memory per key and restart time\n\n");
        md.append("Produced by `").append(commandLine).append("` on ")
                .append(started.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")))
                .append(" (Cajon ").append(MachineInfo.gitCommit(home)).append(").\n\n");
        md.append("- Machine: ").append(MachineInfo.summary(redisServer, "redis-benchmark")).append(".\n");
        md.append(String.format(Locale.ROOT, "- Data: %,d keys of %d bytes (`key:000000000042`) with"
                + " %d-byte values, SET, %s.%n", keys, keySize, valueSize, loader.equals("pipe")
                        ? "loaded by `redis-cli --pipe` from a file" : "over one connection, " + batch + " commands in flight"));
        md.append("- RSS is VmRSS of the server's process tree from /proc/PID/status, read ")
                .append(settle.toMillis()).append(" ms after each step, nobody forcing a GC: what an"
                        + " operator sees. Per key = growth / keys. Anon is heap and malloc; file+shmem"
                        + " is mapped files.");
        if (results.stream().anyMatch(r -> r.gcBeforeRss)) {
            md.append(" A second reading follows a full GC of every JVM in the tree (`jcmd PID GC.run`),"
                    + " so garbage does not count in it.");
        }
        md.append('\n');
        md.append("- Restart: SIGTERM, wait for exit, start on the same data dir, time from process"
                + " start to the first `+PONG` (Redis answers `-LOADING` until its data is in);"
                + " done " + restarts + " times. The page cache is warm.\n");
        md.append("- Servers, each alone on 127.0.0.1 with a fresh data dir:\n");
        for (Result r : results) {
            md.append("  - ").append(r.target.name()).append(": `").append(r.target.template().text())
                    .append('`');
            if (!r.target.persist().isBlank()) {
                md.append(", then `").append(r.target.persist()).append("` before the restart");
            }
            md.append('\n');
        }
        md.append('\n');

        md.append("| |");
        results.forEach(r -> md.append(' ').append(r.target.name()).append(" |"));
        md.append("\n|---|").append("---:|".repeat(results.size())).append('\n');
        row(md, results, "start on an empty dir to first PONG", r -> ms(r.coldStart));
        row(md, results, "load " + String.format(Locale.ROOT, "%,d", keys) + " keys",
                r -> r.load == null ? "n/a" : String.format(Locale.ROOT, "%.1f s (%,.0f keys/s)",
                        r.load.toMillis() / 1000.0, keys / Math.max(1e-9, r.load.toNanos() / 1e9)));
        row(md, results, "DBSIZE after load", r -> r.dbsizeLoaded);
        row(md, results, "RSS empty", r -> r.rssEmpty == null ? "n/a" : mib(r.rssEmpty.total()));
        row(md, results, "RSS loaded", r -> r.rssLoaded == null ? "n/a" : mib(r.rssLoaded.total()));
        row(md, results, "**RSS growth per key** (" + settle.toSeconds() + " s after the load)",
                r -> perKey(r.rssLoaded, r.rssEmpty, x -> x.total(), true));
        if (results.stream().anyMatch(r -> r.gcBeforeRss)) {
            row(md, results, "RSS growth per key after a forced full GC",
                    r -> perKey(r.rssLoadedGc, r.rssEmptyGc, x -> x.total(), false));
        }
        row(md, results, "of which anon / file+shmem", r -> r.rssLoaded == null || r.rssEmpty == null
                ? "n/a" : perKey(r.rssLoaded, r.rssEmpty, x -> x.anon(), false) + " / "
                        + perKey(r.rssLoaded, r.rssEmpty, x -> x.file() + x.shmem(), false));
        row(md, results, "make durable before restart",
                r -> r.target.persist().isBlank() ? "nothing to do" : r.target.persist() + " " + ms(r.persist));
        row(md, results, "data dir before persisting (allocated)", r -> bytes(r.diskLoaded));
        row(md, results, "data dir after stop (allocated / apparent)",
                r -> bytes(r.diskPersisted) + " / " + bytes(r.apparentPersisted));
        row(md, results, "**disk per key** (allocated)", r -> r.diskPersisted < 0 ? "n/a"
                : String.format(Locale.ROOT, "%.1f B", (double) r.diskPersisted / keys));
        row(md, results, "SIGTERM to exit", r -> ms(r.stop));
        row(md, results, "**restart to first PONG** (median)", r -> r.restarts.isEmpty() ? "n/a"
                : "**" + ms(Duration.ofNanos((long) Stats.median(
                        r.restarts.stream().map(d -> (double) d.toNanos()).toList()))) + "**");
        row(md, results, "each restart", r -> r.restarts.isEmpty() ? "n/a"
                : String.join(", ", r.restarts.stream().map(MemoryAndRestart::ms).toList()));
        row(md, results, "DBSIZE after restart", r -> r.dbsizeRestarted.equals(r.dbsizeLoaded)
                ? r.dbsizeRestarted : r.dbsizeRestarted + " **(lost data)**");
        row(md, results, "values after restart", r -> r.spotCheck);
        row(md, results, "RSS after restart", r -> r.rssRestarted == null ? "n/a" : mib(r.rssRestarted.total()));
        if (results.stream().anyMatch(r -> r.error != null)) {
            md.append("\nFailures:\n\n");
            results.stream().filter(r -> r.error != null).forEach(r -> md.append("- ")
                    .append(r.target.name()).append(": ")
                    .append(r.error.lines().findFirst().orElse("")).append('\n'));
        }
        return md.toString();
    }

    private static void row(StringBuilder md, List<Result> results, String label, Function<Result, String> f) {
        md.append("| ").append(label).append(" |");
        for (Result r : results) {
            String v;
            try {
                v = f.apply(r);
            } catch (RuntimeException e) {
                v = "n/a";
            }
            md.append(' ').append(v == null ? "n/a" : v).append(" |");
        }
        md.append('\n');
    }

    private String perKey(ServerProcess.Rss after, ServerProcess.Rss before,
            java.util.function.ToLongFunction<ServerProcess.Rss> part, boolean bold) {
        if (after == null || before == null) {
            return "n/a";
        }
        String s = String.format(Locale.ROOT, "%.1f B",
                (double) (part.applyAsLong(after) - part.applyAsLong(before)) / keys);
        return bold ? "**" + s + "**" : s;
    }

    static String ms(Duration d) {
        return d == null ? "n/a" : String.format(Locale.ROOT, "%,d ms", d.toMillis());
    }

    static String mib(long bytes) {
        return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f MiB", bytes / 1024.0 / 1024.0);
    }

    static String bytes(long b) {
        return mib(b);
    }
}
