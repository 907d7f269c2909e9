package dev.cajon.server.compat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The comparison harness's own client: it must find where every RESP2 and RESP3 reply ends (a
 * wrong boundary would misalign every later step of a scenario), keep the raw bytes whole, and
 * give the structure the loose checks use. Fed canned bytes by a loopback socket, including types
 * Redis 7.0 sends only through DEBUG PROTOCOL (attributes, big numbers, verbatim strings).
 */
@Timeout(10)
class RespClientTest {

    /** Serves {@code bytes} to the first connection, then closes it. */
    private static List<Reply> readAll(String bytes, int replies) throws IOException {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> {
                try (Socket s = server.accept(); OutputStream out = s.getOutputStream()) {
                    out.write(bytes.getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                } catch (IOException ignored) {
                    // the test fails on its own side
                }
            });
            t.start();
            try (RespClient c = RespClient.connect(server.getLocalPort())) {
                List<Reply> out = new ArrayList<>();
                for (int i = 0; i < replies; i++) {
                    out.add(c.read());
                }
                return out;
            }
        }
    }

    private static String raw(Reply r) {
        return new String(r.raw(), StandardCharsets.ISO_8859_1);
    }

    @Test
    void everyResp3TypeEndsWhereItShould() throws IOException {
        String[] replies = {
            "_\r\n",
            ",3.14\r\n",
            ",-inf\r\n",
            "#t\r\n",
            "#f\r\n",
            "(3492890328409238509324850943850943825024385\r\n",
            "=15\r\ntxt:Some string\r\n",
            "!21\r\nSYNTAX invalid syntax\r\n",
            "%2\r\n+first\r\n:1\r\n$6\r\nsecond\r\n_\r\n",
            "~3\r\n+a\r\n:2\r\n*1\r\n$1\r\nx\r\n",
            ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n",
            "|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.19\r\n*2\r\n:2039123\r\n:9543892\r\n",
            "%0\r\n",
            "~0\r\n",
            "*2\r\n%1\r\n$1\r\nk\r\n~1\r\n#t\r\n_\r\n",
            "+OK\r\n",
        };
        List<Reply> got = readAll(String.join("", replies), replies.length);
        for (int i = 0; i < replies.length; i++) {
            assertEquals(replies[i], raw(got.get(i)), "reply " + i);
            assertEquals(replies[i].charAt(0), got.get(i).type(), "type of reply " + i);
        }
    }

    @Test
    void structureOfResp3Replies() throws IOException {
        List<Reply> got = readAll("_\r\n%2\r\n+a\r\n:1\r\n+b\r\n_\r\n=8\r\ntxt:ab\r\n\r\n!3\r\nERR\r\n"
                + "|1\r\n+ttl\r\n:5\r\n$1\r\nv\r\n~2\r\n:1\r\n:2\r\n", 6);
        Reply nul = got.get(0);
        assertTrue(nul.isNull());
        assertNull(nul.payload());
        assertEquals("_null", nul.shape());

        Reply map = got.get(1);
        assertTrue(map.isAggregate());
        assertEquals(4, map.elements().size(), "a map's keys and values in turn");
        assertEquals("_\r\n", raw(map.element(3)));
        assertEquals("%2[+,:,+,_null]", map.shape());

        Reply verbatim = got.get(2);
        assertArrayEquals("txt:ab\r\n".getBytes(StandardCharsets.US_ASCII), verbatim.payload(),
                "CRLF inside a verbatim string is content");

        assertTrue(got.get(3).isError(), "a blob error is an error");

        Reply attribute = got.get(4);
        assertEquals(3, attribute.elements().size(), "the attribute's pair and the reply it annotates");
        assertEquals("$1\r\nv\r\n", raw(attribute.element(2)));
        assertEquals("|1[+,:,$]", attribute.shape());

        assertEquals("~2[:,:]", got.get(5).shape());
    }

    @Test
    void resp2RepliesAreUnchanged() throws IOException {
        List<Reply> got = readAll("$-1\r\n*-1\r\n*2\r\n$0\r\n\r\n:7\r\n-ERR x\r\n", 3);
        assertTrue(got.get(0).isNull());
        assertEquals("$null", got.get(0).shape());
        assertTrue(got.get(1).isNull());
        assertEquals("*2[$,:]", got.get(2).shape());
    }

    @Test
    void malformedRepliesAreRefused() {
        assertThrows(IOException.class, () -> readAll("_x\r\n", 1), "null with content");
        assertThrows(IOException.class, () -> readAll("%-1\r\n", 1), "negative map count");
        assertThrows(IOException.class, () -> readAll("=-1\r\n", 1), "negative verbatim length");
        assertThrows(IOException.class, () -> readAll("$?\r\n;4\r\nHell\r\n;0\r\n", 1), "streamed string");
        assertThrows(IOException.class, () -> readAll("@1\r\n", 1), "unknown type");
        assertThrows(IOException.class, () -> readAll("%1\r\n+a\r\n", 1), "map cut short");
    }
}
