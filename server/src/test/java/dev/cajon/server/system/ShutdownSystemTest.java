package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * SHUTDOWN, as scripts use it ({@code redis-cli shutdown}): no reply, the connection closes, the
 * process exits 0 after a clean stop, and the next start needs no recovery and has every key.
 */
class ShutdownSystemTest {
    @RegisterExtension
    static final ServerProcesses servers = new ServerProcesses();

    @Test
    void shutdownStopsTheProcessCleanlyWithoutAReply(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("data");
        CajonProcess server = servers.start("shutdown", dir);
        try (Jedis j = server.jedis()) {
            assertEquals("OK", j.set("k", "v"));
            assertEquals("OK", j.set("t", "v", redis.clients.jedis.params.SetParams.setParams().ex(3600)));
        }
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write("*2\r\n$8\r\nSHUTDOWN\r\n$6\r\nNOSAVE\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            assertEquals(-1, in.read(), "no reply: the connection is closed");
        }
        assertEquals(0, server.awaitExit(Duration.ofSeconds(60)), "exit status; output:\n" + server.output());
        assertTrue(server.output().contains("closed cleanly"), server.output());
        assertTrue(!Files.exists(dir.resolve("cajon.running")), "a clean stop removes the running marker");

        CajonProcess again = servers.start("after-shutdown", dir);
        assertTrue(again.readyLine().contains("no recovery"), again.readyLine());
        try (Jedis j = again.jedis()) {
            assertEquals("v", j.get("k"));
            assertTrue(j.ttl("t") > 3500, "the TTL survived");
        }
    }
}
