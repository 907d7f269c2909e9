package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * The server as a person at a terminal meets it: redis-cli sessions (raw and formatted output,
 * whose expected texts were taken from redis-cli 7.0.15 against redis-server 7.0.15) and inline
 * commands typed into a bare socket. Skipped when redis-cli is not installed.
 */
class RedisCliSystemTest {
    @RegisterExtension
    static final ServerProcesses servers = new ServerProcesses();

    static final Path REDIS_CLI = Path.of("/usr/bin/redis-cli");

    @TempDir
    static Path tmp;

    static CajonProcess server;

    @BeforeAll
    static void startServer() {
        Assumptions.assumeTrue(Files.isExecutable(REDIS_CLI), "redis-cli tests skipped: " + REDIS_CLI + " is not installed");
        server = servers.start("redis-cli", tmp.resolve("data"));
    }

    @BeforeEach
    void flush() {
        try (Jedis j = server.jedis()) {
            j.flushAll();
        }
    }

    record CliResult(int exitCode, String stdout, String stderr) {
    }

    /** Runs redis-cli against the server with {@code stdin} piped in; bounded to 30 s. */
    static CliResult cli(String stdin, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(REDIS_CLI.toString(), "-h", CajonProcess.LOOPBACK,
                "-p", Integer.toString(server.port())));
        cmd.addAll(List.of(args));
        Path in = Files.createTempFile(tmp, "stdin", ".txt");
        Path out = Files.createTempFile(tmp, "stdout", ".txt");
        Path err = Files.createTempFile(tmp, "stderr", ".txt");
        Files.writeString(in, stdin, StandardCharsets.UTF_8);
        Process p = new ProcessBuilder(cmd).redirectInput(in.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                throw new AssertionError("redis-cli did not finish within 30 s: " + cmd);
            }
        } finally {
            p.destroyForcibly();
        }
        return new CliResult(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void fiveLineSession() throws Exception {
        CliResult r = cli("""
                SET greeting hello
                GET greeting
                INCR visits
                EXPIRE greeting 100
                TTL greeting
                DEL greeting
                GET greeting
                """);
        assertEquals(0, r.exitCode(), r.stderr());
        // raw output (stdout is not a terminal): one line per reply, nil as an empty line
        assertEquals("OK\nhello\n1\n1\n100\n1\n\n", r.stdout());
    }

    @Test
    void formattedOutputWithNoRaw() throws Exception {
        CliResult r = cli("""
                SET greeting hello
                GET greeting
                INCR visits
                EXPIRE greeting 100
                TTL greeting
                DEL greeting
                GET greeting
                SET
                MGET visits nope
                SET word x
                INCR word
                SELECT 3
                SET s "a b"
                GET s
                BOGUS 1 2
                """, "--no-raw");
        assertEquals(0, r.exitCode(), r.stderr());
        assertEquals("""
                OK
                "hello"
                (integer) 1
                (integer) 1
                (integer) 100
                (integer) 1
                (nil)
                (error) ERR wrong number of arguments for 'set' command
                1) "1"
                2) (nil)
                OK
                (error) ERR value is not an integer or out of range
                OK
                OK
                "a b"
                (error) ERR unknown command 'BOGUS', with args beginning with: '1' '2'\s
                """, r.stdout());
    }

    @Test
    void oneShotCommandsFromArguments() throws Exception {
        assertEquals("OK\n", cli("", "SET", "bin", "a\tb").stdout());
        assertEquals("\"a\\tb\"\n", cli("", "--no-raw", "GET", "bin").stdout());
        assertEquals("a\tb\n", cli("", "GET", "bin").stdout());
        assertEquals("(integer) 1\n", cli("", "--no-raw", "EXISTS", "bin").stdout());
        assertEquals("PONG\n", cli("", "PING").stdout());
        // redis-cli prints a one-shot error reply on stdout, followed by an empty line
        assertEquals("ERR wrong number of arguments for 'get' command\n\n", cli("", "GET").stdout());
    }

    // ---------------------------------------------------------------- inline commands, raw socket

    /** Sends {@code request} and reads until {@code expectedBytes} bytes arrived (or 10 s passed). */
    static String exchange(Socket s, String request, int expectedBytes) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(request.getBytes(StandardCharsets.UTF_8));
        out.flush();
        InputStream in = s.getInputStream();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (got.size() < expectedBytes && System.nanoTime() < deadline) {
            try {
                int n = in.read(buf);
                if (n < 0) {
                    break;
                }
                got.write(buf, 0, n);
            } catch (SocketTimeoutException e) {
                // keep waiting until the deadline
            }
        }
        return got.toString(StandardCharsets.UTF_8);
    }

    /** The next byte, -1 at end of stream; fails if neither comes within 5 s. */
    static int readOrEof(Socket s) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            try {
                return s.getInputStream().read();
            } catch (SocketTimeoutException e) {
                // keep waiting until the deadline
            } catch (IOException e) {
                return -1; // reset counts as closed
            }
        }
        throw new AssertionError("connection still open after 5 s");
    }

    static Socket connect() throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(CajonProcess.LOOPBACK, server.port()), 5_000);
        s.setSoTimeout(500);
        return s;
    }

    /**
     * A command's header split across two reads, right after a complete command in the first
     * read: what happens on every deep pipeline (Jedis, redis-benchmark -P, redis-cli --pipe)
     * wherever a TCP read ends inside "*3\r\n". Each split point gets its own connection.
     */
    @Test
    void commandSplitAcrossReadsAfterACompleteCommand() throws IOException, InterruptedException {
        String first = "*1\r\n$4\r\nPING\r\n";
        String second = "*3\r\n$3\r\nSET\r\n$5\r\nsplit\r\n$1\r\nv\r\n";
        List<String> failures = new ArrayList<>();
        for (int cut = 1; cut < second.length(); cut++) {
            try (Socket s = connect()) {
                s.setTcpNoDelay(true);
                OutputStream out = s.getOutputStream();
                out.write((first + second.substring(0, cut)).getBytes(StandardCharsets.UTF_8));
                out.flush();
                Thread.sleep(30); // let the server read the first part on its own
                String got = exchange(s, second.substring(cut), 12);
                if (!got.equals("+PONG\r\n+OK\r\n")) {
                    failures.add("cut after " + visible(second.substring(0, cut)) + " -> " + visible(got));
                }
            }
        }
        assertTrue(failures.isEmpty(), "PING + SET split across two reads:\n" + String.join("\n", failures));
    }

    static String visible(String s) {
        return '"' + s.replace("\r", "\\r").replace("\n", "\\n") + '"';
    }

    @Test
    void inlineCommandsOverARawSocket() throws IOException {
        try (Socket s = connect()) {
            assertEquals("+PONG\r\n", exchange(s, "PING\n", 7));
            assertEquals("+PONG\r\n", exchange(s, "PING\r\n", 7));
            assertEquals("+OK\r\n", exchange(s, "SET k \"a b\"\r\n", 5));
            assertEquals("$3\r\na b\r\n", exchange(s, "GET k\r\n", 9));
            // inline and RESP may alternate on one connection
            assertEquals("$3\r\na b\r\n", exchange(s, "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", 9));
            // quoting and escapes as redis-server parses them
            assertEquals("+OK\r\n", exchange(s, "SET e \"x\\ty\\x41\"\r\n", 5));
            assertEquals("$4\r\nx\tyA\r\n", exchange(s, "GET e\r\n", 10));
            // an empty line is ignored, and several commands in one packet each get a reply
            assertEquals(":1\r\n:2\r\n", exchange(s, "\r\nINCR n\r\nINCR n\r\n", 8));
            assertEquals("-ERR Protocol error: unbalanced quotes in request\r\n",
                    exchange(s, "SET k \"oops\r\n", 51));
            // a protocol error closes the connection, as redis-server does
            assertEquals(-1, readOrEof(s), "connection must be closed after a protocol error");
        }
    }
}
