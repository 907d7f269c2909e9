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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/bench-side-by-side fsync}: the cost of each fsync policy, Cajon's {@code --appendfsync}
 * against redis-server's AOF under the same setting ({@code --appendonly yes --appendfsync P}).
 *
 * <p>Six servers run at once (Cajon and Redis AOF for each of always, everysec and no), each on
 * its own port and fresh data dir. For every round, depth and test they take turns in order and
 * in reverse (A B C D E F F E D C B A), as in {@link SideBySide}, so drift on this shared machine
 * costs each the same on average; each cell is the median of 2 x rounds runs. N is the same for
 * the two servers of one policy (chosen from the slower one's warm-up, so that an always run at
 * -P 1 does not take minutes) but differs between policies. Each server gets an uncounted
 * warm-up pass first.
 */
@Command(name = "bench-side-by-side fsync", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Cost of each fsync policy: Cajon --appendfsync against Redis's AOF, side by side.")
public final class FsyncCost implements Callable<Integer> {
    static final String DEFAULT_CAJON_CMD = SideBySide.DEFAULT_CAJON_CMD + " --appendfsync {policy}";
    static final String DEFAULT_REDIS_CMD = "redis-server --bind 127.0.0.1 --port {port} --dir {dir} --save \"\""
            + " --appendonly yes --appendfsync {policy}";

    @Option(names = "--cajon-cmd", paramLabel = "TEMPLATE", description = "{policy} is substituted too. Default: ${DEFAULT-VALUE}")
    String cajonCmd = DEFAULT_CAJON_CMD;

    @Option(names = "--redis-cmd", paramLabel = "TEMPLATE", description = "Default: ${DEFAULT-VALUE}")
    String redisCmd = DEFAULT_REDIS_CMD;

    @Option(names = "--policies", split = ",", description = "Default: ${DEFAULT-VALUE}")
    List<String> policies = List.of("always", "everysec", "no");

    @Option(names = "--tests", split = ",", description = "Default: ${DEFAULT-VALUE}")
    List<String> tests = List.of("SET", "INCR");

    @Option(names = "--pipelines", split = ",", description = "Default: ${DEFAULT-VALUE}")
    List<Integer> pipelines = List.of(1, 16);

    @Option(names = "--rounds", description = "Default: ${DEFAULT-VALUE}")
    int rounds = 2;

    @Option(names = {"-n", "--requests"}, description = "Most requests per run at -P 1. Default: ${DEFAULT-VALUE}")
    long requests = 200_000;

    @Option(names = "--pipelined-requests", description = "Most requests per run at -P > 1. Default: ${DEFAULT-VALUE}")
    long pipelinedRequests = 1_000_000;

    @Option(names = "--warmup-requests", description = "Default: ${DEFAULT-VALUE}")
    long warmupRequests = 30_000;

    @Option(names = "--target-seconds", description = "A run lasts about this long for the slower server of"
            + " a policy, judged from the warm-ups. Default: ${DEFAULT-VALUE}")
    double targetSeconds = 3;

    @Option(names = {"-c", "--clients"}, description = "Default: ${DEFAULT-VALUE}")
    int clients = 50;

    @Option(names = {"-d", "--data-size"}, description = "Default: ${DEFAULT-VALUE}")
    int dataSize = 32;

    @Option(names = {"-r", "--keyspace"}, description = "Default: ${DEFAULT-VALUE}")
    int keyspace = 100_000;

    @Option(names = "--deadline", converter = Deadline.Converter.class, description = "Default: 25m")
    Duration deadline = Duration.ofMinutes(25);

    @Option(names = "--run-timeout", converter = Deadline.Converter.class, description = "Default: 120s")
    Duration runTimeout = Duration.ofSeconds(120);

    @Option(names = "--start-timeout", converter = Deadline.Converter.class, description = "Default: 90s")
    Duration startTimeout = Duration.ofSeconds(90);

    @Option(names = "--out", description = "Default: ${DEFAULT-VALUE}")
    Path out = Path.of("docs/BENCHMARKS.md");

    @Option(names = "--print-only", description = "Print the tables; do not write the Markdown file.")
    boolean printOnly;

    @Option(names = "--redis-benchmark", description = "Default: ${DEFAULT-VALUE}")
    String redisBenchmark = "redis-benchmark";

    @Option(names = "--redis-server", description = "Default: ${DEFAULT-VALUE}")
    String redisServer = "redis-server";

    @Option(names = "--work-dir", description = "Parent of the run's own directory (data dirs, logs). Default: the temp dir")
    Path workDir;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** One server: a product and a policy. */
    static final class Side {
        final String product;
        final String policy;
        final CommandTemplate template;
        ServerProcess server;
        String death;

        Side(String product, String policy, String template) {
            this.product = product;
            this.policy = policy;
            this.template = new CommandTemplate(template.replace("{policy}", policy)).requireLoopback();
        }

        String name() {
            return product + " " + policy;
        }
    }

    private final Map<String, List<RedisBenchmark.Row>> samples = new LinkedHashMap<>();
    private final Map<String, List<String>> failures = new LinkedHashMap<>();
    private final Map<String, Double> slowestWarmup = new LinkedHashMap<>();
    private final Map<String, Long> requestsPerRun = new LinkedHashMap<>();
    private final PrintStream log = System.err;

    public static void main(String[] args) {
        Harness.main(new FsyncCost(), args);
    }

    private static String key(String policy, String test, int p) {
        return policy + "/" + test + "/" + p;
    }

    @Override
    public Integer call() throws Exception {
        Path home = Harness.home();
        Path work = workDir != null
                ? Files.createTempDirectory(Files.createDirectories(workDir), "cajon-fsync-cost-")
                : Files.createTempDirectory("cajon-fsync-cost-");
        Reaper.deleteOnExit(work);
        Deadline budget = new Deadline(deadline);
        String commandLine = Harness.commandLine("bench-side-by-side fsync",
                spec.commandLine().getParseResult().originalArgs());
        ZonedDateTime started = ZonedDateTime.now(ZoneOffset.UTC);
        String loadBefore = MachineInfo.loadAverage();
        List<Side> sides = new ArrayList<>();
        for (String p : policies) {
            sides.add(new Side("Cajon", p, cajonCmd));
            sides.add(new Side("Redis AOF", p, redisCmd));
        }
        RedisBenchmark.Workload w = new RedisBenchmark.Workload(redisBenchmark, clients, dataSize, keyspace);
        String partial = null;
        try {
            for (Side s : sides) {
                Path dir = work.resolve(SideBySide.slug(s.name()));
                s.server = new ServerProcess(s.name(), s.template, dir.resolve("data"), dir.resolve("server.log"), home);
                Duration up = s.server.start(budget.cap(startTimeout));
                log.printf("%s: pid %d on 127.0.0.1:%d, ready in %d ms (%s)%n", s.name(), s.server.pid(),
                        s.server.port(), up.toMillis(), ServerProcess.display(s.server.argv()));
            }
            for (Side s : sides) {
                for (int p : pipelines) {
                    for (String t : tests) {
                        RedisBenchmark.Outcome o = RedisBenchmark.run(w, s.server.port(), t, p, warmupRequests,
                                budget.cap(runTimeout), work);
                        double rate = o.ok() ? o.row().rps() : warmupRequests / Math.max(0.001, o.elapsed().toNanos() / 1e9);
                        slowestWarmup.merge(key(s.policy, t, p), rate, Math::min);
                        log.printf("warm-up  %-18s -P %-2d %-5s %s%n", s.name(), p, t, SideBySide.describe(o));
                    }
                }
            }
            for (String k : slowestWarmup.keySet()) {
                long cap = k.endsWith("/1") ? requests : pipelinedRequests;
                long floor = Math.min(cap, 20L * clients * Long.parseLong(k.substring(k.lastIndexOf('/') + 1)));
                requestsPerRun.put(k, Math.max(floor, Math.min(cap, (long) (slowestWarmup.get(k) * targetSeconds))));
            }
            partial = measure(sides, w, budget, work);
        } finally {
            for (Side s : sides) {
                if (s.server != null) {
                    s.server.stop();
                }
            }
            Reaper.killAll();
        }
        String md = report(sides, commandLine, started, loadBefore, MachineInfo.loadAverage(), partial, home);
        System.out.println(md);
        if (!printOnly) {
            MarkdownSection.write(home.resolve(out), "fsync-cost", md);
            log.println("updated: " + home.resolve(out));
        }
        Harness.deleteTree(work);
        return partial == null ? 0 : 2;
    }

    private String measure(List<Side> sides, RedisBenchmark.Workload w, Deadline budget, Path work) throws IOException {
        List<Side> order = new ArrayList<>(sides);
        List<Side> reversed = new ArrayList<>(sides);
        java.util.Collections.reverse(reversed);
        order.addAll(reversed);
        for (int round = 1; round <= rounds; round++) {
            for (int p : pipelines) {
                for (String t : tests) {
                    for (Side s : order) {
                        if (budget.expired()) {
                            return "deadline of " + Harness.human(deadline) + " reached in round " + round;
                        }
                        String cell = s.name() + "/" + t + "/" + p;
                        if (s.death != null) {
                            failures.computeIfAbsent(cell, k -> new ArrayList<>()).add(s.death);
                            continue;
                        }
                        RedisBenchmark.Outcome o = RedisBenchmark.run(w, s.server.port(), t, p,
                                requestsPerRun.get(key(s.policy, t, p)), budget.cap(runTimeout), work);
                        log.printf("round %d  %-18s -P %-2d %-5s %s%n", round, s.name(), p, t, SideBySide.describe(o));
                        if (o.ok()) {
                            samples.computeIfAbsent(cell, k -> new ArrayList<>()).add(o.row());
                        } else {
                            failures.computeIfAbsent(cell, k -> new ArrayList<>()).add(o.failure());
                        }
                        if (!s.server.isAlive()) {
                            s.death = s.name() + " died in round " + round + "; end of its log:\n" + s.server.logTail(20);
                            log.println(s.death);
                        }
                    }
                }
            }
        }
        return null;
    }

    private double median(Side s, String t, int p, java.util.function.ToDoubleFunction<RedisBenchmark.Row> f) {
        List<RedisBenchmark.Row> rows = samples.getOrDefault(s.name() + "/" + t + "/" + p, List.of());
        return Stats.median(rows.stream().map(f::applyAsDouble).toList());
    }

    private static String ms(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.3f", v);
    }

    private String report(List<Side> sides, String commandLine, ZonedDateTime started, String loadBefore,
                          String loadAfter, String partial, Path home) {
        StringBuilder md = new StringBuilder();
        md.append("## The cost of each fsync policy, side by side with Redis's AOF\n\n");
        if (partial != null) {
            md.append("**Partial results:** ").append(partial).append(".\n\n");
        }
        md.append("Produced by `").append(commandLine).append("` on ")
                .append(started.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")))
                .append(" (Cajon ").append(MachineInfo.gitCommit(home)).append(").\n\n");
        md.append("- Machine: ").append(MachineInfo.summary(redisServer, redisBenchmark)).append(". Load average ")
                .append(loadBefore).append(" before, ").append(loadAfter).append(" after.\n");
        md.append("- Workload: `redis-benchmark -c ").append(clients).append(" -d ").append(dataSize).append(" -r ")
                .append(keyspace).append(" -n N -P P -t TEST --csv`; N is the same for the two servers of a"
                        + " policy (the slower one's warm-up rate x ").append(String.format(Locale.ROOT, "%.0f", targetSeconds))
                .append(" s, at most ").append(String.format(Locale.ROOT, "%,d", requests)).append(" at -P 1 and ")
                .append(String.format(Locale.ROOT, "%,d", pipelinedRequests)).append(" deeper).\n");
        md.append("- Order: ").append(rounds).append(" rounds; in each, every test runs the six servers in order"
                + " and then in reverse, so each cell is the median of up to ").append(2 * rounds)
                .append(" runs; one uncounted warm-up pass of ").append(String.format(Locale.ROOT, "%,d", warmupRequests))
                .append(" requests per test and depth first.\n");
        md.append("- Servers, all on 127.0.0.1 with a fresh data dir, `{policy}` one of ")
                .append(String.join(", ", policies)).append(":\n");
        md.append("  - Cajon: `").append(cajonCmd).append("`\n");
        md.append("  - Redis AOF: `").append(redisCmd).append("`\n");
        md.append("- Cajon/Redis above 1 means Cajon is faster under that policy.\n\n");
        for (int p : pipelines) {
            md.append("### -P ").append(p).append("\n\n");
            md.append("| test | policy | requests | Cajon rps | Redis AOF rps | Cajon/Redis | p50 ms (Cajon / Redis)"
                    + " | p99 ms (Cajon / Redis) |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
            for (String t : tests) {
                for (String pol : policies) {
                    Side c = find(sides, "Cajon", pol);
                    Side r = find(sides, "Redis AOF", pol);
                    double cr = median(c, t, p, RedisBenchmark.Row::rps);
                    double rr = median(r, t, p, RedisBenchmark.Row::rps);
                    md.append("| ").append(t).append(" | ").append(pol).append(" | ")
                            .append(String.format(Locale.ROOT, "%,d", requestsPerRun.getOrDefault(key(pol, t, p), 0L)))
                            .append(" | ").append(SideBySide.rps(cr)).append(" | ").append(SideBySide.rps(rr)).append(" | ")
                            .append(SideBySide.ratio(cr / rr)).append(" | ")
                            .append(ms(median(c, t, p, RedisBenchmark.Row::p50Ms))).append(" / ")
                            .append(ms(median(r, t, p, RedisBenchmark.Row::p50Ms))).append(" | ")
                            .append(ms(median(c, t, p, RedisBenchmark.Row::p99Ms))).append(" / ")
                            .append(ms(median(r, t, p, RedisBenchmark.Row::p99Ms))).append(" |\n");
                }
            }
            md.append('\n');
        }
        if (!failures.isEmpty()) {
            md.append("Failed runs (not in the medians):\n\n");
            failures.forEach((cell, why) -> md.append("- ").append(cell).append(": ").append(why.size()).append(" x ")
                    .append(why.get(0).lines().findFirst().orElse("")).append('\n'));
            md.append('\n');
        }
        md.append("<details><summary>All runs (rps, in the order they ran)</summary>\n\n| server | test | -P | rps |\n|---|---|---:|---|\n");
        samples.forEach((cell, rows) -> {
            String[] k = cell.split("/");
            md.append("| ").append(k[0]).append(" | ").append(k[1]).append(" | ").append(k[2]).append(" | ")
                    .append(String.join(", ", rows.stream().map(x -> SideBySide.rps(x.rps())).toList())).append(" |\n");
        });
        md.append("\n</details>\n");
        return md.toString();
    }

    private static Side find(List<Side> sides, String product, String policy) {
        for (Side s : sides) {
            if (s.product.equals(product) && s.policy.equals(policy)) {
                return s;
            }
        }
        throw new IllegalArgumentException(product + " " + policy);
    }
}
