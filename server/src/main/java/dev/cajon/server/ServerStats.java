package dev.cajon.server;

import java.util.concurrent.atomic.LongAdder;

/** Counters INFO stats reports, with Redis's meaning. */
public final class ServerStats {
    public final LongAdder commandsProcessed = new LongAdder();
    public final LongAdder connectionsReceived = new LongAdder();
    public final LongAdder keyspaceHits = new LongAdder();
    public final LongAdder keyspaceMisses = new LongAdder();
    public final LongAdder errorReplies = new LongAdder();
    public final LongAdder netInputBytes = new LongAdder();
    public final LongAdder netOutputBytes = new LongAdder();
}
