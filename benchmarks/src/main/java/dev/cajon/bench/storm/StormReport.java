package dev.cajon.bench.storm;

import dev.cajon.bench.harness.MachineInfo;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/** The Markdown section of docs/BENCHMARKS.md for one storm run. */
final class StormReport {

    /** The targets Cajon's expiry wheel is held to. */
    static final double TARGET_EMPTY_MS = 100;
    static final long TARGET_STALE_AT_500 = 0;
    static final double TARGET_RATIO = 0.90;

    private final ExpiryStorm o;
    private final List<ServerRun> runs;
    private final String commandLine;
    private final ZonedDateTime started;
    private final Path home;
    private final String loadBefore;
    private final String loadAfter;

    StormReport(ExpiryStorm options, List<ServerRun> runs, String commandLine, ZonedDateTime started,
            Path home, String loadBefore, String loadAfter) {
        this.o = options;
        this.runs = runs;
        this.commandLine = commandLine;
        this.started = started;
        this.home = home;
        this.loadBefore = loadBefore;
        this.loadAfter = loadAfter;
    }

    String markdown(String chartLink) {
        StringBuilder md = new StringBuilder();
        md.append("## Expiry storm\n\n");
        md.append("Produced by `").append(commandLine).append("` on ")
                .append(started.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")))
                .append(" (Cajon ").append(MachineInfo.gitCommit(home)).append(").\n\n");
        md.append("- Machine: ").append(MachineInfo.nproc()).append(" CPUs (").append(MachineInfo.cpuModel())
                .append("), ").append(MachineInfo.memTotal()).append(" RAM, ").append(MachineInfo.kernel())
                .append(", ").append(MachineInfo.java()).append("; ").append(MachineInfo.version(o.redisServer))
                .append(". Load average (1/5/15 min) ").append(loadBefore).append(" before the run and ")
                .append(loadAfter).append(" after it; the harness (loader, GET/SET clients, sampler) runs"
                        + " on the same cores as the server.\n");
        md.append(String.format(Locale.ROOT, "- Each server alone, on a fresh data dir: first %,d keys"
                + " without TTL (`keep:00000000042`, %d-byte values) for the foreground traffic, then"
                + " %,d keys `SET storm:0000000042 <%d bytes> %s <deadline>` over %d connections"
                + " (batches of %,d, %d in flight per connection, every reply checked). Deadlines are uniform over a %.1f s window"
                + " that opens %.1f s after the load starts, or %.1f s after its predicted end (x%.1f;"
                + " predicted from the load of the `keep:` keys) when the load is slower than that"
                + " allows; a load that still overruns the first deadline is discarded and retried"
                + " once on a fresh server.%n",
                o.baseKeys, o.valueSize, o.keys, o.valueSize, o.ttlForm.toUpperCase(Locale.ROOT),
                o.loadConnections, o.batch, o.inFlight, o.window.toMillis() / 1000.0, o.lead.toMillis() / 1000.0,
                o.gap.toMillis() / 1000.0, o.loadSafety));
        md.append(String.format(Locale.ROOT, "- Foreground traffic: %d connections x %d commands in flight,"
                + " %.0f %% SET / %.0f %% GET on random `keep:` keys, no rate limit. Quiet baseline: %.1f s"
                + " after a %.1f s warm-up, before the storm keys exist (and the same again once the"
                + " storm is over, as a check on drift). Storm: from the first deadline to the last"
                + " deadline + 500 ms. Rates are per 10 ms bucket, summed.%n",
                o.connections, o.depth, o.setRatio * 100, (1 - o.setRatio) * 100,
                o.quiet.toMillis() / 1000.0, o.warmup.toMillis() / 1000.0));
        md.append(o.warmupExpiring > 0
                ? String.format(Locale.ROOT, "- Expiry warm-up: during the GET/SET warm-up, %,d `warm:`"
                        + " keys with PXAT deadlines spread over 2 s expire (a tenth of the storm's rate),"
                        + " and the quiet baseline starts once DBSIZE is back to the keys without TTL; so"
                        + " the storm meets a warm expiry path, as the GET/SET warm-up gives it a warm"
                        + " foreground path (`--warmup-expiring 0` runs a cold storm).%n", o.warmupExpiring)
                : "- No expiry warm-up (`--warmup-expiring 0`): the storm is the first time either"
                        + " server reclaims keys, so a JVM server meets it with a cold reclaim path.\n");
        md.append(String.format(Locale.ROOT, "- DBSIZE every %d ms on a connection of its own. *Empty after"
                + " last deadline*: midpoint of the first sample that shows only the keys without TTL,"
                + " minus the last deadline (about ±10 ms). *Stale at +500 ms*: DBSIZE minus the keys"
                + " without TTL in the first sample sent at or after last deadline + 500 ms. *Lag lower"
                + " bound*: if DBSIZE shows k TTL keys at time t, a key with a deadline no later than"
                + " the k-th latest is still there, so the worst key is at least that late. *Stale during"
                + " the storm*: DBSIZE above what a perfect server would hold when the request was"
                + " sent.%n",
                o.sampleInterval.toMillis()));
        md.append("- Servers:\n");
        for (ServerRun r : runs) {
            md.append("  - ").append(r.target.name()).append(": `").append(r.target.template().text()).append("`\n");
        }
        md.append('\n');

        md.append("| |");
        runs.forEach(r -> md.append(' ').append(r.target.name()).append(" |"));
        md.append(" target |\n|---|").append("---:|".repeat(runs.size())).append("---|\n");
        row(md, String.format(Locale.ROOT, "load %,d keys with TTL", o.keys), r -> Double.isNaN(r.loadEnd) ? "n/a"
                : String.format(Locale.ROOT, "%.2f s (%,.0f keys/s)", (r.loadEnd - r.loadStart) / 1000,
                        r.keys / ((r.loadEnd - r.loadStart) / 1000)), "");
        row(md, "deadlines after the load started", r -> Double.isNaN(r.firstDeadline) ? "n/a"
                : String.format(Locale.ROOT, "%.2f .. %.2f s", (r.firstDeadline - r.loadStart) / 1000,
                        (r.lastDeadline - r.loadStart) / 1000), "all SETs done before the first");
        row(md, "**empty after last deadline**", r -> {
            if (Double.isNaN(r.emptyAfterLast)) {
                return r.leftAtEnd < 0 ? "n/a" : String.format(Locale.ROOT, "**never** (%,d left)", r.leftAtEnd);
            }
            return verdict(r.emptyAfterLast <= TARGET_EMPTY_MS, String.format(Locale.ROOT, "%+,.0f ms", r.emptyAfterLast));
        }, "≤ 100 ms");
        row(md, "**stale keys at last deadline + 500 ms**", r -> r.staleAt500 < 0 ? "n/a"
                : verdict(r.staleAt500 <= TARGET_STALE_AT_500, String.format(Locale.ROOT, "%,d", r.staleAt500)), "0");
        row(md, "worst lag, lower bound from DBSIZE", r -> Double.isNaN(r.lagLowerBound) ? "n/a"
                : String.format(Locale.ROOT, "%,.0f ms", r.lagLowerBound), "");
        row(md, "most expired keys still counted during the storm", r -> r.maxStale < 0 ? "n/a"
                : r.maxStale == 0 ? "0" : String.format(Locale.ROOT, "%,d (at %+.2f s)", r.maxStale, r.maxStaleAt / 1000), "");
        row(md, "GET/SET quiet (worst 100 ms window)", r -> Double.isNaN(r.quietRate) ? "n/a"
                : String.format(Locale.ROOT, "%,.0f ops/s (%.0f %%)", r.quietRate,
                        100 * StormAnalysis.min(r.quietWindows) / r.quietRate), "");
        row(md, "GET/SET after the load, before the first deadline", r -> Double.isNaN(r.preStormRate) ? "n/a"
                : String.format(Locale.ROOT, "%,.0f ops/s (%.0f %%)", r.preStormRate, 100 * r.preStormRate / r.quietRate), "");
        row(md, "GET/SET during the storm", r -> Double.isNaN(r.stormRate) ? "n/a"
                : String.format(Locale.ROOT, "%,.0f ops/s", r.stormRate), "");
        row(md, "GET/SET quiet again, after the storm", r -> Double.isNaN(r.postQuietRate) ? "n/a"
                : String.format(Locale.ROOT, "%,.0f ops/s (%.0f %%)", r.postQuietRate, 100 * r.postQuietRate / r.quietRate), "");
        row(md, "**storm / quiet throughput**", r -> Double.isNaN(r.ratio()) ? "n/a"
                : !Double.isNaN(r.offeredRate) ? String.format(Locale.ROOT, "%.0f %% (paced: not the target's measure)",
                        100 * r.ratio())
                : verdict(r.ratio() >= TARGET_RATIO, String.format(Locale.ROOT, "%.0f %%", 100 * r.ratio())), "≥ 90 %");
        if (runs.stream().anyMatch(r -> !Double.isNaN(r.offeredRate))) {
            row(md, "paced: GET/SET offered from the storm load on", r -> Double.isNaN(r.offeredRate) ? "n/a"
                    : String.format(Locale.ROOT, "%,.0f ops/s (%.0f %% of quiet)", r.offeredRate,
                            100 * r.offeredRate / r.quietRate), "");
            row(md, "paced: GET/SET answered during the storm / offered", r -> Double.isNaN(r.offeredRate) ? "n/a"
                    : String.format(Locale.ROOT, "%.0f %%", 100 * r.stormRate / r.offeredRate)
                    + (Double.isNaN(r.preStormRate) ? "" : String.format(Locale.ROOT,
                            " (before the first deadline: %.0f %%)", 100 * r.preStormRate / r.offeredRate)), "");
        }
        row(md, "storm / quiet after the storm", r -> Double.isNaN(r.postQuietRate) ? "n/a"
                : String.format(Locale.ROOT, "%.0f %%", 100 * r.stormRate / r.postQuietRate), "");
        row(md, "worst 100 ms window of the storm, % of quiet", r -> r.stormWindows.length == 0 ? "n/a"
                : String.format(Locale.ROOT, "%.0f %%", 100 * StormAnalysis.min(r.stormWindows) / r.quietRate), "");
        row(md, "slowest GET/SET batch round trip, quiet / storm", r -> Double.isNaN(r.stormMaxRtt) ? "n/a"
                : String.format(Locale.ROOT, "%.1f / %.1f ms", r.quietMaxRtt, r.stormMaxRtt), "");
        row(md, "`expired_keys` (INFO) grew by", r -> r.expiredDelta < 0 ? "n/a"
                : verdict(r.expiredDelta == r.keys, String.format(Locale.ROOT, "%,d", r.expiredDelta)),
                String.format(Locale.ROOT, "%,d", o.keys));
        row(md, "expiry counters from INFO stats, after", r -> counters(r), "");
        row(md, "expiry lag reported by the server (worst, p99)", r -> r.lagInfo.isEmpty() ? "not exposed"
                : String.join(", ", r.lagInfo.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList()), "");
        row(md, "keys without TTL intact", r -> r.finalDbsize < 0 ? "n/a" : verdict(
                r.misses == 0 && r.badReplies == 0 && r.early <= 0 && r.finalDbsize >= r.base,
                integrity(r)), "");
        row(md, "DBSIZE samples in the storm (median gap, slowest reply)", r -> r.stormSamples == 0 ? "n/a"
                : String.format(Locale.ROOT, "%d (%.1f ms, %.1f ms)", r.stormSamples, r.sampleIntervalMedian, r.sampleRttMax), "");
        row(md, "load average before / after this server", r -> r.loadAverageBefore + " / " + r.loadAverageAfter, "");

        md.append("\n![DBSIZE and GET/SET throughput during the expiry storm](").append(chartLink).append(")\n");
        md.append("\nReading it: in the top panel a server on target follows the dashed ideal line down"
                + " and reaches zero at the last deadline; a curve above the line is expired keys still"
                + " counted. The bottom panel is the foreground traffic per 100 ms as a share of the"
                + " server's own quiet baseline; on this shared machine single windows swing by tens of"
                + " percent even when nothing expires (see the quiet row's worst window), so compare the"
                + " storm's mean, and the storm against the quiet run after it, rather than single dips."
                + " Each server's samples are aligned on its own deadline window, so the loads, which"
                + " take different times, end at different points left of zero.\n");
        List<ServerRun> failed = runs.stream()
                .filter(r -> r.error != null || !r.notes.isEmpty() || r.attempt > 1).toList();
        if (!failed.isEmpty()) {
            md.append("\nNotes:\n\n");
            for (ServerRun r : failed) {
                if (r.error != null) {
                    md.append("- ").append(r.target.name()).append(": **failed**: ")
                            .append(r.error.lines().findFirst().orElse("")).append('\n');
                }
                if (r.attempt > 1) {
                    md.append("- ").append(r.target.name()).append(": attempt ").append(r.attempt)
                            .append(" (the first load overran its deadline window)\n");
                }
                r.notes.forEach(n -> md.append("- ").append(r.target.name()).append(": ").append(n).append('\n'));
            }
        }
        return md.toString();
    }

    private static String counters(ServerRun r) {
        if (r.expiryInfoAfter.isEmpty()) {
            return "n/a";
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> e : r.expiryInfoAfter.entrySet()) {
            if (e.getKey().equals("expired_keys")) {
                continue;
            }
            String before = r.expiryInfoBefore.get(e.getKey());
            String v = e.getValue();
            try {
                if (before != null && !e.getKey().contains("perc")) {
                    v = String.format(Locale.ROOT, "+%,d", Long.parseLong(v) - Long.parseLong(before));
                }
            } catch (NumberFormatException notAnInteger) {
                // show it as it is
            }
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append('`').append(e.getKey()).append("` ").append(v);
        }
        return sb.length() == 0 ? "none besides `expired_keys`" : sb.toString();
    }

    private static String integrity(ServerRun r) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "DBSIZE %,d at the end", r.finalDbsize));
        if (r.misses > 0) {
            sb.append(String.format(Locale.ROOT, ", %,d GET misses", r.misses));
        }
        if (r.badReplies > 0) {
            sb.append(String.format(Locale.ROOT, ", %,d bad replies", r.badReplies));
        }
        if (r.early > 0) {
            sb.append(String.format(Locale.ROOT, ", up to %,d keys gone before their deadline", r.early));
        }
        return sb.toString();
    }

    private static String verdict(boolean met, String value) {
        return value + (met ? " ✓" : " ✗");
    }

    private void row(StringBuilder md, String label, Function<ServerRun, String> f, String target) {
        md.append("| ").append(label).append(" |");
        for (ServerRun r : runs) {
            String v;
            try {
                v = f.apply(r);
            } catch (RuntimeException e) {
                v = "n/a";
            }
            md.append(' ').append(v == null ? "n/a" : v).append(" |");
        }
        md.append(' ').append(target).append(" |\n");
    }
}
