package dev.cajon.server.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * CLIENT KILL, PAUSE / UNPAUSE, REPLY, NO-EVICT, TRACKING, GETREDIR and TRACKINGINFO against Redis
 * over real sockets: what happens to other connections (a killed one is closed, a paused one
 * waits and then runs what it sent, in order), and byte-identical replies and errors.
 *
 * <p>A test that needs several connections runs the same script against each server and
 * compares what it saw (a list of observations); a script also states what it must see, so it
 * cannot pass by observing nothing. Waits are bounded: a reply is awaited 5 s at most, a
 * connection is polled until CLIENT LIST shows it blocked, and the only real waiting is for a
 * pause to run out (300 ms and 1.5 s).
 *
 * <p>The {@link Scenario}s run in both protocols ({@link BothProtocols}); the multi-connection
 * scripts speak RESP2 only, and their expected observations are RESP2 bytes.
 */
class ClientCommandsComparisonTest extends ComparisonTestBase {

    /** A script against one server, returning what it observed, in order. */
    @FunctionalInterface
    private interface Script {
        List<String> run(int port) throws Exception;
    }

    /** Runs the script against Redis, then Cajon; the observations must be equal. Returns Redis's. */
    private List<String> both(String name, Script s) throws Exception {
        List<String> redis = s.run(redisPort());
        List<String> cajon = s.run(cajonPort());
        assertEquals(redis, cajon, name + ": what Redis and Cajon clients saw");
        return redis;
    }

    // ------------------------------------------------------------------ KILL

    @Test
    void killAnotherClientById() throws Exception {
        List<String> seen = both("CLIENT KILL ID", port -> {
            List<String> o = new ArrayList<>();
            try (Conn a = Conn.open(port); Conn b = Conn.open(port)) {
                long idB = b.id();
                o.add(a.call("CLIENT", "KILL", "ID", Long.toString(idB)));
                o.add("b " + b.awaitClose());
                o.add(a.call("CLIENT", "LIST", "ID", Long.toString(idB)));
                o.add(a.call("CLIENT", "KILL", "ID", Long.toString(idB)));
                o.add("a " + a.state());
            }
            return o;
        });
        assertEquals(List.of(":1\r\n", "b closed", "$0\r\n\r\n", ":0\r\n", "a open"), seen);
    }

    @Test
    void killOldFormByAddressAndItself() throws Exception {
        List<String> seen = both("CLIENT KILL addr", port -> {
            List<String> o = new ArrayList<>();
            try (Conn a = Conn.open(port); Conn b = Conn.open(port)) {
                b.id();
                o.add(a.call("CLIENT", "KILL", b.addr()));
                o.add("b " + b.awaitClose());
                o.add(a.call("CLIENT", "KILL", b.addr()));
                // the old form may kill the client that sends it: the reply, then the close
                o.add(a.call("CLIENT", "KILL", a.addr()));
                o.add("a " + a.awaitClose());
            }
            return o;
        });
        assertEquals(List.of("+OK\r\n", "b closed", "-ERR No such client\r\n", "+OK\r\n", "a closed"), seen);
    }

    @Test
    void killSkipme() throws Exception {
        List<String> seen = both("CLIENT KILL SKIPME", port -> {
            List<String> o = new ArrayList<>();
            try (Conn a = Conn.open(port); Conn b = Conn.open(port)) {
                String idA = Long.toString(a.id());
                o.add(a.call("CLIENT", "KILL", "ID", idA));
                o.add(a.call("CLIENT", "KILL", "ID", idA, "SKIPME", "yes"));
                o.add("a " + a.state());
                String idB = Long.toString(b.id());
                o.add(b.call("CLIENT", "KILL", "ID", idB, "SKIPME", "no"));
                o.add("b " + b.awaitClose());
            }
            return o;
        });
        assertEquals(List.of(":0\r\n", ":0\r\n", "a open", ":1\r\n", "b closed"), seen);
    }

    @Test
    void killWithEveryFilterMatching() throws Exception {
        List<String> seen = both("CLIENT KILL filters", port -> {
            List<String> o = new ArrayList<>();
            try (Conn a = Conn.open(port); Conn b = Conn.open(port); Conn c = Conn.open(port)) {
                String idB = Long.toString(b.id());
                String idC = Long.toString(c.id());
                String laddr = "127.0.0.1:" + port;
                o.add(a.call("CLIENT", "KILL", "ID", idB, "ADDR", "1.1.1.1:1"));
                o.add(a.call("CLIENT", "KILL", "ID", idB, "LADDR", "1.1.1.1:1"));
                o.add(a.call("CLIENT", "KILL", "ID", idB, "TYPE", "pubsub"));
                o.add("b " + b.state());
                o.add(a.call("CLIENT", "KILL", "LADDR", laddr, "ID", idB, "USER", "default", "TYPE", "normal",
                        "ADDR", b.addr(), "SKIPME", "yes"));
                o.add("b " + b.awaitClose());
                o.add(a.call("CLIENT", "KILL", "laddr", laddr, "id", idC));
                o.add("c " + c.awaitClose());
            }
            return o;
        });
        assertEquals(List.of(":0\r\n", ":0\r\n", ":0\r\n", "b open", ":1\r\n", "b closed", ":1\r\n", "c closed"),
                seen);
    }

    @BothProtocols
    void killErrors() throws Exception {
        scenario("CLIENT KILL errors")
                .cmd("CLIENT", "KILL")
                .cmd("CLIENT", "KILL", "1.2.3.4:5")
                .cmd("CLIENT", "KILL", "id")
                .cmd("CLIENT", "KILL", "ID", "abc")
                .cmd("CLIENT", "KILL", "ID", "0")
                .cmd("CLIENT", "KILL", "ID", "-5")
                .cmd("CLIENT", "KILL", "ID", "9223372036854775808")
                .cmd("CLIENT", "KILL", "ID", "9223372036854775807")
                .cmd("CLIENT", "KILL", "TYPE", "bogus")
                .cmd("CLIENT", "KILL", "TYPE", "master")
                .cmd("CLIENT", "KILL", "TYPE", "replica")
                .cmd("CLIENT", "KILL", "TYPE", "slave")
                .cmd("CLIENT", "KILL", "TYPE", "pubsub")
                .cmd("CLIENT", "KILL", "USER", "nobody")
                .cmd("CLIENT", "KILL", "USER", "DEFAULT")
                .cmd("CLIENT", "KILL", "SKIPME", "maybe")
                .cmd("CLIENT", "KILL", "bogus", "x")
                .cmd("CLIENT", "KILL", "ID", "1", "bogus")
                .cmd("CLIENT", "KILL", "ID", "1", "SKIPME")
                .cmd("CLIENT", "KILL", "MAXAGE", "1")
                .cmd("CLIENT", "KILL", "TYPE", "bogus", "ID", "0")
                .cmd("CLIENT", "KILL", "ID", "0", "TYPE", "bogus")
                .cmd("PING")
                .run();
    }

    // ------------------------------------------------------------------ PAUSE, UNPAUSE

    @Test
    void pauseWriteHoldsWritesUntilUnpauseAndThenRunsThemInOrder() throws Exception {
        List<String> seen = both("CLIENT PAUSE WRITE", port -> {
            List<String> o = new ArrayList<>();
            try (Conn a = Conn.open(port); Conn b = Conn.open(port); Conn c = Conn.open(port)) {
                long idB = b.id();
                c.id();
                o.add(a.call("DEL", "pk"));
                o.add(a.call("CLIENT", "PAUSE", "20000", "WRITE"));
                b.send("SET", "pk", "1");
                b.send("GET", "pk");
                b.send("INCR", "pk");
                o.add("b blocked " + c.awaitBlocked(idB));
                o.add("b " + c.listField(idB, "cmd"));
                o.add(c.call("GET", "pk")); // reads go on, and the SET has not run
                o.add(a.call("GET", "pk")); // the pausing client's reads too
                o.add(c.call("CLIENT", "UNPAUSE", "x"));
                o.add("b answered during the pause: " + b.hasPending());
                o.add(c.call("CLIENT", "UNPAUSE")); // not a write: it runs in WRITE mode
                o.add(b.read());
                o.add(b.read());
                o.add(b.read());
                o.add("b " + c.listField(idB, "flags"));
            }
            return o;
        });
        assertEquals(List.of(":0\r\n", "+OK\r\n", "b blocked true", "b set", "$-1\r\n", "$-1\r\n",
                "-ERR wrong number of arguments for 'client|unpause' command\r\n",
                "b answered during the pause: false", "+OK\r\n", "+OK\r\n", "$1\r\n1\r\n", ":2\r\n", "b N"), seen);
    }

    @Test
    void thePausingClientsOwnWritesWaitToo() throws Exception {
        List<String> seen = both("CLIENT PAUSE WRITE, the pausing client", port -> {
            List<String> o = new ArrayList<>();
            try (Conn a = Conn.open(port); Conn b = Conn.open(port)) {
                long idA = a.id();
                b.id();
                o.add(a.call("CLIENT", "PAUSE", "20000", "write"));
                a.send("SET", "pk2", "x");
                a.send("CLIENT", "UNPAUSE"); // behind its own SET: it cannot unpause itself now
                o.add("a blocked " + b.awaitBlocked(idA));
                o.add("a answered: " + a.hasPending());
                o.add(b.call("CLIENT", "UNPAUSE"));
                o.add(a.read());
                o.add(a.read());
                o.add(b.call("GET", "pk2"));
            }
            return o;
        });
        assertEquals(List.of("+OK\r\n", "a blocked true", "a answered: false", "+OK\r\n", "+OK\r\n", "+OK\r\n",
                "$1\r\nx\r\n"), seen);
    }

    @Test
    void killingAPostponedClientDropsWhatItSent() throws Exception {
        List<String> seen = both("CLIENT KILL of a paused client", port -> {
            List<String> o = new ArrayList<>();
            try (Conn a = Conn.open(port); Conn b = Conn.open(port)) {
                long idB = b.id();
                o.add(a.call("DEL", "pk3"));
                o.add(a.call("CLIENT", "PAUSE", "20000", "WRITE"));
                b.send("SET", "pk3", "never");
                o.add("b blocked " + a.awaitBlocked(idB));
                o.add(a.call("CLIENT", "KILL", "ID", Long.toString(idB)));
                o.add("b " + b.awaitClose());
                o.add(a.call("CLIENT", "UNPAUSE"));
                o.add(a.call("GET", "pk3"));
            }
            return o;
        });
        assertEquals(List.of(":0\r\n", "+OK\r\n", "b blocked true", ":1\r\n", "b closed", "+OK\r\n", "$-1\r\n"),
                seen);
    }

    /**
     * ALL: every command of every client waits, the pausing client's CLIENT UNPAUSE included, so
     * the pause runs out by its timeout; errors the dispatcher finds first are answered at once.
     */
    @Test
    void pauseAllHoldsEveryoneUntilItRunsOut() throws Exception {
        long pauseMs = 1500;
        List<String> seen = both("CLIENT PAUSE ALL", port -> {
            List<String> o = new ArrayList<>();
            try (Conn a = Conn.open(port); Conn b = Conn.open(port); Conn c = Conn.open(port)) {
                a.id();
                b.id();
                c.id();
                long t0 = System.nanoTime();
                o.add(a.call("CLIENT", "PAUSE", Long.toString(pauseMs), "ALL"));
                a.send("CLIENT", "UNPAUSE");
                b.send("PING");
                o.add(c.call("GET"));
                o.add(c.call("NOSUCH"));
                o.add(c.call("CLIENT", "BOGUS"));
                o.add(c.call("CLIENT", "PAUSE"));
                boolean inTime = millisSince(t0) < pauseMs;
                o.add("answered while paused: " + (inTime && !a.hasPending() && !b.hasPending() ? "none" : "?"));
                o.add(a.read());
                long unpausedAfter = millisSince(t0);
                o.add(b.read());
                o.add("held for the pause: " + (unpausedAfter >= pauseMs - 1));
                o.add(c.call("PING"));
            }
            return o;
        });
        assertEquals(List.of("+OK\r\n", "-ERR wrong number of arguments for 'get' command\r\n",
                "-ERR unknown command 'NOSUCH', with args beginning with: \r\n",
                "-ERR unknown subcommand 'BOGUS'. Try CLIENT HELP.\r\n",
                "-ERR wrong number of arguments for 'client|pause' command\r\n", "answered while paused: none",
                "+OK\r\n", "+PONG\r\n", "held for the pause: true", "+PONG\r\n"), seen);
    }

    @Test
    void pauseWriteRunsOutByItsTimeout() throws Exception {
        long pauseMs = 300;
        List<String> seen = both("CLIENT PAUSE WRITE timeout", port -> {
            List<String> o = new ArrayList<>();
            try (Conn a = Conn.open(port); Conn b = Conn.open(port)) {
                a.id();
                b.id();
                long t0 = System.nanoTime();
                o.add(a.call("CLIENT", "PAUSE", Long.toString(pauseMs), "WRITE"));
                o.add(b.call("SET", "pk4", "v"));
                o.add("held for the pause: " + (millisSince(t0) >= pauseMs - 1));
                o.add(b.call("SET", "pk4", "w"));
            }
            return o;
        });
        assertEquals(List.of("+OK\r\n", "+OK\r\n", "held for the pause: true", "+OK\r\n"), seen);
    }

    @BothProtocols
    void pauseErrorsAndPausesOfNoLength() throws Exception {
        scenario("CLIENT PAUSE errors")
                .cmd("CLIENT", "PAUSE", "abc")
                .cmd("CLIENT", "PAUSE", "-1")
                .cmd("CLIENT", "PAUSE", "1.5")
                .cmd("CLIENT", "PAUSE", "")
                .cmd("CLIENT", "PAUSE", " 100", "WRITE")
                .cmd("CLIENT", "PAUSE", "9223372036854775808")
                .cmd("CLIENT", "PAUSE", "100", "bogus")
                .cmd("CLIENT", "PAUSE", "abc", "bogus")
                .cmd("CLIENT", "PAUSE", "100", "WRITE", "x")
                .cmd("client", "Pause", "100", "write", "x")
                .cmd("CLIENT", "PAUSE")
                .cmd("CLIENT", "UNPAUSE", "x")
                // these pause nothing: a write right after is answered at once (or the step times out)
                .cmd("CLIENT", "PAUSE", "0")
                .cmd("SET", "k", "v")
                .cmd("CLIENT", "PAUSE", "0", "WRITE")
                .cmd("SET", "k", "v")
                .cmd("CLIENT", "PAUSE", "9223372036854775807", "WRITE")
                .cmd("SET", "k", "v")
                .cmd("CLIENT", "UNPAUSE")
                .cmd("CLIENT", "UNPAUSE")
                .run();
    }

    // ------------------------------------------------------------------ REPLY

    private static byte[] pipeline(String[]... commands) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (String[] c : commands) {
            byte[][] a = new byte[c.length][];
            for (int i = 0; i < c.length; i++) {
                a[i] = c[i].getBytes(StandardCharsets.UTF_8);
            }
            b.writeBytes(RespClient.encode(a));
        }
        return b.toByteArray();
    }

    private static String[] c(String... argv) {
        return argv;
    }

    @BothProtocols
    void replyOffSkipOn() throws Exception {
        scenario("CLIENT REPLY")
                // OFF: nothing, errors included, until ON, whose +OK is sent
                .raw(pipeline(c("CLIENT", "REPLY", "OFF"), c("PING"), c("NOSUCH"), c("GET"), c("SET", "k", "v"),
                        c("CLIENT", "REPLY", "SKIP"), c("CLIENT", "REPLY", "ON"), c("GET", "k")), 2)
                // SKIP: the next reply only
                .raw(pipeline(c("CLIENT", "REPLY", "SKIP"), c("PING", "a"), c("PING", "b")), 1)
                // SKIP then ON: ON's +OK is sent
                .raw(pipeline(c("CLIENT", "REPLY", "SKIP"), c("CLIENT", "REPLY", "ON"), c("PING", "c")), 2)
                // SKIP twice: the second SKIP is the skipped command, and it skips the next one again
                .raw(pipeline(c("CLIENT", "REPLY", "SKIP"), c("CLIENT", "REPLY", "SKIP"), c("PING", "d"),
                        c("PING", "e")), 1)
                // a skipped error, then replies again
                .raw(pipeline(c("CLIENT", "REPLY", "SKIP"), c("CLIENT", "REPLY", "bogus"), c("PING", "f")), 1)
                // SKIP then OFF: off until ON
                .raw(pipeline(c("CLIENT", "REPLY", "SKIP"), c("CLIENT", "REPLY", "OFF"), c("PING", "g"),
                        c("CLIENT", "REPLY", "ON")), 1)
                .cmd("CLIENT", "REPLY", "bogus")
                .cmd("CLIENT", "REPLY")
                .cmd("CLIENT", "REPLY", "ON", "x")
                .cmd("PING")
                .run();
    }

    /** A value past 16 KiB is streamed from its blob file by Cajon: a skipped one must not be. */
    @BothProtocols
    void replySkipAndOffDropALargeValue() throws Exception {
        String big = "x".repeat(100_000);
        scenario("CLIENT REPLY with a large value")
                .cmd("SET", "big", big)
                .cmd("SET", "small", "s")
                .raw(pipeline(c("CLIENT", "REPLY", "SKIP"), c("GET", "big"), c("GET", "small")), 1)
                .raw(pipeline(c("CLIENT", "REPLY", "OFF"), c("GET", "big"), c("MGET", "small", "big"),
                        c("CLIENT", "REPLY", "ON")), 1)
                .raw(pipeline(c("GET", "small"), c("CLIENT", "REPLY", "SKIP"), c("GET", "big"), c("GET", "big")), 2)
                .cmd("GET", "small")
                .run();
    }

    // ------------------------------------------------------------------ NO-EVICT, NO-TOUCH, TRACKING

    @Test
    void noEvictAndItsFlag() throws Exception {
        List<String> seen = both("CLIENT NO-EVICT", port -> {
            List<String> o = new ArrayList<>();
            try (Conn a = Conn.open(port)) {
                long id = a.id();
                o.add(a.call("CLIENT", "NO-EVICT", "on"));
                o.add(a.listField(id, "flags"));
                o.add(a.call("CLIENT", "NO-EVICT", "OFF"));
                o.add(a.listField(id, "flags"));
            }
            return o;
        });
        assertEquals(List.of("+OK\r\n", "e", "+OK\r\n", "N"), seen);
        scenario("CLIENT NO-EVICT errors")
                .cmd("CLIENT", "NO-EVICT", "maybe")
                .cmd("CLIENT", "NO-EVICT")
                .cmd("CLIENT", "NO-EVICT", "on", "x")
                .run();
    }

    /** Redis 7.0 has no CLIENT NO-TOUCH (7.2 does): checked against 7.2's documented replies. */
    @BothProtocols
    void noTouchCajonOnly() throws Exception {
        scenario("CLIENT NO-TOUCH (Cajon only)")
                .cajonOnly("+OK\r\n", "CLIENT", "NO-TOUCH", "ON")
                .cajonOnly("+OK\r\n", "CLIENT", "no-touch", "off")
                .cajonOnly("-ERR syntax error\r\n", "CLIENT", "NO-TOUCH", "maybe")
                .cajonOnly("-ERR wrong number of arguments for 'client|no-touch' command\r\n", "CLIENT", "NO-TOUCH")
                .run();
    }

    @BothProtocols
    void trackingOffGetredirTrackinginfo() throws Exception {
        scenario("CLIENT TRACKING OFF, GETREDIR, TRACKINGINFO")
                .cmd("CLIENT", "GETREDIR")
                .cmd("CLIENT", "TRACKINGINFO")
                .cmd("CLIENT", "TRACKING", "off")
                .cmd("CLIENT", "TRACKING", "OFF", "BCAST", "PREFIX", "a", "PREFIX", "b", "OPTIN", "OPTOUT", "NOLOOP")
                .cmd("CLIENT", "TRACKING", "off", "bogus")
                .cmd("CLIENT", "TRACKING", "maybe")
                .cmd("CLIENT", "TRACKING", "maybe", "bogus")
                .cmd("CLIENT", "TRACKING", "off", "REDIRECT", "999999")
                .cmd("CLIENT", "TRACKING", "off", "REDIRECT", "abc")
                .cmd("CLIENT", "TRACKING", "off", "REDIRECT")
                .cmd("CLIENT", "TRACKING", "off", "PREFIX")
                .cmd("CLIENT", "TRACKING", "on", "REDIRECT", "999999")
                .cmd("CLIENT", "TRACKING")
                .cmd("CLIENT", "GETREDIR", "x")
                .cmd("CLIENT", "TRACKINGINFO", "x")
                .cmd("CLIENT", "GETREDIR")
                .run();
    }

    @Test
    void trackingRedirectToAConnectedClient() throws Exception {
        List<String> seen = both("CLIENT TRACKING OFF REDIRECT", port -> {
            List<String> o = new ArrayList<>();
            try (Conn a = Conn.open(port); Conn b = Conn.open(port)) {
                String idB = Long.toString(b.id());
                o.add(a.call("CLIENT", "TRACKING", "off", "REDIRECT", idB));
                o.add(a.call("CLIENT", "TRACKING", "off", "REDIRECT", idB, "REDIRECT", idB));
            }
            return o;
        });
        assertEquals(List.of("+OK\r\n", "-ERR A client can only redirect to a single other client\r\n"), seen);
    }

    /** Cajon has no client-side caching: TRACKING ON is refused (Redis turns tracking on). */
    @BothProtocols
    void trackingOnIsRefusedByDesign() throws Exception {
        scenario("CLIENT TRACKING ON (deliberate difference)")
                .cajonOnly("-ERR client-side caching is not supported: CLIENT TRACKING ON is not available\r\n",
                        "CLIENT", "TRACKING", "ON")
                .cajonOnly(":-1\r\n", "CLIENT", "GETREDIR")
                .cmd("PING")
                .run();
    }

    @Test
    void clientListAndInfoSayTheSameOfAConnection() throws Exception {
        // the fields both servers fill with real values for an idle connection
        List<String> seen = both("CLIENT LIST / INFO fields", port -> {
            List<String> o = new ArrayList<>();
            try (Conn a = Conn.open(port)) {
                long id = a.id();
                a.call("CLIENT", "SETNAME", "n1");
                a.call("SELECT", "2");
                String info = a.call("CLIENT", "INFO");
                for (String f : List.of("name", "flags", "db", "sub", "psub", "ssub", "multi", "cmd", "user",
                        "redir", "resp", "events")) {
                    o.add(f + "=" + field(info, f));
                }
                o.add("list name=" + a.listField(id, "name"));
            }
            return o;
        });
        assertTrue(seen.contains("cmd=client|info"), seen.toString());
    }

    // ------------------------------------------------------------------ helpers

    private static long millisSince(long nanoStart) {
        return (System.nanoTime() - nanoStart) / 1_000_000;
    }

    /** The value of field {@code name} in a CLIENT LIST/INFO line (the raw bulk reply). */
    private static String field(String bulk, String name) {
        for (String kv : bulk.split("[ \r\n]")) {
            if (kv.startsWith(name + "=")) {
                return kv.substring(name.length() + 1);
            }
        }
        return null;
    }

    /**
     * One connection with a tiny RESP2 reader, for the scripts: every read has a 5 s timeout,
     * and {@link #hasPending()} says whether any reply byte has arrived without waiting.
     */
    private static final class Conn implements AutoCloseable {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;

        private Conn(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
            this.out = socket.getOutputStream();
        }

        static Conn open(int port) throws IOException {
            Socket s = new Socket();
            s.setTcpNoDelay(true);
            s.setSoTimeout(RespClient.READ_TIMEOUT_MS);
            s.connect(new InetSocketAddress("127.0.0.1", port), RespClient.READ_TIMEOUT_MS);
            return new Conn(s);
        }

        void send(String... argv) throws IOException {
            byte[][] a = new byte[argv.length][];
            for (int i = 0; i < argv.length; i++) {
                a[i] = argv[i].getBytes(StandardCharsets.UTF_8);
            }
            out.write(RespClient.encode(a));
            out.flush();
        }

        /** Sends a command and reads its reply, raw, as ISO-8859-1 text. */
        String call(String... argv) throws IOException {
            send(argv);
            return read();
        }

        /** CLIENT ID; also makes sure the server has registered this connection. */
        long id() throws IOException {
            String r = call("CLIENT", "ID");
            return Long.parseLong(r.substring(1, r.length() - 2));
        }

        /** This connection's address as the server sees it ("127.0.0.1:port"). */
        String addr() {
            return "127.0.0.1:" + socket.getLocalPort();
        }

        String read() throws IOException {
            StringBuilder sb = new StringBuilder();
            readInto(sb);
            return sb.toString();
        }

        private void readInto(StringBuilder sb) throws IOException {
            int t = readByte();
            sb.append((char) t);
            String line = readLine();
            sb.append(line).append("\r\n");
            if (t == '$') {
                int n = Integer.parseInt(line);
                if (n >= 0) {
                    byte[] b = in.readNBytes(n + 2);
                    if (b.length < n + 2) {
                        throw new EOFException("connection closed in a bulk reply");
                    }
                    sb.append(new String(b, StandardCharsets.ISO_8859_1));
                }
            } else if (t == '*') {
                int n = Integer.parseInt(line);
                for (int i = 0; i < n; i++) {
                    readInto(sb);
                }
            } else if (t != '+' && t != '-' && t != ':') {
                throw new IOException("not a RESP2 reply: " + sb);
            }
        }

        private int readByte() throws IOException {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed by the server");
            }
            return b;
        }

        private String readLine() throws IOException {
            StringBuilder sb = new StringBuilder();
            while (true) {
                int b = readByte();
                if (b == '\r') {
                    if (readByte() != '\n') {
                        throw new IOException("CR without LF");
                    }
                    return sb.toString();
                }
                sb.append((char) b);
            }
        }

        /** Whether a reply byte has arrived (no waiting). */
        boolean hasPending() throws IOException {
            return in.available() > 0;
        }

        /**
         * "closed" when the server closes this connection within 5 s without a further reply,
         * "open" when it answers a PING; anything else is described.
         */
        String state() throws IOException {
            try {
                send("PING");
            } catch (SocketException e) {
                return "closed";
            }
            try {
                String r = read();
                return "+PONG\r\n".equals(r) ? "open" : "open, PING answered " + r;
            } catch (EOFException | SocketException e) {
                return "closed";
            } catch (SocketTimeoutException e) {
                return "silent";
            }
        }

        /**
         * Sends nothing and waits (5 s at most) for the server to close the connection: "closed",
         * or what came instead ("silent" when nothing did). A kill must close by itself, not when
         * the killed client next sends a command.
         */
        String awaitClose() throws IOException {
            try {
                int b = in.read();
                return b < 0 ? "closed" : "sent " + (char) b + " instead of closing";
            } catch (SocketException e) {
                return "closed";
            } catch (SocketTimeoutException e) {
                return "silent";
            }
        }

        /** A field of connection {@code id}'s CLIENT LIST line, asked on this connection. */
        String listField(long id, String name) throws IOException {
            return field(call("CLIENT", "LIST", "ID", Long.toString(id)), name);
        }

        /**
         * Polls CLIENT LIST on this connection until client {@code id} is blocked (flag b), at
         * most 5 s: whether it was.
         */
        boolean awaitBlocked(long id) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (System.nanoTime() < deadline) {
                String flags = listField(id, "flags");
                if (flags != null && flags.contains("b")) {
                    return true;
                }
                Thread.sleep(5);
            }
            return false;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
