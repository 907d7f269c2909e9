package dev.cajon.server.net;

import dev.cajon.protocol.Argv;
import java.util.ArrayDeque;

/**
 * A connection's decoded input that has not run yet (Argv or ProtocolError, in order), with the
 * bytes its commands hold. Input waits here behind a command that waits: CLIENT PAUSE and
 * back-pressure stop reading, so it holds at most one read; a blocked command (BLPOP ...) keeps
 * reading, so that a client that disconnects is seen, and its input is then bounded by
 * client-query-buffer-limit, which closes the client as Redis's query buffer does.
 */
final class WaitingInput {
    /** What a command costs beyond its arguments' bytes (RESP framing, the arrays). */
    private static final int PER_ARG = 16;

    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    private long bytes;

    void addLast(Object msg) {
        queue.addLast(msg);
        bytes += size(msg);
    }

    void addFirst(Object msg) {
        queue.addFirst(msg);
        bytes += size(msg);
    }

    Object pollFirst() {
        Object msg = queue.pollFirst();
        if (msg != null) {
            bytes -= size(msg);
        }
        return msg;
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    void clear() {
        queue.clear();
        bytes = 0;
    }

    /** The bytes the waiting commands hold, about as many as they took on the wire. */
    long bytes() {
        return bytes;
    }

    private static long size(Object msg) {
        if (!(msg instanceof Argv a)) {
            return 0;
        }
        long n = 0;
        for (byte[] arg : a.args()) {
            n += arg.length + PER_ARG;
        }
        return n;
    }
}
