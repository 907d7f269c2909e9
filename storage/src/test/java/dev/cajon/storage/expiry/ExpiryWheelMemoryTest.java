package dev.cajon.storage.expiry;

import static dev.cajon.storage.expiry.ExpiryFixture.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.SetCondition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the wheel costs per key with a TTL: 100,000 keys with 16-byte names and TTLs spread over
 * 2 to 4 seconds. The number printed here goes into the docs; the assertion is only a sanity
 * bound (records are 16 bytes of header plus the key, in slot arrays grown by half).
 */
class ExpiryWheelMemoryTest {
    @TempDir
    Path dir;

    @Test
    void bytesPerTtlKey() {
        int n = 100_000;
        Random rnd = new Random(3);
        try (ExpiryFixture f = new ExpiryFixture(dir, T0 + 7)) {
            long t = System.nanoTime();
            for (int i = 0; i < n; i++) {
                byte[] key = String.format("session:%08d", i).getBytes(StandardCharsets.US_ASCII);
                assertEquals(16, key.length);
                long at = f.now() + 2_000 + rnd.nextInt(2_001);
                f.ks.set(key, new byte[] {'1'}, SetCondition.ALWAYS, at, false);
            }
            long loadMs = (System.nanoTime() - t) / 1_000_000;
            long scheduled = f.wheel.scheduled();
            long bytes = f.wheel.bytes();
            double perKey = (double) bytes / scheduled;
            System.out.printf("ExpiryWheelMemoryTest: %d TTL keys (16-byte names, TTL 2-4 s): wheel holds %d records "
                    + "in %d bytes = %.1f bytes per TTL key (record = 16 + 16 = 32 bytes); load took %d ms%n",
                    n, scheduled, bytes, perKey, loadMs);
            assertEquals(n, scheduled);
            assertEquals(n, f.ks.volatileSize());
            assertTrue(perKey >= 32, "a record is at least 16 + key bytes: " + perKey);
            assertTrue(perKey < 64, "bytes per TTL key: " + perKey);

            // and every byte is given back once they have all fired
            assertEquals(0, f.advanceBy(2_000), "at the earliest deadline nothing is due yet");
            assertEquals(n, f.ks.size());
            t = System.nanoTime();
            assertEquals(n, f.advanceBy(2_001), "1 ms past the latest deadline everything is");
            long reclaimMs = (System.nanoTime() - t) / 1_000_000;
            System.out.printf("ExpiryWheelMemoryTest: reclaiming %d keys took %d ms%n", n, reclaimMs);
            assertEquals(0, f.ks.size());
            assertEquals(0, f.wheel.scheduled());
            assertEquals(0, f.wheel.bytes());
        }
    }
}
