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
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.function.ToLongFunction;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Memory and disk per member of big and many small collections, Cajon against redis-server.
 *
 * <p>Workloads: one hash of N fields, one sorted set of N members with random scores, M small
 * hashes of F fields each, one list of N elements. Each workload is written once as a file of
 * RESP commands (many members per command) and every server gets exactly those bytes through
 * {@code redis-cli --pipe}. For each workload and server in turn (never two servers at once), on
 * a fresh data dir: start, read the empty RSS, load, check the collection sizes, read the RSS
 * again, then measure the disk: Cajon's data dir after SIGTERM ({@code du -B1}: allocated blocks,
 * minus the empty server's data dir), Redis's RDB after {@code SAVE}. Redis runs without
 * persistence, so its RSS holds no AOF buffers and no fork.
 */
@Command(name = "bench-side-by-side collection-memory", mixinStandardHelpOptions = true, sortOptions = false,
        description = "RSS and disk per member of big hashes, sorted sets, lists and many small hashes,"
                + " for Cajon and redis-server.")
public final class CollectionMemory implements Callable<Integer> {

    @Option(names = "--cajon-cmd", paramLabel = "TEMPLATE", description = "Default: ${DEFAULT-VALUE}")
    String cajonCmd = SideBySide.DEFAULT_CAJON_CMD;

    @Option(names = "--redis-cmd", paramLabel = "TEMPLATE", description = "Default: ${DEFAULT-VALUE}")
    String redisCmd = SideBySide.DEFAULT_REDIS_CMD;

    @Option(names = "--only", split = ",", paramLabel = "NAME", description = "Run only these servers (Cajon, Redis).")
    List<String> only = List.of();

    @Option(names = "--workloads", split = ",", paramLabel = "NAME",
            description = "Any of hash, zset, small-hashes, list. Default: all")
    List<String> workloads = List.of("hash", "zset", "small-hashes", "list");

    @Option(names = "--members", description = "Fields of the big hash, members of the big sorted set,"
            + " elements of the list. Default: ${DEFAULT-VALUE}")
    int members = 1_000_000;

    @Option(names = "--small-hashes", description = "Default: ${DEFAULT-VALUE}")
    int smallHashes = 100_000;

    @Option(names = "--small-fields", description = "Fields per small hash. Default: ${DEFAULT-VALUE}")
    int smallFields = 10;

    @Option(names = "--per-command", description = "Members per HSET/ZADD/RPUSH of the big collections."
            + " Default: ${DEFAULT-VALUE}")
    int perCommand = 100;

    @Option(names = "--settle", converter = Deadline.Converter.class,
            description = "Pause before each RSS reading. Default: 5s")
    Duration settle = Duration.ofSeconds(5);

    @Option(names = "--no-gc-before-rss", description = "Skip the second RSS reading after a full GC of every JVM.")
    boolean noGc;

    @Option(names = "--deadline", converter = Deadline.Converter.class, description = "Budget for the whole run. Default: 40m")
    Duration deadline = Duration.ofMinutes(40);

    @Option(names = "--start-timeout", converter = Deadline.Converter.class, description = "Default: 180s")
    Duration startTimeout = Duration.ofSeconds(180);

    @Option(names = "--load-timeout", converter = Deadline.Converter.class, description = "Per load. Default: 10m")
    Duration loadTimeout = Duration.ofMinutes(10);

    @Option(names = "--op-timeout", converter = Deadline.Converter.class,
            description = "Socket timeout of one reply (SAVE can be slow). Default: 120s")
    Duration opTimeout = Duration.ofSeconds(120);

    @Option(names = "--out", description = "Markdown file to update (relative to the checkout). Default: ${DEFAULT-VALUE}")
    Path out = Path.of("docs/BENCHMARKS.md");

    @Option(names = "--print-only", description = "Print the table; do not write Markdown.")
    boolean printOnly;

    @Option(names = "--redis-server", description = "redis-server for the version line. Default: ${DEFAULT-VALUE}")
    String redisServer = "redis-server";

    @Option(names = "--work-dir", description = "Parent of the run's own directory. Default: the temp dir")
    Path workDir;

    @Option(names = "--keep", description = "Keep the work dir (data dirs, logs) at the end.")
    boolean keep;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** One workload: its command file, how many members it holds, and how to check it arrived. */
    record Workload(String name, String description, long members, String unit, PipeFile file,
            String[] check, long expected) {
    }

    /** One server and whether it is Cajon (data dir is its disk) or Redis (RDB after SAVE is). */
    record Target(String name, String slug, CommandTemplate template, boolean redis) {
    }

    /** What one server measured for one workload; null or -1 where a step did not happen. */
    static final class Result {
        ServerProcess.Rss rssEmpty;
        ServerProcess.Rss rssEmptyGc;
        ServerProcess.Rss rssLoaded;
        ServerProcess.Rss rssLoadedGc;
        Duration load;
        String check = "n/a";
        long diskEmpty = -1;
        long disk = -1;
        long apparent = -1;
        long usedMemoryEmpty = -1;
        long usedMemory = -1;
        String error;
    }

    private final PrintStream log = System.err;

    public static void main(String[] args) {
        Harness.main(new CollectionMemory(), args);
    }

    @Override
    public Integer call() throws Exception {
        if (members < 1 || smallHashes < 1 || smallFields < 1 || perCommand < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "counts must be positive");
        }
        Path home = Harness.home();
        Path work = workDir != null
                ? Files.createTempDirectory(Files.createDirectories(workDir), "cajon-collection-memory-")
                : Files.createTempDirectory("cajon-collection-memory-");
        if (!keep) {
            Reaper.deleteOnExit(work);
        }
        Deadline budget = new Deadline(deadline);
        String commandLine = Harness.commandLine("bench-side-by-side collection-memory",
                spec.commandLine().getParseResult().originalArgs());
        ZonedDateTime started = ZonedDateTime.now(ZoneOffset.UTC);
        String loadBefore = MachineInfo.loadAverage();

        List<Target> targets = new ArrayList<>();
        targets.add(new Target("Cajon", "cajon", new CommandTemplate(cajonCmd).requireLoopback(), false));
        targets.add(new Target("Redis", "redis", new CommandTemplate(redisCmd).requireLoopback(), true));
        if (!only.isEmpty()) {
            targets.removeIf(t -> only.stream().noneMatch(o -> o.equalsIgnoreCase(t.name())));
        }

        List<Workload> loads = new ArrayList<>();
        for (String w : workloads) {
            loads.add(write(w, work));
        }
        Result[][] results = new Result[loads.size()][targets.size()];
        try {
            for (int w = 0; w < loads.size(); w++) {
                for (int t = 0; t < targets.size(); t++) {
                    Result r = new Result();
                    results[w][t] = r;
                    Target target = targets.get(t);
                    Workload load = loads.get(w);
                    if (budget.expired()) {
                        r.error = "deadline reached before it started";
                        continue;
                    }
                    Path dir = work.resolve(load.name() + "-" + target.slug());
                    ServerProcess server = new ServerProcess(target.name(), target.template(),
                            dir.resolve("data"), dir.resolve("server.log"), home);
                    try {
                        measure(server, target, load, r, budget);
                    } catch (IOException | RuntimeException e) {
                        r.error = e.getMessage();
                        log.println(load.name() + " / " + target.name() + ": FAILED: " + e.getMessage());
                    } finally {
                        server.stop();
                    }
                }
            }
        } finally {
            Reaper.killAll();
        }
        String loadAfter = MachineInfo.loadAverage();

        String markdown = report(loads, targets, results, commandLine, started, home, loadBefore, loadAfter);
        System.out.println(markdown);
        if (!printOnly) {
            Path md = home.resolve(out);
            MarkdownSection.write(md, "collection-memory", markdown);
            log.println("updated: " + md);
        }
        if (keep) {
            log.println("kept work dir: " + work);
        } else {
            Harness.deleteTree(work);
        }
        boolean failed = Arrays.stream(results).flatMap(Arrays::stream).anyMatch(r -> r.error != null);
        return failed ? 2 : 0;
    }

    private void measure(ServerProcess server, Target target, Workload load, Result r, Deadline budget)
            throws IOException {
        String name = load.name() + " / " + target.name();
        Duration started = server.start(budget.cap(startTimeout));
        log.printf("%s: started in %d ms (pid %d, %s)%n", name, started.toMillis(), server.pid(),
                ServerProcess.display(server.argv()));
        r.rssEmpty = settledRss(server);
        r.rssEmptyGc = gcRss(server);
        r.usedMemoryEmpty = target.redis() ? usedMemory(server.port) : -1;
        r.diskEmpty = MemoryAndRestart.du(server.dataDir, false);

        r.load = load.file().load(server.port, budget.cap(loadTimeout));
        log.printf("%s: loaded %,d %s in %.1f s%n", name, load.members(), load.unit(), r.load.toMillis() / 1000.0);
        r.check = check(server.port, load);
        r.rssLoaded = settledRss(server);
        r.rssLoadedGc = gcRss(server);
        if (target.redis()) {
            r.usedMemory = usedMemory(server.port);
            try (Resp c = new Resp(server.port, (int) opTimeout.toMillis())) {
                Object reply = c.call("SAVE");
                if (!"OK".equals(reply)) {
                    throw new IOException("SAVE answered " + Resp.text(reply));
                }
            }
        }
        server.stop();
        Path measured = target.redis() ? server.dataDir.resolve("dump.rdb") : server.dataDir;
        r.disk = MemoryAndRestart.du(measured, false);
        r.apparent = MemoryAndRestart.du(measured, true);
        log.printf("%s: RSS %s -> %s (after GC %s), %s, disk %s (apparent %s)%n", name,
                MemoryAndRestart.mib(r.rssEmpty.total()), MemoryAndRestart.mib(r.rssLoaded.total()),
                r.rssLoadedGc == null ? "n/a" : MemoryAndRestart.mib(r.rssLoadedGc.total()), r.check,
                MemoryAndRestart.mib(r.disk), MemoryAndRestart.mib(r.apparent));
        // the files themselves, allocated and apparent, for whoever reads the log
        log.println(MachineInfo.capture(List.of("ls", "-lsR", server.dataDir.toString()), Duration.ofSeconds(20)));
    }

    private ServerProcess.Rss settledRss(ServerProcess server) {
        ServerProcess.sleepMillis(settle.toMillis());
        return server.rss();
    }

    private ServerProcess.Rss gcRss(ServerProcess server) {
        if (noGc || server.fullGc() == 0) {
            return null;
        }
        ServerProcess.sleepMillis(2000);
        return server.rss();
    }

    /** Redis's own count of what its allocator holds (INFO memory used_memory). */
    private long usedMemory(int port) {
        try (Resp c = new Resp(port, (int) opTimeout.toMillis())) {
            for (String line : Resp.text(c.call("INFO", "memory")).split("\r?\n")) {
                if (line.startsWith("used_memory:")) {
                    return Long.parseLong(line.substring("used_memory:".length()).trim());
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    private String check(int port, Workload load) throws IOException {
        try (Resp c = new Resp(port, (int) opTimeout.toMillis())) {
            Object reply = c.call(load.check());
            String text = String.join(" ", load.check()) + " = " + Resp.text(reply);
            if (!(reply instanceof Long n) || n != load.expected()) {
                throw new IOException(text + ", expected " + load.expected());
            }
            return text;
        }
    }

    // ---------------------------------------------------------------- workloads

    private Workload write(String name, Path work) throws IOException {
        int digits = Math.max(7, Integer.toString(Math.max(members, smallHashes * smallFields)).length());
        PipeFile f = new PipeFile(work.resolve(name + ".resp"));
        try (f) {
            switch (name) {
                case "hash" -> big(f, "HSET", "bighash", i -> List.of(
                        pad("field:", i, 6 + digits), pad("v:", i, Math.max(10, 2 + digits))));
                case "zset" -> {
                    Random random = new Random(42);
                    big(f, "ZADD", "bigzset", i -> List.of(
                            Double.toString(random.nextDouble() * 1e6).getBytes(StandardCharsets.US_ASCII),
                            pad("member:", i, 7 + digits)));
                }
                case "list" -> big(f, "RPUSH", "biglist", i -> List.of(pad("elem:", i, 5 + digits)));
                case "small-hashes" -> {
                    for (int k = 0; k < smallHashes; k++) {
                        byte[][] argv = new byte[2 + 2 * smallFields][];
                        argv[0] = bytes("HSET");
                        argv[1] = pad("hash:", k, 5 + digits);
                        for (int j = 0; j < smallFields; j++) {
                            argv[2 + 2 * j] = bytes("field:" + j);
                            argv[3 + 2 * j] = pad("v:", k * smallFields + j, Math.max(10, 2 + digits));
                        }
                        f.command(argv);
                    }
                }
                default -> throw new CommandLine.ParameterException(spec.commandLine(),
                        "unknown workload " + name + " (hash, zset, small-hashes, list)");
            }
        }
        long size = Files.size(f.path());
        log.printf("workload %s: %,d commands, %.1f MiB of RESP%n", name, f.commands(), size / 1048576.0);
        return switch (name) {
            case "hash" -> new Workload(name, String.format(Locale.ROOT,
                    "one hash of %,d fields (`field:0000042`, 10-byte values `v:00000042`), HSET of %d fields",
                    members, perCommand), members, "fields", f, new String[] {"HLEN", "bighash"}, members);
            case "zset" -> new Workload(name, String.format(Locale.ROOT,
                    "one sorted set of %,d members (`member:0000042`, random double scores in [0, 1e6)),"
                            + " ZADD of %d members", members, perCommand), members, "members", f,
                    new String[] {"ZCARD", "bigzset"}, members);
            case "list" -> new Workload(name, String.format(Locale.ROOT,
                    "one list of %,d elements (`elem:0000042`), RPUSH of %d elements", members, perCommand),
                    members, "elements", f, new String[] {"LLEN", "biglist"}, members);
            default -> new Workload(name, String.format(Locale.ROOT,
                    "%,d hashes (`hash:0000042`) of %d fields each (`field:3`, 10-byte values), one HSET each",
                    smallHashes, smallFields), (long) smallHashes * smallFields, "fields", f,
                    new String[] {"DBSIZE"}, smallHashes);
        };
    }

    /** HSET/ZADD/RPUSH key followed by {@code perCommand} members' arguments, until N members. */
    private void big(PipeFile f, String command, String key, java.util.function.IntFunction<List<byte[]>> member)
            throws IOException {
        List<byte[]> argv = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            if (argv.isEmpty()) {
                argv.add(bytes(command));
                argv.add(bytes(key));
            }
            argv.addAll(member.apply(i));
            if ((i + 1) % perCommand == 0 || i == members - 1) {
                f.command(argv.toArray(byte[][]::new));
                argv.clear();
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** prefix + i zero-padded to exactly {@code size} bytes. */
    private static byte[] pad(String prefix, long i, int size) {
        String d = Long.toString(i);
        StringBuilder sb = new StringBuilder(prefix);
        while (sb.length() + d.length() < size) {
            sb.append('0');
        }
        return bytes(sb.append(d).toString());
    }

    // ---------------------------------------------------------------- report

    private String report(List<Workload> loads, List<Target> targets, Result[][] results, String commandLine,
            ZonedDateTime started, Path home, String loadBefore, String loadAfter) {
        StringBuilder md = new StringBuilder();
        md.append("## Memory and disk per member of collections\n\n");
        md.append("The memory side of issue 15: a big hash, a big sorted set, a big list and many small"
                + " hashes, each loaded into Cajon and into redis-server, and what each costs per member in"
                + " RSS and on disk. Run it with `bin/bench-side-by-side collection-memory` (the whole run"
                + " takes about 10 to 20 minutes here; `--workloads`, `--members`, `--small-hashes` scale it"
                + " down, `--keep` keeps the data dirs, and the log on stderr lists every data file with"
                + " `ls -ls`).\n\n");
        md.append("Produced by `").append(commandLine).append("` on ")
                .append(started.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")))
                .append(" (Cajon ").append(MachineInfo.gitCommit(home)).append(").\n\n");
        md.append("- Machine: ").append(MachineInfo.summary(redisServer, "redis-benchmark"))
                .append(". Load average (1/5/15 min) ").append(loadBefore).append(" at the start, ")
                .append(loadAfter).append(" at the end: load times are noisy, RSS and disk are not.\n");
        md.append("- Workloads, each on a fresh data dir of a freshly started server, one server at a time,"
                + " loaded by `redis-cli --pipe` from one file of RESP commands that every server gets:\n");
        for (Workload w : loads) {
            md.append("  - ").append(w.name()).append(": ").append(w.description()).append('\n');
        }
        md.append("- Servers:\n");
        for (Target t : targets) {
            md.append("  - ").append(t.name()).append(": `").append(t.template().text()).append('`')
                    .append(t.redis() ? " (no persistence while measuring RSS; `SAVE` after the load)"
                            : " (its default `--appendfsync everysec`; always persistent)")
                    .append('\n');
        }
        md.append("- RSS: VmRSS of the server's process tree, ").append(settle.toSeconds())
                .append(" s after the load, minus the same reading of the empty server (baseline), per member."
                        + " Cajon also after a full GC (`jcmd PID GC.run`) of both readings; Redis has no GC,"
                        + " so its one reading is used for both ratios. Cajon's anon part holds costs that do"
                        + " not grow with the data: the part of the Java heap that the load's garbage made"
                        + " resident and that has not gone back to the OS (the heap may shrink to 16 MiB), and JIT-compiled code; its file+shmem part is"
                        + " the pages of the mapped data file it touched.\n");
        md.append("- Disk: Cajon's whole data dir after SIGTERM, `du -B1` (allocated blocks, not apparent size),"
                + " minus the empty server's data dir; Redis's `dump.rdb` after `SAVE` (allocated). The RESP"
                + " file is what Redis's AOF would hold for the same load before a rewrite (AOF appends the"
                + " commands as received; after BGREWRITEAOF its RDB preamble is about the RDB's size).\n\n");

        md.append("| workload | measure |");
        targets.forEach(t -> md.append(' ').append(t.name()).append(" |"));
        boolean ratio = targets.size() == 2;
        if (ratio) {
            md.append(" Cajon / Redis |");
        }
        md.append("\n|---|---|").append("---:|".repeat(targets.size() + (ratio ? 1 : 0))).append('\n');
        for (int w = 0; w < loads.size(); w++) {
            Workload load = loads.get(w);
            Result[] rs = results[w];
            long n = load.members();
            String per = "per " + load.unit().replaceAll("s$", "");
            row(md, load.name(), "load " + String.format(Locale.ROOT, "%,d", n) + " " + load.unit(), rs,
                    r -> r.load == null ? Double.NaN : r.load.toMillis() / 1000.0,
                    (r, v) -> String.format(Locale.ROOT, "%.1f s (%,.0f/s)", v, n / Math.max(1e-9, v)), ratio);
            row(md, "", "**RSS " + per + "**, " + settle.toSeconds() + " s after the load", rs,
                    r -> growth(r.rssLoaded, r.rssEmpty, ServerProcess.Rss::total, n),
                    (r, v) -> String.format(Locale.ROOT, "**%.1f B**", v), ratio);
            if (!noGc) {
                row(md, "", "RSS " + per + " after a forced GC (Cajon)", rs,
                        r -> r.rssLoadedGc != null ? growth(r.rssLoadedGc, r.rssEmptyGc, ServerProcess.Rss::total, n)
                                : growth(r.rssLoaded, r.rssEmpty, ServerProcess.Rss::total, n),
                        (r, v) -> String.format(Locale.ROOT, "%.1f B", v), ratio);
            }
            row(md, "", "of which anon / file+shmem (mapped files)", rs,
                    r -> growth(r.rssLoaded, r.rssEmpty, ServerProcess.Rss::anon, n),
                    (r, v) -> String.format(Locale.ROOT, "%.1f B / %.1f B", v,
                            growth(r.rssLoaded, r.rssEmpty, x -> x.file() + x.shmem(), n)), false);
            row(md, "", "RSS loaded (empty)", rs, r -> r.rssLoaded == null ? Double.NaN : r.rssLoaded.total(),
                    (r, v) -> MemoryAndRestart.mib((long) (double) v) + " ("
                            + MemoryAndRestart.mib(r.rssEmpty.total()) + ")", false);
            row(md, "", "Redis used_memory " + per, rs,
                    r -> r.usedMemory < 0 ? Double.NaN : (double) (r.usedMemory - r.usedMemoryEmpty) / n,
                    (r, v) -> String.format(Locale.ROOT, "%.1f B", v), false);
            row(md, "", "**disk " + per + "** (Cajon: data dir growth; Redis: RDB)", rs,
                    r -> r.disk < 0 ? Double.NaN : (double) (r.disk - Math.max(0, r.diskEmpty)) / n,
                    (r, v) -> String.format(Locale.ROOT, "**%.1f B**", v), ratio);
            row(md, "", "disk total, allocated / apparent (empty data dir)", rs,
                    r -> r.disk < 0 ? Double.NaN : r.disk,
                    (r, v) -> MemoryAndRestart.mib(r.disk) + " / " + MemoryAndRestart.mib(r.apparent)
                            + (r.diskEmpty > 0 ? " (" + MemoryAndRestart.mib(r.diskEmpty) + ")" : ""), false);
            long resp;
            try {
                resp = Files.size(load.file().path());
            } catch (IOException e) {
                resp = -1;
            }
            String stream = resp < 0 ? "n/a" : String.format(Locale.ROOT, "%s, %.1f B %s",
                    MemoryAndRestart.mib(resp), (double) resp / n, per);
            md.append("| | RESP stream loaded (≈ Redis AOF before a rewrite) |");
            targets.forEach(t -> md.append(' ').append(t.redis() ? stream : "").append(" |"));
            md.append(ratio ? " |\n" : "\n");
            row(md, "", "check after the load", rs, r -> 0, (r, v) -> r.check, false);
        }
        List<String> failures = new ArrayList<>();
        for (int w = 0; w < loads.size(); w++) {
            for (int t = 0; t < targets.size(); t++) {
                if (results[w][t].error != null) {
                    failures.add("- " + loads.get(w).name() + " / " + targets.get(t).name() + ": "
                            + results[w][t].error.lines().findFirst().orElse(""));
                }
            }
        }
        if (!failures.isEmpty()) {
            md.append("\nFailures:\n\n").append(String.join("\n", failures)).append('\n');
        }
        return md.toString();
    }

    private static double growth(ServerProcess.Rss after, ServerProcess.Rss before,
            ToLongFunction<ServerProcess.Rss> part, long n) {
        if (after == null || before == null) {
            return Double.NaN;
        }
        return (double) (part.applyAsLong(after) - part.applyAsLong(before)) / n;
    }

    /** One row: each server's value formatted, then value(Cajon) / value(Redis) when asked. */
    private static void row(StringBuilder md, String workload, String label, Result[] rs,
            java.util.function.ToDoubleFunction<Result> value,
            java.util.function.BiFunction<Result, Double, String> format, boolean ratio) {
        md.append("| ").append(workload).append(" | ").append(label).append(" |");
        double[] v = new double[rs.length];
        for (int i = 0; i < rs.length; i++) {
            String s;
            try {
                v[i] = value.applyAsDouble(rs[i]);
                s = Double.isNaN(v[i]) ? "n/a" : format.apply(rs[i], v[i]);
            } catch (RuntimeException e) {
                v[i] = Double.NaN;
                s = "n/a";
            }
            md.append(' ').append(s).append(" |");
        }
        if (!ratio && rs.length == 2) {
            md.append(" |");
        }
        if (ratio) {
            boolean ok = !Double.isNaN(v[0]) && !Double.isNaN(v[1]) && v[1] > 0;
            md.append(' ').append(ok ? String.format(Locale.ROOT, "%.2f×", v[0] / v[1]) : "n/a").append(" |");
        }
        md.append('\n');
    }
}
