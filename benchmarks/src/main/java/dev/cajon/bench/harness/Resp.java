package dev.cajon.bench.harness;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A tiny blocking RESP2 client on a raw socket to 127.0.0.1, for the harness only: readiness
 * PINGs, SAVE, DBSIZE and the pipelined loader. It deliberately shares no code with Cajon's own
 * protocol module, so a bug there cannot hide itself from the harness.
 *
 * <p>Replies are decoded as: simple string to {@link String}, error to {@link Error}, integer to
 * {@link Long}, bulk string to {@code byte[]} (or null), array to {@link List} (or null).
 */
final class Resp implements AutoCloseable {

    /** An error reply; returned, not thrown, so callers decide what an error means. */
    record Error(String message) {
    }

    private static final byte[] PING = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PONG = "+PONG\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NOAUTH = "-NOAUTH".getBytes(StandardCharsets.US_ASCII);

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    Resp(int port, int timeoutMillis) throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(timeoutMillis);
        socket.connect(new InetSocketAddress(CommandTemplate.LOOPBACK, port), timeoutMillis);
        in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
        out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
    }

    /**
     * One readiness probe: true only if the server answered exactly {@code +PONG\r\n}. A refused
     * connection, a timeout or any other answer (Redis says {@code -LOADING} while it reads its
     * data) is false.
     */
    static boolean ping(int port, int timeoutMillis) {
        try (Socket s = new Socket()) {
            s.setSoTimeout(timeoutMillis);
            s.connect(new InetSocketAddress(CommandTemplate.LOOPBACK, port), timeoutMillis);
            s.getOutputStream().write(PING);
            byte[] got = s.getInputStream().readNBytes(PONG.length);
            // a server started with a password answers -NOAUTH once it is up (the kill -9 soak's)
            return Arrays.equals(got, PONG) || Arrays.equals(got, NOAUTH);
        } catch (IOException e) {
            return false;
        }
    }

    /** Sends one command and waits for its reply. */
    Object call(String... argv) throws IOException {
        byte[][] args = new byte[argv.length][];
        for (int i = 0; i < argv.length; i++) {
            args[i] = argv[i].getBytes(StandardCharsets.UTF_8);
        }
        send(args);
        flush();
        return read();
    }

    /** Buffers one command without flushing, for pipelining. */
    void send(byte[]... argv) throws IOException {
        writeHeader('*', argv.length);
        for (byte[] a : argv) {
            writeHeader('$', a.length);
            out.write(a);
            out.write('\r');
            out.write('\n');
        }
    }

    void flush() throws IOException {
        out.flush();
    }

    Object read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("server closed the connection");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                return new Error(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                byte[] b = in.readNBytes(len);
                if (b.length != len || in.read() != '\r' || in.read() != '\n') {
                    throw new EOFException("short bulk reply");
                }
                return b;
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("not a RESP2 reply, type byte " + type);
        }
    }

    /** A reply as text for messages and parsing (INFO, errors). */
    static String text(Object reply) {
        if (reply instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        if (reply instanceof Error e) {
            return "-" + e.message();
        }
        return String.valueOf(reply);
    }

    private void writeHeader(char type, int n) throws IOException {
        out.write(type);
        out.write(Integer.toString(n).getBytes(StandardCharsets.US_ASCII));
        out.write('\r');
        out.write('\n');
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(32);
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\r') {
                if (in.read() != '\n') {
                    throw new IOException("CR without LF in reply");
                }
                return buf.toString(StandardCharsets.UTF_8);
            }
            buf.write(c);
        }
        throw new EOFException("server closed the connection mid-reply");
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
