package dev.cajon.server.matrix;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Finds and runs the client matrix's scripts: {@code clients/node/scenario.mjs} with {@code node}
 * and {@code clients/python/scenario.py} with Debian's {@code /usr/bin/python3}.
 *
 * <p>Where they come from:
 * <ul>
 *   <li>{@code CAJON_NODE_MODULES}: the node_modules folder holding {@code redis} and
 *       {@code ioredis} (default: {@code clients/node/node_modules}, where
 *       {@code bin/install-test-clients} puts them);
 *   <li>{@code CAJON_NODE}: the node binary (default: {@code node} on the PATH);
 *   <li>{@code CAJON_PYTHON}: the Python with redis-py (default: {@code /usr/bin/python3}, the
 *       one Debian's {@code python3-redis} is for, not a pyenv {@code python3} on the PATH).
 * </ul>
 */
final class ExternalClients {
    /** A run that takes longer than this is killed and reported as failed. */
    private static final long TIMEOUT_SECONDS = 30;

    private ExternalClients() {
    }

    /** The repository's root: the first folder up from the working directory that has clients/. */
    static Path repoRoot() {
        Path p = Path.of("").toAbsolutePath();
        for (int i = 0; i < 5 && p != null; i++, p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("clients/node/scenario.mjs"))) {
                return p;
            }
        }
        throw new IllegalStateException("no clients/node/scenario.mjs above " + Path.of("").toAbsolutePath());
    }

    static Path nodeModules() {
        String env = System.getenv("CAJON_NODE_MODULES");
        return env != null && !env.isBlank() ? Path.of(env) : repoRoot().resolve("clients/node/node_modules");
    }

    /** The node binary, or null (with {@link #whyNoNode()} saying why). */
    static Path node() {
        String env = System.getenv("CAJON_NODE");
        if (env != null && !env.isBlank()) {
            Path p = Path.of(env);
            return Files.isExecutable(p) ? p : null;
        }
        return findOnPath("node");
    }

    static String whyNoNode() {
        String env = System.getenv("CAJON_NODE");
        return env != null && !env.isBlank()
                ? "CAJON_NODE=" + env + " is not an executable"
                : "node is not on the PATH (install Node 20 or later, or set CAJON_NODE)";
    }

    static Path python() {
        String env = System.getenv("CAJON_PYTHON");
        return Path.of(env != null && !env.isBlank() ? env : "/usr/bin/python3");
    }

    /** Runs node-redis ("node-redis") or ioredis against 127.0.0.1:port. */
    static ClientRun runNode(String server, String client, int port, String protocol) throws Exception {
        Path root = repoRoot();
        return run(server, List.of(node().toString(), root.resolve("clients/node/scenario.mjs").toString(),
                "--client", client, "--host", "127.0.0.1", "--port", Integer.toString(port),
                "--protocol", protocol, "--modules", nodeModules().toAbsolutePath().toString()));
    }

    static ClientRun runPython(String server, int port, String protocol) throws Exception {
        Path root = repoRoot();
        return run(server, List.of(python().toString(), root.resolve("clients/python/scenario.py").toString(),
                "--host", "127.0.0.1", "--port", Integer.toString(port), "--protocol", protocol));
    }

    private static ClientRun run(String server, List<String> command) throws Exception {
        Path out = Files.createTempFile("cajon-matrix", ".out");
        Path err = Files.createTempFile("cajon-matrix", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            pb.environment().remove("NODE_OPTIONS");
            Process p = pb.start();
            boolean exited = p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (!exited) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
            List<String> lines = new ArrayList<>(Files.readAllLines(out, StandardCharsets.UTF_8));
            String stderr = Files.readString(err, StandardCharsets.UTF_8);
            if (!exited) {
                stderr += "\n(killed after " + TIMEOUT_SECONDS + " s: " + String.join(" ", command) + ")";
            } else if (p.exitValue() > 3 && stderr.isBlank()) {
                stderr = "(exit " + p.exitValue() + ": " + String.join(" ", command) + ")";
            }
            return ClientRun.parse(server, lines, stderr);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /**
     * A running {@code clients/trace/resp-trace.py}: a proxy in front of a server that writes each
     * command a client sends, and the reply, to a log. Used when {@code CAJON_MATRIX_TRACE_DIR} is
     * set, to record the connect sequences in {@code clients/CONNECT-SEQUENCES.md}.
     */
    static final class TraceProxy implements AutoCloseable {
        private final Process process;
        private final int port;

        private TraceProxy(Process process, int port) {
            this.process = process;
            this.port = port;
        }

        int port() {
            return port;
        }

        @Override
        public void close() throws InterruptedException {
            Thread.sleep(200); // let the last replies reach the log
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    /** The folder to write traces to, or null when not tracing. */
    static Path traceDir() {
        String env = System.getenv("CAJON_MATRIX_TRACE_DIR");
        return env == null || env.isBlank() ? null : Path.of(env);
    }

    static TraceProxy startTrace(int upstream, Path log) throws Exception {
        Files.createDirectories(log.getParent());
        Files.deleteIfExists(log);
        Process p = new ProcessBuilder(python().toString(), repoRoot().resolve("clients/trace/resp-trace.py").toString(),
                "0", Integer.toString(upstream), log.toString(), "--max", "10")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        java.io.BufferedReader err = new java.io.BufferedReader(
                new java.io.InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
        String line = err.readLine(); // "resp-trace: listening on 127.0.0.1:PORT", or null if it died
        if (line == null || !line.contains("listening on 127.0.0.1:")) {
            p.destroyForcibly();
            throw new IllegalStateException("resp-trace.py did not start: " + line);
        }
        Thread drain = new Thread(() -> {
            try {
                err.transferTo(java.io.Writer.nullWriter());
            } catch (java.io.IOException e) {
                // the proxy is gone
            }
        }, "resp-trace-stderr");
        drain.setDaemon(true);
        drain.start();
        return new TraceProxy(p, Integer.parseInt(line.substring(line.lastIndexOf(':') + 1).strip()));
    }

    static Path findOnPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String d : path.split(File.pathSeparator)) {
            if (!d.isEmpty()) {
                Path p = Path.of(d, name);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                    return p;
                }
            }
        }
        return null;
    }
}
