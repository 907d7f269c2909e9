package dev.cajon.server.limits;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The connection limits in force: start from {@link NetSettings}, change with CONFIG SET (every
 * field is read afresh by each connection when it applies), and the count of connected clients
 * that {@code maxclients} bounds.
 */
public final class NetLimits {
    /**
     * A connection's commands stop running (mid-batch) while its pending output in memory is over
     * this much (the socket's high-water mark), and resume when it has drained below the
     * low-water mark; blob files on their way are bounded by {@link #MAX_OPEN_FILES} instead. With the replies of one command on top, this bounds what a client
     * that never reads costs.
     */
    public static final long PAUSE_BYTES = 4L << 20;
    /** The socket's low-water mark: reading resumes below it. */
    public static final int LOW_WATER = 1 << 20;
    /**
     * Blob files a connection keeps open for replies on their way: one, so that a client that
     * pipelines GETs of large values and never reads holds one file descriptor, not one per reply.
     */
    public static final int MAX_OPEN_FILES = 1;
    /** Redis's CONFIG_MIN_RESERVED_FDS: descriptors kept aside for files and listeners. */
    public static final int RESERVED_FDS = 32;

    private volatile long protoMaxBulkLen;
    private volatile long clientQueryBufferLimit;
    private volatile int maxclients;
    private volatile int timeout;
    private volatile int tcpKeepalive;
    private volatile long outputHard;
    private volatile long outputSoft;
    private volatile int outputSoftSeconds;
    private volatile boolean protectedMode;
    private final AtomicInteger connected = new AtomicInteger();
    /** Connections refused by maxclients (INFO rejected_connections). */
    public final LongAdder rejected = new LongAdder();

    public NetLimits(NetSettings s) {
        protoMaxBulkLen = s.protoMaxBulkLen();
        clientQueryBufferLimit = s.clientQueryBufferLimit();
        maxclients = s.maxclients();
        timeout = s.timeout();
        tcpKeepalive = s.tcpKeepalive();
        outputHard = s.outputHard();
        outputSoft = s.outputSoft();
        outputSoftSeconds = s.outputSoftSeconds();
        protectedMode = s.protectedMode();
    }

    /** Descriptors a server needs for {@code maxclients}: a socket and at most one blob file each. */
    public static long descriptorsFor(int maxclients) {
        return (long) maxclients * (1 + MAX_OPEN_FILES) + RESERVED_FDS;
    }

    /** A new connection: false (and counted as rejected) when maxclients are connected already. */
    public boolean tryConnect() {
        if (connected.incrementAndGet() > maxclients) {
            connected.decrementAndGet();
            rejected.increment();
            return false;
        }
        return true;
    }

    public void disconnected() {
        connected.decrementAndGet();
    }

    public int connected() {
        return connected.get();
    }

    public long protoMaxBulkLen() {
        return protoMaxBulkLen;
    }

    public void protoMaxBulkLen(long v) {
        protoMaxBulkLen = v;
    }

    public long clientQueryBufferLimit() {
        return clientQueryBufferLimit;
    }

    public void clientQueryBufferLimit(long v) {
        clientQueryBufferLimit = v;
    }

    public int maxclients() {
        return maxclients;
    }

    public void maxclients(int v) {
        maxclients = v;
    }

    public int timeout() {
        return timeout;
    }

    public void timeout(int v) {
        timeout = v;
    }

    public int tcpKeepalive() {
        return tcpKeepalive;
    }

    public void tcpKeepalive(int v) {
        tcpKeepalive = v;
    }

    public long outputHard() {
        return outputHard;
    }

    public long outputSoft() {
        return outputSoft;
    }

    public int outputSoftSeconds() {
        return outputSoftSeconds;
    }

    public synchronized void outputLimit(long hard, long soft, int softSeconds) {
        outputHard = hard;
        outputSoft = soft;
        outputSoftSeconds = softSeconds;
    }

    public boolean protectedMode() {
        return protectedMode;
    }

    public void protectedMode(boolean v) {
        protectedMode = v;
    }
}
