package dev.cajon.bench.storm;

import dev.cajon.bench.harness.Deadline;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The foreground traffic whose throughput the storm must not hurt: GET and SET on random keys of
 * a keyspace that has no TTL, over a few connections, each keeping {@code depth} commands in
 * flight. There is no target rate: every connection sends its next batch as soon as the previous
 * one is answered, so what we count is what the server can do while it also reclaims keys.
 *
 * <p>Completed commands are counted in 10 ms buckets on the run's {@link Timeline} (a batch counts
 * when its last reply arrives), with the slowest batch round trip per bucket; the analysis sums
 * buckets into 100 ms windows aligned wherever it needs them.
 *
 * <p>Every reply is checked: a SET must answer {@code +OK} and a GET must return a value of the
 * size we wrote. A GET that finds nothing means the server lost a key that had no TTL, which is
 * counted and reported rather than silently measured as a fast miss. Any other reply stops the
 * connection with a failure: after an error reply we can no longer be sure that replies and
 * commands still pair up, so counting on would measure garbage.
 */
final class MixedLoad implements AutoCloseable {

    static final int BUCKET_MS = 10;

    private final int port;
    private final int connections;
    private final int depth;
    private final int keys;
    private final double setRatio;
    private final byte[] keyPrefix;
    private final int keyDigits;
    private final byte[] value;
    private final int timeoutMillis;
    private final Timeline time;
    private final Deadline budget;
    private final int buckets;
    private final long seed;

    private final List<Worker> workers = new ArrayList<>();
    private volatile boolean running;
    /** Commands per second over all connections; 0: as fast as the server answers. */
    private double opsPerSecond;

    MixedLoad(int port, int connections, int depth, int keys, double setRatio, byte[] keyPrefix,
            int keyDigits, byte[] value, int timeoutMillis, Timeline time, Deadline budget, long seed) {
        this.port = port;
        this.connections = connections;
        this.depth = depth;
        this.keys = keys;
        this.setRatio = setRatio;
        this.keyPrefix = keyPrefix;
        this.keyDigits = keyDigits;
        this.value = value;
        this.timeoutMillis = timeoutMillis;
        this.time = time;
        this.budget = budget;
        this.seed = seed;
        // every bucket from the timeline's origin to the end of the budget, plus slack
        long spanMs = (long) time.now() + budget.remaining().toMillis() + 120_000;
        this.buckets = (int) Math.min(Integer.MAX_VALUE - 8, spanMs / BUCKET_MS + 1);
    }

    /**
     * Paces the traffic at {@code rate} commands per second in all (before {@link #start}): each
     * connection sends its next batch on a fixed schedule, at once when it is behind it, so a
     * server with room to spare answers everything it is offered and one without falls behind.
     */
    MixedLoad paced(double rate) {
        this.opsPerSecond = rate;
        return this;
    }

    /** Opens the connections and starts sending. */
    MixedLoad start() throws IOException {
        running = true;
        for (int i = 0; i < connections; i++) {
            workers.add(new Worker(i, new RespConn(port, timeoutMillis)));
        }
        for (Worker w : workers) {
            w.thread.start();
        }
        return this;
    }

    /** Stops sending, waits for the workers and closes their connections. */
    @Override
    public void close() {
        running = false;
        for (Worker w : workers) {
            try {
                w.thread.join(Math.max(1000, timeoutMillis + 1000L));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                w.conn.close();
            } catch (IOException ignored) {
                // done with it
            }
        }
    }

    /** Commands completed per 10 ms bucket, summed over the connections. */
    long[] ops() {
        long[] sum = new long[buckets];
        for (Worker w : workers) {
            for (int i = 0; i < buckets; i++) {
                sum[i] += w.ops[i];
            }
        }
        return sum;
    }

    /** The slowest batch round trip that ended in each bucket, in microseconds. */
    long[] maxRttMicros() {
        long[] max = new long[buckets];
        for (Worker w : workers) {
            for (int i = 0; i < buckets; i++) {
                max[i] = Math.max(max[i], w.maxRtt[i]);
            }
        }
        return max;
    }

    long misses() {
        return workers.stream().mapToLong(w -> w.misses).sum();
    }

    long badReplies() {
        return workers.stream().mapToLong(w -> w.bad).sum();
    }

    /** The first failure of any connection (e.g. a closed socket), or null. */
    String failure() {
        return workers.stream().map(w -> w.failure).filter(f -> f != null).findFirst().orElse(null);
    }

    String lastError() {
        return workers.stream().map(w -> w.conn.lastError).filter(f -> f != null).findFirst().orElse(null);
    }

    private static final byte[] GET = {'G', 'E', 'T'};
    private static final byte[] SET = {'S', 'E', 'T'};

    private final class Worker {
        final RespConn conn;
        final Thread thread;
        final long[] ops = new long[buckets];
        final long[] maxRtt = new long[buckets];
        long misses;
        long bad;
        volatile String failure;
        private final SplittableRandom random;

        Worker(int id, RespConn conn) {
            this.conn = conn;
            this.random = new SplittableRandom(seed * 31 + id);
            this.thread = new Thread(this::run, "storm-mixed-" + id);
            this.thread.setDaemon(true);
        }

        private void run() {
            boolean[] isSet = new boolean[depth];
            long interval = opsPerSecond > 0 ? (long) (1e9 * depth * connections / opsPerSecond) : 0;
            long next = System.nanoTime();
            try {
                while (running && !budget.expired()) {
                    if (interval > 0) {
                        long wait = next - System.nanoTime();
                        if (wait > 0) {
                            java.util.concurrent.locks.LockSupport.parkNanos(wait);
                            continue; // woken early, or the run is over: look again
                        }
                        next += interval;
                    }
                    for (int i = 0; i < depth; i++) {
                        long k = random.nextInt(keys);
                        isSet[i] = random.nextDouble() < setRatio;
                        if (isSet[i]) {
                            conn.array(3).bulk(SET).bulkKey(keyPrefix, k, keyDigits).bulk(value);
                        } else {
                            conn.array(2).bulk(GET).bulkKey(keyPrefix, k, keyDigits);
                        }
                    }
                    long t0 = System.nanoTime();
                    conn.flush();
                    for (int i = 0; i < depth; i++) {
                        if (isSet[i]) {
                            if (!conn.readOk()) {
                                bad++;
                            }
                        } else {
                            int len = conn.readBulkLength();
                            if (len == -1) {
                                misses++;
                            } else if (len != value.length) {
                                bad++;
                            }
                        }
                    }
                    if (bad > 0) {
                        // an error reply: after one, replies and commands may no longer pair up
                        failure = "unexpected reply to GET/SET" + (conn.lastError != null
                                ? " (error reply: " + conn.lastError + ")" : "");
                        return;
                    }
                    long rttMicros = (System.nanoTime() - t0) / 1000;
                    int b = (int) (time.now() / BUCKET_MS);
                    if (b < 0 || b >= buckets) {
                        break;
                    }
                    ops[b] += depth;
                    if (rttMicros > maxRtt[b]) {
                        maxRtt[b] = rttMicros;
                    }
                }
            } catch (IOException | RuntimeException e) {
                if (running) {
                    failure = e.toString();
                }
            }
        }
    }
}
