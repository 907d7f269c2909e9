package dev.cajon.server.hardening;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import io.netty.buffer.PooledByteBufAllocator;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A slowloris swarm: 2,000 connections, each with a command sent only in part (half of them in
 * the middle of a header, half in the middle of a bulk that announces 100 MB). The server holds
 * one socket for each and little memory (a bulk's buffer grows as its bytes arrive, never to
 * what it announced), and another client is served meanwhile.
 */
class SlowlorisTest {
    private static final int CONNECTIONS = 2_000;
    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void thousandsOfHalfSentCommandsCostBoundedMemoryAndDescriptors() throws Exception {
        try (CajonServer server = CajonServer.start(ServerConfig.defaults().withPort(0).withDir(dir).withExpiryWarmup(false));
             Raw other = Raw.connect(server.port())) {
            other.send(Raw.command("PING"));
            assertEquals("+PONG\r\n", other.line());
            String pid = Long.toString(ProcessHandle.current().pid());
            System.gc();
            int fdsBefore = Raw.openFds();
            long directBefore = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
            long heapBefore = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            long rssBefore = Raw.rss(pid);
            List<Raw> swarm = new ArrayList<>();
            try {
                for (int i = 0; i < CONNECTIONS; i++) {
                    Raw r = Raw.connect(server.port());
                    swarm.add(r);
                    r.send(i % 2 == 0 ? "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5" : "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000000\r\nabc");
                }
                // every connection is accepted and its bytes read: the server answers a command sent after them all
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (server.context().connections().size() < CONNECTIONS + 1 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertEquals(CONNECTIONS + 1, server.context().connections().size(), "connections accepted");
                long t0 = System.nanoTime();
                other.socket.setSoTimeout(1_000);
                other.send(Raw.command("PING"));
                assertEquals("+PONG\r\n", other.line(), "another client during the swarm");
                long pingNanos = System.nanoTime() - t0;
                System.gc();
                int fds = Raw.openFds();
                long direct = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory() - directBefore;
                long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() - heapBefore;
                long rss = Raw.rss(pid) - rssBefore;
                System.out.printf("slowloris: %d connections, fds +%d (both ends are in this process), direct memory +%d KiB,"
                        + " heap after GC +%d KiB, RSS +%d MiB, PING %.1f ms%n", CONNECTIONS, fds - fdsBefore, direct >> 10,
                        heap >> 10, rss >> 20, pingNanos / 1e6);
                // the client's and the server's socket of each connection, nothing per connection beyond
                assertTrue(fds - fdsBefore <= 2 * CONNECTIONS + 16, "descriptors: +" + (fds - fdsBefore));
                assertTrue(direct < 64L << 20, "direct memory +" + direct);
                // a 100 MB announcement must not cost 100 MB, nor 64 KiB each, on the heap
                assertTrue(heap < 64L << 20, "heap +" + heap);
                assertTrue(pingNanos < TimeUnit.SECONDS.toNanos(1), "PING took " + pingNanos / 1e6 + " ms");
            } finally {
                for (Raw r : swarm) {
                    r.close();
                }
            }
        }
    }
}
