package dev.cajon.server.hardening;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/** A real redis-server with extra options, on a free loopback port, for side-by-side limits. */
final class RedisProc implements AutoCloseable {
    final Process process;
    final int port;
    private final Path dir;

    private RedisProc(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
    }

    static RedisProc start(String... extra) throws Exception {
        Path exe = Path.of("/usr/bin/redis-server");
        Assumptions.assumeTrue(Files.isExecutable(exe), "no redis-server: the side-by-side checks are skipped");
        Path dir = Files.createTempDirectory("cajon-hardening-redis");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        List<String> cmd = new ArrayList<>(List.of(exe.toString(), "--save", "", "--appendonly", "no", "--port",
                Integer.toString(port), "--bind", "127.0.0.1", "--daemonize", "no", "--dir", dir.toString(),
                "--logfile", dir.resolve("redis.log").toString()));
        cmd.addAll(List.of(extra));
        String bind = "127.0.0.1";
        for (int i = 0; i + 1 < extra.length; i++) {
            if (extra[i].equals("--bind")) {
                bind = extra[i + 1]; // the later --bind wins in redis-server too
            }
        }
        InetAddress host = InetAddress.getByName(bind);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("out.log").toFile()).start();
        RedisProc r = new RedisProc(p, port, dir);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Raw c = Raw.connect(host, port, 0)) {
                c.send("PING\r\n");
                String l = c.line();
                if (l.startsWith("+PONG") || l.startsWith("-NOAUTH") || l.startsWith("-DENIED")) {
                    return r;
                }
            } catch (IOException e) {
                if (System.nanoTime() > deadline || !p.isAlive()) {
                    r.close();
                    throw new IllegalStateException("redis-server did not start: " + e);
                }
                Thread.sleep(20);
            }
        }
    }

    String log() throws IOException {
        return Files.readString(dir.resolve("redis.log"));
    }

    long pid() {
        return process.pid();
    }

    @Override
    public void close() throws IOException {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
