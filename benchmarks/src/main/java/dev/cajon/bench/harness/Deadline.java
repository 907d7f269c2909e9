package dev.cajon.bench.harness;

import java.time.Duration;

/**
 * The global time budget of one harness run. Every loop asks it before starting more work, and
 * every per-run timeout is cut down to what is left, so the whole run ends in bounded time even
 * when a server hangs.
 */
public final class Deadline {

    private final long endNanos;
    private final Duration budget;

    public Deadline(Duration budget) {
        this.budget = budget;
        this.endNanos = System.nanoTime() + budget.toNanos();
    }

    public Duration remaining() {
        return Duration.ofNanos(Math.max(0, endNanos - System.nanoTime()));
    }

    public boolean expired() {
        return System.nanoTime() >= endNanos;
    }

    /** {@code perRun} or what is left of the budget, whichever is shorter. */
    public Duration cap(Duration perRun) {
        Duration left = remaining();
        return left.compareTo(perRun) < 0 ? left : perRun;
    }

    Duration budget() {
        return budget;
    }

    /**
     * Parses durations as people write them on a command line: {@code 90s}, {@code 20m},
     * {@code 1h}, {@code 500ms}, a bare number of seconds, or ISO-8601 ({@code PT20M}).
     */
    public static Duration parse(String s) {
        String t = s.trim().toLowerCase(java.util.Locale.ROOT);
        if (t.startsWith("pt") || t.startsWith("p")) {
            return Duration.parse(t.toUpperCase(java.util.Locale.ROOT));
        }
        if (t.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
        }
        char unit = t.charAt(t.length() - 1);
        if (Character.isDigit(unit)) {
            return Duration.ofSeconds(Long.parseLong(t));
        }
        long n = Long.parseLong(t.substring(0, t.length() - 1));
        return switch (unit) {
            case 's' -> Duration.ofSeconds(n);
            case 'm' -> Duration.ofMinutes(n);
            case 'h' -> Duration.ofHours(n);
            default -> throw new IllegalArgumentException("not a duration: " + s);
        };
    }

    /** A picocli converter for {@link #parse}. */
    public static final class Converter implements picocli.CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return parse(value);
        }
    }
}
