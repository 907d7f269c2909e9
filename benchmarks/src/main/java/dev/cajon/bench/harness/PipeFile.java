package dev.cajon.bench.harness;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A file of commands in RESP, written once and fed to {@code redis-cli --pipe}, as an operator
 * bulk-loads: redis-cli writes as fast as the server takes it and counts the replies and errors.
 * The same file loads every server, so they all receive the very same bytes.
 */
public final class PipeFile implements AutoCloseable {

    private static final byte[] CRLF = {'\r', '\n'};

    private final Path file;
    private final OutputStream out;
    private long commands;

    public PipeFile(Path file) throws IOException {
        this.file = file;
        this.out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
    }

    /** Appends one command: {@code *N $len arg ...}. */
    public void command(byte[]... argv) throws IOException {
        header('*', argv.length);
        for (byte[] a : argv) {
            header('$', a.length);
            out.write(a);
            out.write(CRLF);
        }
        commands++;
    }

    private void header(char type, int n) throws IOException {
        out.write(type);
        out.write(Integer.toString(n).getBytes(StandardCharsets.US_ASCII));
        out.write(CRLF);
    }

    public long commands() {
        return commands;
    }

    public Path path() {
        return file;
    }

    /** Bytes in the file: what a server's append-only log of these commands holds, about. */
    public long size() throws IOException {
        out.flush();
        return Files.size(file);
    }

    @Override
    public void close() throws IOException {
        out.close();
    }

    /**
     * Feeds the (closed) file to {@code redis-cli --pipe} against 127.0.0.1:port and returns how
     * long it took. Fails unless redis-cli reports no error and one reply per command.
     */
    public Duration load(int port, Duration timeout) throws IOException {
        Path log = file.resolveSibling(file.getFileName() + ".out");
        ProcessBuilder pb = new ProcessBuilder("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port),
                "--pipe", "--pipe-timeout", Long.toString(Math.max(30, timeout.toSeconds())))
                .redirectInput(file.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        long t0 = System.nanoTime();
        Process p = Reaper.start(pb);
        try {
            if (!p.waitFor(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS)) {
                Reaper.stop(p, Duration.ofSeconds(2));
                throw new IOException("redis-cli --pipe did not finish within " + timeout.toSeconds() + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            Reaper.stop(p, Duration.ofSeconds(2));
            throw new IOException(e);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        Reaper.stop(p, Duration.ofSeconds(1));
        String text = Files.readString(log, StandardCharsets.UTF_8);
        Files.deleteIfExists(log);
        if (p.exitValue() != 0 || !text.contains("errors: 0, replies: " + commands)) {
            throw new IOException("redis-cli --pipe: " + text.strip());
        }
        return took;
    }
}
