package dev.cajon.storage;

import java.util.concurrent.atomic.AtomicLong;

/** A clock that only moves when told to. Shared by the tests of every module. */
public final class ManualClock implements Clock {
    private final AtomicLong now;

    public ManualClock(long startMillis) {
        this.now = new AtomicLong(startMillis);
    }

    @Override
    public long nowMillis() {
        return now.get();
    }

    public void advance(long millis) {
        now.addAndGet(millis);
    }

    public void set(long millis) {
        now.set(millis);
    }
}
