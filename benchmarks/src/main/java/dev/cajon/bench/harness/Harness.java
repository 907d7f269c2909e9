package dev.cajon.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import picocli.CommandLine;

/** Small things both entry points need: where the checkout is, the command line, cleanup. */
public final class Harness {

    private Harness() {
    }

    /**
     * The Cajon checkout: {@code -Dcajon.home} (set by bin/bench-side-by-side), else the current
     * directory. Default output paths and {@code {home}} in templates resolve against it.
     */
    public static Path home() {
        String h = System.getProperty("cajon.home");
        return (h == null || h.isBlank() ? Path.of("") : Path.of(h)).toAbsolutePath().normalize();
    }

    /**
     * The command line as the user typed it, for the report. The launcher passes it shell-quoted
     * in BENCH_CMDLINE; when the class is run directly we rebuild it from the arguments.
     */
    public static String commandLine(String launcher, List<String> args) {
        String fromLauncher = System.getenv("BENCH_CMDLINE");
        if (fromLauncher != null && !fromLauncher.isBlank()) {
            return fromLauncher.strip();
        }
        StringBuilder sb = new StringBuilder(launcher);
        for (String a : args) {
            sb.append(' ').append(shellQuote(a));
        }
        return sb.toString();
    }

    public static String shellQuote(String s) {
        if (!s.isEmpty() && s.matches("[A-Za-z0-9_./:=,+@%{}-]+")) {
            return s;
        }
        return "'" + s.replace("'", "'\\''") + "'";
    }

    /**
     * Runs a picocli command and exits: errors print as one line (the servers' log tails are in
     * the message), and every child process is killed before the JVM exits.
     */
    public static void main(Object command, String[] args) {
        CommandLine cl = new CommandLine(command);
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("error: " + e.getMessage());
            if (System.getenv("BENCH_DEBUG") != null) {
                e.printStackTrace(cmd.getErr());
            }
            return 1;
        });
        int rc;
        try {
            rc = cl.execute(args);
        } finally {
            Reaper.killAll();
        }
        System.exit(rc);
    }

    /** "20 min", "90 s", "1 h 5 min": durations in reports. */
    static String human(java.time.Duration d) {
        long s = d.toSeconds();
        if (s < 120) {
            return s + " s";
        }
        long m = s / 60;
        return m < 120 ? m + " min" : (m / 60) + " h " + (m % 60) + " min";
    }

    /** Deletes a directory tree, best effort: a leftover temp dir must not fail a run. */
    public static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }
}
