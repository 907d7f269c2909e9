package dev.cajon.storage.expiry;

import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads that drive the {@link ExpiryWheel} in a running server: every tick (a few ms) each
 * advances the wheel to the clock's now, which reclaims every key whose deadline has passed.
 *
 * <p>Several threads may advance one wheel: each takes a batch of due records under the wheel's
 * lock and reclaims it outside, so in an expiry storm (hundreds of thousands of deadlines a
 * second) the deletions spread over the cores. Tests do not start a reaper; they move a manual
 * clock and call {@link ExpiryWheel#advance()} themselves.
 */
public final class ExpiryReaper implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ExpiryReaper.class);

    private final ExpiryWheel wheel;
    private final long tickNanos;
    private final Thread[] threads;
    private volatile boolean running = true;

    public ExpiryReaper(ExpiryWheel wheel, long tickMillis) {
        this(wheel, tickMillis, 1);
    }

    public ExpiryReaper(ExpiryWheel wheel, long tickMillis, int threadCount) {
        this.wheel = wheel;
        this.tickNanos = tickMillis * 1_000_000L;
        this.threads = new Thread[Math.max(1, threadCount)];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = new Thread(this::run, "cajon-expiry-" + i);
            threads[i].setDaemon(true);
        }
    }

    public ExpiryReaper start() {
        for (Thread t : threads) {
            t.start();
        }
        return this;
    }

    private void run() {
        while (running) {
            try {
                wheel.advance();
            } catch (RuntimeException e) {
                log.error("expiry tick failed", e);
            }
            LockSupport.parkNanos(tickNanos);
        }
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
