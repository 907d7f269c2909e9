package dev.cajon.server;

import dev.cajon.storage.Clock;
import dev.cajon.storage.Store;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SAVE, BGSAVE and LASTSAVE's state. Cajon's map files are its data, so a save writes nothing
 * first: it syncs every file of the store to the disk ({@link Store#save}), which under the
 * {@code no} and {@code everysec} policies is the moment a power cut stops costing what was
 * written before it. A background save runs on a thread of its own; one at a time, as in Redis.
 */
public final class Saves {
    private static final Logger log = LoggerFactory.getLogger(Saves.class);

    private final Store store;
    private final Clock clock;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile boolean scheduled;
    private volatile long lastSaveEpochSeconds;
    private volatile boolean lastOk = true;
    private volatile long lastSeconds = -1;
    private volatile long startedMillis;
    private final java.util.concurrent.atomic.AtomicLong saves = new java.util.concurrent.atomic.AtomicLong();

    public Saves(Store store, Clock clock) {
        this.store = store;
        this.clock = clock;
        // Redis's lastsave starts at the server's start
        this.lastSaveEpochSeconds = clock.nowMillis() / 1000;
    }

    /** SAVE: syncs now, on the caller's thread. False when a background save runs (Redis refuses then). */
    public boolean saveNow() throws IOException {
        if (!running.compareAndSet(false, true)) {
            return false;
        }
        try {
            run();
        } finally {
            running.set(false);
        }
        return true;
    }

    /**
     * BGSAVE: starts a background save and returns true, or returns false when one runs already
     * ({@code schedule}: then one more runs after it, as BGSAVE SCHEDULE).
     */
    public boolean background(boolean schedule) {
        if (!running.compareAndSet(false, true)) {
            if (schedule) {
                scheduled = true;
            }
            return false;
        }
        Thread t = new Thread(() -> {
            try {
                do {
                    scheduled = false;
                    try {
                        run();
                    } catch (IOException | RuntimeException e) {
                        log.error("background save failed: {}", e.toString());
                    }
                } while (scheduled);
            } finally {
                running.set(false);
            }
        }, "cajon-bgsave");
        t.setDaemon(true);
        t.start();
        return true;
    }

    private void run() throws IOException {
        long t0 = clock.nowMillis();
        startedMillis = t0;
        try {
            int files = store.save();
            lastOk = true;
            lastSaveEpochSeconds = clock.nowMillis() / 1000;
            saves.incrementAndGet();
            log.info("saved: {} files synced in {} ms", files, clock.nowMillis() - t0);
        } catch (IOException | RuntimeException e) {
            lastOk = false;
            throw e;
        } finally {
            lastSeconds = (clock.nowMillis() - t0) / 1000;
        }
    }

    public boolean inProgress() {
        return running.get();
    }

    /** LASTSAVE: when the last save that succeeded ended, in unix seconds (the start before any). */
    public long lastSave() {
        return lastSaveEpochSeconds;
    }

    public boolean lastOk() {
        return lastOk;
    }

    public long lastSeconds() {
        return lastSeconds;
    }

    /** Seconds the save now running has taken, -1 when none runs. */
    public long currentSeconds() {
        return running.get() ? (clock.nowMillis() - startedMillis) / 1000 : -1;
    }

    public long count() {
        return saves.get();
    }
}
