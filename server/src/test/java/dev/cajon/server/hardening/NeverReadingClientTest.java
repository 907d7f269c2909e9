package dev.cajon.server.hardening;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client pipelines GET of a 1 MiB value (a blob, streamed from its file) and never reads the
 * replies. Before back-pressure bounded it, every queued reply held an open blob file and the
 * process ran out of descriptors. Now the server stops running that client's commands while its
 * output is pending: the descriptors and the direct memory stay bounded, and another client's
 * PING is answered meanwhile.
 */
class NeverReadingClientTest {
    private static final int MIB = 1 << 20;
    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void aNeverReadingClientHoldsBoundedDescriptorsAndMemoryWhileOthersAreServed() throws Exception {
        try (CajonServer server = CajonServer.start(ServerConfig.defaults().withPort(0).withDir(dir).withExpiryWarmup(false));
             Raw other = Raw.connect(server.port())) {
            int port = server.port();
            other.send(Raw.command("SET", "big", "x".repeat(MIB)));
            assertEquals("+OK\r\n", other.line());
            other.send(Raw.command("PING"));
            assertEquals("+PONG\r\n", other.line());
            int fdsBefore = Raw.openFds();
            long directBefore = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
            String pid = Long.toString(ProcessHandle.current().pid());
            long rssBefore = Raw.rss(pid);

            byte[] get = Raw.command("GET", "big");
            byte[] chunk = new byte[get.length * 2048];
            for (int i = 0; i < 2048; i++) {
                System.arraycopy(get, 0, chunk, i * get.length, get.length);
            }
            Raw attacker = Raw.connect(InetAddress.getLoopbackAddress(), port, 4096);
            long[] sent = new long[1];
            Thread writer = new Thread(() -> {
                try {
                    OutputStream out = attacker.socket.getOutputStream();
                    while (!Thread.currentThread().isInterrupted()) {
                        out.write(chunk); // blocks once the server stops reading
                        sent[0] += 2048;
                    }
                } catch (IOException e) {
                    // the socket was closed by the test: the attack is over
                }
            }, "never-reading-client");
            writer.start();
            int maxFds = 0;
            long maxDirect = 0;
            long maxRss = 0;
            long worstPingNanos = 0;
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            while (System.nanoTime() < end) {
                long t0 = System.nanoTime();
                other.socket.setSoTimeout(1_000);
                other.send(Raw.command("PING"));
                assertEquals("+PONG\r\n", other.line(), "another client's PING during the attack");
                worstPingNanos = Math.max(worstPingNanos, System.nanoTime() - t0);
                maxFds = Math.max(maxFds, Raw.openFds());
                maxDirect = Math.max(maxDirect, PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory());
                maxRss = Math.max(maxRss, Raw.rss(pid));
                Thread.sleep(50);
            }
            attacker.close();
            writer.interrupt();
            writer.join(5_000);
            System.out.printf("never-reading client: %d GETs sent, fds %d -> max %d, direct memory +%d KiB,"
                    + " RSS +%d MiB, worst PING %.1f ms%n", sent[0], fdsBefore, maxFds,
                    (maxDirect - directBefore) >> 10, (maxRss - rssBefore) >> 20, worstPingNanos / 1e6);
            assertTrue(sent[0] >= 2048, "the attacker got its pipeline out: " + sent[0]);
            // the attacker's socket, at most one blob file for it, and a few for the JVM's own use
            assertTrue(maxFds - fdsBefore <= 8, "descriptors went from " + fdsBefore + " to " + maxFds);
            assertTrue(maxDirect - directBefore < 64L * MIB, "direct memory grew by " + (maxDirect - directBefore));
            assertTrue(worstPingNanos < TimeUnit.SECONDS.toNanos(1), "PING took " + worstPingNanos / 1e6 + " ms");
            // and the server still serves the value once the attacker is gone
            other.socket.setSoTimeout(5_000);
            other.send(Raw.command("STRLEN", "big"));
            assertEquals(":" + MIB + "\r\n", other.line());
        }
    }
}
