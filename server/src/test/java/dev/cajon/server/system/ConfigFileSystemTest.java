package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.config.ConfigRewrite;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * {@code cajon-server --config FILE} as a real process: it listens on the file's port with the
 * file's password, flags given on the command line win over the file, CONFIG REWRITE writes the
 * values in force back, and a bad line stops the start with exit code 1.
 * (Here rather than in the config package: it starts servers with {@link CajonProcess}.)
 */
class ConfigFileSystemTest {
    @RegisterExtension
    static final ServerProcesses SERVERS = new ServerProcesses();

    private static List<String> command(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(CajonProcess.javaExecutable());
        cmd.addAll(CajonProcess.jvmFlags());
        cmd.add("-Xmx256m");
        cmd.add("-cp");
        cmd.add(CajonProcess.classPath());
        cmd.add("dev.cajon.server.Main");
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static Path writeConfig(Path tmp, int port) throws Exception {
        Path f = tmp.resolve("cajon.conf");
        Files.write(f, List.of(
                "# test server",
                "PORT " + port,
                "bind 127.0.0.1",
                "dir '" + tmp.resolve("data") + "'",
                "requirepass \"s3cret pw\"",
                "",
                "# limits",
                "maxclients 123",
                "timeout 7"), StandardCharsets.UTF_8);
        return f;
    }

    @Test
    void listensOnTheFilesPortWithTheFilesPassword(@TempDir Path tmp) throws Exception {
        int port = CajonProcess.freePort();
        Path f = writeConfig(tmp, port);
        CajonProcess p = SERVERS.launch("conf", command("--config", f.toString()), port, tmp.resolve("data"));
        p.awaitReady();
        try (Jedis j = p.jedis()) {
            JedisDataException e = assertThrows(JedisDataException.class, j::ping);
            assertTrue(e.getMessage().startsWith("NOAUTH"), e.getMessage());
            assertEquals("OK", j.auth("s3cret pw"));
            assertEquals(Map.of("maxclients", "123"), j.configGet("maxclients"));
            assertEquals(Map.of("timeout", "7"), j.configGet("timeout"));
            assertEquals(Map.of("requirepass", "s3cret pw"), j.configGet("requirepass"));
            assertEquals(Map.of("dir", tmp.resolve("data").toString()), j.configGet("dir"));
        }
        assertEquals(0, p.stopCleanly());
    }

    @Test
    void flagsOverrideTheFileAndRewriteWritesTheValuesInForce(@TempDir Path tmp) throws Exception {
        int filePort = CajonProcess.freePort();
        int flagPort = CajonProcess.freePort();
        Path f = writeConfig(tmp, filePort);
        CajonProcess p = SERVERS.launch("conf-flags",
                command("--config", f.toString(), "--port", Integer.toString(flagPort), "--timeout", "9"), flagPort,
                tmp.resolve("data"));
        p.awaitReady(); // names flagPort: the flag won
        try (Jedis j = p.jedis()) {
            j.auth("s3cret pw");
            assertEquals(Map.of("port", Integer.toString(flagPort)), j.configGet("port"));
            assertEquals(Map.of("timeout", "9"), j.configGet("timeout"));
            assertEquals(Map.of("maxclients", "123"), j.configGet("maxclients"), "from the file");
            assertEquals("OK", j.configSet("tcp-keepalive", "60"));
            assertEquals("OK", j.configRewrite());
        }
        assertEquals(List.of(
                "# test server",
                "port " + flagPort,
                "bind 127.0.0.1",
                "dir '" + tmp.resolve("data") + "'",
                "requirepass \"s3cret pw\"",
                "",
                "# limits",
                "maxclients 123",
                "timeout 9",
                ConfigRewrite.SIGNATURE,
                "tcp-keepalive 60"), Files.readAllLines(f, StandardCharsets.UTF_8));
        assertEquals(0, p.stopCleanly());
    }

    @Test
    void aBadLineStopsTheStartWithItsNumber(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("bad.conf");
        Files.write(f, List.of("# fine", "port 7000", "maxclients lots"), StandardCharsets.UTF_8);
        CajonProcess p = SERVERS.launch("conf-bad", command("--config", f.toString()), 0, tmp.resolve("data"));
        assertEquals(1, p.awaitExit(Duration.ofSeconds(60)));
        p.awaitOutputEnd(Duration.ofSeconds(10));
        assertTrue(p.output().contains("*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"
                + "Reading the configuration file, at line 3\n>>> 'maxclients lots'\n"
                + "argument couldn't be parsed into an integer"), p.output());

        Path missing = tmp.resolve("missing.conf");
        CajonProcess q = SERVERS.launch("conf-missing", command("--config", missing.toString()), 0, tmp.resolve("data"));
        assertEquals(1, q.awaitExit(Duration.ofSeconds(60)));
        q.awaitOutputEnd(Duration.ofSeconds(10));
        assertTrue(q.output().contains("Fatal error, can't open config file '" + missing + "': No such file or directory"),
                q.output());
    }
}
