package dev.cajon.bot.kv;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Test fixture: Debian's redis-server on free loopback ports, started by the test and removed
 * afterwards (process and temporary directory). {@link #standalone} is one server;
 * {@link #cluster} is a 3-master Redis Cluster (no replicas) created with
 * {@code redis-cli --cluster create} and awaited until every node reports
 * {@code cluster_state:ok}. Returns null when redis-server or redis-cli is not on the PATH, so
 * the caller can skip with a message. Every wait is bounded.
 */
public final class RedisProcesses implements AutoCloseable {
    private final List<Process> processes = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();
    private final Path dir;
    private final Thread reaper;

    private RedisProcesses(Path dir) {
        this.dir = dir;
        this.reaper = new Thread(() -> processes.forEach(Process::destroyForcibly), "redis-fixture-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    public List<Integer> ports() {
        return ports;
    }

    public int port() {
        return ports.get(0);
    }

    static Path onPath(String name) {
        String path = System.getenv("PATH");
        for (String d : path == null ? new String[0] : path.split(File.pathSeparator)) {
            Path p = Path.of(d, name);
            if (!d.isEmpty() && Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    public static boolean available() {
        return onPath("redis-server") != null && onPath("redis-cli") != null;
    }

    public static RedisProcesses standalone() throws Exception {
        if (!available()) {
            return null;
        }
        RedisProcesses r = new RedisProcesses(Files.createTempDirectory("cajon-bot-redis"));
        try {
            r.startNode(false);
            return r;
        } catch (Exception | Error e) {
            r.close();
            throw e;
        }
    }

    public static RedisProcesses cluster(int masters) throws Exception {
        if (!available()) {
            return null;
        }
        RedisProcesses r = new RedisProcesses(Files.createTempDirectory("cajon-bot-cluster"));
        try {
            for (int i = 0; i < masters; i++) {
                r.startNode(true);
            }
            List<String> cmd = new ArrayList<>(List.of(onPath("redis-cli").toString(), "--cluster", "create"));
            for (int p : r.ports) {
                cmd.add("127.0.0.1:" + p);
            }
            cmd.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
            String out = r.run(cmd, 60);
            for (int p : r.ports) {
                r.await(p, "cluster_state:ok", List.of("cluster", "info"), 30, out);
            }
            return r;
        } catch (Exception | Error e) {
            r.close();
            throw e;
        }
    }

    private void startNode(boolean cluster) throws Exception {
        Exception last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            int port = freePort();
            Path nodeDir = Files.createDirectories(dir.resolve("n" + port));
            List<String> cmd = new ArrayList<>(List.of(onPath("redis-server").toString(),
                    "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
                    "--appendonly", "no", "--daemonize", "no", "--dir", nodeDir.toString()));
            if (cluster) {
                cmd.addAll(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", "5000"));
            }
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(nodeDir.resolve("redis.log").toFile()).start();
            processes.add(p);
            try {
                await(port, "PONG", List.of("ping"), 10, "");
                ports.add(port);
                return;
            } catch (Exception e) {
                last = e;
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                processes.remove(p);
            }
        }
        throw last;
    }

    private void await(int port, String expect, List<String> args, int seconds, String context) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        String last = "";
        while (System.nanoTime() < deadline) {
            List<String> cmd = new ArrayList<>(List.of(onPath("redis-cli").toString(), "-p", Integer.toString(port)));
            cmd.addAll(args);
            last = run(cmd, 5);
            if (last.contains(expect)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("redis on port " + port + " never answered " + expect + " to " + args
                + "; last: " + last + "\n" + context);
    }

    private String run(List<String> cmd, int seconds) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out;
        try {
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("timed out: " + cmd);
            }
            out = p.getInputStream().readAllBytes();
        } finally {
            p.destroyForcibly();
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs anyway
        }
        if (Files.exists(dir)) {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
