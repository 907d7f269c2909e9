package dev.cajon.server.metrics;

import dev.cajon.server.command.CommandSpec;

/**
 * What one session records into, found once (see {@link Metering}) and kept by the session: the
 * meters of its app and the latency recorder of the thread it runs on. Without metrics, both are
 * null and {@link Metering#of} answers null.
 */
public final class SessionMetrics {
    /** The session's app when this was found, compared by identity. */
    final String app;
    /** The thread this was found on: the recorder is that thread's alone. */
    final Thread thread;
    private final AppMetrics meters;
    private final CommandLatency.Recorder latency;

    SessionMetrics(String app, Thread thread, AppMetrics meters, CommandLatency.Recorder latency) {
        this.app = app;
        this.thread = thread;
        this.meters = meters;
        this.latency = latency;
    }

    boolean on() {
        return meters != null;
    }

    /** The meters of the session's app. */
    public AppMetrics app() {
        return meters;
    }

    /**
     * One command the session ran: its app's counter, its error counter when it answered an
     * error, and its latency. Rows never registered in the command table are not counted.
     */
    public void record(CommandSpec spec, long nanos, boolean error) {
        int i = spec.index();
        if (meters.count(i, spec, error)) {
            latency.record(i, nanos);
        }
    }
}
