package dev.cajon.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.Store;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starting and stopping a real server in-process: its threads and what a failed start leaves. */
class CajonServerStartTest {
    @TempDir
    Path dir;

    private static long liveThreads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(prefix)).count();
    }

    private ServerConfig config() {
        return ServerConfig.defaults().withBind("127.0.0.1").withPort(0).withDir(dir);
    }

    @Test
    void theDefaultEventLoopsLeaveOneCoreFree() {
        assertEquals(1, ServerConfig.autoIoThreads(1), "a single core still gets a loop");
        assertEquals(1, ServerConfig.autoIoThreads(2));
        assertEquals(7, ServerConfig.autoIoThreads(8));
    }

    @Test
    void expiryThreadsAreConfigurableAndStopWithTheServer() throws Exception {
        try (CajonServer s = CajonServer.start(config().withExpiryThreads(3))) {
            assertTrue(s.port() > 0);
            assertEquals(3, liveThreads("cajon-expiry-"));
        }
        assertEquals(0, liveThreads("cajon-expiry-"), "close stops the reapers");
        try (CajonServer s = CajonServer.start(config())) {
            assertEquals(CajonServer.defaultExpiryThreads(), liveThreads("cajon-expiry-"));
        }
    }

    @Test
    void theExpiryWarmupRunsBesideTheServerAndLeavesItsDataAlone() throws Exception {
        try (CajonServer s = CajonServer.start(config())) {
            Thread warmup = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("cajon-warmup-expiry")).findFirst().orElse(null);
            if (warmup != null) { // null: it has already finished
                warmup.join(60_000);
                assertTrue(!warmup.isAlive(), "the warm-up ends by itself");
            }
            var ks = s.store().keyspace(Store.DEFAULT_APP, 0);
            assertEquals(0, ks.size(), "no scratch key in the server's keyspace");
            assertEquals(0, ks.expiredCount(), "INFO's expired_keys counts none of the warm-up's keys");
            assertEquals(0, s.context().wheel().reclaimedCount(), "nor does the server's wheel");
            try (var files = java.nio.file.Files.walk(dir)) {
                assertEquals(java.util.List.of(), files.filter(p -> p.toString().contains("warmup")).toList(),
                        "nothing of the scratch store in the data dir");
            }
        }
        try (CajonServer s = CajonServer.start(config().withExpiryWarmup(false))) {
            assertEquals(0, liveThreads("cajon-warmup-expiry"), "turned off, no warm-up runs");
        }
        // closed while warming up: the warm-up stops with the server and deletes its store
        CajonServer.start(config()).close();
        assertEquals(0, liveThreads("cajon-warmup-expiry"), "close stops the warm-up");
        try (var tmp = java.nio.file.Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            String mine = "cajon-expiry-warmup-" + ProcessHandle.current().pid() + "-";
            assertEquals(java.util.List.of(), tmp.filter(p -> p.getFileName().toString().startsWith(mine)).toList(),
                    "no scratch store left in the temp dir");
        }
    }

    @Test
    void aPortInUseFailsTheStartAndReleasesTheDataDir() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            ServerConfig cfg = config().withPort(taken.getLocalPort());
            Exception e = assertThrows(Exception.class, () -> CajonServer.start(cfg));
            // epoll reports it as a NativeIoException, NIO as a BindException: both IOExceptions
            assertTrue(e instanceof IOException && String.valueOf(e.getMessage()).contains("in use"),
                    "the bind failure reaches the caller: " + e);
        }
        // the store the failed start opened was closed again: the directory is free
        try (Store again = Store.open(dir, dev.cajon.storage.Clock.SYSTEM)) {
            assertTrue(again.keyspaces().size() <= 1);
        }
        assertEquals(0, liveThreads("cajon-expiry-"));
    }
}
