package dev.cajon.server.compat;

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

/**
 * A deliberately tiny RESP client over a plain {@link Socket}, for the comparison tests. It sends
 * a command as a multibulk array (or any raw bytes, for inline commands and malformed input) and
 * reads exactly one complete reply, returning its raw bytes. Where a reply ends is found by
 * parsing the lengths ({@code $n}, {@code *n}, nested arrays, nulls, and RESP3's maps, sets,
 * pushes, attributes, verbatim strings and blob errors); nothing is interpreted beyond that, so
 * two servers' replies can be compared byte for byte. The client does not track the protocol: it
 * accepts every type in either, and a RESP3 type where Redis sent RESP2 is a byte difference like
 * any other. (RESP3's streamed strings and aggregates, {@code $?} and {@code *?}, which Redis
 * never sends, are refused as bad lengths.)
 *
 * <p>Every read has a timeout: a server that never answers fails the test instead of hanging it.
 */
final class RespClient implements AutoCloseable {
    static final int READ_TIMEOUT_MS = 5_000;
    private static final int MAX_LINE = 1 << 20;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RespClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
        this.out = socket.getOutputStream();
    }

    static RespClient connect(int port) throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.setSoTimeout(READ_TIMEOUT_MS);
            s.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MS);
            return new RespClient(s);
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    /** Encodes argv as a RESP multibulk array. */
    static byte[] encode(byte[]... argv) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(("*" + argv.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (byte[] a : argv) {
            b.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            b.writeBytes(a);
            b.writeBytes(new byte[] {'\r', '\n'});
        }
        return b.toByteArray();
    }

    void send(byte[]... argv) throws IOException {
        sendRaw(encode(argv));
    }

    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Sends a command and reads its reply. */
    Reply call(byte[]... argv) throws IOException {
        send(argv);
        return read();
    }

    Reply call(String... argv) throws IOException {
        byte[][] a = new byte[argv.length][];
        for (int i = 0; i < argv.length; i++) {
            a[i] = argv[i].getBytes(StandardCharsets.UTF_8);
        }
        return call(a);
    }

    /** Reads exactly one complete reply. */
    Reply read() throws IOException {
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        return parse(raw);
    }

    private Reply parse(ByteArrayOutputStream raw) throws IOException {
        int start = raw.size();
        int t = readByte();
        raw.write(t);
        byte[] line = readLine(raw);
        switch (t) {
            case '+':
            case '-':
            case ':':
            case ',': // RESP3 double
            case '#': // RESP3 boolean
            case '(': // RESP3 big number
                return new Reply((char) t, slice(raw, start), line, List.of(), false);
            case '_': // RESP3 null
                if (line.length != 0) {
                    throw new IOException("RESP3 null with content: " + Reply.show(raw.toByteArray()));
                }
                return new Reply('_', slice(raw, start), null, List.of(), true);
            case '$':
            case '=': // RESP3 verbatim string
            case '!': { // RESP3 blob error
                long n = parseLength(line);
                if (n < 0) {
                    if (t != '$') {
                        throw new IOException("negative length in " + Reply.show(raw.toByteArray()));
                    }
                    return new Reply('$', slice(raw, start), null, List.of(), true);
                }
                if (n > Integer.MAX_VALUE - 8) {
                    throw new IOException("bulk length too large in " + Reply.show(raw.toByteArray()));
                }
                byte[] content = readExactly((int) n);
                raw.writeBytes(content);
                byte[] crlf = readExactly(2);
                raw.writeBytes(crlf);
                if (crlf[0] != '\r' || crlf[1] != '\n') {
                    throw new IOException("bulk string not terminated by CRLF: " + Reply.show(raw.toByteArray()));
                }
                return new Reply((char) t, slice(raw, start), content, List.of(), false);
            }
            case '*':
            case '~': // RESP3 set
            case '>': // RESP3 push
            case '%': // RESP3 map: n pairs
            case '|': { // RESP3 attribute: n pairs, then the reply they annotate
                long n = parseLength(line);
                if (n < 0) {
                    if (t != '*') {
                        throw new IOException("negative count in " + Reply.show(raw.toByteArray()));
                    }
                    return new Reply('*', slice(raw, start), null, List.of(), true);
                }
                long count = t == '%' || t == '|' ? 2 * n : n;
                List<Reply> elements = new ArrayList<>((int) Math.min(count + 1, 1024));
                for (long i = 0; i < count; i++) {
                    elements.add(parse(raw));
                }
                if (t == '|') {
                    elements.add(parse(raw));
                }
                return new Reply((char) t, slice(raw, start), null, List.copyOf(elements), false);
            }
            default:
                throw new IOException("not a RESP2 or RESP3 reply, type byte " + Reply.show(new byte[] {(byte) t})
                        + " in " + Reply.show(raw.toByteArray()));
        }
    }

    private static byte[] slice(ByteArrayOutputStream raw, int start) {
        byte[] all = raw.toByteArray();
        byte[] s = new byte[all.length - start];
        System.arraycopy(all, start, s, 0, s.length);
        return s;
    }

    private static long parseLength(byte[] line) throws IOException {
        try {
            return Long.parseLong(new String(line, StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            throw new IOException("bad length " + Reply.show(line));
        }
    }

    private int readByte() throws IOException {
        int b = in.read();
        if (b < 0) {
            throw new EOFException("connection closed by the server");
        }
        return b;
    }

    /** Reads up to CRLF; appends everything (CRLF included) to raw and returns the line. */
    private byte[] readLine(ByteArrayOutputStream raw) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int b = readByte();
            raw.write(b);
            if (b == '\r') {
                int n = readByte();
                raw.write(n);
                if (n != '\n') {
                    throw new IOException("CR not followed by LF in " + Reply.show(raw.toByteArray()));
                }
                return line.toByteArray();
            }
            if (b == '\n') {
                throw new IOException("LF without CR in " + Reply.show(raw.toByteArray()));
            }
            line.write(b);
            if (line.size() > MAX_LINE) {
                throw new IOException("reply line longer than " + MAX_LINE + " bytes");
            }
        }
    }

    private byte[] readExactly(int n) throws IOException {
        byte[] b = in.readNBytes(n);
        if (b.length < n) {
            throw new EOFException("connection closed in the middle of a reply");
        }
        return b;
    }

    /**
     * Whether the server kept this connection open, found out by sending an inline PING: "closed"
     * (end of stream or reset), "open" (it answered +PONG), or a description of anything else.
     * Call it only when no reply is outstanding.
     */
    String probe() throws IOException {
        try {
            sendRaw("PING\r\n".getBytes(StandardCharsets.US_ASCII));
        } catch (SocketException e) {
            return "closed";
        }
        int old = socket.getSoTimeout();
        socket.setSoTimeout(2_000);
        try {
            Reply r = read();
            return "+PONG\r\n".equals(new String(r.raw(), StandardCharsets.ISO_8859_1)) ? "open"
                    : "open, but PING was answered " + r;
        } catch (EOFException | SocketException e) {
            return "closed";
        } catch (SocketTimeoutException e) {
            return "open but silent (no reply to PING within 2 s)";
        } finally {
            if (!socket.isClosed()) {
                socket.setSoTimeout(old);
            }
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
