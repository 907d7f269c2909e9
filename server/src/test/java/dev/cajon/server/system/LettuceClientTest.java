package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lettuce, the other big Java client, against a real Cajon on a loopback port. Lettuce opens
 * every connection with HELLO 3; Cajon answers NOPROTO (no RESP3 yet), and Lettuce must fall
 * back to RESP2 and work normally: this is the connect path the foundation issue asks for.
 */
class LettuceClientTest {
    @TempDir
    static Path dir;
    static CajonServer server;
    static RedisClient client;

    @BeforeAll
    static void start() throws Exception {
        server = CajonServer.start(ServerConfig.defaults().withPort(0).withDir(dir));
        client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(server.port())
                .withTimeout(Duration.ofSeconds(10)).build());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.shutdown();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void connectsThroughTheHelloFallbackAndRunsCommands() {
        try (StatefulRedisConnection<String, String> conn = client.connect()) {
            RedisCommands<String, String> r = conn.sync();
            assertEquals("PONG", r.ping());
            assertEquals("OK", r.set("lettuce:k", "v"));
            assertEquals("v", r.get("lettuce:k"));
            assertEquals(11L, r.incrby("lettuce:n", 11));
            assertTrue(r.expire("lettuce:k", 100));
            long ttl = r.ttl("lettuce:k");
            assertTrue(ttl > 90 && ttl <= 100, "ttl " + ttl);
            assertEquals(List.of("v", "11"), r.mget("lettuce:k", "lettuce:n").stream()
                    .map(kv -> kv.getValue()).toList());
            assertEquals(2L, r.del("lettuce:k", "lettuce:n"));
            assertNull(r.get("lettuce:k"));
            assertTrue(r.info("server").contains("redis_version:7.0.15"));
        }
    }

    @Test
    void pipelinedAsyncCommandsAndScan() throws Exception {
        try (StatefulRedisConnection<String, String> conn = client.connect()) {
            conn.setAutoFlushCommands(false);
            List<CompletableFuture<String>> sets = IntStream.range(0, 2_000)
                    .mapToObj(i -> conn.async().set("scan:" + i, Integer.toString(i)).toCompletableFuture())
                    .toList();
            conn.flushCommands();
            for (CompletableFuture<String> f : sets) {
                assertEquals("OK", f.get());
            }
            conn.setAutoFlushCommands(true);
            Set<String> seen = new HashSet<>();
            ScanCursor cursor = ScanCursor.INITIAL;
            int calls = 0;
            do {
                var page = conn.sync().scan(cursor, ScanArgs.Builder.matches("scan:*").limit(100));
                seen.addAll(page.getKeys());
                cursor = page;
                calls++;
            } while (!cursor.isFinished() && calls < 10_000);
            assertEquals(2_000, seen.size(), "SCAN through Lettuce returns every key");
        }
    }
}
