package dev.cajon.bench.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One server under test (Cajon or redis-server) as a child process on a loopback port, with its
 * own data dir and log file.
 *
 * <p>The same data dir and port are reused across {@link #stop} and {@link #start}, which is what
 * a restart measurement needs. Output goes to a log file (appended across restarts) rather than to
 * a pipe, so a chatty server can never block on a full pipe buffer.
 *
 * <p>Readiness means: the server answered a raw {@code PING} with exactly {@code +PONG}. We poll
 * every few milliseconds so the measured start time is close to the truth, and we give up early if
 * the process died, showing the end of its log.
 */
public final class ServerProcess implements AutoCloseable {

    /** Resident memory of a process tree, in bytes, from /proc/PID/status. */
    record Rss(long total, long anon, long file, long shmem) {
        static final Rss ZERO = new Rss(0, 0, 0, 0);

        Rss plus(Rss o) {
            return new Rss(total + o.total, anon + o.anon, file + o.file, shmem + o.shmem);
        }

        Rss minus(Rss o) {
            return new Rss(total - o.total, anon - o.anon, file - o.file, shmem - o.shmem);
        }
    }

    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    final String name;
    final CommandTemplate template;
    final Path dataDir;
    final Path logFile;
    final Path home;
    /** The port of the current (or last) start; a restart picks a new free one. */
    int port;
    private Process process;

    public ServerProcess(String name, CommandTemplate template, Path dataDir, Path logFile, Path home) {
        this.name = name;
        this.template = template.requireLoopback();
        this.dataDir = dataDir;
        this.logFile = logFile;
        this.home = home;
    }

    public List<String> argv() {
        return template.expand(Map.of(
                "port", Integer.toString(port),
                "dir", dataDir.toString(),
                "home", home.toString()));
    }

    /** A command line as one would type it, for logs and reports. */
    public static String display(List<String> argv) {
        return String.join(" ", argv.stream().map(Harness::shellQuote).toList());
    }

    /**
     * Starts the process and waits until it answers PING. Returns the time from just before the
     * process was started until the first PONG.
     */
    public Duration start(Duration timeout) throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(name + " is already running");
        }
        Files.createDirectories(dataDir);
        // A new port for every start: a restarted server must not fail to bind because the old
        // socket lingers, and the restart time we measure must not include such a retry.
        port = freeLoopbackPort();
        List<String> argv = argv();
        Files.writeString(logFile, "### start: " + display(argv) + "\n",
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        ProcessBuilder pb = new ProcessBuilder(argv)
                .directory(home.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
        long t0 = System.nanoTime();
        try {
            process = Reaper.start(pb);
        } catch (IOException e) {
            throw new IOException("cannot start " + name + " (" + e.getMessage() + "); is the command"
                    + " right? Command: " + display(argv), e);
        }
        long deadline = t0 + timeout.toNanos();
        while (true) {
            if (Resp.ping(port, 1000)) {
                return Duration.ofNanos(System.nanoTime() - t0);
            }
            if (!process.isAlive()) {
                throw new IOException(name + " exited with code " + process.exitValue()
                        + " before answering PING; end of " + logFile + ":\n" + logTail(30));
            }
            if (System.nanoTime() > deadline) {
                stop();
                throw new IOException(name + " did not answer PING on 127.0.0.1:" + port
                        + " within " + timeout.toSeconds() + " s; end of " + logFile + ":\n"
                        + logTail(30));
            }
            sleepMillis(5);
        }
    }

    /** SIGTERM, wait, SIGKILL if needed. Returns the time until the process had exited. */
    public Duration stop() {
        if (process == null) {
            return Duration.ZERO;
        }
        Duration d = Reaper.stop(process, STOP_GRACE);
        process = null;
        return d;
    }

    /**
     * {@code kill -9} of the server: SIGKILL to the process and its descendants (the JVM itself,
     * as bin/cajon-server execs it), no grace period. Returns "pid command" of each process killed.
     */
    public List<String> kill9() {
        if (process == null) {
            return List.of();
        }
        List<String> killed = Reaper.kill9(process);
        process = null;
        return killed;
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /** The port of the current (or last) start, for callers outside this package. */
    public int port() {
        return port;
    }

    /** The server's log file (appended across restarts). */
    public Path logFile() {
        return logFile;
    }

    /** The sum of VmRSS (and its parts) over the process and its descendants. */
    Rss rss() {
        Rss sum = Rss.ZERO;
        for (ProcessHandle h : Reaper.tree(process.toHandle())) {
            sum = sum.plus(rssOf(h.pid()));
        }
        return sum;
    }

    /**
     * Asks every JVM in the process tree for a full GC ({@code jcmd PID GC.run}) and returns how
     * many it asked. Without it a JVM's RSS includes garbage not yet collected, and per-key
     * numbers would depend on when the collector last ran. G1 also gives freed heap back to the
     * OS after a full GC, so the RSS read afterwards is close to what the live data needs.
     */
    int fullGc() {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        int n = 0;
        for (ProcessHandle h : Reaper.tree(process.toHandle())) {
            boolean isJava = h.info().command().map(c -> c.endsWith("/java")).orElse(false);
            if (isJava) {
                MachineInfo.capture(List.of(Files.isExecutable(jcmd) ? jcmd.toString() : "jcmd",
                        Long.toString(h.pid()), "GC.run"), Duration.ofSeconds(60));
                n++;
            }
        }
        return n;
    }

    static Rss rssOf(long pid) {
        long total = 0;
        long anon = 0;
        long file = 0;
        long shmem = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    total = kib(line);
                } else if (line.startsWith("RssAnon:")) {
                    anon = kib(line);
                } else if (line.startsWith("RssFile:")) {
                    file = kib(line);
                } else if (line.startsWith("RssShmem:")) {
                    shmem = kib(line);
                }
            }
        } catch (IOException gone) {
            return Rss.ZERO;
        }
        return new Rss(total, anon, file, shmem);
    }

    private static long kib(String statusLine) {
        String[] parts = statusLine.trim().split("\\s+");
        return Long.parseLong(parts[1]) * 1024;
    }

    public String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        stop();
    }

    /**
     * A port that was free on 127.0.0.1 a moment ago. There is a small race with other programs
     * between closing the probe socket and the server binding; a server that loses it fails to
     * start with a clear message, which is acceptable for a benchmark.
     */
    static int freeLoopbackPort() {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(CommandTemplate.LOOPBACK, 0));
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static java.io.File nullDevice() {
        return new java.io.File("/dev/null");
    }

    static void sleepMillis(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
