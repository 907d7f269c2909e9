package dev.cajon.bench.storm;

import dev.cajon.bench.harness.CommandTemplate;
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
 * A lean blocking RESP2 connection to 127.0.0.1 for the storm's loaders, samplers and mixed load.
 *
 * <p>Why not the harness's {@code Resp}: the mixed load measures throughput with the client on
 * the same two cores as the server, so the client must cost as little as possible. Commands are
 * encoded straight into one reusable byte array (keys are written as prefix + zero-padded decimal
 * without building a {@code String}), and the common replies ({@code +OK}, a bulk string, an
 * integer) are checked and skipped without allocating. Only {@link #call} builds objects.
 *
 * <p>Not thread-safe: one connection per thread. Also used by the kill -9 soak
 * ({@code dev.cajon.bench.soak}).
 */
public final class RespConn implements AutoCloseable {

    /** An error reply, returned by {@link #call}. */
    public record Error(String message) {
        @Override
        public String toString() {
            return "-" + message;
        }
    }

    /** {@link #readBulkLength}: the reply was an error. */
    static final int ERROR_REPLY = -2;
    /** {@link #readBulkLength}: the reply was neither a bulk string nor an error. */
    static final int OTHER_REPLY = -3;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] rbuf = new byte[1 << 16];
    private int rpos;
    private int rlim;
    private byte[] wbuf = new byte[1 << 16];
    private int wlen;
    private final byte[] digits = new byte[20];
    /** The text of the last error reply seen by the skipping readers, for messages. */
    String lastError;

    public RespConn(int port, int timeoutMillis) throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(timeoutMillis);
        socket.connect(new InetSocketAddress(CommandTemplate.LOOPBACK, port), timeoutMillis);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    // ------------------------------------------------------------------ writing

    /** Starts a command of {@code n} arguments (the command name counts). */
    public RespConn array(int n) {
        header('*', n);
        return this;
    }

    public RespConn bulk(byte[] b) {
        header('$', b.length);
        put(b, 0, b.length);
        crlf();
        return this;
    }

    /** A non-negative number as a bulk string, e.g. the deadline of PXAT. */
    public RespConn bulk(long v) {
        // the header first: header() itself uses the digits scratch array
        header('$', decimalLength(v));
        int n = decimal(v);
        put(digits, digits.length - n, n);
        crlf();
        return this;
    }

    /**
     * {@code prefix} followed by {@code i} zero-padded to {@code width} digits, as a bulk string
     * ("storm:0000000042"), written without building the key anywhere else.
     */
    RespConn bulkKey(byte[] prefix, long i, int width) {
        header('$', prefix.length + width);
        put(prefix, 0, prefix.length);
        int n = decimal(i);
        ensure(width);
        for (int k = n; k < width; k++) {
            wbuf[wlen++] = '0';
        }
        put(digits, digits.length - n, n);
        crlf();
        return this;
    }

    /** Buffers a whole command given as text. */
    public RespConn command(String... argv) {
        array(argv.length);
        for (String a : argv) {
            bulk(a.getBytes(StandardCharsets.UTF_8));
        }
        return this;
    }

    public void flush() throws IOException {
        if (wlen > 0) {
            out.write(wbuf, 0, wlen);
            wlen = 0;
        }
        out.flush();
    }

    private void header(char type, int n) {
        int len = decimal(n);
        ensure(len + 3);
        wbuf[wlen++] = (byte) type;
        System.arraycopy(digits, digits.length - len, wbuf, wlen, len);
        wlen += len;
        wbuf[wlen++] = '\r';
        wbuf[wlen++] = '\n';
    }

    private void crlf() {
        ensure(2);
        wbuf[wlen++] = '\r';
        wbuf[wlen++] = '\n';
    }

    private void put(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, wbuf, wlen, len);
        wlen += len;
    }

    private void ensure(int more) {
        if (wlen + more > wbuf.length) {
            wbuf = Arrays.copyOf(wbuf, Math.max(wbuf.length * 2, wlen + more));
        }
    }

    private static int decimalLength(long v) {
        int n = 1;
        while (v >= 10) {
            v /= 10;
            n++;
        }
        return n;
    }

    /**
     * Writes the decimal digits of {@code v >= 0} to the end of {@link #digits} (overwriting what
     * was there); returns how many.
     */
    private int decimal(long v) {
        if (v < 0) {
            throw new IllegalArgumentException("negative: " + v);
        }
        int p = digits.length;
        do {
            digits[--p] = (byte) ('0' + (v % 10));
            v /= 10;
        } while (v != 0);
        return digits.length - p;
    }

    // ------------------------------------------------------------------ reading

    /** Reads one reply; true if it was exactly {@code +OK}. Any other reply is consumed. */
    public boolean readOk() throws IOException {
        int type = next();
        if (type == '+') {
            boolean ok = next() == 'O' && next() == 'K' && next() == '\r';
            if (!ok) {
                skipLine();
                return false;
            }
            return next() == '\n';
        }
        skipRest(type);
        return false;
    }

    /**
     * Reads one reply and returns the length of a bulk string (its bytes are skipped), -1 for a
     * nil bulk, {@link #ERROR_REPLY} or {@link #OTHER_REPLY}.
     */
    int readBulkLength() throws IOException {
        int type = next();
        if (type == '$') {
            long len = readLongLine();
            if (len >= 0) {
                skipBytes(len + 2);
            }
            return (int) len;
        }
        skipRest(type);
        return type == '-' ? ERROR_REPLY : OTHER_REPLY;
    }

    /** Reads an integer reply; anything else is an IOException. */
    public long readInteger() throws IOException {
        int type = next();
        if (type == ':') {
            return readLongLine();
        }
        Object other = readRest(type);
        throw new IOException("expected an integer reply, got " + other);
    }

    /** Sends one command and reads its reply as an object (String, Error, Long, byte[], List). */
    public Object call(String... argv) throws IOException {
        command(argv);
        flush();
        return read();
    }

    public Object read() throws IOException {
        return readRest(next());
    }

    /** A reply as text (bulk strings decoded as UTF-8). */
    public static String text(Object reply) {
        if (reply instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        return String.valueOf(reply);
    }

    private Object readRest(int type) throws IOException {
        switch (type) {
            case '+':
                return readLine();
            case '-':
                return new Error(readLine());
            case ':':
                return readLongLine();
            case '$': {
                long len = readLongLine();
                if (len < 0) {
                    return null;
                }
                byte[] b = new byte[(int) len];
                readFully(b);
                if (next() != '\r' || next() != '\n') {
                    throw new IOException("bulk string not followed by CRLF");
                }
                return b;
            }
            case '*': {
                long n = readLongLine();
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>((int) Math.min(n, 1024));
                for (long i = 0; i < n; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("not a RESP2 reply, type byte " + type);
        }
    }

    /** Consumes the rest of a reply whose type byte was read. */
    private void skipRest(int type) throws IOException {
        switch (type) {
            case '+', ':' -> skipLine();
            case '-' -> lastError = readLine();
            case '$' -> {
                long len = readLongLine();
                if (len >= 0) {
                    skipBytes(len + 2);
                }
            }
            case '*' -> {
                long n = readLongLine();
                for (long i = 0; i < n; i++) {
                    skipRest(next());
                }
            }
            default -> throw new IOException("not a RESP2 reply, type byte " + type);
        }
    }

    private long readLongLine() throws IOException {
        long v = 0;
        boolean neg = false;
        int c = next();
        if (c == '-') {
            neg = true;
            c = next();
        }
        while (c != '\r') {
            if (c < '0' || c > '9') {
                throw new IOException("bad digit in a RESP length or integer: " + c);
            }
            v = v * 10 + (c - '0');
            c = next();
        }
        if (next() != '\n') {
            throw new IOException("CR without LF in reply");
        }
        return neg ? -v : v;
    }

    private String readLine() throws IOException {
        StringBuilder sb = new StringBuilder(16);
        int c;
        while ((c = next()) != '\r') {
            sb.append((char) c);
        }
        if (next() != '\n') {
            throw new IOException("CR without LF in reply");
        }
        return new String(sb.toString().getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
    }

    private void skipLine() throws IOException {
        while (next() != '\r') {
            // skip
        }
        if (next() != '\n') {
            throw new IOException("CR without LF in reply");
        }
    }

    private void skipBytes(long n) throws IOException {
        while (n > 0) {
            if (rpos == rlim) {
                fill();
            }
            int k = (int) Math.min(n, rlim - rpos);
            rpos += k;
            n -= k;
        }
    }

    private void readFully(byte[] b) throws IOException {
        int off = 0;
        while (off < b.length) {
            if (rpos == rlim) {
                fill();
            }
            int k = Math.min(b.length - off, rlim - rpos);
            System.arraycopy(rbuf, rpos, b, off, k);
            rpos += k;
            off += k;
        }
    }

    private int next() throws IOException {
        if (rpos == rlim) {
            fill();
        }
        return rbuf[rpos++] & 0xFF;
    }

    private void fill() throws IOException {
        int n = in.read(rbuf, 0, rbuf.length);
        if (n < 0) {
            throw new EOFException("server closed the connection");
        }
        rpos = 0;
        rlim = n;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
