package dev.cajon.storage.expiry;

import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that drives the {@link ExpiryWheel} in a running server: every tick (a few ms) it
 * advances the wheel to the clock's now, which reclaims every key whose deadline has passed. Tests
 * do not start it; they move a manual clock and call {@link ExpiryWheel#advance()} themselves.
 */
public final class ExpiryReaper implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ExpiryReaper.class);

    private final ExpiryWheel wheel;
    private final long tickNanos;
    private final Thread thread;
    private volatile boolean running = true;

    public ExpiryReaper(ExpiryWheel wheel, long tickMillis) {
        this.wheel = wheel;
        this.tickNanos = tickMillis * 1_000_000L;
        this.thread = new Thread(this::run, "cajon-expiry");
        this.thread.setDaemon(true);
    }

    public ExpiryReaper start() {
        thread.start();
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
        LockSupport.unpark(thread);
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
