package dev.cajon.server.compat;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts a real {@code redis-server} for one test class and stops it afterwards: loopback only, a
 * free port, no persistence, in its own temporary directory. The class's {@code @BeforeAll}
 * methods can take the running {@link RedisProcess} as a parameter.
 *
 * <p>If {@code redis-server} is not on the PATH the whole class is skipped (an assumption, not a
 * failure), so the build still passes on machines without Redis.
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(RedisServerExtension.class);
    private static final String KEY = "redis";

    /** A running redis-server. */
    public static final class RedisProcess implements AutoCloseable {
        private final Process process;
        private final int port;
        private final Path dir;
        private final Path log;

        /** Kills redis-server if the test JVM exits without running afterAll (e.g. killed by a timeout). */
        private final Thread reaper;

        RedisProcess(Process process, int port, Path dir, Path log) {
            this.process = process;
            this.port = port;
            this.dir = dir;
            this.log = log;
            this.reaper = new Thread(process::destroyForcibly, "redis-server-reaper");
            Runtime.getRuntime().addShutdownHook(reaper);
        }

        private volatile String version = "?";

        public int port() {
            return port;
        }

        /** redis_version from INFO, e.g. "7.0.15" (the replies Cajon is compared with). */
        public String version() {
            return version;
        }

        @Override
        public void close() throws IOException {
            try {
                process.destroy(); // SIGTERM: with --save "" Redis exits without writing anything
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(reaper);
                } catch (IllegalStateException e) {
                    // the JVM is already shutting down: the hook runs anyway
                }
                deleteTree(dir);
            }
        }

        String logTail() {
            try {
                List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
            } catch (IOException e) {
                return "(no log: " + e + ")";
            }
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Path exe = findOnPath("redis-server");
        Assumptions.assumeTrue(exe != null,
                "redis-server is not on the PATH: the Redis comparison tests are skipped");
        context.getStore(NS).put(KEY, start(exe));
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        RedisProcess redis = context.getStore(NS).remove(KEY, RedisProcess.class);
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        return p.getParameter().getType() == RedisProcess.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        RedisProcess redis = e.getStore(NS).get(KEY, RedisProcess.class);
        if (redis == null) {
            throw new IllegalStateException("redis-server is not running");
        }
        return redis;
    }

    static Path findOnPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String d : path.split(File.pathSeparator)) {
            if (d.isEmpty()) {
                continue;
            }
            Path p = Path.of(d, name);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /**
     * Starts redis-server and waits until it answers PING. The free port is found by binding port
     * 0 and closing it; another process could grab it in between, so a start that dies early is
     * retried on a new port.
     */
    static RedisProcess start(Path exe) throws Exception {
        Exception last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            Path dir = Files.createTempDirectory("cajon-compat-redis");
            int port = freePort();
            Path log = dir.resolve("redis.log");
            Process p = new ProcessBuilder(exe.toString(),
                    "--save", "", "--appendonly", "no",
                    "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--daemonize", "no", "--dir", dir.toString(), "--logfile", "")
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            RedisProcess redis = new RedisProcess(p, port, dir, log);
            try {
                awaitPing(redis);
                return redis;
            } catch (Exception e) {
                last = new IllegalStateException("redis-server did not start on port " + port + ": " + e
                        + "\n" + redis.logTail(), e);
                redis.close();
            }
        }
        throw last;
    }

    private static void awaitPing(RedisProcess redis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            if (!redis.process.isAlive()) {
                throw new IllegalStateException("redis-server exited with " + redis.process.exitValue());
            }
            try (RespClient c = RespClient.connect(redis.port)) {
                Reply r = c.call("PING");
                if ("+PONG\r\n".equals(new String(r.raw(), StandardCharsets.ISO_8859_1))) {
                    String info = new String(c.call("INFO", "server").payload(), StandardCharsets.UTF_8);
                    for (String line : info.split("\r\n")) {
                        if (line.startsWith("redis_version:")) {
                            redis.version = line.substring("redis_version:".length());
                        }
                    }
                    return;
                }
                last = "PING answered " + r;
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("redis-server did not answer PING within 10 s: " + last);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
