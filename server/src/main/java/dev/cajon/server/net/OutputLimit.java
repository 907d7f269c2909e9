package dev.cajon.server.net;

import dev.cajon.server.limits.NetLimits;
import java.util.function.LongSupplier;

/**
 * Redis's checkClientOutputBufferLimits for a normal client, for one connection: the hard limit
 * closes it at once; past the soft limit it closes once it has stayed above it longer than the
 * soft seconds. The limits are read at every check, so CONFIG SET applies to open connections.
 */
final class OutputLimit {
    private final NetLimits limits;
    private final LongSupplier nowMillis;
    /** When pending output first passed the soft limit; -1 while under it. */
    private long softSince = -1;

    OutputLimit(NetLimits limits, LongSupplier nowMillis) {
        this.limits = limits;
        this.nowMillis = nowMillis;
    }

    /** Whether the connection must close, its output in memory being {@code pending} bytes (asked only when a limit is set). */
    boolean exceeded(LongSupplier pending) {
        long hard = limits.outputHard();
        long soft = limits.outputSoft();
        if (hard <= 0 && soft <= 0) {
            return false;
        }
        long used = pending.getAsLong();
        if (hard > 0 && used >= hard) {
            return true;
        }
        if (soft > 0 && used >= soft) {
            long now = nowMillis.getAsLong();
            if (softSince < 0) {
                softSince = now;
                return false;
            }
            return now - softSince > limits.outputSoftSeconds() * 1000L;
        }
        softSince = -1;
        return false;
    }
}
