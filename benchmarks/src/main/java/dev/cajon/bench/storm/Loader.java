package dev.cajon.bench.storm;

import dev.cajon.bench.harness.Deadline;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Loads keys {@code [0, n)} over several raw-socket connections, each sending batches of
 * pipelined commands, and checks that every reply is exactly {@code +OK}.
 *
 * <p>The keys are split into one contiguous slice per connection. Each connection keeps up to
 * {@code inFlight} batches in flight: with 2 it writes batch {@code i + 1} before it reads the
 * replies of batch {@code i}, so the server never waits for the client between batches (that
 * cannot deadlock: a batch of replies, 5 bytes each, fits many times into the socket buffers
 * while we write). With 1 a connection writes a batch and reads its replies, like the
 * memory-restart loader: slower, but it never has more than one batch of bytes in the server's
 * socket buffer, so reads rarely end in the middle of a command (a decoder that mishandles such
 * reads failed that way once: a read ending inside a {@code *<n>\r\n} header lost a command).
 *
 * <p>The first failure (a reply other than {@code +OK}, a closed connection, the global deadline)
 * stops every connection and is thrown from {@link #load}.
 */
final class Loader {

    /** Writes command number {@code i} into the connection's buffer. */
    @FunctionalInterface
    interface CommandWriter {
        void write(RespConn c, int i);
    }

    /** What a command looks like, for error messages. */
    @FunctionalInterface
    interface Describer {
        String describe(int i);
    }

    private Loader() {
    }

    /** Returns the elapsed nanoseconds; throws on the first failed reply. */
    static long load(int port, int n, int connections, int batch, int inFlight, int timeoutMillis,
            Deadline budget, CommandWriter writer, Describer describer) throws IOException {
        int conns = Math.max(1, Math.min(connections, (n + batch - 1) / Math.max(1, batch)));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int c = 0; c < conns; c++) {
            int from = (int) ((long) n * c / conns);
            int to = (int) ((long) n * (c + 1) / conns);
            Thread t = new Thread(() -> {
                try {
                    loadSlice(port, from, to, batch, inFlight, timeoutMillis, budget, writer, describer, failure);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "storm-loader-" + c);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, budget.remaining().toMillis() + timeoutMillis));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while loading", e);
            }
            if (t.isAlive()) {
                failure.compareAndSet(null, new IOException("a loader connection did not finish in time"));
            }
        }
        long elapsed = System.nanoTime() - t0;
        Throwable f = failure.get();
        if (f instanceof IOException io) {
            throw io;
        }
        if (f != null) {
            throw new IOException(f.toString(), f);
        }
        return elapsed;
    }

    private static void loadSlice(int port, int from, int to, int batch, int inFlight, int timeoutMillis,
            Deadline budget, CommandWriter writer, Describer describer,
            AtomicReference<Throwable> failure) throws IOException {
        if (from >= to) {
            return;
        }
        try (RespConn c = new RespConn(port, timeoutMillis)) {
            int sent = from;
            int read = from;
            while (read < to) {
                if (failure.get() != null) {
                    return;
                }
                if (budget.expired()) {
                    throw new IOException("deadline reached while loading (" + (read - from) + " of "
                            + (to - from) + " keys of one connection done)");
                }
                // top up to inFlight batches, then read the oldest one
                while (sent < to && sent - read < (long) inFlight * batch) {
                    sent = writeBatch(c, sent, Math.min(to, sent + batch), writer);
                }
                int readTo = Math.min(to, read + batch);
                for (int i = read; i < readTo; i++) {
                    if (!c.readOk()) {
                        throw new IOException(describer.describe(i) + " was not answered +OK"
                                + (c.lastError != null ? " (error reply: " + c.lastError + ")" : ""));
                    }
                }
                read = readTo;
            }
        }
    }

    private static int writeBatch(RespConn c, int from, int to, CommandWriter writer) throws IOException {
        for (int i = from; i < to; i++) {
            writer.write(c, i);
        }
        c.flush();
        return to;
    }
}
