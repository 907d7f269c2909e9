package dev.cajon.bench.jmh;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The executor JMH runs benchmark threads on when a fork is started with
 * {@code -Djmh.executor=CUSTOM -Djmh.executor.class=dev.cajon.bench.jmh.EventLoopThreadExecutor}
 * (which {@code bin/jmh} does): its threads are Netty {@code FastThreadLocalThread}s that clean
 * up their thread locals, like the event-loop threads that run every command in production.
 *
 * <p>Why it matters: Netty 4.2's {@code Recycler} only pools objects on such threads. On JMH's
 * plain worker threads every {@code ChannelOutboundBuffer.Entry}, pooled slice and the like is a
 * fresh allocation that a real server never makes, and the allocation per op would be wrong.
 */
public final class EventLoopThreadExecutor extends ThreadPoolExecutor {
    /** The constructor JMH's CUSTOM executor type calls. */
    public EventLoopThreadExecutor(int maxThreads, String prefix) {
        super(maxThreads, maxThreads, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(),
                new DefaultThreadFactory(prefix, true));
    }
}
