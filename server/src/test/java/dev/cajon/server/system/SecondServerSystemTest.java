package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Two processes mapping the same Chronicle files would corrupt them: a second server on a data
 * directory that is in use must refuse to start, say why, and leave the first one alone.
 */
class SecondServerSystemTest {
    @RegisterExtension
    static final ServerProcesses servers = new ServerProcesses();

    @Test
    void secondServerOnTheSameDataDirRefusesToStartAndTheFirstKeepsServing(@TempDir Path tmp) {
        Path dir = tmp.resolve("data");
        CajonProcess first = servers.start("first", dir);
        try (Jedis j = first.jedis()) {
            assertEquals("OK", j.set("before", "1"));
        }

        int port = CajonProcess.freePort();
        CajonProcess second = servers.launch("second", CajonProcess.serverCommand(port, dir), port, dir);
        int rc = second.awaitExit(Duration.ofSeconds(60));
        String out = second.output();

        assertNotEquals(0, rc, "second server must exit non-zero; output:\n" + out);
        assertTrue(out.contains("data directory") && out.contains("in use"),
                "second server must say the data directory is in use; output:\n" + out);
        assertTrue(out.contains(dir.toAbsolutePath().toString()),
                "the message must name the directory " + dir.toAbsolutePath() + "; output:\n" + out);
        assertTrue(!out.contains(CajonProcess.READY), "second server must never report ready; output:\n" + out);
        assertTrue(!out.contains("Exception"), "a refusal is a message, not a stack trace; output:\n" + out);

        // the first server is untouched: still serving, still the owner of the directory
        assertTrue(first.isAlive(), "first server died");
        try (Jedis j = first.jedis()) {
            assertEquals("PONG", j.ping());
            assertEquals("1", j.get("before"));
            assertEquals("OK", j.set("after", "2"));
            assertEquals("2", j.get("after"));
        }
        assertTrue(Files.exists(dir.resolve("cajon.running")), "the refused start must not remove the first server's marker");

        // and the refused start did not leave anything that makes the next start think it crashed
        first.stopCleanly();
        CajonProcess third = servers.start("third", dir);
        assertTrue(third.readyLine().contains("no recovery"), "clean stop must not need recovery: " + third.readyLine());
        try (Jedis j = third.jedis()) {
            assertEquals("1", j.get("before"));
            assertEquals("2", j.get("after"));
        }
    }
}
