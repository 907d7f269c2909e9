package dev.cajon.server.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import java.io.IOException;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * The endpoint of a real server started with a metrics port: off by default, loopback unless
 * told otherwise, GET /metrics only, and the server-wide meters (connections, latency, the
 * expiry wheel, the JVM) next to the per-app ones.
 */
class MetricsEndpointTest {
    @TempDir
    Path dir;

    private ServerConfig config() {
        return ServerConfig.defaults().withBind("127.0.0.1").withPort(0).withDir(dir).withExpiryWarmup(false);
    }

    @Test
    void metricsAreOffByDefault() throws Exception {
        assertEquals(ServerConfig.METRICS_OFF, ServerConfig.defaults().metricsPort());
        assertEquals("127.0.0.1", ServerConfig.defaults().metricsBind());
        try (CajonServer s = CajonServer.start(config())) {
            assertNull(s.metricsAddress(), "no endpoint without --metrics-port");
            assertNull(ServerMetrics.of(s.context()), "and nothing recorded");
            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                assertEquals("PONG", j.ping());
            }
        }
    }

    @Test
    void aServerWithAMetricsPortServesItsMetersOnLoopback() throws Exception {
        try (CajonServer s = CajonServer.start(config().withMetrics(0, ServerConfig.DEFAULT_METRICS_BIND))) {
            InetSocketAddress at = s.metricsAddress();
            assertNotNull(at);
            assertTrue(at.getAddress().isLoopbackAddress(), "bound to " + at);
            assertTrue(at.getPort() > 0);
            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                j.set("k", "v");
                j.set("k2", "v");
                assertEquals("v", j.get("k"));
                j.pexpire("k2", 1);
                assertThrows(Exception.class, () -> j.incr("k"));

                Scrape m = Scrape.get(at);
                assertEquals(2, m.value("cajon_commands_total", "app", "default", "command", "set"));
                assertEquals(1, m.value("cajon_commands_total", "app", "default", "command", "get"));
                assertEquals(1, m.value("cajon_command_errors_total", "app", "default", "command", "incr"));
                assertEquals(1, m.value("cajon_connected_clients"));
                assertTrue(m.value("cajon_connections_received_total") >= 1);
                assertEquals(0, j.del("nope", "nope2"));
                m = Scrape.get(at);
                assertEquals(1, m.value("cajon_command_duration_seconds_count", "command", "del"));
                assertTrue(m.value("cajon_command_duration_seconds_sum", "command", "del") > 0);
                // the expiry wheel
                assertNotNull(m.value("cajon_expire_wheel_lag_p99_seconds"));
                assertNotNull(m.value("cajon_expire_wheel_behind_seconds"));
                assertNotNull(m.value("cajon_expire_wheel_reclaimed_keys_total"));
                // the JVM, through Micrometer's binders
                assertTrue(m.has("jvm_memory_used_bytes"), "memory");
                assertTrue(m.has("jvm_gc_max_data_size_bytes"), "gc");
                assertTrue(m.value("jvm_threads_live_threads") > 0, "threads");
                assertTrue(m.value("system_cpu_count") > 0, "processors");
                assertTrue(m.has("process_files_open_files"), "file descriptors");
            }
            // the client is gone
            Scrape after = Scrape.get(at);
            for (int i = 0; i < 100 && after.value("cajon_connected_clients") != 0; i++) {
                Thread.sleep(20); // the connection's close runs on its event loop
                after = Scrape.get(at);
            }
            assertEquals(0, after.value("cajon_connected_clients"));
        }
    }

    @Test
    void onlyGetOfMetricsIsServed() throws Exception {
        try (CajonServer s = CajonServer.start(config().withMetrics(0, "127.0.0.1"))) {
            InetSocketAddress at = s.metricsAddress();
            HttpURLConnection other = Scrape.open(at, "/", "GET");
            assertEquals(404, other.getResponseCode());
            other.disconnect();
            HttpURLConnection post = Scrape.open(at, "/metrics", "POST");
            assertEquals(405, post.getResponseCode());
            post.disconnect();
            HttpURLConnection plain = Scrape.open(at, "/metrics", "GET");
            assertEquals(200, plain.getResponseCode());
            String body = new String(plain.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(body.contains("# TYPE cajon_connected_clients gauge"), "uncompressed without Accept-Encoding");
            plain.disconnect();
        }
    }

    @Test
    void theEndpointStopsWithTheServer() throws Exception {
        InetSocketAddress at;
        try (CajonServer s = CajonServer.start(config().withMetrics(0, "127.0.0.1"))) {
            at = s.metricsAddress();
            Scrape.get(at);
        }
        assertThrows(ConnectException.class, () -> new Socket(at.getAddress(), at.getPort()).close());
        assertTrue(Thread.getAllStackTraces().keySet().stream().noneMatch(
                t -> t.isAlive() && t.getName().equals("cajon-metrics")), "its thread is gone");
    }

    @Test
    void aMetricsPortInUseFailsTheStartAndLeavesTheDataDirFree() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Exception e = assertThrows(Exception.class,
                    () -> CajonServer.start(config().withMetrics(taken.getLocalPort(), "127.0.0.1")));
            assertTrue(e.getMessage().contains("metrics endpoint"), e.getMessage());
        }
        try (CajonServer s = CajonServer.start(config())) {
            assertTrue(s.port() > 0, "the failed start let go of the data dir");
        }
    }

    /** Loopback only: the port is not reachable on the machine's other addresses. */
    @Test
    void theDefaultBindIsNotReachableFromOtherInterfaces() throws Exception {
        InetAddress external = null;
        for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nif.isUp() || nif.isLoopback()) {
                continue;
            }
            for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress()) {
                    external = a;
                }
            }
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(external != null, "no non-loopback IPv4 address here");
        try (CajonServer s = CajonServer.start(config().withMetrics(0, ServerConfig.DEFAULT_METRICS_BIND))) {
            int port = s.metricsAddress().getPort();
            InetAddress to = external;
            assertThrows(IOException.class, () -> {
                try (Socket sock = new Socket()) {
                    sock.connect(new InetSocketAddress(to, port), 2_000);
                }
            });
            try (Socket sock = new Socket()) {
                sock.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2_000);
            }
        }
    }
}
