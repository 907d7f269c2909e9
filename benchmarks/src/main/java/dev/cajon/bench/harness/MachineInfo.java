package dev.cajon.bench.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What a reader of a benchmark table needs to know about where it was measured: cores, CPU
 * model, memory, kernel, Java, the redis versions, the Cajon commit and the load average (the
 * cores may be shared, and a high load explains a noisy table).
 */
public final class MachineInfo {

    private MachineInfo() {
    }

    public static String nproc() {
        String n = capture(List.of("nproc"), Duration.ofSeconds(5));
        return n.isEmpty() ? Integer.toString(Runtime.getRuntime().availableProcessors()) : n;
    }

    public static String cpuModel() {
        return procField("/proc/cpuinfo", "model name").orElse("unknown CPU");
    }

    public static String memTotal() {
        return procField("/proc/meminfo", "MemTotal").map(v -> {
            long kib = Long.parseLong(v.replaceAll("[^0-9]", ""));
            return String.format("%.1f GiB", kib / 1024.0 / 1024.0);
        }).orElse("unknown");
    }

    public static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "unknown";
        }
    }

    public static String kernel() {
        return System.getProperty("os.name") + " " + System.getProperty("os.version");
    }

    public static String java() {
        return System.getProperty("java.vm.name") + " " + System.getProperty("java.version");
    }

    /** First line of {@code EXE --version}, e.g. "Redis server v=7.0.15 sha=... malloc=jemalloc-5.3.0". */
    public static String version(String executable) {
        String s = capture(List.of(executable, "--version"), Duration.ofSeconds(10));
        return s.isEmpty() ? "unknown" : s.lines().findFirst().orElse("unknown");
    }

    /** Short commit of the Cajon checkout, with "+dirty" if the work tree has changes. */
    public static String gitCommit(Path home) {
        String rev = capture(List.of("git", "-C", home.toString(), "rev-parse", "--short", "HEAD"),
                Duration.ofSeconds(10));
        if (rev.isEmpty() || rev.contains("fatal") || rev.contains(" ")) {
            return "no commit";
        }
        String status = capture(List.of("git", "-C", home.toString(), "status", "--porcelain",
                "--untracked-files=no"), Duration.ofSeconds(10));
        return status.isEmpty() ? rev : rev + "+dirty";
    }

    /** One line for the report. */
    public static String summary(String redisServer, String redisBenchmark) {
        return nproc() + " CPUs (" + cpuModel() + "), " + memTotal() + " RAM, " + kernel() + ", "
                + java() + "; " + version(redisServer) + "; " + version(redisBenchmark);
    }

    /** Runs a short command and returns its trimmed stdout+stderr, or "" on any failure. */
    static String capture(List<String> argv, Duration timeout) {
        Path out = null;
        try {
            out = Files.createTempFile("harness-", ".txt");
            Process p = Reaper.start(new ProcessBuilder(new ArrayList<>(argv))
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(ServerProcess.nullDevice())));
            boolean done = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            Reaper.stop(p, Duration.ofSeconds(1));
            return done ? Files.readString(out, StandardCharsets.UTF_8).strip() : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        } finally {
            if (out != null) {
                try {
                    Files.deleteIfExists(out);
                } catch (IOException ignored) {
                    // a temp file left behind is harmless
                }
            }
        }
    }

    private static java.util.Optional<String> procField(String file, String key) {
        try {
            for (String line : Files.readAllLines(Path.of(file))) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equals(key)) {
                    return java.util.Optional.of(line.substring(colon + 1).trim());
                }
            }
        } catch (IOException e) {
            // not Linux, or /proc not mounted
        }
        return java.util.Optional.empty();
    }
}
