package dev.cajon.server.system;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;

/**
 * A Cajon server running as a real OS process, for the system tests.
 *
 * <p>{@link #start} runs the JVM with the same command line as {@code bin/cajon-server}
 * ({@code java $(cat server/target/jvm.flags) ... dev.cajon.server.Main --port N --dir D}), but
 * with the test class path instead of the packaged jar: under {@code mvn verify} the tests run
 * before the jar is built, while {@code jvm.flags} already exists (it is written at
 * process-resources). {@link #launch} runs any other command (the launcher script itself).
 *
 * <p>What must stay true: every process started here dies with the test. Tests register a
 * {@link ServerProcesses} extension that closes them after each test (or class); a JVM shutdown
 * hook is the last resort if the test JVM itself is stopped. The output (stdout and stderr,
 * merged) is kept in memory for assertions and echoed to the test's own output, which surefire
 * keeps in {@code target/surefire-reports/*-output.txt}.
 */
final class CajonProcess implements AutoCloseable {
    static final String READY = "ready to accept connections";
    static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    static final String LOOPBACK = "127.0.0.1";

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(p -> {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }), "cajon-system-test-reaper"));
    }

    private final String name;
    private final List<String> command;
    private final Process process;
    private final int port;
    private final Path dir;
    private final Thread pump;
    private final List<String> lines = new ArrayList<>(); // guarded by this
    private boolean eof; // guarded by this
    private String readyLine;

    private CajonProcess(String name, List<String> command, Process process, int port, Path dir) {
        this.name = name;
        this.command = List.copyOf(command);
        this.process = process;
        this.port = port;
        this.dir = dir;
        this.pump = new Thread(this::pumpOutput, "output-" + name);
        this.pump.setDaemon(true);
        this.pump.start();
    }

    // ---------------------------------------------------------------- locating things

    /** The repository root: the first directory upwards from the working directory with the launcher. */
    static Path repoRoot() {
        Path cwd = Path.of("").toAbsolutePath();
        for (Path p = cwd; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("bin/cajon-server")) && Files.isRegularFile(p.resolve("server/pom.xml"))) {
                return p;
            }
        }
        throw new IllegalStateException("no bin/cajon-server above the working directory " + cwd);
    }

    static Path serverTarget() {
        return repoRoot().resolve("server/target");
    }

    /** The JVM flags the launcher uses, from {@code server/target/jvm.flags}. */
    static List<String> jvmFlags() {
        Path flags = serverTarget().resolve("jvm.flags");
        if (!Files.isRegularFile(flags)) {
            throw new IllegalStateException(flags + " is missing: it is written at process-resources, run mvn through test");
        }
        try {
            String text = Files.readString(flags, StandardCharsets.UTF_8).trim();
            if (text.contains("${")) {
                throw new IllegalStateException(flags + " was not filtered: " + text);
            }
            return text.isEmpty() ? List.of() : Arrays.asList(text.split("\\s+"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** server/target/classes first, then the test JVM's own class path (dependencies, sibling modules). */
    static String classPath() {
        Set<String> entries = new LinkedHashSet<>();
        entries.add(serverTarget().resolve("classes").toString());
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!e.isBlank()) {
                entries.add(e);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** A port that was free on loopback a moment ago. */
    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---------------------------------------------------------------- starting

    /** The command line of {@code bin/cajon-server --bind 127.0.0.1 --port port --dir dir}, minus the jar. */
    static List<String> serverCommand(int port, Path dir, String... extraArgs) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaExecutable());
        cmd.addAll(jvmFlags());
        // a cap, not a tuning: the machine is shared and the largest value in these tests is ~21 MiB
        cmd.add("-Xmx768m");
        cmd.add("-cp");
        cmd.add(classPath());
        cmd.add("dev.cajon.server.Main");
        cmd.addAll(List.of("--bind", LOOPBACK, "--port", Integer.toString(port), "--dir", dir.toString()));
        cmd.addAll(List.of(extraArgs));
        return cmd;
    }

    /**
     * Starts a server on {@code dir} on a free loopback port and waits for its ready line. If the
     * port was taken between choosing and binding, tries another one (twice at most).
     */
    static CajonProcess start(String name, Path dir, UnaryOperator<CajonProcess> tracker, String... extraArgs) {
        AssertionError last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            int port = freePort();
            CajonProcess p = tracker.apply(launch(name, serverCommand(port, dir, extraArgs), port, dir));
            try {
                p.awaitReady();
                return p;
            } catch (AssertionError e) {
                p.close();
                if (!p.output().contains("Address already in use")) {
                    throw e;
                }
                last = e;
            }
        }
        throw last;
    }

    /** Starts any command as a tracked process (output merged and captured). Does not wait. */
    static CajonProcess launch(String name, List<String> command, int port, Path dir) {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        if (dir != null && dir.getParent() != null) {
            pb.directory(dir.getParent().toFile());
        }
        try {
            Process p = pb.start();
            LIVE.add(p);
            System.out.printf("[%s] started pid %d: %s%n", name, p.pid(), String.join(" ", command));
            return new CajonProcess(name, command, p, port, dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    // ---------------------------------------------------------------- output

    private void pumpOutput() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                System.out.println("[" + name + "] " + line);
                synchronized (this) {
                    lines.add(line);
                    notifyAll();
                }
            }
        } catch (IOException e) {
            // the stream closes when the process dies; nothing to do
        } finally {
            synchronized (this) {
                eof = true;
                notifyAll();
            }
        }
    }

    /** Everything the process wrote so far, one line per line. */
    synchronized String output() {
        return String.join("\n", lines);
    }

    /**
     * Waits for a line matching {@code match}. Fails, with the output so far, if the process ends
     * its output first or the time runs out.
     */
    String awaitLine(Predicate<String> match, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            int seen = 0;
            while (true) {
                for (; seen < lines.size(); seen++) {
                    if (match.test(lines.get(seen))) {
                        return lines.get(seen);
                    }
                }
                if (eof) {
                    try {
                        process.waitFor(2, TimeUnit.SECONDS); // for the exit code in the message
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new AssertionError(name + ": output ended (exit " + exitCodeOrNull() + ") before " + what
                            + "\n--- output ---\n" + output());
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError(name + ": no " + what + " within " + timeout + "\n--- output ---\n" + output());
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted while waiting for " + what, e);
                }
            }
        }
    }

    /** Waits for the ready line and checks that it names our port. */
    String awaitReady() {
        String line = awaitLine(l -> l.contains(READY), READY_TIMEOUT, "ready line");
        if (port > 0 && !line.contains(":" + port + " ")) {
            throw new AssertionError(name + ": ready line does not name port " + port + ": " + line);
        }
        readyLine = line;
        return line;
    }

    /** Waits for the end of the output (the process closed it, normally by exiting). */
    synchronized void awaitOutputEnd(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!eof) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    String readyLine() {
        return readyLine;
    }

    // ---------------------------------------------------------------- accessors

    int port() {
        return port;
    }

    Path dir() {
        return dir;
    }

    long pid() {
        return process.pid();
    }

    String name() {
        return name;
    }

    List<String> command() {
        return command;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    private Integer exitCodeOrNull() {
        return process.isAlive() ? null : process.exitValue();
    }

    /** A fresh Jedis connection: RESP2 without a HELLO, generous timeouts for the 20 MiB values. */
    Jedis jedis() {
        return new Jedis(LOOPBACK, port, DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(5_000).socketTimeoutMillis(30_000)
                .autoNegotiateProtocol(false).build());
    }

    // ---------------------------------------------------------------- stopping

    /** Waits for the process to exit; returns its exit code, or fails after {@code timeout}. */
    int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(name + " still running after " + timeout + "\n--- output ---\n" + output());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        awaitOutputEnd(Duration.ofSeconds(5));
        LIVE.remove(process);
        return process.exitValue();
    }

    /**
     * SIGTERM, then waits for the exit code. Sent through {@link ProcessHandle#destroy()}, not
     * {@link Process#destroy()}: the latter also closes our end of the output pipe, so whatever the
     * server logs while shutting down would be lost (and its writes would fail).
     */
    int sigterm() {
        process.toHandle().destroy();
        return awaitExit(STOP_TIMEOUT);
    }

    /**
     * SIGTERM, then checks that the server stopped the way an operator expects: exit code 0 or
     * 143 (128 + SIGTERM, what a JVM reports after running its shutdown hooks), the "closed
     * cleanly" log line, no ERROR logged while stopping, and no {@code cajon.running} marker left
     * in the data directory.
     */
    int stopCleanly() {
        int rc = sigterm();
        String out = output();
        if (rc != 0 && rc != 143) {
            throw new AssertionError(name + ": SIGTERM gave exit code " + rc + "\n--- output ---\n" + out);
        }
        if (!out.contains("closed cleanly")) {
            throw new AssertionError(name + ": no 'closed cleanly' line after SIGTERM (exit code " + rc + ")\n--- output ---\n" + out);
        }
        int from = out.lastIndexOf("shutting down");
        String shutdownLog = from < 0 ? out : out.substring(from);
        List<String> errors = shutdownLog.lines().filter(l -> l.contains(" ERROR ")).toList();
        if (!errors.isEmpty()) {
            throw new AssertionError(name + ": errors logged while stopping: " + errors + "\n--- output ---\n" + out);
        }
        if (dir != null && Files.exists(dir.resolve("cajon.running"))) {
            throw new AssertionError(name + ": cajon.running still present after a clean stop\n--- output ---\n" + out);
        }
        return rc;
    }

    /** SIGKILL ({@link ProcessHandle#destroyForcibly()} on Linux), then waits for the process to be gone. */
    int sigkill() {
        process.toHandle().destroyForcibly();
        return awaitExit(STOP_TIMEOUT);
    }

    /** Kills the process (and anything it started) if it is still running. Never throws. */
    @Override
    public void close() {
        try {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            if (process.isAlive()) {
                process.destroyForcibly();
                process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            System.out.println("[" + name + "] close failed: " + e);
        } finally {
            if (!process.isAlive()) {
                LIVE.remove(process);
            }
        }
    }

    @Override
    public String toString() {
        return name + "(pid " + process.pid() + ", port " + port + ", dir " + dir + ")";
    }
}
