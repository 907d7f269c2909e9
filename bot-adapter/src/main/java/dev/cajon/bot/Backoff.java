package dev.cajon.bot;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with jitter: the n-th retry waits {@code d = min(cap, base * 2^(n-1))},
 * of which the first half is fixed and the second half random ("equal jitter"), so retries of
 * many records spread out but none comes back sooner than half its step.
 */
public record Backoff(Duration base, Duration cap) {
    public static final Backoff DEFAULT = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60));

    public long delayMillis(int retry, RandomGenerator random) {
        long b = Math.max(1, base.toMillis());
        long d = retry >= 62 ? cap.toMillis() : Math.min(cap.toMillis(), b << Math.min(retry - 1, 40));
        long half = d / 2;
        return half + random.nextLong(d - half + 1);
    }
}
