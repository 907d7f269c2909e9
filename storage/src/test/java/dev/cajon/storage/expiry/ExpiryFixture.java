package dev.cajon.storage.expiry;

import dev.cajon.storage.Keyspace;
import dev.cajon.storage.ManualClock;
import dev.cajon.storage.SetCondition;
import dev.cajon.storage.Store;
import dev.cajon.storage.StringValue;
import dev.cajon.storage.chronicle.ValueHeader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * One data directory opened with a manual clock and an expiry wheel as the store's listener,
 * the way the server wires them, but without the reaper thread: tests move the clock and call
 * {@link ExpiryWheel#advance()} themselves.
 */
final class ExpiryFixture implements AutoCloseable {
    /** An epoch-ms "now" that is a multiple of 2^11, so it starts a level-1 slot (256 ms). */
    static final long T0 = 1_700_000_000_000L;
    static final long NO_EXPIRY = ValueHeader.NO_EXPIRY;
    static final long SECOND = 1000;
    static final long MINUTE = 60 * SECOND;
    static final long HOUR = 60 * MINUTE;
    static final long DAY = 24 * HOUR;

    final Path dir;
    final ManualClock clock;
    ExpiryWheel wheel;
    Store store;
    Keyspace ks;

    ExpiryFixture(Path dir, long start) {
        this.dir = dir;
        this.clock = new ManualClock(start);
        reopen();
    }

    /** Opens the store again with a fresh wheel (the previous store must be closed). */
    void reopen() {
        wheel = new ExpiryWheel(clock);
        store = Store.open(dir, clock, wheel);
        ks = store.keyspace(Store.DEFAULT_APP, 0);
    }

    Keyspace db(int n) {
        return store.keyspace(Store.DEFAULT_APP, n);
    }

    /** Moves the clock to {@code t} and lets the wheel catch up; returns what it reclaimed. */
    int advanceTo(long t) {
        clock.set(t);
        return wheel.advance();
    }

    int advanceBy(long ms) {
        clock.advance(ms);
        return wheel.advance();
    }

    long now() {
        return clock.nowMillis();
    }

    @Override
    public void close() {
        if (store != null) {
            store.close();
        }
    }

    // ------------------------------------------------------------------ helpers

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String s(byte[] k) {
        return new String(k, StandardCharsets.UTF_8);
    }

    static String str(StringValue v) {
        return v == null ? null : new String(v.toBytes(), StandardCharsets.UTF_8);
    }

    /** SET k v with an absolute deadline (or NO_EXPIRY). */
    static void setAt(Keyspace ks, String k, String v, long at) {
        ks.set(b(k), b(v), SetCondition.ALWAYS, at, false);
    }

    /** KEYS *: every key the keyspace reports live (this never reclaims anything). */
    static Set<String> liveKeys(Keyspace ks) {
        Set<String> out = new HashSet<>();
        ks.forEachLiveKey(k -> out.add(s(k)));
        return out;
    }

    /** A whole SCAN walk (nothing changes meanwhile), as a set. */
    static Set<String> scanAll(Keyspace ks) {
        Set<String> out = new HashSet<>();
        long cursor = 0;
        int steps = 0;
        do {
            cursor = ks.scan(cursor, 100, k -> out.add(s(k)));
            if (++steps > 1_000_000) {
                throw new AssertionError("SCAN does not terminate");
            }
        } while (cursor != 0);
        return out;
    }
}
