package dev.cajon.storage.expiry;

import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads that drive the {@link ExpiryWheel} in a running server: every tick (a few ms) the
 * first one advances the wheel to the clock's now, which reclaims every key whose deadline has
 * passed. While nothing is due for longer than a tick, the reapers sleep until it is (at most
 * {@link #MAX_IDLE_MILLIS}), so an idle server's reapers wake about 20 times a second, not 400.
 *
 * <p>The others are helpers: on each tick they look at how far the wheel has fallen behind the
 * clock and join in only when it is more than {@link #HELP_AFTER_MILLIS} behind (several threads
 * can advance one wheel: each takes a batch of due records under the wheel's lock and reclaims it
 * outside). So in ordinary times one thread reclaims and the event loops keep the other cores,
 * and in an expiry storm (hundreds of thousands of deadlines a second) the deletions spread over
 * every reaper until the backlog is gone. The threshold is a little more than the primary's
 * tick, so help arrives within about two ticks of a backlog forming (20 ms let the 99th
 * percentile lag of a storm reach 200 ms). Measured on 2 cores: one reaper alone kept more of
 * the foreground throughput during a storm but fell up to a second behind; two fixed reapers
 * kept up but took CPU from the event loops all the time.
 *
 * <p>Tests do not start a reaper; they move a manual clock and call {@link ExpiryWheel#advance()}.
 */
public final class ExpiryReaper implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ExpiryReaper.class);
    /** A helper joins in when the wheel is this far behind the clock. */
    public static final long HELP_AFTER_MILLIS = 8;

    /**
     * Longest a reaper sleeps while nothing is due (Redis's active expiry runs 10 times a second
     * too): it bounds how late a key is reclaimed after a jump of the wall clock.
     */
    public static final long MAX_IDLE_MILLIS = 100;

    private final ExpiryWheel wheel;
    private final long tickMillis;
    private final Thread[] threads;
    private volatile boolean running = true;

    public ExpiryReaper(ExpiryWheel wheel, long tickMillis) {
        this(wheel, tickMillis, 1);
    }

    /** {@code threadCount} reapers: one that always ticks and {@code threadCount - 1} helpers. */
    public ExpiryReaper(ExpiryWheel wheel, long tickMillis, int threadCount) {
        this.wheel = wheel;
        this.tickMillis = tickMillis;
        this.threads = new Thread[Math.max(1, threadCount)];
        for (int i = 0; i < threads.length; i++) {
            boolean helper = i > 0;
            threads[i] = new Thread(() -> run(helper), "cajon-expiry-" + i);
            threads[i].setDaemon(true);
        }
    }

    public ExpiryReaper start() {
        for (Thread t : threads) {
            t.start();
        }
        return this;
    }

    /**
     * Ticks while work is near, and sleeps until it is due when it is not (see
     * {@link ExpiryWheel#planSleep}): filing an earlier deadline unparks the primary, and the
     * primary unparks the helpers when it goes back to ticking, so that a storm that begins after
     * a quiet spell finds every reaper ticking, as before.
     */
    private void run(boolean helper) {
        boolean slept = false;
        while (running) {
            if (!helper || helps(wheel.behindMillis())) {
                try {
                    wheel.advance();
                } catch (RuntimeException e) {
                    log.error("expiry tick failed", e);
                }
            }
            long ms = wheel.planSleep(tickMillis, MAX_IDLE_MILLIS, helper ? null : Thread.currentThread());
            if (!helper) {
                boolean quiet = ms > tickMillis;
                if (slept && !quiet) {
                    for (int i = 1; i < threads.length; i++) {
                        LockSupport.unpark(threads[i]);
                    }
                }
                slept = quiet;
            }
            LockSupport.parkNanos(ms * 1_000_000L);
        }
    }

    /** Whether a helper joins in when the wheel is {@code behindMillis} behind the clock. */
    static boolean helps(long behindMillis) {
        return behindMillis > HELP_AFTER_MILLIS;
    }

    @Override
    public void close() {
        running = false;
        for (Thread t : threads) {
            LockSupport.unpark(t);
        }
        for (Thread t : threads) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
