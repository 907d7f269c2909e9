package dev.cajon.server.hardening;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * CLIENT LIST's qbuf, omem, tot-mem and events say what a connection holds, as an operator
 * looking for a slow consumer or a flooding client reads them: input that waits behind a blocked
 * command, and replies the socket has not taken.
 */
class ClientListBuffersTest {
    @TempDir
    Path dir;

    /** The fields of the CLIENT LIST line of client {@code name}. */
    private static Map<String, String> fields(Raw other, String name) throws IOException {
        other.send(Raw.command("CLIENT", "LIST"));
        String header = other.line(); // $<len>
        byte[] body = other.socket.getInputStream().readNBytes(Integer.parseInt(header.trim().substring(1)) + 2);
        for (String line : new String(body, StandardCharsets.ISO_8859_1).split("\n")) {
            Map<String, String> f = new HashMap<>();
            for (String kv : line.trim().split(" ")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    f.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
            if (name.equals(f.get("name"))) {
                return f;
            }
        }
        throw new AssertionError("no client " + name + " in " + new String(body, StandardCharsets.ISO_8859_1));
    }

    private static long num(Map<String, String> f, String k) {
        return Long.parseLong(f.get(k));
    }

    @Test
    @Timeout(60)
    void inputWaitingBehindABlockedCommandIsQbuf() throws Exception {
        try (CajonServer server = CajonServer.start(ServerConfig.defaults().withPort(0).withDir(dir).withExpiryWarmup(false)
                .withIoThreads(2));
             Raw other = Raw.connect(server.port());
             Raw blocked = Raw.connect(server.port())) {
            blocked.send(Raw.command("CLIENT", "SETNAME", "blocked"));
            assertEquals("+OK\r\n", blocked.line());
            // the reply reaches the client a moment before its event loop counts it as written
            // (Netty keeps the entry, 96 bytes of overhead included, until the write completes):
            // CLIENT LIST, from the other loop, may see it for that moment
            Map<String, String> idle = fields(other, "blocked");
            for (int tries = 0; tries < 50 && num(idle, "omem") != 0; tries++) {
                Thread.sleep(10);
                idle = fields(other, "blocked");
            }
            assertEquals(0, num(idle, "qbuf"));
            assertEquals(0, num(idle, "omem"));
            blocked.send(Raw.command("BLPOP", "q", "0"));
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (int i = 0; i < 200; i++) {
                b.writeBytes(Raw.command("SET", "x" + i, "v".repeat(1000)));
            }
            blocked.send(b.toByteArray());
            long qbuf = 0;
            for (int tries = 0; tries < 100 && qbuf < 200_000; tries++) {
                Thread.sleep(20);
                qbuf = num(fields(other, "blocked"), "qbuf");
            }
            Map<String, String> f = fields(other, "blocked");
            assertTrue(num(f, "qbuf") >= 200_000 && num(f, "qbuf") < 400_000, "qbuf of 200 waiting SETs of 1 KB: " + f);
            assertEquals(num(f, "qbuf") + num(f, "omem"), num(f, "tot-mem"));
            assertTrue(f.get("flags").contains("b"), f.toString());
            other.send(Raw.command("LPUSH", "q", "a"));
            assertEquals(":1\r\n", other.line());
            for (int i = 0; i < 5; i++) {
                blocked.line(); // the BLPOP reply
            }
            for (int i = 0; i < 200; i++) {
                assertEquals("+OK\r\n", blocked.line());
            }
            assertEquals(0, num(fields(other, "blocked"), "qbuf"), "served, it ran what waited");
        }
    }

    @Test
    @Timeout(60)
    void repliesTheSocketHasNotTakenAreOmem() throws Exception {
        try (CajonServer server = CajonServer.start(ServerConfig.defaults().withPort(0).withDir(dir).withExpiryWarmup(false)
                .withIoThreads(2));
             Raw other = Raw.connect(server.port());
             Raw slow = Raw.connect(InetAddress.getLoopbackAddress(), server.port(), 4096)) {
            String[] push = new String[1002];
            push[0] = "RPUSH";
            push[1] = "list";
            for (int i = 2; i < push.length; i++) {
                push[i] = "e".repeat(100);
            }
            other.send(Raw.command(push));
            assertEquals(":1000\r\n", other.line());
            slow.send(Raw.command("CLIENT", "SETNAME", "slow"));
            assertEquals("+OK\r\n", slow.line());
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (int i = 0; i < 100; i++) {
                b.writeBytes(Raw.command("LRANGE", "list", "0", "-1")); // about 100 KB of reply each
            }
            slow.send(b.toByteArray()); // and never read
            long omem = 0;
            for (int tries = 0; tries < 100 && omem < 100_000; tries++) {
                Thread.sleep(20);
                omem = num(fields(other, "slow"), "omem");
            }
            Map<String, String> f = fields(other, "slow");
            assertTrue(num(f, "omem") >= 100_000, "replies pending for a client that does not read: " + f);
            assertEquals("rw", f.get("events"));
            assertEquals(num(f, "qbuf") + num(f, "omem"), num(f, "tot-mem"));
        }
    }
}
