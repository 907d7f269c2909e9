package dev.cajon.server.hardening;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A blocked client (BLPOP) goes on being read, so that its disconnect is seen; what it pipelines
 * meanwhile waits, decoded, until it is served. That input is bounded by
 * client-query-buffer-limit, as Redis bounds a blocked client's query buffer: past it the client
 * is closed, none of its waiting commands run, and it no longer waits for the key. Under the limit
 * nothing changes: served, it runs what it sent, in order. A real redis-server, given the same
 * scenario, closes the client the same way.
 */
class BlockedClientInputTest {
    private static final String VALUE = "v".repeat(1000);

    @TempDir
    Path dir;

    private static byte[] sets(int from, int n) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = from; i < from + n; i++) {
            b.writeBytes(Raw.command("SET", "x" + i, VALUE));
        }
        return b.toByteArray();
    }

    /** Sets a limit of 1 MB and blocks {@code blocked} on q. */
    private static void blockWithLimit(Raw other, Raw blocked) throws IOException {
        other.send(Raw.command("CONFIG", "SET", "client-query-buffer-limit", "1mb"));
        assertEquals("+OK\r\n", other.line());
        blocked.send(Raw.command("BLPOP", "q", "0"));
    }

    @Test
    @Timeout(60)
    void aBlockedClientSendingPastTheQueryBufferLimitIsClosed() throws Exception {
        try (CajonServer server = CajonServer.start(ServerConfig.defaults().withPort(0).withDir(dir).withExpiryWarmup(false))) {
            floodWhileBlocked(server.port());
        }
    }

    /** The same scenario against a real redis-server: it closes the client the same way. */
    @Test
    @Timeout(60)
    void redisClosesSuchAClientTheSameWay() throws Exception {
        try (RedisProc redis = RedisProc.start()) {
            floodWhileBlocked(redis.port);
        }
    }

    /** Blocks a client on q, sends 3 MB past a 1 MB limit behind it, and checks what follows. */
    private static void floodWhileBlocked(int port) throws Exception {
        try (Raw other = Raw.connect(port);
             Raw blocked = Raw.connect(port)) {
            blockWithLimit(other, blocked);
            Thread writer = new Thread(() -> {
                try {
                    OutputStream out = blocked.socket.getOutputStream();
                    for (int chunk = 0; chunk < 30; chunk++) { // 3 MB in all, past the 1 MB limit
                        out.write(sets(chunk * 100, 100));
                    }
                    out.flush();
                } catch (IOException e) {
                    // closed by the server: what the test waits for
                }
            }, "blocked-client-writer");
            writer.start();
            assertEquals("", blocked.untilClosed(10_000), "closed with no reply (not left open, not served)");
            writer.join(10_000);
            other.send(Raw.command("EXISTS", "x0"));
            assertEquals(":0\r\n", other.line(), "none of its waiting commands ran");
            other.send(Raw.command("LPUSH", "q", "a"));
            assertEquals(":1\r\n", other.line());
            other.send(Raw.command("LLEN", "q"));
            assertEquals(":1\r\n", other.line(), "the closed client no longer waited for q");
        }
    }

    @Test
    @Timeout(60)
    void underTheLimitTheBlockedClientRunsWhatItSentOnceServed() throws Exception {
        try (CajonServer server = CajonServer.start(ServerConfig.defaults().withPort(0).withDir(dir).withExpiryWarmup(false));
             Raw other = Raw.connect(server.port());
             Raw blocked = Raw.connect(server.port())) {
            blockWithLimit(other, blocked);
            blocked.send(sets(0, 300)); // about 300 KB
            Thread.sleep(200);
            other.send(Raw.command("EXISTS", "x0"));
            assertEquals(":0\r\n", other.line(), "nothing after BLPOP runs while it waits");
            other.send(Raw.command("LPUSH", "q", "a"));
            assertEquals(":1\r\n", other.line());
            assertEquals("*2\r\n", blocked.line());
            assertEquals("$1\r\n", blocked.line());
            assertEquals("q\r\n", blocked.line());
            assertEquals("$1\r\n", blocked.line());
            assertEquals("a\r\n", blocked.line());
            for (int i = 0; i < 300; i++) {
                assertEquals("+OK\r\n", blocked.line(), "SET " + i);
            }
            other.send(Raw.command("EXISTS", "x0", "x299"));
            assertEquals(":2\r\n", other.line());
            blocked.send(Raw.command("PING"));
            assertEquals("+PONG\r\n", blocked.line(), "still connected and served");
        }
    }
}
