package dev.cajon.bench.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Runs one {@code redis-benchmark} test against one server and parses its {@code --csv} output.
 *
 * <p>One test per invocation, so that a test the server fails (an unsupported command, an error
 * reply) or a hang costs only that sample, and every invocation has its own timeout.
 *
 * <p>redis-benchmark 7 prints a header and one row per test:
 * {@code "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms",
 * "p99_latency_ms","max_latency_ms"}. On an error reply it prints {@code Error from server: ...}
 * and no row, which we report as a failed sample.
 */
final class RedisBenchmark {

    /** The fixed part of the workload, identical for every server. */
    record Workload(String executable, int clients, int dataSize, int keyspace) {
        List<String> argv(int port, String test, int pipeline, long requests) {
            return List.of(executable,
                    "-h", CommandTemplate.LOOPBACK,
                    "-p", Integer.toString(port),
                    "-c", Integer.toString(clients),
                    "-d", Integer.toString(dataSize),
                    "-r", Integer.toString(keyspace),
                    "-n", Long.toString(requests),
                    "-P", Integer.toString(pipeline),
                    "-t", test.toLowerCase(Locale.ROOT),
                    "--csv");
        }
    }

    /** One parsed CSV row. Latencies in milliseconds. */
    record Row(String test, double rps, double avgMs, double minMs, double p50Ms, double p95Ms,
            double p99Ms, double maxMs) {
    }

    /** The outcome of one invocation: a row, or why there is none. */
    record Outcome(Row row, String failure, Duration elapsed) {
        boolean ok() {
            return row != null;
        }
    }

    private RedisBenchmark() {
    }

    static Outcome run(Workload w, int port, String test, int pipeline, long requests,
            Duration timeout, Path scratch) throws IOException {
        Path out = Files.createTempFile(scratch, "rb-", ".out");
        Path err = Files.createTempFile(scratch, "rb-", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(w.argv(port, test, pipeline, requests))
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(ServerProcess.nullDevice()));
            long t0 = System.nanoTime();
            Process p = Reaper.start(pb);
            boolean finished;
            try {
                finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                finished = false;
            }
            Duration elapsed = Duration.ofNanos(System.nanoTime() - t0);
            if (!finished) {
                Reaper.stop(p, Duration.ofSeconds(2));
                return new Outcome(null, "timed out after " + timeout.toSeconds() + " s", elapsed);
            }
            Reaper.stop(p, Duration.ofSeconds(1));
            List<Row> rows = parseCsv(Files.readString(out, StandardCharsets.UTF_8));
            if (rows.isEmpty()) {
                String why = firstLines(Files.readString(err, StandardCharsets.UTF_8)
                        + Files.readString(out, StandardCharsets.UTF_8), 3);
                return new Outcome(null, "exit " + p.exitValue() + ", no CSV row: " + why, elapsed);
            }
            return new Outcome(rowOf(rows, test), null, elapsed);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /**
     * The row of {@code test}: LRANGE_100 prints the LPUSH that fills its list first
     * ("LPUSH (needed to benchmark LRANGE)"), then its own row ("LRANGE_100 (first 100 elements)").
     */
    static Row rowOf(List<Row> rows, String test) {
        String want = test.toUpperCase(Locale.ROOT);
        for (Row r : rows) {
            String name = r.test().toUpperCase(Locale.ROOT);
            if (name.equals(want) || name.startsWith(want + " ")) {
                return r;
            }
        }
        return rows.get(0);
    }

    static List<Row> parseCsv(String text) {
        List<Row> rows = new ArrayList<>();
        for (String line : text.split("\r?\n")) {
            List<String> f = splitCsvLine(line.trim());
            if (f.size() < 8 || f.get(0).equals("test")) {
                continue;
            }
            try {
                rows.add(new Row(f.get(0), d(f.get(1)), d(f.get(2)), d(f.get(3)), d(f.get(4)),
                        d(f.get(5)), d(f.get(6)), d(f.get(7))));
            } catch (NumberFormatException notARow) {
                // a progress or warning line that happens to have commas
            }
        }
        return rows;
    }

    private static double d(String s) {
        return Double.parseDouble(s);
    }

    /** Splits one CSV line with double-quoted fields ({@code ""} is a literal quote). */
    static List<String> splitCsvLine(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cur.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cur.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        out.add(cur.toString());
        return out;
    }

    private static String firstLines(String s, int n) {
        String[] lines = s.strip().split("\r?\n");
        return String.join(" | ", java.util.Arrays.copyOf(lines, Math.min(n, lines.length)));
    }
}
