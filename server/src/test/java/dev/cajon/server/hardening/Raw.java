package dev.cajon.server.hardening;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** A raw socket to a server, for the attacks: send bytes, read what comes back until it closes. */
final class Raw implements AutoCloseable {
    final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    Raw(Socket s) throws IOException {
        this.socket = s;
        this.in = s.getInputStream();
        this.out = s.getOutputStream();
    }

    static Raw connect(int port) throws IOException {
        return connect(InetAddress.getLoopbackAddress(), port, 0);
    }

    /** receiveBuffer 0: the system's default. */
    static Raw connect(InetAddress host, int port, int receiveBuffer) throws IOException {
        Socket s = new Socket();
        if (receiveBuffer > 0) {
            s.setReceiveBufferSize(receiveBuffer);
        }
        s.setTcpNoDelay(true);
        s.setSoTimeout(5_000);
        s.connect(new InetSocketAddress(host, port), 5_000);
        return new Raw(s);
    }

    static byte[] command(String... argv) {
        StringBuilder b = new StringBuilder("*").append(argv.length).append("\r\n");
        for (String a : argv) {
            b.append('$').append(a.getBytes(StandardCharsets.ISO_8859_1).length).append("\r\n").append(a).append("\r\n");
        }
        return b.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    Raw send(byte[] b) throws IOException {
        out.write(b);
        out.flush();
        return this;
    }

    Raw send(String s) throws IOException {
        return send(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** One reply line (a status, an error or an integer), CRLF included. */
    String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            b.write(c);
            if (c == '\n') {
                break;
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    /** Everything until the server closes (or {@code timeoutMs} of silence: then "...TIMEOUT"). */
    String untilClosed(int timeoutMs) throws IOException {
        socket.setSoTimeout(timeoutMs);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        try {
            int n;
            while ((n = in.read(buf)) >= 0) {
                b.write(buf, 0, n);
            }
        } catch (SocketTimeoutException e) {
            return b.toString(StandardCharsets.ISO_8859_1) + "...TIMEOUT";
        } catch (IOException e) {
            // a reset after the reply: what came before is the answer
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** Open file descriptors of this process. */
    static int openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return (int) s.count();
        }
    }

    /** Resident set size of a process, in bytes (/proc/PID/status VmRSS). */
    static long rss(String pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        return -1;
    }
}
