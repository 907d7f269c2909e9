package dev.cajon.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.ValueHeader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Keyspace#liveBytes}, what an app's byte quota counts: kept up to date by every write,
 * delete and expiry, equal to a fresh count of the map (the scan after a crash) and kept across a
 * clean restart, and back to zero when the keys are gone.
 */
class LiveBytesTest {
    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(1_800_000_000_000L);

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(Random r, int max) {
        byte[] v = new byte[r.nextInt(max)];
        r.nextBytes(v);
        return v;
    }

    /** A random mix of every kind of write, including blobs, TTLs and expiry. */
    private void churn(Keyspace ks, Random r, int ops) {
        for (int i = 0; i < ops; i++) {
            byte[] k = b("k" + r.nextInt(300));
            switch (r.nextInt(10)) {
                case 0 -> ks.set(k, value(r, 40_000), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
                case 1 -> ks.set(k, value(r, 100), SetCondition.IF_ABSENT, clock.nowMillis() + r.nextInt(50), false);
                case 2 -> ks.append(k, value(r, 3000));
                case 3 -> ks.del(k);
                case 4 -> ks.incrBy(b("n" + r.nextInt(20)), r.nextInt(1000));
                case 5 -> ks.rename(k, b("k" + r.nextInt(300)), false);
                case 6 -> ks.setRange(k, r.nextInt(20_000), value(r, 100));
                case 7 -> ks.expireAt(k, clock.nowMillis() + r.nextInt(30), ExpireCondition.NONE);
                case 8 -> {
                    clock.advance(r.nextInt(20));
                    ks.reclaimIfDue(k);
                }
                default -> ks.set(k, value(r, 200), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
            }
        }
    }

    @Test
    void matchesAFreshCountAfterEveryKindOfWriteAndBothKindsOfRestart() throws Exception {
        long counted;
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(0, ks.liveBytes());
            churn(ks, new Random(42), 5000);
            // drop what has expired, so the fresh count below (which skips expired keys) agrees
            clock.advance(100);
            for (int i = 0; i < 300; i++) {
                ks.get(b("k" + i));
            }
            counted = ks.liveBytes();
            assertTrue(counted > 0);
        }
        // a clean restart keeps the figure (clean.state), a crash restart recounts it (scan)
        try (Store store = Store.open(dir, clock)) {
            assertEquals(counted, store.keyspace(Store.DEFAULT_APP, 0).liveBytes(), "after a clean restart");
        }
        Files.writeString(dir.resolve("cajon.running"), "12345");
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(counted, ks.liveBytes(), "the incremental figure equals a fresh count of the map");
            for (int i = 0; i < 300; i++) {
                ks.del(b("k" + i));
            }
            for (int i = 0; i < 20; i++) {
                ks.del(b("n" + i));
            }
            assertEquals(0, ks.dbsize());
            assertEquals(0, ks.liveBytes(), "deletes give every byte back");
        }
    }

    @Test
    void expiryByTheWheelGivesTheBytesBack() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            ks.set(b("big"), new byte[50_000], SetCondition.ALWAYS, clock.nowMillis() + 10, false);
            long one = ks.liveBytes();
            assertTrue(one > 50_000, "a blob counts its bytes: " + one);
            clock.advance(11);
            ks.reclaimIfDue(b("big"));
            assertEquals(0, ks.liveBytes());
        }
    }
}
