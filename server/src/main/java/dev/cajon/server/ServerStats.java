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
    /** Keys expired before the last CONFIG RESETSTAT (the keyspaces count from their start). */
    private volatile long expiredKeysBase;

    /** INFO's expired_keys, given every keyspace's count of expired keys since it opened. */
    public long expiredKeys(long expiredSinceStart) {
        return Math.max(0, expiredSinceStart - expiredKeysBase);
    }

    /** CONFIG RESETSTAT: every counter starts again from zero. */
    public void reset(long expiredSinceStart) {
        commandsProcessed.reset();
        connectionsReceived.reset();
        keyspaceHits.reset();
        keyspaceMisses.reset();
        errorReplies.reset();
        netInputBytes.reset();
        netOutputBytes.reset();
        expiredKeysBase = expiredSinceStart;
    }
}
