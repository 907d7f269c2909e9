package dev.cajon.bench.storm;

import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * Asks DBSIZE every few milliseconds on a connection of its own and records
 * {@code (sent, received, dbsize)} on the run's {@link Timeline}.
 *
 * <p>The server answered at some moment between "sent" and "received"; the analysis says which
 * end it uses for what. Samples are taken on a fixed schedule; when a reply is late (the server is
 * busy) the missed slots are skipped rather than sent in a burst, so a slow server is not
 * hammered by catch-up requests.
 *
 * <p>The latest value is published for the driver, which decides when the storm is over.
 */
final class DbsizeSampler implements AutoCloseable {

    /** The recorded samples, in time order. */
    record Samples(double[] sent, double[] received, long[] dbsize, int count) {
        double mid(int i) {
            return (sent[i] + received[i]) / 2;
        }
    }

    private final RespConn conn;
    private final Timeline time;
    private final long intervalNanos;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile IOException failure;

    private double[] sent = new double[4096];
    private double[] received = new double[4096];
    private long[] values = new long[4096];
    private int count;

    /** The last value and when it was received, for the driver's stop condition. */
    private volatile long lastValue = -1;
    private volatile double lastReceived = Double.NaN;

    DbsizeSampler(int port, int timeoutMillis, Timeline time, long intervalMicros) throws IOException {
        this.conn = new RespConn(port, timeoutMillis);
        this.time = time;
        this.intervalNanos = intervalMicros * 1000L;
        this.thread = new Thread(this::run, "storm-dbsize");
        this.thread.setDaemon(true);
    }

    DbsizeSampler start() {
        thread.start();
        return this;
    }

    private void run() {
        long next = System.nanoTime();
        try {
            while (running) {
                double s = time.now();
                conn.array(1).bulk(DBSIZE);
                conn.flush();
                long v = conn.readInteger();
                double r = time.now();
                record(s, r, v);
                lastValue = v;
                lastReceived = r;
                next += intervalNanos;
                long now = System.nanoTime();
                if (next < now) {
                    // late: skip the missed slots instead of bursting
                    next = now + intervalNanos - ((now - next) % intervalNanos);
                }
                while (running && (now = System.nanoTime()) < next) {
                    LockSupport.parkNanos(next - now);
                }
            }
        } catch (IOException e) {
            if (running) {
                failure = e;
            }
        }
    }

    private static final byte[] DBSIZE = {'D', 'B', 'S', 'I', 'Z', 'E'};

    private synchronized void record(double s, double r, long v) {
        if (count == values.length) {
            sent = Arrays.copyOf(sent, count * 2);
            received = Arrays.copyOf(received, count * 2);
            values = Arrays.copyOf(values, count * 2);
        }
        sent[count] = s;
        received[count] = r;
        values[count] = v;
        count++;
    }

    long lastValue() {
        return lastValue;
    }

    double lastReceived() {
        return lastReceived;
    }

    /** The failure that stopped sampling early, or null. */
    IOException failure() {
        return failure;
    }

    boolean isRunning() {
        return thread.isAlive();
    }

    synchronized Samples samples() {
        return new Samples(Arrays.copyOf(sent, count), Arrays.copyOf(received, count),
                Arrays.copyOf(values, count), count);
    }

    /** Stops sampling, waits for the thread and closes the connection. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            conn.close();
        } catch (IOException ignored) {
            // closing a loopback socket we are done with
        }
    }
}
