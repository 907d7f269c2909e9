package dev.cajon.server.metrics;

import io.micrometer.core.instrument.Clock;

/**
 * Micrometer's clock for Cajon's registry: wall time as of the last {@link #tick()} (once a
 * second, on the metrics thread), monotonic time exact.
 *
 * <p>Why: a Micrometer timer reads the wall clock twice per record, to decide whether its
 * histogram and its max must rotate (the max every 40 s, the Prometheus histogram never), and on
 * this machine's kvm-clock a clock read costs 20-40 ns, more than the counter and the histogram
 * bucket together. Rotation only needs second precision. Nothing on the command path reads
 * {@link #monotonicTime()}.
 */
final class CoarseClock implements Clock {
    private volatile long wallMillis = System.currentTimeMillis();

    void tick() {
        wallMillis = System.currentTimeMillis();
    }

    @Override
    public long wallTime() {
        return wallMillis;
    }

    @Override
    public long monotonicTime() {
        return System.nanoTime();
    }
}
