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

    /**
     * When a level-1 slot cascades into level 0 (as each quarter second of a storm does), every
     * level-0 slot it feeds is sized once for what it receives: the wheel then holds exactly the
     * records' bytes, not slot arrays grown by half again per record.
     */
    @Test
    void aCascadeSizesTheSlotsItFillsExactly() {
        int n = 5_000;
        long l0Span = 1L << ExpiryWheel.L0_BITS;
        try (ExpiryFixture f = new ExpiryFixture(dir, T0 + 7)) {
            // every deadline inside one level-1 slot: (b, b + span), b a level-1 boundary
            long b = (f.now() / l0Span + 2) * l0Span;
            for (int i = 0; i < n; i++) {
                byte[] key = String.format("session:%08d", i).getBytes(StandardCharsets.US_ASCII);
                f.ks.set(key, new byte[] {'1'}, SetCondition.ALWAYS, b + 1 + (i * 7919L) % (l0Span - 1), false);
            }
            assertTrue(f.wheel.bytes() >= 32L * n);
            // to b: the slot cascades, nothing is due yet
            assertEquals(0, f.advanceBy(b + 1 - f.now()));
            assertEquals(n, f.wheel.scheduled());
            assertEquals(32L * n, f.wheel.bytes(), "16 bytes of header plus the 16-byte key per record, no slack");
            assertEquals(n, f.advanceBy(l0Span));
            assertEquals(0, f.wheel.bytes());
        }
    }
}
