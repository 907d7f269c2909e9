package dev.cajon.bench.harness;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs the same redis-benchmark workload against Cajon, redis-server without persistence and
 * redis-server with an everysec AOF, and writes the comparison to docs/BENCHMARKS.md and a PNG.
 *
 * <p>How the runs are ordered, and why: the machine is shared and drifts (other builds, thermal
 * state, page cache), so the servers take turns at the finest grain. For every round, pipeline
 * depth and test, each server runs once in order and once in reverse order (A B C C B A). A linear
 * drift during that window then costs every server the same on average. Each cell of the table is
 * the median of 2 x rounds samples. Every server first gets one uncounted warm-up pass, which
 * matters for Cajon: its JIT compiles the hot path during the first few hundred thousand commands.
 *
 * <p>All servers run at once, each on its own free port on 127.0.0.1 with a fresh data dir; the
 * idle ones cost next to nothing. Every run has a timeout, the whole run has a deadline, and when
 * the deadline passes the tables are still written, marked as partial.
 */
@Command(name = "bench-side-by-side", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Side-by-side redis-benchmark of Cajon against redis-server (plain and AOF).")
public final class SideBySide implements Callable<Integer> {

    public static final String DEFAULT_CAJON_CMD =
            "{home}/bin/cajon-server --bind 127.0.0.1 --port {port} --dir {dir}";
    static final String DEFAULT_REDIS_CMD =
            "redis-server --bind 127.0.0.1 --port {port} --dir {dir} --save \"\" --appendonly no";
    static final String DEFAULT_REDIS_AOF_CMD =
            "redis-server --bind 127.0.0.1 --port {port} --dir {dir} --save \"\""
                    + " --appendonly yes --appendfsync everysec";

    @Option(names = {"--cajon-cmd", "--b-cmd"}, paramLabel = "TEMPLATE",
            description = "Command that starts the server under test; {port}, {dir} and {home} are"
                    + " substituted; must bind 127.0.0.1. Default: ${DEFAULT-VALUE}")
    String cajonCmd = DEFAULT_CAJON_CMD;

    @Option(names = "--cajon-name", description = "Label of the server under test. Default: ${DEFAULT-VALUE}")
    String cajonName = "Cajon";

    @Option(names = "--redis-cmd", paramLabel = "TEMPLATE", description = "Default: ${DEFAULT-VALUE}")
    String redisCmd = DEFAULT_REDIS_CMD;

    @Option(names = "--redis-name",
            description = "Label of the server --redis-cmd starts (another Cajon build or setting, for an A/B"
                    + " run). Default: ${DEFAULT-VALUE}")
    String redisName = "Redis";

    @Option(names = "--redis-aof-cmd", paramLabel = "TEMPLATE", description = "Default: ${DEFAULT-VALUE}")
    String redisAofCmd = DEFAULT_REDIS_AOF_CMD;

    @Option(names = "--no-aof", description = "Skip the comparison with AOF redis-server.")
    boolean noAof;

    @Option(names = "--rounds", description = "Rounds of A B C C B A per test. Default: ${DEFAULT-VALUE}")
    int rounds = 3;

    @Option(names = "--tests", split = ",", description = "redis-benchmark tests. Default: ${DEFAULT-VALUE}")
    List<String> tests = List.of("SET", "GET", "INCR", "MSET");

    @Option(names = "--pipelines", split = ",", description = "Pipeline depths (-P). Default: ${DEFAULT-VALUE}")
    List<Integer> pipelines = List.of(1, 16);

    @Option(names = {"-n", "--requests"},
            description = "Requests per run at -P 1 (a few seconds each). Default: ${DEFAULT-VALUE}")
    long requests = 200_000;

    @Option(names = "--pipelined-requests",
            description = "Requests per run at -P > 1. Default: ${DEFAULT-VALUE}")
    long pipelinedRequests = 1_500_000;

    @Option(names = "--mset-divisor",
            description = "MSET writes 10 keys per request, so it runs requests/DIV. Default: ${DEFAULT-VALUE}")
    int msetDivisor = 4;

    @Option(names = "--warmup-requests",
            description = "Uncounted requests per test and depth per server before round 1 (0: none)."
                    + " Default: ${DEFAULT-VALUE}")
    long warmupRequests = 100_000;

    @Option(names = "--warmup-timeout", converter = Deadline.Converter.class,
            description = "Timeout of one warm-up run. Default: 30s")
    Duration warmupTimeout = Duration.ofSeconds(30);

    @Option(names = "--target-seconds",
            description = "Shrink N per test so the slowest server's run takes about this long, judged"
                    + " from its warm-up; -n and --pipelined-requests stay the upper bounds"
                    + " (0: always use them). Default: ${DEFAULT-VALUE}")
    double targetSeconds = 4;

    @Option(names = {"-c", "--clients"}, description = "Default: ${DEFAULT-VALUE}")
    int clients = 50;

    @Option(names = {"-d", "--data-size"}, description = "Value size in bytes. Default: ${DEFAULT-VALUE}")
    int dataSize = 32;

    @Option(names = {"-r", "--keyspace"}, description = "Random keyspace size. Default: ${DEFAULT-VALUE}")
    int keyspace = 100_000;

    @Option(names = "--deadline", converter = Deadline.Converter.class,
            description = "Budget for the whole run (e.g. 20m, 90s). Default: 20m")
    Duration deadline = Duration.ofMinutes(20);

    @Option(names = "--run-timeout", converter = Deadline.Converter.class,
            description = "Timeout of one redis-benchmark run. Default: 120s")
    Duration runTimeout = Duration.ofSeconds(120);

    @Option(names = "--start-timeout", converter = Deadline.Converter.class,
            description = "Timeout for a server to answer PING after start. Default: 90s")
    Duration startTimeout = Duration.ofSeconds(90);

    @Option(names = "--section", description = "Name of the section of --out this run replaces (between its"
            + " begin and end markers), so that runs of other test sets keep theirs. Default: ${DEFAULT-VALUE}")
    String section = "side-by-side";

    @Option(names = "--out", description = "Markdown file to update (relative to the Cajon checkout)."
            + " Default: ${DEFAULT-VALUE}")
    Path out = Path.of("docs/BENCHMARKS.md");

    @Option(names = "--chart", description = "PNG chart (relative to the Cajon checkout)."
            + " Default: ${DEFAULT-VALUE}")
    Path chart = Path.of("docs/bench-side-by-side.png");

    @Option(names = "--print-only", description = "Print the tables; write neither Markdown nor PNG.")
    boolean printOnly;

    @Option(names = "--redis-benchmark", description = "Default: ${DEFAULT-VALUE}")
    String redisBenchmark = "redis-benchmark";

    @Option(names = "--redis-server", description = "redis-server used for the version line."
            + " Default: ${DEFAULT-VALUE}")
    String redisServer = "redis-server";

    @Option(names = "--work-dir",
            description = "Parent of the run's own new directory for data dirs and logs. Default: the temp dir")
    Path workDir;

    @Option(names = "--keep", description = "Keep the work dir (data and server logs) at the end.")
    boolean keep;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** One server under test and its samples. */
    static final class Side {
        final String name;
        final String slug;
        final CommandTemplate template;
        ServerProcess server;
        String death;

        Side(String name, String slug, CommandTemplate template) {
            this.name = name;
            this.slug = slug;
            this.template = template.requireLoopback();
        }
    }

    record Cell(String side, String test, int pipeline) {
    }

    private final Map<Cell, List<RedisBenchmark.Row>> samples = new LinkedHashMap<>();
    private final Map<Cell, List<String>> failures = new LinkedHashMap<>();
    /** Requests per measured run, by test and depth; the same for every server. */
    private final Map<String, Long> requestsPerRun = new LinkedHashMap<>();
    /** The lowest warm-up rate of any server, by test and depth. */
    private final Map<String, Double> slowestWarmup = new LinkedHashMap<>();
    private final PrintStream log = System.err;

    public static void main(String[] args) {
        Harness.main(new SideBySide(), args);
    }

    @Override
    public Integer call() throws Exception {
        Path home = Harness.home();
        // always a new directory of our own, even under --work-dir: it is deleted at the end
        Path work = workDir != null
                ? Files.createTempDirectory(Files.createDirectories(workDir), "cajon-side-by-side-")
                : Files.createTempDirectory("cajon-side-by-side-");
        if (!keep) {
            Reaper.deleteOnExit(work);
        }
        Deadline budget = new Deadline(deadline);
        String commandLine = Harness.commandLine("bench-side-by-side", spec.commandLine().getParseResult()
                .originalArgs());
        ZonedDateTime started = ZonedDateTime.now(ZoneOffset.UTC);
        String loadBefore = MachineInfo.loadAverage();

        List<Side> sides = new ArrayList<>();
        sides.add(new Side(cajonName, "a-" + slug(cajonName), new CommandTemplate(cajonCmd)));
        sides.add(new Side(redisName, "b-" + slug(redisName), new CommandTemplate(redisCmd)));
        if (!noAof) {
            sides.add(new Side("Redis AOF", "c-redis-aof", new CommandTemplate(redisAofCmd)));
        }
        RedisBenchmark.Workload workload =
                new RedisBenchmark.Workload(redisBenchmark, clients, dataSize, keyspace);
        String partial = null;
        try {
            for (Side s : sides) {
                Path dir = work.resolve(s.slug);
                s.server = new ServerProcess(s.name, s.template, dir.resolve("data"),
                        dir.resolve("server.log"), home);
                Duration up = s.server.start(budget.cap(startTimeout));
                log.printf("%s: pid %d on 127.0.0.1:%d, ready in %d ms (%s)%n", s.name,
                        s.server.pid(), s.server.port, up.toMillis(), ServerProcess.display(s.server.argv()));
            }
            if (warmupRequests > 0) {
                for (Side s : sides) {
                    for (int p : pipelines) {
                        for (String t : tests) {
                            if (budget.expired()) {
                                break;
                            }
                            long n = scaled(t, warmupRequests);
                            RedisBenchmark.Outcome o = RedisBenchmark.run(workload, s.server.port, t, p,
                                    n, budget.cap(warmupTimeout), work);
                            log.printf("warm-up  %-" + width(sides) + "s -P %-2d %-5s %s%n", s.name, p, t,
                                    describe(o));
                            // A run that did not finish still did at most n requests in that time.
                            double rate = o.ok() ? o.row().rps()
                                    : n / Math.max(0.001, o.elapsed().toNanos() / 1e9);
                            slowestWarmup.merge(key(t, p), rate, Math::min);
                        }
                    }
                }
            }
            chooseRequests();
            partial = measure(sides, workload, budget, work);
        } finally {
            for (Side s : sides) {
                if (s.server != null) {
                    s.server.stop();
                }
            }
            Reaper.killAll();
        }

        String markdown = report(sides, commandLine, started, loadBefore, MachineInfo.loadAverage(),
                partial, home);
        System.out.println(markdown);
        if (!printOnly) {
            Path md = home.resolve(out);
            Path png = home.resolve(chart);
            try {
                Charts.write(png, chartPanels(sides));
                log.println("chart: " + png);
            } catch (IOException | RuntimeException | LinkageError e) {
                log.println("could not render the chart (" + e + "); the tables are written anyway");
            }
            MarkdownSection.write(md, section, markdown);
            log.println("updated: " + md);
        }
        if (keep) {
            log.println("kept work dir: " + work);
        } else {
            Harness.deleteTree(work);
        }
        return partial == null ? 0 : 2;
    }

    /** The measured rounds. Returns null when complete, or why the run stopped early. */
    private String measure(List<Side> sides, RedisBenchmark.Workload workload, Deadline budget,
            Path work) throws IOException {
        List<Side> order = new ArrayList<>(sides);
        List<Side> reversed = new ArrayList<>(sides);
        java.util.Collections.reverse(reversed);
        order.addAll(reversed);
        for (int round = 1; round <= rounds; round++) {
            for (int p : pipelines) {
                for (String t : tests) {
                    for (Side s : order) {
                        if (budget.expired()) {
                            return "deadline of " + Harness.human(deadline) + " reached in round "
                                    + round;
                        }
                        Cell cell = new Cell(s.name, t, p);
                        if (s.death != null) {
                            failures.computeIfAbsent(cell, k -> new ArrayList<>()).add(s.death);
                            continue;
                        }
                        RedisBenchmark.Outcome o = RedisBenchmark.run(workload, s.server.port, t, p,
                                requestsPerRun.get(key(t, p)), budget.cap(runTimeout), work);
                        log.printf("round %d  %-" + width(sides) + "s -P %-2d %-5s %s%n", round, s.name, p,
                                t, describe(o));
                        if (o.ok()) {
                            samples.computeIfAbsent(cell, k -> new ArrayList<>()).add(o.row());
                        } else {
                            failures.computeIfAbsent(cell, k -> new ArrayList<>()).add(o.failure());
                        }
                        if (!s.server.isAlive()) {
                            s.death = s.name + " died during round " + round + " (" + t + " -P " + p
                                    + "); end of its log:\n" + s.server.logTail(20);
                            log.println(s.death);
                        }
                    }
                }
            }
        }
        return null;
    }

    private static int width(List<Side> sides) {
        return sides.stream().mapToInt(s -> s.name.length()).max().orElse(5);
    }

    /**
     * N for each test and depth: the configured upper bound, or less if the slowest server's
     * warm-up rate says a run would take longer than --target-seconds. This keeps a slow Cajon
     * build from turning one MSET run into minutes, and keeps N identical across servers.
     */
    private void chooseRequests() {
        for (int p : pipelines) {
            for (String t : tests) {
                long cap = scaled(t, p == 1 ? requests : pipelinedRequests);
                Double rate = slowestWarmup.get(key(t, p));
                long n = cap;
                if (targetSeconds > 0 && rate != null && Double.isFinite(rate)) {
                    long floor = Math.min(cap, 20L * clients * p);
                    n = Math.max(floor, Math.min(cap, (long) (rate * targetSeconds)));
                }
                requestsPerRun.put(key(t, p), n);
            }
        }
    }

    private static String key(String test, int pipeline) {
        return test + "/" + pipeline;
    }

    private long scaled(String test, long n) {
        return test.equalsIgnoreCase("MSET") ? Math.max(1, n / msetDivisor) : n;
    }

    static String describe(RedisBenchmark.Outcome o) {
        return o.ok()
                ? String.format(Locale.ROOT, "%,12.0f rps  p50 %.3f ms  p99 %.3f ms  (%.1f s)",
                        o.row().rps(), o.row().p50Ms(), o.row().p99Ms(), o.elapsed().toMillis() / 1000.0)
                : "FAILED: " + o.failure();
    }

    // ---------------------------------------------------------------- report

    private double median(String side, String test, int p, ToDoubleFunction<RedisBenchmark.Row> f) {
        List<RedisBenchmark.Row> rows = samples.getOrDefault(new Cell(side, test, p), List.of());
        return Stats.median(rows.stream().map(r -> f.applyAsDouble(r)).toList());
    }

    private String report(List<Side> sides, String commandLine, ZonedDateTime started,
            String loadBefore, String loadAfter, String partial, Path home) {
        Side a = sides.get(0);
        List<Side> refs = sides.subList(1, sides.size());
        StringBuilder md = new StringBuilder();
        md.append("## Side by side with redis-server\n\n");
        if (partial != null) {
            md.append("**Partial results:** ").append(partial).append(".\n\n");
        }
        md.append("Produced by `").append(commandLine).append("` on ")
                .append(started.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")))
                .append(" (Cajon ").append(MachineInfo.gitCommit(home)).append(").\n\n");
        md.append("- Machine: ").append(MachineInfo.summary(redisServer, redisBenchmark))
                .append(". Load average ").append(loadBefore).append(" before, ")
                .append(loadAfter).append(" after.\n");
        md.append("- Workload: `redis-benchmark -h 127.0.0.1 -p PORT -c ").append(clients)
                .append(" -d ").append(dataSize).append(" -r ").append(keyspace)
                .append(" -n N -P P -t TEST --csv`. N (the requests column) is the same for every server:"
                        + " at most ").append(String.format(Locale.ROOT, "%,d", requests))
                .append(" at -P 1 and ").append(String.format(Locale.ROOT, "%,d", pipelinedRequests))
                .append(" at deeper pipelines, and a ").append(msetDivisor)
                .append("th of that for MSET, which sets 10 keys per request (its rps counts requests)");
        if (targetSeconds > 0 && warmupRequests > 0) {
            md.append(String.format(Locale.ROOT, "; smaller where the slowest server's warm-up rate"
                    + " said a run would take more than %.0f s", targetSeconds));
        }
        md.append(".\n");
        md.append("- Order: ").append(rounds).append(rounds == 1 ? " round" : " rounds")
                .append("; in each, every test runs ")
                .append(sides.stream().map(s -> s.name).reduce((x, y) -> x + ", " + y).orElse(""))
                .append(" and then the same in reverse, so each cell is the median of up to ")
                .append(2 * rounds).append(" runs. ")
                .append(warmupRequests > 0
                        ? String.format(Locale.ROOT, "One uncounted warm-up pass of %,d requests per"
                                + " test and depth ran first on each server.", warmupRequests)
                        : "No warm-up pass.")
                .append('\n');
        md.append("- Servers, all on 127.0.0.1 with a fresh data dir:\n");
        for (Side s : sides) {
            md.append("  - ").append(s.name).append(": `").append(s.template.text()).append("`\n");
        }
        md.append("- Ratios are ").append(a.name).append(" rps / other rps: above 1 means ")
                .append(a.name).append(" is faster. Geometric means are over the tests of one depth.\n\n");

        for (int p : pipelines) {
            md.append("### -P ").append(p).append("\n\n");
            md.append("| test | requests |");
            for (Side s : sides) {
                md.append(' ').append(s.name).append(" rps |");
            }
            for (Side r : refs) {
                md.append(' ').append(a.name).append('/').append(r.name).append(" |");
            }
            md.append(" p50 ms (").append(names(sides)).append(") |");
            md.append(" p99 ms (").append(names(sides)).append(") |\n");
            md.append("|---|");
            md.append("---:|".repeat(sides.size() + refs.size() + 3)).append('\n');
            Map<Side, List<Double>> ratios = new LinkedHashMap<>();
            for (String t : tests) {
                md.append("| ").append(t).append(" | ")
                        .append(String.format(Locale.ROOT, "%,d", requestsPerRun.getOrDefault(key(t, p), 0L)))
                        .append(" |");
                for (Side s : sides) {
                    md.append(' ').append(rps(median(s.name, t, p, RedisBenchmark.Row::rps))).append(" |");
                }
                double mine = median(a.name, t, p, RedisBenchmark.Row::rps);
                for (Side r : refs) {
                    double ratio = mine / median(r.name, t, p, RedisBenchmark.Row::rps);
                    ratios.computeIfAbsent(r, k -> new ArrayList<>()).add(ratio);
                    md.append(' ').append(ratio(ratio)).append(" |");
                }
                md.append(' ').append(latencies(sides, t, p, RedisBenchmark.Row::p50Ms)).append(" |");
                md.append(' ').append(latencies(sides, t, p, RedisBenchmark.Row::p99Ms)).append(" |\n");
            }
            md.append("| **geomean** | |").append(" |".repeat(sides.size()));
            for (Side r : refs) {
                md.append(" **").append(ratio(Stats.geomean(ratios.getOrDefault(r, List.of()))))
                        .append("** |");
            }
            md.append(" | |\n\n");
        }

        if (!failures.isEmpty()) {
            md.append("Failed runs (not in the medians):\n\n");
            failures.forEach((cell, why) -> md.append("- ").append(cell.side()).append(' ')
                    .append(cell.test()).append(" -P ").append(cell.pipeline()).append(": ")
                    .append(why.size()).append(" x ").append(why.get(0).lines().findFirst().orElse(""))
                    .append('\n'));
            md.append('\n');
        }

        if (!printOnly) {
            Path mdDir = home.resolve(out).toAbsolutePath().getParent();
            String rel = mdDir.relativize(home.resolve(chart).toAbsolutePath()).toString();
            md.append("![requests per second per test](").append(rel).append(")\n\n");
        }

        md.append("<details><summary>All runs (rps, in the order they ran; spread = (max - min) / median)"
                + "</summary>\n\n");
        md.append("| server | test | -P | spread | rps |\n|---|---|---:|---:|---|\n");
        samples.entrySet().stream()
                .sorted(Comparator.comparing(
                        (Map.Entry<Cell, List<RedisBenchmark.Row>> e) -> e.getKey().pipeline())
                        .thenComparing(e -> tests.indexOf(e.getKey().test()))
                        .thenComparing(e -> sideIndex(sides, e.getKey().side())))
                .forEach(e -> {
                    List<Double> rps = e.getValue().stream().map(RedisBenchmark.Row::rps).toList();
                    md.append("| ").append(e.getKey().side()).append(" | ").append(e.getKey().test())
                            .append(" | ").append(e.getKey().pipeline()).append(" | ")
                            .append(String.format(Locale.ROOT, "%.0f%%", Stats.spreadPercent(rps)))
                            .append(" | ")
                            .append(String.join(", ", rps.stream().map(SideBySide::rps).toList()))
                            .append(" |\n");
                });
        md.append("\n</details>\n");
        return md.toString();
    }

    private static int sideIndex(List<Side> sides, String name) {
        for (int i = 0; i < sides.size(); i++) {
            if (sides.get(i).name.equals(name)) {
                return i;
            }
        }
        return sides.size();
    }

    private List<Charts.Panel> chartPanels(List<Side> sides) {
        List<Charts.Panel> panels = new ArrayList<>();
        for (int p : pipelines) {
            LinkedHashMap<String, List<Double>> series = new LinkedHashMap<>();
            for (Side s : sides) {
                series.put(s.name, tests.stream()
                        .map(t -> median(s.name, t, p, RedisBenchmark.Row::rps)).toList());
            }
            panels.add(new Charts.Panel("Requests per second, -P " + p + " (median)", "rps",
                    tests, series));
        }
        return panels;
    }

    private String latencies(List<Side> sides, String t, int p,
            ToDoubleFunction<RedisBenchmark.Row> f) {
        return String.join(" / ", sides.stream().map(s -> {
            double v = median(s.name, t, p, f);
            return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.3f", v);
        }).toList());
    }

    private static String names(List<Side> sides) {
        return String.join(" / ", sides.stream().map(s -> s.name).toList());
    }

    static String rps(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%,.0f", v);
    }

    static String ratio(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.2f", v) : "n/a";
    }

    static String slug(String name) {
        String s = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
        return s.isEmpty() ? "server" : s;
    }
}
