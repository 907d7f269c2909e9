package dev.cajon.bench.storm;

/**
 * One time axis for everything measured in a storm run: milliseconds (as a double) since the
 * run's origin, read from {@link System#nanoTime()} so that samples never go backwards.
 *
 * <p>Deadlines sent with PXAT are Unix milliseconds on the server's clock, which on one machine is
 * our {@link System#currentTimeMillis()}. We read the wall clock once, at the origin, and map
 * between the two axes with that offset; over the few minutes of a run the drift between the
 * monotonic and the wall clock is far below a millisecond.
 */
final class Timeline {

    private final long originNanos;
    private final long originEpochMillis;

    Timeline() {
        // read the wall clock at a millisecond edge, so the offset is exact to well under 1 ms
        long w = System.currentTimeMillis();
        long now;
        while ((now = System.currentTimeMillis()) == w) {
            Thread.onSpinWait();
        }
        this.originNanos = System.nanoTime();
        this.originEpochMillis = now;
    }

    /** Milliseconds since the origin. */
    double now() {
        return (System.nanoTime() - originNanos) / 1e6;
    }

    /** A point on this axis as Unix milliseconds (for PXAT), rounded down. */
    long toEpochMillis(double t) {
        return originEpochMillis + (long) Math.floor(t);
    }

    /** Unix milliseconds as a point on this axis. */
    double fromEpochMillis(long epochMillis) {
        return epochMillis - originEpochMillis;
    }
}
