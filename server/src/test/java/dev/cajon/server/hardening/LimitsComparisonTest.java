package dev.cajon.server.hardening;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Redis's connection limits, side by side with a real redis-server that has the same limit: the
 * same bytes back (an error text, or nothing), and the connection closed the same way.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class LimitsComparisonTest {
    private RedisProc redis;
    private RedisProc redisAuth;
    private CajonServer cajon;
    private CajonServer cajonAuth;
    private final List<Path> dirs = new ArrayList<>();

    @BeforeAll
    void start() throws Exception {
        redis = RedisProc.start();
        redisAuth = RedisProc.start("--requirepass", "secret");
        cajon = CajonServer.start(config());
        cajonAuth = CajonServer.start(config().withRequirepass("secret"));
    }

    private ServerConfig config() throws IOException {
        Path d = Files.createTempDirectory("cajon-hardening");
        dirs.add(d);
        return ServerConfig.defaults().withPort(0).withDir(d).withExpiryWarmup(false);
    }

    @AfterAll
    void stop() throws IOException {
        for (AutoCloseable c : new AutoCloseable[] {cajon, cajonAuth, redis, redisAuth}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // the others still stop
            }
        }
    }

    /** Sends {@code payload} on a new connection; what came back until it closed (or "...TIMEOUT"). */
    private static String exchange(int port, byte[] payload, int waitMs) throws IOException {
        try (Raw c = Raw.connect(port)) {
            try {
                c.send(payload);
            } catch (IOException e) {
                // the server closed while we were still sending: read what it said
            }
            return c.untilClosed(waitMs);
        }
    }

    /** The same exchange with both servers: equal, and returned. */
    private String both(boolean auth, byte[] payload, int waitMs) throws IOException {
        String r = exchange(auth ? redisAuth.port : redis.port, payload, waitMs);
        String c = exchange(auth ? cajonAuth.port() : cajon.port(), payload, waitMs);
        assertEquals(r, c, "Cajon against Redis for " + preview(payload));
        return c;
    }

    private static String preview(byte[] b) {
        String s = new String(b, 0, Math.min(60, b.length), StandardCharsets.ISO_8859_1);
        return s.replace("\r\n", "\\r\\n") + (b.length > 60 ? "... (" + b.length + " bytes)" : "");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    /** CONFIG SET on both servers (through a connection of their own): the same reply. */
    private String configSet(String name, String value) throws IOException {
        return both(false, Raw.command("CONFIG", "SET", name, value), 300);
    }

    @Test
    void protoMaxBulkLen() throws IOException {
        assertEquals("-ERR Protocol error: invalid bulk length\r\n", both(false, bytes("*1\r\n$536870913\r\n"), 3000));
        assertEquals("+OK\r\n...TIMEOUT", configSet("proto-max-bulk-len", "1mb"));
        try {
            assertEquals("-ERR Protocol error: invalid bulk length\r\n",
                    both(false, bytes("*2\r\n$3\r\nGET\r\n$1048577\r\n"), 3000));
            assertTrue(both(false, bytes("*2\r\n$3\r\nGET\r\n$1048576\r\n"), 300).endsWith("...TIMEOUT"),
                    "a bulk of exactly the limit is read");
        } finally {
            configSet("proto-max-bulk-len", "512mb");
        }
    }

    @Test
    void multibulkLength() throws IOException {
        assertEquals("-ERR Protocol error: invalid multibulk length\r\n", both(false, bytes("*2147483648\r\n"), 3000));
        assertEquals("-ERR Protocol error: expected '$', got 'P'\r\n", both(false, bytes("*2147483647\r\nPING\r\n"), 3000));
    }

    @Test
    void unauthenticatedLimits() throws IOException {
        assertEquals("-ERR Protocol error: unauthenticated multibulk length\r\n", both(true, bytes("*11\r\n"), 3000));
        assertEquals("-ERR Protocol error: unauthenticated bulk length\r\n",
                both(true, bytes("*1\r\n$16385\r\n"), 3000));
        // at the limits: refused as a command, not as a protocol error, and the connection stays
        String atLimit = both(true, concat(bytes("*1\r\n$16384\r\n"), bytes("x".repeat(16384)), bytes("\r\n")), 500);
        assertTrue(atLimit.endsWith("...TIMEOUT"), atLimit);
        assertTrue(both(true, bytes("*10\r\n$4\r\nPING\r\n"), 500).endsWith("...TIMEOUT"));
        // AUTH lifts the limits for the very next command of the same pipeline
        String[] mset = new String[11];
        mset[0] = "MSET";
        for (int i = 1; i < 11; i++) {
            mset[i] = "k" + i;
        }
        assertEquals("+OK\r\n+OK\r\n+OK\r\n...TIMEOUT", both(true, concat(Raw.command("AUTH", "secret"),
                Raw.command(mset), Raw.command("SET", "big", "y".repeat(20_000))), 500));
        // and without a password there are no such limits
        assertEquals("+OK\r\n...TIMEOUT", both(false, Raw.command(mset), 500));
    }

    @Test
    void inlineLimit() throws IOException {
        assertEquals("-ERR Protocol error: too big inline request\r\n", both(false, bytes("A".repeat(70_000)), 3000));
        assertEquals("-ERR Protocol error: too big mbulk count string\r\n",
                both(false, bytes("*" + "1".repeat(70_000)), 3000));
    }

    @Test
    void maxclients() throws IOException {
        for (int[] ports : new int[][] {{redis.port}, {cajon.port()}}) {
            int port = ports[0];
            try (Raw admin = Raw.connect(port)) {
                admin.send(Raw.command("CONFIG", "SET", "maxclients", "3"));
                assertEquals("+OK\r\n", admin.line());
                long rejectedBefore = Long.parseLong(infoField(admin, "stats", "rejected_connections"));
                assertEquals("3", infoField(admin, "clients", "maxclients"), "port " + port);
                try (Raw second = Raw.connect(port); Raw third = Raw.connect(port)) {
                    third.send(Raw.command("PING"));
                    assertEquals("+PONG\r\n", third.line());
                    String fourth = exchange(port, Raw.command("PING"), 3000);
                    assertEquals("-ERR max number of clients reached\r\n", fourth, "port " + port);
                    assertEquals(rejectedBefore + 1,
                            Long.parseLong(infoField(admin, "stats", "rejected_connections")), "port " + port);
                } finally {
                    // back to the default; Cajon refuses more clients than its open files allow
                    // (a socket and a blob file each), as Redis refuses more than its own limit
                    admin.send(Raw.command("CONFIG", "SET", "maxclients", "9000"));
                    assertEquals("+OK\r\n", admin.line());
                }
            }
        }
    }

    @Test
    void clientQueryBufferLimit() throws IOException {
        assertEquals("+OK\r\n...TIMEOUT", configSet("client-query-buffer-limit", "1mb"));
        try {
            // closed without a reply once more than 1 MiB is held for an unfinished command
            assertEquals("", both(false, concat(bytes("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3000000\r\n"),
                    bytes("x".repeat(1_500_000))), 5000));
        } finally {
            configSet("client-query-buffer-limit", "1gb");
        }
    }

    @Test
    void idleTimeout() throws IOException {
        assertEquals("+OK\r\n...TIMEOUT", configSet("timeout", "1"));
        try {
            // closed without a word after more than a second of silence (Redis checks in its cron)
            assertEquals("", both(false, new byte[0], 6000));
        } finally {
            configSet("timeout", "0");
        }
        assertEquals("+PONG\r\n...TIMEOUT", both(false, Raw.command("PING"), 1500), "timeout 0 closes nobody");
    }

    /** The kernel's timer on the server's end of a fresh connection, from ss: "keepalive" or none. */
    private static String serverSocketTimer(int port) throws Exception {
        try (Raw c = Raw.connect(port)) {
            c.send(Raw.command("PING"));
            c.line();
            Process p = new ProcessBuilder("ss", "-tnoH", "state", "established", "( sport = :" + port + " )")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            p.waitFor();
            return out.contains("timer:(keepalive") ? "keepalive" : "none: " + out.trim();
        }
    }

    @Test
    void tcpKeepaliveReachesTheSocket() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/ss")), "no ss to read socket timers");
        try {
            assertEquals("+OK\r\n...TIMEOUT", configSet("tcp-keepalive", "0"));
            assertTrue(serverSocketTimer(redis.port).startsWith("none"), "Redis with tcp-keepalive 0");
            assertTrue(serverSocketTimer(cajon.port()).startsWith("none"), "Cajon with tcp-keepalive 0");
            assertEquals("+OK\r\n...TIMEOUT", configSet("tcp-keepalive", "7"));
            assertEquals("keepalive", serverSocketTimer(redis.port), "Redis with tcp-keepalive 7");
            assertEquals("keepalive", serverSocketTimer(cajon.port()), "Cajon with tcp-keepalive 7");
        } finally {
            configSet("tcp-keepalive", "300");
        }
    }

    @Test
    void maxclientsBeyondTheOpenFilesLimitIsRefused() throws IOException {
        String r = exchange(cajon.port(), Raw.command("CONFIG", "SET", "maxclients", "1000000"), 300);
        assertTrue(r.startsWith("-ERR CONFIG SET failed (possibly related to argument 'maxclients') - The operating system"
                + " is not able to handle the specified number of clients, try with "), r);
        String rr = exchange(redis.port, Raw.command("CONFIG", "SET", "maxclients", "1000000"), 300);
        assertTrue(rr.startsWith("-ERR CONFIG SET failed (possibly related to argument 'maxclients') - The operating system"
                + " is not able to handle the specified number of clients, try with "), rr);
    }

    @Test
    void configGetAndSetOfTheLimits() throws IOException {
        assertEquals("+OK\r\n...TIMEOUT", configSet("maxclients", "9000"));
        for (String name : new String[] {"maxclients", "timeout", "tcp-keepalive", "proto-max-bulk-len",
            "client-query-buffer-limit", "protected-mode"}) {
            both(false, Raw.command("CONFIG", "GET", name), 300);
        }
        String redisOut = exchange(redis.port, Raw.command("CONFIG", "GET", "client-output-buffer-limit"), 300);
        String cajonOut = exchange(cajon.port(), Raw.command("CONFIG", "GET", "client-output-buffer-limit"), 300);
        assertTrue(redisOut.contains("normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"), redisOut);
        assertTrue(cajonOut.contains("normal 67108864 16777216 60 slave 268435456 67108864 60 pubsub 33554432 8388608 60"),
                "Cajon's default is bounded: " + cajonOut);
        try {
            assertEquals("+OK\r\n...TIMEOUT", configSet("client-output-buffer-limit", "normal 1mb 512kb 10"));
            both(false, Raw.command("CONFIG", "GET", "client-output-buffer-limit"), 300);
            assertEquals("+OK\r\n...TIMEOUT", configSet("tcp-keepalive", "60"));
            both(false, Raw.command("CONFIG", "GET", "tcp-keepalive"), 300);
            String[][] refused = {{"maxclients", "0"}, {"maxclients", "abc"}, {"timeout", "-1"},
                {"tcp-keepalive", "-1"}, {"proto-max-bulk-len", "100"}, {"client-query-buffer-limit", "100"},
                {"proto-max-bulk-len", "lots"}, {"client-output-buffer-limit", "normal 1mb"},
                {"client-output-buffer-limit", "foo 1 2 3"}, {"client-output-buffer-limit", "normal x 1 1"},
                {"protected-mode", "maybe"}};
            for (String[] nv : refused) {
                String r = configSet(nv[0], nv[1]);
                assertTrue(r.startsWith("-ERR CONFIG SET failed"), r);
            }
        } finally {
            configSet("client-output-buffer-limit", "normal 0 0 0");
            configSet("tcp-keepalive", "300");
            exchange(cajon.port(), Raw.command("CONFIG", "SET", "client-output-buffer-limit", "normal 64mb 16mb 60"), 300);
        }
    }

    @Test
    void clientOutputBufferLimit() throws IOException {
        // 300 values of 10,000 bytes: held in memory by both (Cajon streams only values over 16 KiB from files)
        List<String> mset = new ArrayList<>(List.of("MSET"));
        List<String> mget = new ArrayList<>(List.of("MGET"));
        for (int i = 0; i < 300; i++) {
            mset.add("ob" + i);
            mset.add("v".repeat(10_000));
            mget.add("ob" + i);
        }
        assertEquals("+OK\r\n...TIMEOUT", both(false, Raw.command(mset.toArray(new String[0])), 500));
        String full = both(false, Raw.command(mget.toArray(new String[0])), 1000);
        assertTrue(full.length() > 3_000_000, "the reply is about 3 MB: " + full.length());
        assertEquals("+OK\r\n...TIMEOUT", configSet("client-output-buffer-limit", "normal 1mb 0 0"));
        try {
            // closed at once, without the reply
            assertEquals("", both(false, Raw.command(mget.toArray(new String[0])), 5000));
            assertFalse(both(false, Raw.command("GET", "ob1"), 500).isEmpty(), "a small reply still goes out");
        } finally {
            configSet("client-output-buffer-limit", "normal 0 0 0");
            exchange(cajon.port(), Raw.command("CONFIG", "SET", "client-output-buffer-limit", "normal 64mb 16mb 60"), 300);
        }
    }

    /** One field of an INFO section, read over a raw connection. */
    private static String infoField(Raw c, String section, String field) throws IOException {
        c.send(Raw.command("INFO", section));
        String header = c.line();
        assertTrue(header.startsWith("$"), header);
        int left = Integer.parseInt(header.substring(1).trim()) + 2;
        String found = null;
        while (left > 0) {
            String line = c.line();
            left -= line.length();
            if (line.startsWith(field + ":")) {
                found = line.substring(field.length() + 1).trim();
            }
        }
        assertNotNull(found, "INFO " + section + " has no " + field);
        return found;
    }
}
