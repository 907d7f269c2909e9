package dev.cajon.server.hardening;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Back-pressure stops and resumes a pipeline many times: a client that sends a long pipeline of
 * large and small values at once, and reads slowly, still gets every reply, whole and in order.
 */
class SlowReaderOrderTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void aPipelineThatIsThrottledManyTimesGetsEveryReplyInOrder() throws Exception {
        try (CajonServer server = CajonServer.start(ServerConfig.defaults().withPort(0).withDir(dir).withExpiryWarmup(false));
             Raw setup = Raw.connect(server.port())) {
            byte[][] values = new byte[4][];
            for (int i = 0; i < values.length; i++) {
                values[i] = new byte[(1 << 20) + i * 77_777]; // blobs: streamed from their files
                Arrays.fill(values[i], (byte) ('a' + i));
                setup.send(set("v" + i, values[i]));
                assertEquals("+OK\r\n", setup.line());
            }
            setup.send(Raw.command("SET", "small", "s".repeat(5_000)));
            assertEquals("+OK\r\n", setup.line());
            int n = 300;
            ByteArrayOutputStream pipeline = new ByteArrayOutputStream();
            for (int i = 0; i < n; i++) {
                pipeline.writeBytes(i % 3 == 2 ? Raw.command("GET", "small") : Raw.command("GET", "v" + (i % values.length)));
                pipeline.writeBytes(Raw.command("INCR", "counter"));
            }
            Raw c = Raw.connect(InetAddress.getLoopbackAddress(), server.port(), 8192);
            c.socket.setSoTimeout(20_000);
            Thread writer = new Thread(() -> {
                try {
                    c.send(pipeline.toByteArray());
                } catch (IOException e) {
                    // reported below as missing replies
                }
            });
            writer.start();
            DataInputStream in = new DataInputStream(c.socket.getInputStream());
            byte[] small = "s".repeat(5_000).getBytes(StandardCharsets.ISO_8859_1);
            for (int i = 0; i < n; i++) {
                byte[] expected = i % 3 == 2 ? small : values[i % values.length];
                assertArrayEquals(expected, readBulk(in), "reply " + i);
                assertEquals(":" + (i + 1), readLine(in), "INCR after reply " + i);
                if (i % 50 == 0) {
                    Thread.sleep(20); // a slow reader: the server's output backs up meanwhile
                }
            }
            writer.join(10_000);
            c.close();
        }
    }

    /** SET key value, the value as raw bytes. */
    private static byte[] set(String key, byte[] v) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(("*3\r\n$3\r\nSET\r\n$" + key.length() + "\r\n" + key + "\r\n$" + v.length + "\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        b.writeBytes(v);
        b.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        return b.toByteArray();
    }

    private static String readLine(DataInputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new IOException("closed after " + b);
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }

    private static byte[] readBulk(DataInputStream in) throws IOException {
        String h = readLine(in);
        if (!h.startsWith("$")) {
            throw new IOException("not a bulk: " + h);
        }
        byte[] v = new byte[Integer.parseInt(h.substring(1))];
        in.readFully(v);
        readLine(in);
        return v;
    }
}
