package dev.cajon.protocol.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The fuzzers' runner, shared by the decoder's (protocol) and the dispatcher's (server) targets.
 * One input is checked on a worker thread under a watchdog, so a hang fails the run instead of
 * stalling it ({@link #HANG_MILLIS}); a failing input is shrunk to a smaller one that still fails,
 * written to {@code target/fuzz-findings/}, and shown in the failure in a form that pastes into a
 * regression test.
 *
 * <p>Two modes. In the unit suite a jqwik property generates the inputs (a bounded number of
 * tries) and calls {@link #check}. {@code bin/fuzz} runs {@link #runFor}: inputs from one seeded
 * random source for a number of seconds, with a figure of inputs per second at the end.
 */
public final class Fuzz {
    /** One input taking longer than this is a hang. Generous: a loaded shared machine is slow. */
    public static final long HANG_MILLIS = Long.getLong("cajon.fuzz.hangMillis", 10_000);
    /** Shrinking gives up after this long and reports the smallest failing input found so far. */
    private static final long SHRINK_MILLIS = 30_000;

    /** Makes one input from a random source (the same seed gives the same input). */
    public interface Generator<T> {
        T next(SplittableRandom r);
    }

    /** Throws (an AssertionError or anything else) when the input breaks a property. */
    public interface Check<T> {
        void check(T input) throws Exception;
    }

    /** Smaller variants of a failing input, tried in order; the first that still fails is kept. */
    public interface Shrinker<T> {
        Iterable<T> smaller(T input);
    }

    /** What a long run did. */
    public record Stats(String target, long inputs, long millis, long seed) {
        public double perSecond() {
            return millis == 0 ? 0 : inputs * 1000.0 / millis;
        }

        @Override
        public String toString() {
            return String.format("fuzz %s: %d inputs in %.1f s (%.0f inputs/s), seed %d, no failure",
                    target, inputs, millis / 1000.0, perSecond(), seed);
        }
    }

    private static ExecutorService worker = newWorker();
    private static volatile Thread workerThread;

    private Fuzz() {
    }

    private static ExecutorService newWorker() {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fuzz-worker");
            t.setDaemon(true);
            workerThread = t;
            return t;
        });
    }

    /**
     * Checks one input under the watchdog. On failure: shrinks it, saves it, and throws an
     * AssertionError that shows the smallest failing input and its failure as the cause.
     */
    public static <T> void check(String target, T input, Check<T> check, Shrinker<T> shrinker,
            Function<T, String> show) {
        Throwable failure = attempt(input, check);
        if (failure == null) {
            return;
        }
        if (failure instanceof Hang) {
            throw fail(target, input, failure, show); // shrinking a hang could hang each try
        }
        T smallest = input;
        Throwable smallestFailure = failure;
        long until = System.currentTimeMillis() + SHRINK_MILLIS;
        boolean progress = true;
        while (progress && System.currentTimeMillis() < until) {
            progress = false;
            for (T candidate : shrinker.smaller(smallest)) {
                if (System.currentTimeMillis() >= until) {
                    break;
                }
                Throwable f = attempt(candidate, check);
                if (f != null && !(f instanceof Hang)) {
                    smallest = candidate;
                    smallestFailure = f;
                    progress = true;
                    break;
                }
            }
        }
        throw fail(target, smallest, smallestFailure, show);
    }

    /**
     * Long mode: generates and checks inputs for {@code seconds}, then returns the figures. The
     * first failure ends the run (thrown as by {@link #check}); {@code every10s} runs between
     * inputs about every ten seconds (the leak detector's poll, for one).
     */
    public static <T> Stats runFor(String target, long seconds, long seed, Generator<T> gen, Check<T> check,
            Shrinker<T> shrinker, Function<T, String> show, Runnable every10s) {
        SplittableRandom master = new SplittableRandom(seed);
        long start = System.currentTimeMillis();
        long end = start + seconds * 1000;
        long nextPeriodic = start + 10_000;
        long n = 0;
        while (System.currentTimeMillis() < end) {
            long inputSeed = master.nextLong();
            T input = gen.next(new SplittableRandom(inputSeed));
            try {
                check(target, input, check, shrinker, show);
            } catch (AssertionError e) {
                throw new AssertionError("input " + n + " (input seed " + inputSeed + ", run seed " + seed + "): "
                        + e.getMessage(), e.getCause());
            }
            n++;
            if (System.currentTimeMillis() >= nextPeriodic) {
                every10s.run();
                nextPeriodic = System.currentTimeMillis() + 10_000;
            }
        }
        every10s.run();
        Stats s = new Stats(target, n, System.currentTimeMillis() - start, seed);
        record(target, s.toString());
        return s;
    }

    /** Seconds for a long run from {@code -Dcajon.fuzz.seconds} (bin/fuzz sets it), else {@code dflt}. */
    public static long seconds(long dflt) {
        return Long.getLong("cajon.fuzz.seconds", dflt);
    }

    /** The seed of a long run: {@code -Dcajon.fuzz.seed}, else the clock. */
    public static long seed() {
        return Long.getLong("cajon.fuzz.seed", System.nanoTime());
    }

    /** A hang: the input ran past {@link #HANG_MILLIS}; the message holds the worker's stack. */
    static final class Hang extends AssertionError {
        Hang(String message) {
            super(message);
        }
    }

    private static <T> Throwable attempt(T input, Check<T> check) {
        Future<Throwable> f = worker.submit(() -> {
            try {
                check.check(input);
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        try {
            return f.get(HANG_MILLIS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            Thread t = workerThread;
            StringBuilder sb = new StringBuilder("hang: one input ran for more than " + HANG_MILLIS + " ms; the worker is at");
            if (t != null) {
                for (StackTraceElement el : t.getStackTrace()) {
                    sb.append("\n    at ").append(el);
                }
                t.interrupt();
            }
            worker.shutdownNow();
            worker = newWorker(); // the stuck thread is a daemon and is abandoned
            return new Hang(sb.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private static <T> AssertionError fail(String target, T input, Throwable failure, Function<T, String> show) {
        String shown = show.apply(input);
        Path saved = record(target + "-finding-" + System.currentTimeMillis(), shown + "\n\n" + stack(failure));
        return new AssertionError(target + " failed on " + shown + "\n(saved in " + saved + ")\n" + failure, failure);
    }

    private static String stack(Throwable t) {
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        return w.toString();
    }

    private static Path record(String name, String text) {
        try {
            Path dir = Path.of("target", "fuzz-findings");
            Files.createDirectories(dir);
            Path f = dir.resolve(name + ".txt");
            Files.writeString(f, text + "\n", StandardCharsets.UTF_8);
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ------------------------------------------------------------------ input helpers

    /** {@code in} cut into reads of the given sizes, used in turn until it is consumed. */
    public static List<byte[]> chunk(byte[] in, List<Integer> sizes) {
        List<byte[]> out = new ArrayList<>();
        int p = 0;
        for (int i = 0; p < in.length; i++) {
            int size = Math.min(in.length - p, sizes.get(i % sizes.size()));
            out.add(java.util.Arrays.copyOfRange(in, p, p + size));
            p += size;
        }
        return out;
    }

    /** RESP multibulk encoding of one command, as a client would send it. */
    public static byte[] resp(byte[]... args) {
        java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        o.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        for (byte[] a : args) {
            o.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            o.writeBytes(a);
            o.writeBytes(new byte[] {'\r', '\n'});
        }
        return o.toByteArray();
    }

    // ------------------------------------------------------------------ shrinking helpers

    /**
     * Byte strings with one run removed, halves first, then quarters, ... down to single bytes;
     * made one at a time as the shrinker asks (a 64 KiB input has 128 Ki of them).
     */
    public static Iterable<byte[]> smallerBytes(byte[] in) {
        return () -> runsRemoved(in.length, (at, size) -> {
            byte[] b = new byte[in.length - size];
            System.arraycopy(in, 0, b, 0, at);
            System.arraycopy(in, at + size, b, at, in.length - at - size);
            return b;
        });
    }

    /** Lists with one run of elements removed, largest runs first. */
    public static <E> Iterable<List<E>> smallerLists(List<E> in) {
        return () -> runsRemoved(in.size(), (at, size) -> {
            List<E> l = new ArrayList<>(in.subList(0, at));
            l.addAll(in.subList(at + size, in.size()));
            return l;
        });
    }

    private interface Cut<T> {
        T without(int at, int size);
    }

    private static <T> java.util.Iterator<T> runsRemoved(int length, Cut<T> cut) {
        return new java.util.Iterator<T>() {
            int size = Math.max(1, length / 2);
            int at = 0;

            @Override
            public boolean hasNext() {
                return length > 0 && size >= 1 && at + size <= length;
            }

            @Override
            public T next() {
                if (!hasNext()) {
                    throw new java.util.NoSuchElementException();
                }
                T t = cut.without(at, size);
                at += size;
                if (at + size > length) {
                    size = size == 1 ? 0 : size / 2;
                    at = 0;
                }
                return t;
            }
        };
    }

    /**
     * Bytes as a Java expression of a string (ISO-8859-1): printable ASCII as is, the rest escaped,
     * and runs of 16 or more of one byte as {@code "x".repeat(n)}, so a 64 KiB line stays readable.
     */
    public static String literal(byte[] b) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < b.length; i++) {
            int run = 1;
            while (i + run < b.length && b[i + run] == b[i]) {
                run++;
            }
            if (run >= 16) {
                sb.append("\" + ").append(literal(new byte[] {b[i]})).append(".repeat(").append(run).append(") + \"");
                i += run - 1;
                continue;
            }
            int c = b[i] & 0xFF;
            switch (c) {
                case '\r' -> sb.append("\\r");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c >= 0x20 && c < 0x7f) {
                        sb.append((char) c);
                    } else {
                        sb.append(String.format("\\u%04x", c));
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
