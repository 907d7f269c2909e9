package dev.cajon.bench.soak;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The soak's summary on the terminal and its section of docs/BENCHMARKS.md. */
final class SoakReport {

    private SoakReport() {
    }

    /** "pid 1234 (java)" for each process a kill -9 reached. */
    static String shortKilled(List<String> killed) {
        List<String> out = new ArrayList<>();
        for (String k : killed) {
            int sp = k.indexOf(' ');
            String pid = sp < 0 ? k : k.substring(0, sp);
            String cmd = sp < 0 ? "?" : k.substring(sp + 1);
            out.add("pid " + pid + " (" + cmd.substring(cmd.lastIndexOf('/') + 1) + ")");
        }
        return out.isEmpty() ? "nothing (already dead?)" : String.join(", ", out);
    }

    private static final java.util.regex.Pattern GREW =
            java.util.regex.Pattern.compile(" (\\S+)/0 grew to generation (\\d+) \\((\\d+) entries\\)");

    /**
     * "soak_a: generation 5 (65536 entries), ..." from the server's log: how far each app's map
     * grew over the run (the log is appended across restarts).
     */
    static String growth(java.nio.file.Path serverLog) {
        java.util.Map<String, String> last = new java.util.TreeMap<>();
        java.util.Map<String, Integer> steps = new java.util.TreeMap<>();
        try {
            for (String line : java.nio.file.Files.readAllLines(serverLog,
                    java.nio.charset.StandardCharsets.UTF_8)) {
                java.util.regex.Matcher m = GREW.matcher(line);
                if (m.find() && java.util.Arrays.asList(Kill9Soak.APPS).contains(m.group(1))) {
                    last.put(m.group(1), "generation " + m.group(2) + String.format(" (%,d entries)",
                            Long.parseLong(m.group(3))));
                    steps.merge(m.group(1), 1, Integer::sum);
                }
            }
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
        if (last.isEmpty()) {
            return "no growth logged";
        }
        List<String> out = new ArrayList<>();
        last.forEach((app, g) -> out.add(app + " " + g + ", " + steps.get(app) + " growth steps"));
        return String.join("; ", out);
    }

    /** How many rounds' kill -9 reached exactly one process, a JVM. */
    static long killedJvmOnly(List<String> killedWhat) {
        return killedWhat.stream().filter(k -> !k.contains(",") && k.endsWith("/java")).count();
    }

    static long percentile(List<Long> xs, double q) {
        if (xs.isEmpty()) {
            return -1;
        }
        List<Long> s = new ArrayList<>(xs);
        s.sort(null);
        return s.get(Math.min(s.size() - 1, (int) Math.floor(q * (s.size() - 1) + 0.5)));
    }

    static String summary(long seed, int rounds, int clients, Counts t, Violations v, List<Long> restarts,
                          List<String> killedWhat, long[] dbsize, String growth, Duration took) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("soak-kill9 summary: seed %d, %d rounds, %d clients, %d s%n", seed, rounds, clients,
                took.toSeconds()));
        sb.append(String.format("  rounds:               %d (kill -9 reached one JVM and nothing else in %d)%n", rounds,
                killedJvmOnly(killedWhat)));
        sb.append(String.format("  acknowledged ops:     %,d%n", t.ackedOps));
        sb.append(String.format("  keys checked:         %,d (%,d large values)%n", t.keys, t.bigValues));
        sb.append(String.format("  counters checked:     %,d%n", t.counters));
        sb.append(String.format("  TTLs checked:         %,d (%,d of them gone after their deadline)%n", t.ttls,
                t.expired));
        sb.append(String.format("  transactions checked: %,d%n", t.transactions));
        sb.append(String.format("  in flight at kills:   %,d ops (%,d MSET/RENAME/EXEC), %,d found applied%n",
                t.inflight, t.inflightMultiKey, t.inflightApplied));
        sb.append(String.format("  isolation checks:     %,d%n", t.isolation));
        sb.append(String.format("  restart after kill:   p50 %d ms, max %d ms%n", percentile(restarts, 0.5),
                percentile(restarts, 1.0)));
        sb.append(String.format("  keys at the end:      %s %,d, %s %,d%n", Kill9Soak.APPS[0], dbsize[0],
                Kill9Soak.APPS[1], dbsize[1]));
        sb.append("  map growth (db 0):    ").append(growth).append('\n');
        sb.append("  load average at end:  ").append(dev.cajon.bench.harness.MachineInfo.loadAverage()).append('\n');
        sb.append(String.format("  failures:             %d%s%n", v.total(), byKind(v.counts())));
        List<Violations.Violation> first = v.first();
        for (int i = 0; i < Math.min(10, first.size()); i++) {
            Violations.Violation f = first.get(i);
            sb.append(i == 0 ? "  first failure: " : "  then: ").append("round ").append(f.round()).append(", ")
                    .append(f.kind()).append(": ").append(f.detail()).append('\n');
        }
        if (v.noteCount() > 0) {
            sb.append(String.format("  notes (not failures): %d%n", v.noteCount()));
            v.notes().forEach(n -> sb.append("    ").append(n).append('\n'));
        }
        return sb.toString();
    }

    private static String byKind(Map<Violations.Kind, Integer> counts) {
        if (counts.isEmpty()) {
            return "";
        }
        List<String> parts = new ArrayList<>();
        counts.forEach((k, n) -> parts.add(k + " " + n));
        return " (" + String.join(", ", parts) + ")";
    }

    static String markdown(Kill9Soak o, String commandLine, ZonedDateTime started, long seed, int rounds, Counts t,
                           Violations v, List<Long> restarts, List<String> killedWhat, long[] dbsize, String growth,
                           Duration took) {
        StringBuilder md = new StringBuilder();
        md.append("## kill -9 soak (").append(started.toLocalDate()).append(")\n\n");
        md.append("`").append(commandLine).append("`, seed ").append(seed).append(", ").append(rounds)
                .append(" rounds in ").append(took.toSeconds()).append(" s on ")
                .append(dev.cajon.bench.harness.MachineInfo.nproc()).append(" cores. To run it again with the same"
                        + " choices: `bin/soak-kill9 --rounds ").append(rounds).append(" --seed ").append(seed)
                .append("` (the interleaving of the clients and the instant the kill lands are not reproducible).\n\n");
        md.append("Each round: ").append(o.clients).append(" client threads write for a random ")
                .append(o.loadMin.toMillis()).append("-").append(o.loadMax.toMillis()).append(" ms, each its own keys in"
                        + " two apps (ACL users; the same key names in both, with values that name their app): SET (no"
                        + " TTL, EX 3600, PX/EX under 3 s), GET, INCRBY, APPEND (and APPENDs that take a value past the"
                        + " 16 KiB blob threshold), MSET of 2-5 keys, EXPIRE 3600 and PEXPIRE under 3 s, DEL, RENAME"
                        + " (of large values too), values of ")
                .append(o.bigMin / 1024).append(" KiB to ").append(o.bigMax / 1024 / 1024).append(" MiB, and MULTI/EXEC"
                        + " of 2-4 writes, half under WATCH, a third of those spoiled by a SET from another connection"
                        + " (EXEC must answer nil). The string keys grow by ").append(o.growth)
                .append(" per client and app per round, so the maps grow across rounds (first generation 256"
                        + " entries, four times per step). Then SIGKILL of the server's JVM (`bin/cajon-server` execs"
                        + " it), a restart on the same dir, and GET + PTTL of every key the model knows, in both apps,"
                        + " plus DBSIZE (and SCAN if it is larger) and the admin's view. One op at most per client is"
                        + " in flight at the kill: its keys must be all as acknowledged or all as it leaves them.\n\n");
        md.append("| figure | value |\n|---|---:|\n");
        row(md, "rounds (SIGKILL, restart, check)", rounds);
        row(md, "acknowledged ops", t.ackedOps);
        row(md, "keys checked (sum over rounds)", t.keys);
        row(md, "of them large values (blobs)", t.bigValues);
        row(md, "counters checked", t.counters);
        row(md, "TTLs checked (decided: there with its TTL, or gone)", t.ttls);
        row(md, "of them gone after their deadline", t.expired);
        row(md, "transactions checked", t.transactions);
        row(md, "ops in flight at a kill", t.inflight);
        row(md, "of them MSET, RENAME or EXEC (whole or nothing)", t.inflightMultiKey);
        row(md, "of them found applied", t.inflightApplied);
        row(md, "isolation checks", t.isolation);
        md.append("| restart after kill -9, p50 / max | ").append(percentile(restarts, 0.5)).append(" / ")
                .append(percentile(restarts, 1.0)).append(" ms |\n");
        md.append("| keys at the end (").append(Kill9Soak.APPS[0]).append(", ").append(Kill9Soak.APPS[1])
                .append(") | ").append(String.format("%,d, %,d", dbsize[0], dbsize[1])).append(" |\n");
        md.append("| map growth (db 0, from the server log) | ").append(growth).append(" |\n");
        md.append("| load average at the end (1, 5, 15 min) | ").append(dev.cajon.bench.harness.MachineInfo.loadAverage())
                .append(" |\n");
        row(md, "failures", v.total());
        md.append('\n');
        if (v.total() > 0) {
            md.append("Failures by kind: ").append(byKind(v.counts())).append(". First: round ")
                    .append(v.first().get(0).round()).append(", ").append(v.first().get(0).kind()).append(": ")
                    .append(v.first().get(0).detail().replace("\n", " ")).append("\n\n");
        }
        if (v.noteCount() > 0) {
            md.append("Notes (not failures): ").append(v.noteCount()).append(", e.g. ")
                    .append(v.notes().get(0)).append("\n\n");
        }
        return md.toString();
    }

    private static void row(StringBuilder md, String name, long n) {
        md.append("| ").append(name).append(" | ").append(String.format("%,d", n)).append(" |\n");
    }
}
