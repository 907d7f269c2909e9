package dev.cajon.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same bad files given to a real redis-server 7.0 and to Cajon's reader: the same stderr text
 * (line number, the line, the reason). Every file has a bad line, so redis-server never starts.
 */
class ConfigFileRedisComparisonTest {
    private static final Path REDIS = Path.of("/usr/bin/redis-server");

    private static final List<List<String>> BAD_FILES = List.of(
            List.of("# a comment", "port 7000", "maxclients abc"),
            List.of("", "foo bar"),
            List.of("port 99999"),
            List.of("timeout 10", "bind \"127.0.0.1"),
            List.of("protected-mode maybe"),
            List.of("tcp-keepalive -1"),
            List.of("maxclients 0"),
            List.of("client-output-buffer-limit normal 1mb"),
            List.of("client-output-buffer-limit normal 1mb 1mb lots"),
            List.of("client-output-buffer-limit other 1mb 1mb 1"),
            List.of("  PORT   \"70\"x  "),
            List.of("proto-max-bulk-len lots"),
            List.of("port"),
            List.of("timeout 1 2"),
            List.of("appendfsync bogus"),
            List.of("appendfsync"),
            List.of("appendfsync always everysec"));

    private static String redisStderr(Path file) throws Exception {
        Process p = new ProcessBuilder(REDIS.toString(), file.toString()).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        byte[] err;
        try {
            err = p.getErrorStream().readAllBytes();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                throw new AssertionError("redis-server did not stop on " + Files.readString(file));
            }
        } finally {
            p.destroyForcibly();
        }
        assertEquals(1, p.exitValue(), "redis-server's exit code");
        return new String(err, StandardCharsets.UTF_8);
    }

    @Test
    void badLinesAreReportedAsRedisServerReportsThem(@TempDir Path tmp) throws Exception {
        assumeTrue(Files.isExecutable(REDIS), "no redis-server at " + REDIS);
        int i = 0;
        for (List<String> lines : BAD_FILES) {
            Path f = tmp.resolve("bad" + (i++) + ".conf");
            Files.write(f, lines, StandardCharsets.UTF_8);
            String ours;
            try {
                ConfigFile.read(f);
                throw new AssertionError("accepted " + lines);
            } catch (ConfigFile.Error e) {
                ours = e.fatal();
            }
            assertEquals(redisStderr(f), ours, "file " + Arrays.toString(lines.toArray()));
        }
    }
}
