package dev.cajon.server.metrics;

import dev.cajon.server.command.CommandSpec;

/**
 * What one session records into, found once (see {@link Metering}) and kept by the session: the
 * meters of its app and the latency recorder of the thread it runs on. Without metrics, both are
 * null and {@link Metering#of} answers null.
 */
public final class SessionMetrics {
    /** {@link #start}'s answer for a command that is not timed this time. */
    public static final long NOT_TIMED = Long.MIN_VALUE;

    /** The session's app when this was found, compared by identity. */
    final String app;
    /** The thread this was found on: the recorder is that thread's alone. */
    final Thread thread;
    private final AppMetrics meters;
    private final CommandLatency.Recorder latency;
    /** Rows of the command table: indexes at or above it (or -1) are no registered row. */
    private final int rows;

    SessionMetrics(String app, Thread thread, AppMetrics meters, CommandLatency.Recorder latency, int rows) {
        this.app = app;
        this.thread = thread;
        this.meters = meters;
        this.latency = latency;
        this.rows = rows;
    }

    boolean on() {
        return meters != null;
    }

    /** The meters of the session's app. */
    public AppMetrics app() {
        return meters;
    }

    /**
     * Before a command runs: {@code System.nanoTime()} when this run is timed (see
     * {@link CommandLatency}), else {@link #NOT_TIMED}.
     */
    public long start(CommandSpec spec) {
        int i = spec.index();
        return i >= 0 && i < rows && latency.timed(i) ? System.nanoTime() : NOT_TIMED;
    }

    /**
     * After it ran: its app's counter, its error counter when it answered an error, and its
     * latency when {@link #start} timed it. Rows never registered in the command table are not
     * counted.
     */
    public void end(CommandSpec spec, long start, boolean error) {
        int i = spec.index();
        if (meters.count(i, spec, error) && start != NOT_TIMED) {
            latency.record(i, System.nanoTime() - start);
        }
    }
}
