package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a new user runs first: {@code redis-benchmark -q} with its default tests (strings,
 * counters, lists, sets, hashes, sorted sets, LRANGE, MSET) must run to its end against Cajon,
 * every test giving a figure and no error. Not a timed test: few requests, and only the outcome
 * is checked (the speeds are the side-by-side harness's business). Skipped without redis-benchmark.
 */
class RedisBenchmarkSystemTest {
    @RegisterExtension
    static final ServerProcesses servers = new ServerProcesses();

    static final Path REDIS_BENCHMARK = Path.of("/usr/bin/redis-benchmark");

    /** redis-benchmark 7.0's default tests, in its order, as its -q lines name them. */
    static final List<String> DEFAULT_TESTS = List.of("PING_INLINE", "PING_MBULK", "SET", "GET", "INCR", "LPUSH",
            "RPUSH", "LPOP", "RPOP", "SADD", "HSET", "SPOP", "ZADD", "ZPOPMIN", "LPUSH (needed to benchmark LRANGE)",
            "LRANGE_100 (first 100 elements)", "LRANGE_300 (first 300 elements)", "LRANGE_500 (first 500 elements)",
            "LRANGE_600 (first 600 elements)", "MSET (10 keys)");

    @TempDir
    static Path tmp;

    static CajonProcess server;

    @BeforeAll
    static void startServer() {
        Assumptions.assumeTrue(Files.isExecutable(REDIS_BENCHMARK),
                "redis-benchmark test skipped: " + REDIS_BENCHMARK + " is not installed");
        server = servers.start("redis-benchmark", tmp.resolve("data"));
    }

    @Test
    void theDefaultTestsAllRunToTheEnd() throws IOException, InterruptedException {
        Path out = Files.createTempFile(tmp, "rb", ".out");
        Path err = Files.createTempFile(tmp, "rb", ".err");
        List<String> cmd = List.of(REDIS_BENCHMARK.toString(), "-h", CajonProcess.LOOPBACK,
                "-p", Integer.toString(server.port()), "-q", "-n", "2000", "-c", "4");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        try {
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "redis-benchmark did not finish within 120 s");
        } finally {
            p.destroyForcibly();
        }
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), "redis-benchmark's exit code; stderr: " + stderr);
        // -q rewrites a progress line with \r; the final one per test ends with "requests per second"
        List<String> done = new ArrayList<>();
        for (String line : stdout.split("[\r\n]+")) {
            int i = line.indexOf(": ");
            if (line.contains("requests per second") && i > 0) {
                done.add(line.substring(0, i).trim());
            }
        }
        assertEquals(DEFAULT_TESTS, done, "every default test, in order; stdout ends: "
                + stdout.substring(Math.max(0, stdout.length() - 400)) + "; stderr: " + stderr);
        assertTrue(!stdout.contains("ERR") && !stderr.contains("ERR"), "no error reply: " + stderr);
    }
}
