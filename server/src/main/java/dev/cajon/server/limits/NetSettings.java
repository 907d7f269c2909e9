package dev.cajon.server.limits;

/**
 * The connection limits a server starts with: Redis's names and defaults, except
 * {@code client-output-buffer-limit normal}, which Redis leaves unbounded ({@code 0 0 0}).
 *
 * @param protoMaxBulkLen        {@code proto-max-bulk-len}: the longest bulk argument (512mb)
 * @param clientQueryBufferLimit {@code client-query-buffer-limit}: input held for one client (1gb)
 * @param maxclients             {@code maxclients}: connections at once (10000)
 * @param timeout                {@code timeout}: seconds before an idle client is closed (0: never)
 * @param tcpKeepalive           {@code tcp-keepalive}: seconds of TCP keepalive idle time (300; 0: off)
 * @param outputHard             {@code client-output-buffer-limit normal} hard limit in bytes (0: none)
 * @param outputSoft             its soft limit in bytes (0: none)
 * @param outputSoftSeconds      how long the soft limit may be passed before the client is closed
 * @param protectedMode          {@code protected-mode}: without a password, refuse non-loopback clients
 */
public record NetSettings(long protoMaxBulkLen, long clientQueryBufferLimit, int maxclients, int timeout,
                          int tcpKeepalive, long outputHard, long outputSoft, int outputSoftSeconds,
                          boolean protectedMode) {
    public static final int DEFAULT_MAXCLIENTS = 10_000;
    /**
     * Cajon's {@code client-output-buffer-limit normal}: 64mb hard, 16mb soft for 60 s. Pending
     * output only grows past the pause threshold ({@link NetLimits#PAUSE_BYTES}) by the replies of
     * one command, since a connection's commands stop running while its output is over it; so these
     * limits only ever close a client whose single reply is that large (KEYS or HGETALL of a huge
     * keyspace or hash). Large string values streamed from their blob files are not counted: they
     * cost no memory.
     */
    public static final long DEFAULT_OUTPUT_HARD = 64L << 20;
    public static final long DEFAULT_OUTPUT_SOFT = 16L << 20;
    public static final int DEFAULT_OUTPUT_SOFT_SECONDS = 60;

    public static NetSettings defaults() {
        return new NetSettings(512L << 20, 1L << 30, DEFAULT_MAXCLIENTS, 0, 300, DEFAULT_OUTPUT_HARD, DEFAULT_OUTPUT_SOFT,
                DEFAULT_OUTPUT_SOFT_SECONDS, true);
    }

    public NetSettings withMaxclients(int n) {
        return new NetSettings(protoMaxBulkLen, clientQueryBufferLimit, n, timeout, tcpKeepalive, outputHard, outputSoft,
                outputSoftSeconds, protectedMode);
    }

    public NetSettings withTimeout(int seconds) {
        return new NetSettings(protoMaxBulkLen, clientQueryBufferLimit, maxclients, seconds, tcpKeepalive, outputHard,
                outputSoft, outputSoftSeconds, protectedMode);
    }

    public NetSettings withTcpKeepalive(int seconds) {
        return new NetSettings(protoMaxBulkLen, clientQueryBufferLimit, maxclients, timeout, seconds, outputHard, outputSoft,
                outputSoftSeconds, protectedMode);
    }

    public NetSettings withProtoMaxBulkLen(long n) {
        return new NetSettings(n, clientQueryBufferLimit, maxclients, timeout, tcpKeepalive, outputHard, outputSoft,
                outputSoftSeconds, protectedMode);
    }

    public NetSettings withClientQueryBufferLimit(long n) {
        return new NetSettings(protoMaxBulkLen, n, maxclients, timeout, tcpKeepalive, outputHard, outputSoft,
                outputSoftSeconds, protectedMode);
    }

    public NetSettings withOutputLimit(long hard, long soft, int softSeconds) {
        return new NetSettings(protoMaxBulkLen, clientQueryBufferLimit, maxclients, timeout, tcpKeepalive, hard, soft,
                softSeconds, protectedMode);
    }

    public NetSettings withProtectedMode(boolean on) {
        return new NetSettings(protoMaxBulkLen, clientQueryBufferLimit, maxclients, timeout, tcpKeepalive, outputHard,
                outputSoft, outputSoftSeconds, on);
    }
}
