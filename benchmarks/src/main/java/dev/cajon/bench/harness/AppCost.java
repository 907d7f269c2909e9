package dev.cajon.bench.harness;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What an app costs: one Cajon server with N apps (ACL users) of a few keys each, for several N.
 * For each N, on a fresh data directory: RSS (settled, and again after a full GC), disk in use,
 * file descriptors, the restart time, and the first command of an app that has been idle: its
 * keyspace released, and its files evicted from the page cache (as an hour of other work would
 * do), timed from the client.
 *
 * <p>Run: {@code bin/bench-side-by-side app-cost [--apps 10,100,1000]}.
 */
@Command(name = "app-cost", mixinStandardHelpOptions = true,
        description = "RSS, disk, descriptors and restart time of a Cajon server with 10, 100, 1,000 apps.")
public final class AppCost implements Callable<Integer> {

    @Option(names = "--apps", split = ",", description = "App counts. Default: ${DEFAULT-VALUE}")
    List<Integer> appCounts = List.of(10, 100, 1000);

    @Option(names = "--keys-per-app", description = "Default: ${DEFAULT-VALUE}")
    int keysPerApp = 10;

    @Option(names = "--value-size", description = "Default: ${DEFAULT-VALUE}")
    int valueSize = 32;

    @Option(names = "--idle-probes", description = "Idle apps whose first command is timed. Default: ${DEFAULT-VALUE}")
    int idleProbes = 20;

    @Option(names = "--cajon-cmd", paramLabel = "TEMPLATE", description = "Default: ${DEFAULT-VALUE}")
    String cajonCmd = SideBySide.DEFAULT_CAJON_CMD;

    @Option(names = "--settle", converter = Deadline.Converter.class, description = "Default: 3s")
    Duration settle = Duration.ofSeconds(3);

    @Option(names = "--out", description = "Markdown file to update. Default: ${DEFAULT-VALUE}")
    Path out = Path.of("docs/BENCHMARKS.md");

    @Option(names = "--print-only", description = "Print the table; do not write Markdown.")
    boolean printOnly;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final PrintStream log = System.err;

    /** What one app count cost. */
    record Row(int apps, long rss, long rssAfterGc, long disk, int fds, Duration restart, long rssRestarted,
               int fdsRestarted, double idleFirstP50, double idleFirstMax, double warmP50, long keysChecked) {
    }

    public static void main(String[] args) {
        Harness.main(new AppCost(), args);
    }

    @Override
    public Integer call() throws Exception {
        Path home = Harness.home();
        Path work = Files.createTempDirectory("cajon-app-cost-");
        Reaper.deleteOnExit(work);
        String commandLine = Harness.commandLine("bench-side-by-side app-cost",
                spec.commandLine().getParseResult().originalArgs());
        ZonedDateTime started = ZonedDateTime.now(ZoneOffset.UTC);
        List<Row> rows = new ArrayList<>();
        Row base;
        try {
            base = measure(home, work, 0);
            for (int n : appCounts) {
                rows.add(measure(home, work, n));
            }
        } finally {
            Reaper.killAll();
        }
        String md = report(base, rows, commandLine, started);
        System.out.println(md);
        if (!printOnly) {
            MarkdownSection.write(home.resolve(out), "app-cost", md);
            log.println("updated: " + home.resolve(out));
        }
        Harness.deleteTree(work);
        return 0;
    }

    private Row measure(Path home, Path work, int apps) throws IOException, InterruptedException {
        Path dir = work.resolve("apps-" + apps);
        ServerProcess server = new ServerProcess("Cajon", new CommandTemplate(cajonCmd), dir.resolve("data"),
                dir.resolve("server.log"), home);
        try {
            server.start(Duration.ofSeconds(120));
            byte[] value = new byte[valueSize];
            Arrays.fill(value, (byte) 'v');
            String v = new String(value, java.nio.charset.StandardCharsets.US_ASCII);
            try (Resp c = new Resp(server.port, 60_000)) {
                for (int a = 0; a < apps; a++) {
                    expectOk(c.call("ACL", "SETUSER", "app" + a, "on", ">pw-" + a));
                }
                for (int a = 0; a < apps; a++) {
                    expectOk(c.call("AUTH", "app" + a, "pw-" + a));
                    for (int k = 0; k < keysPerApp; k++) {
                        c.send(bytes("SET"), bytes("key:" + k), bytes(v));
                    }
                    c.flush();
                    for (int k = 0; k < keysPerApp; k++) {
                        expectOk(c.read());
                    }
                }
            }
            log.printf("%d apps x %d keys loaded%n", apps, keysPerApp);
            pause(settle);
            long rss = server.rss().total();
            int fds = fds(server);
            server.fullGc();
            pause(settle);
            long rssGc = server.rss().total();
            server.stop();
            long disk = MemoryAndRestart.du(server.dataDir, false);
            Duration restart = server.start(Duration.ofSeconds(120));
            log.printf("%d apps: RSS %s (after GC %s), disk %s, fds %d, restart %d ms%n", apps,
                    MemoryAndRestart.mib(rss), MemoryAndRestart.mib(rssGc), MemoryAndRestart.mib(disk), fds,
                    restart.toMillis());
            // idle apps: released by the restart (a clean start maps none); their files are also
            // evicted from the page cache, as an hour of other traffic would
            double[] first = new double[Math.min(idleProbes, apps)];
            double[] warm = new double[first.length];
            long checked = 0;
            try (Resp c = new Resp(server.port, 60_000)) {
                for (int i = 0; i < first.length; i++) {
                    int a = (int) ((long) i * apps / Math.max(1, first.length));
                    expectOk(c.call("AUTH", "app" + a, "pw-" + a));
                    evictPageCache(server.dataDir.resolve("app" + a));
                    long t0 = System.nanoTime();
                    Object got = c.call("GET", "key:0");
                    first[i] = (System.nanoTime() - t0) / 1e6;
                    long t1 = System.nanoTime();
                    Object dbsize = c.call("DBSIZE");
                    warm[i] = (System.nanoTime() - t1) / 1e6;
                    if (!v.equals(Resp.text(got)) || !Long.valueOf(keysPerApp).equals(dbsize)) {
                        throw new IOException("app" + a + " lost data: GET " + Resp.text(got) + ", DBSIZE " + dbsize);
                    }
                    checked += keysPerApp;
                }
            }
            pause(settle);
            long rssRestarted = server.rss().total();
            int fdsRestarted = fds(server);
            Arrays.sort(first);
            Arrays.sort(warm);
            return new Row(apps, rss, rssGc, disk, fds, restart, rssRestarted, fdsRestarted,
                    first.length == 0 ? Double.NaN : first[first.length / 2],
                    first.length == 0 ? Double.NaN : first[first.length - 1],
                    warm.length == 0 ? Double.NaN : warm[warm.length / 2], checked);
        } finally {
            server.stop();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static void expectOk(Object reply) throws IOException {
        if (!"OK".equals(Resp.text(reply))) {
            throw new IOException("expected OK, got " + Resp.text(reply));
        }
    }

    /** Open descriptors over the server's process tree. */
    private static int fds(ServerProcess server) throws IOException {
        int n = 0;
        for (ProcessHandle h : Reaper.tree(ProcessHandle.of(server.pid()).orElseThrow())) {
            try (Stream<Path> s = Files.list(Path.of("/proc", Long.toString(h.pid()), "fd"))) {
                n += (int) s.count();
            } catch (IOException gone) {
                // exited meanwhile
            }
        }
        return n;
    }

    /** Drops the page cache of every file under {@code dir} (posix_fadvise DONTNEED through dd). */
    private static void evictPageCache(Path dir) throws IOException, InterruptedException {
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(Files::isRegularFile).toList();
        }
        for (Path f : files) {
            Process p = new ProcessBuilder("dd", "if=" + f, "iflag=nocache", "count=0", "status=none")
                    .redirectErrorStream(true).redirectOutput(ServerProcess.nullDevice()).start();
            p.waitFor();
        }
    }

    private static void pause(Duration d) {
        ServerProcess.sleepMillis(d.toMillis());
    }

    private String report(Row base, List<Row> rows, String commandLine, ZonedDateTime started) {
        StringBuilder md = new StringBuilder();
        md.append("Measured ").append(started.toLocalDate()).append(" on ").append(MachineInfo.nproc())
                .append(" cores (").append(MachineInfo.cpuModel()).append("), one run: `").append(commandLine)
                .append("`. Each app is an ACL user with ").append(keysPerApp).append(" keys of ")
                .append(valueSize).append(" bytes, written through AUTH as that app; every count starts on a fresh"
                        + " data directory with the server's defaults (`--max-open-keyspaces 256`,"
                        + " `--keyspace-idle 60`). RSS is VmRSS " + settle.toSeconds() + " s after the load, as an"
                        + " operator sees it (the launcher returns the heap of a burst about 2 s after it), then"
                        + " after a full GC (`jcmd GC.run`); disk is `du` of the data directory after a clean stop;"
                        + " restart is SIGTERM, start, first PONG. The idle first command is a GET of an app whose"
                        + " keyspace is released (a clean start maps none) and whose files were evicted from the"
                        + " page cache first (`dd iflag=nocache`), timed at the client; the second command is a"
                        + " DBSIZE right after.\n\n");
        md.append("| apps | RSS | RSS after GC | per app (RSS growth) | disk | per app (disk) | fds | restart"
                + " | RSS after restart | fds after restart | idle first command p50 / max | next command p50 |\n");
        md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            md.append("| ").append(String.format("%,d", r.apps)).append(" | ").append(MemoryAndRestart.mib(r.rss))
                    .append(" | ").append(MemoryAndRestart.mib(r.rssAfterGc))
                    .append(" | ").append(kib((r.rss - base.rss) / Math.max(1, r.apps)))
                    .append(" | ").append(MemoryAndRestart.mib(r.disk))
                    .append(" | ").append(kib((r.disk - base.disk) / Math.max(1, r.apps)))
                    .append(" | ").append(r.fds)
                    .append(" | ").append(r.restart.toMillis()).append(" ms")
                    .append(" | ").append(MemoryAndRestart.mib(r.rssRestarted))
                    .append(" | ").append(r.fdsRestarted)
                    .append(" | ").append(String.format("%.1f / %.1f ms", r.idleFirstP50, r.idleFirstMax))
                    .append(" | ").append(String.format("%.2f ms", r.warmP50)).append(" |\n");
        }
        md.append("\nNo apps: RSS ").append(MemoryAndRestart.mib(base.rss)).append(", disk ")
                .append(MemoryAndRestart.mib(base.disk)).append(", ").append(base.fds).append(" fds, restart ")
                .append(base.restart.toMillis()).append(" ms. Per-app figures are growth over that.\n");
        return md.toString();
    }

    private static String kib(long bytes) {
        return String.format("%.0f KiB", bytes / 1024.0);
    }
}
