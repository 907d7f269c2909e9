package dev.cajon.storage.expiry;

import dev.cajon.storage.FileTrees;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.ManualClock;
import dev.cajon.storage.SetCondition;
import dev.cajon.storage.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs the expiry path on a scratch store so that the JIT has compiled it before the first real
 * storm. Measured before this existed: a server's first storm (1M keys over 2 s) met a reclaim
 * path that the JVM ran interpreted for its first 0.8 s and then spent 0.3 core-seconds compiling,
 * and its 99th percentile lag was 145 ms where a warm server's was 18-88 ms.
 *
 * <p>The scratch store lives in a temporary directory outside the data directory, has its own
 * wheel and a {@link ManualClock}, and is deleted afterwards: nothing of it reaches the server's
 * keyspaces, counters or INFO. Its keyspace stays within its first generation (no growth). The
 * walk goes through everything a storm runs: SET with a deadline (filing, on several wheel
 * levels), cascades, chunks taken by {@link ExpiryWheel#advance} and by
 * {@link ExpiryWheel#assist}, and the in-place reclaim of each key.
 */
public final class ExpiryWarmup {
    /** Keys per round: inside the first generation's capacity, so the scratch map never grows. */
    public static final int KEYS_PER_ROUND = 12_000;
    /** Rounds: about 36k reclamations, past C2's compile thresholds for the loop and its callees. */
    public static final int ROUNDS = 3;
    /** Deadlines are spread over this window (beyond the wheel's first level, so cascades run). */
    static final int WINDOW_MS = 600;

    private ExpiryWarmup() {
    }

    /** Runs the warm-up; returns the number of keys its wheel reclaimed. */
    public static long run() {
        return run(KEYS_PER_ROUND, ROUNDS);
    }

    static long run(int keysPerRound, int rounds) {
        Path dir;
        try {
            dir = Files.createTempDirectory("cajon-expiry-warmup");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            ManualClock clock = new ManualClock(System.currentTimeMillis());
            ExpiryWheel wheel = new ExpiryWheel(clock);
            long reclaimed = 0;
            try (Store store = Store.open(dir, clock, wheel)) {
                Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
                byte[] value = new byte[32];
                for (int round = 0; round < rounds; round++) {
                    long start = clock.nowMillis();
                    for (int i = 0; i < keysPerRound; i++) {
                        byte[] key = ("warmup:" + round + ":" + i).getBytes(StandardCharsets.US_ASCII);
                        long at = start + 1 + (i * 7919L) % WINDOW_MS;
                        ks.set(key, value, SetCondition.ALWAYS, at, false);
                    }
                    // fall behind far enough for the event loops' assist, then let advance finish
                    for (long t = 0; t <= WINDOW_MS; t += 4 * ExpiryWheel.ASSIST_AFTER_MILLIS) {
                        clock.advance(4 * ExpiryWheel.ASSIST_AFTER_MILLIS);
                        for (int n = wheel.assist(); n > 0; n = wheel.assist()) {
                            reclaimed += n;
                        }
                        reclaimed += wheel.advance();
                    }
                    clock.advance(1);
                    reclaimed += wheel.advance();
                }
            }
            return reclaimed;
        } finally {
            FileTrees.delete(dir);
        }
    }
}
