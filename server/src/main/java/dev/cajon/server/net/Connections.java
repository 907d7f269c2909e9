package dev.cajon.server.net;

import dev.cajon.server.limits.NetLimits;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The open connections, for what Redis's clientsCron does to them: close the ones idle for
 * longer than {@code timeout} seconds (0: never). {@link #sweep} runs once a second.
 */
public final class Connections {
    private final Set<ConnectionHandler> open = ConcurrentHashMap.newKeySet();
    private final NetLimits limits;
    private final LongSupplier nowMillis;

    public Connections(NetLimits limits, LongSupplier nowMillis) {
        this.limits = limits;
        this.nowMillis = nowMillis;
    }

    void add(ConnectionHandler h) {
        open.add(h);
    }

    void remove(ConnectionHandler h) {
        open.remove(h);
    }

    public int size() {
        return open.size();
    }

    /** Closes (on their own event loops) the connections idle past {@code timeout}. */
    public void sweep() {
        int timeout = limits.timeout();
        if (timeout <= 0) {
            return;
        }
        long now = nowMillis.getAsLong();
        for (ConnectionHandler h : open) {
            if (now - h.lastInteractionMillis() > timeout * 1000L) {
                h.closeIdle();
            }
        }
    }
}
