package dev.cajon.bench.storm;

import dev.cajon.bench.harness.CommandTemplate;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything measured for one server in one storm run, raw (times on the run's {@link Timeline},
 * in ms) and derived ({@link #analyse}). NaN, -1 or null where a step did not happen.
 */
final class ServerRun {

    /** One server to measure. */
    record Target(String name, String slug, CommandTemplate template) {
    }

    final Target target;
    int attempt;
    String error;
    final List<String> notes = new ArrayList<>();

    // ---- raw
    long startMillis = -1;
    String loadAverageBefore = "n/a";
    String loadAverageAfter = "n/a";
    int keys;
    long base;
    double baseLoadMillis = Double.NaN;
    double quietFrom = Double.NaN;
    double quietTo = Double.NaN;
    long[] quietOps;
    long[] quietRtt;
    double predictedLoadMillis = Double.NaN;
    String ttlForm;
    double loadStart = Double.NaN;
    double loadEnd = Double.NaN;
    /** The nominal window: deadlines were drawn uniformly from [windowStart, windowStart + width]. */
    double windowStart = Double.NaN;
    double windowWidth = Double.NaN;
    /** The real deadlines, sorted. */
    double[] deadlines;
    double firstDeadline = Double.NaN;
    double lastDeadline = Double.NaN;
    long[] stormOps;
    long[] stormRtt;
    double stormLoadFrom = Double.NaN;
    double stormLoadTo = Double.NaN;
    /** The same traffic once the storm is over (DBSIZE back to the keys without TTL, plus the tail). */
    double postQuietFrom = Double.NaN;
    double postQuietTo = Double.NaN;
    DbsizeSampler.Samples samples;
    long misses;
    long badReplies;
    String mixedFailure;
    long finalDbsize = -1;
    /** INFO stats fields about expiry (expired_*, expire_*), before the storm load and after. */
    Map<String, String> expiryInfoBefore = new LinkedHashMap<>();
    Map<String, String> expiryInfoAfter = new LinkedHashMap<>();
    /** Fields of INFO that look like an expiry lag (Cajon's wheel, if it exposes one). */
    Map<String, String> lagInfo = new LinkedHashMap<>();

    // ---- derived
    double emptyAfterLast = Double.NaN;
    long leftAtEnd = -1;
    long staleAt500 = -1;
    double staleAt500SampleOffset = Double.NaN;
    double lagLowerBound = Double.NaN;
    long maxStale = -1;
    double maxStaleAt = Double.NaN;
    long early = -1;
    double quietRate = Double.NaN;
    double[] quietWindows = new double[0];
    double preStormRate = Double.NaN;
    double stormRate = Double.NaN;
    double postQuietRate = Double.NaN;
    /** With --paced: the GET/SET rate offered from the storm load on; NaN when unpaced. */
    double offeredRate = Double.NaN;
    double[] stormWindows = new double[0];
    double quietMaxRtt = Double.NaN;
    double stormMaxRtt = Double.NaN;
    double sampleIntervalMedian = Double.NaN;
    double sampleRttMax = Double.NaN;
    int stormSamples;
    long expiredDelta = -1;

    ServerRun(Target target) {
        this.target = target;
    }

    double ratio() {
        return stormRate / quietRate;
    }

    /** Fills the derived fields from the raw ones. */
    void analyse() {
        if (samples == null || deadlines == null || Double.isNaN(loadEnd)) {
            return;
        }
        double stormEnd = lastDeadline + 500;
        int e = StormAnalysis.firstEmpty(samples, base, loadEnd);
        if (e >= 0) {
            emptyAfterLast = samples.mid(e) - lastDeadline;
        }
        if (samples.count() > 0) {
            leftAtEnd = samples.dbsize()[samples.count() - 1] - base;
        }
        int s500 = StormAnalysis.firstSentAtOrAfter(samples, stormEnd);
        if (s500 >= 0) {
            staleAt500 = samples.dbsize()[s500] - base;
            staleAt500SampleOffset = samples.sent()[s500] - stormEnd;
        }
        lagLowerBound = StormAnalysis.lagLowerBound(samples, deadlines, base, loadEnd);
        int ms = StormAnalysis.mostStale(samples, deadlines, base, loadEnd);
        if (ms >= 0) {
            maxStale = StormAnalysis.staleAt(samples, deadlines, base, ms);
            maxStaleAt = samples.sent()[ms] - firstDeadline;
        } else {
            maxStale = 0;
        }
        early = StormAnalysis.mostEarly(samples, deadlines, base, loadEnd, 2.0);
        if (quietOps != null) {
            quietRate = StormAnalysis.throughput(quietOps, quietFrom, quietTo);
            quietWindows = StormAnalysis.windows(quietOps, quietFrom, quietTo);
            quietMaxRtt = StormAnalysis.maxRttMillis(quietRtt, quietFrom, quietTo);
        }
        if (stormOps != null) {
            // the first 100 ms after the load belong to neither phase: connections are opening
            if (firstDeadline - (stormLoadFrom + 100) >= 200) {
                preStormRate = StormAnalysis.throughput(stormOps, stormLoadFrom + 100, firstDeadline);
            }
            double to = Math.min(stormEnd, stormLoadTo);
            stormRate = StormAnalysis.throughput(stormOps, firstDeadline, to);
            stormWindows = StormAnalysis.windows(stormOps, firstDeadline, to);
            stormMaxRtt = StormAnalysis.maxRttMillis(stormRtt, firstDeadline, to);
            if (!Double.isNaN(postQuietFrom)) {
                postQuietRate = StormAnalysis.throughput(stormOps, postQuietFrom, postQuietTo);
            }
        }
        sampleIntervalMedian = StormAnalysis.median(StormAnalysis.intervals(samples, firstDeadline, stormEnd));
        double[] rtts = StormAnalysis.roundTrips(samples, firstDeadline, stormEnd);
        stormSamples = rtts.length;
        sampleRttMax = rtts.length == 0 ? Double.NaN : java.util.Arrays.stream(rtts).max().getAsDouble();
        try {
            expiredDelta = Long.parseLong(expiryInfoAfter.getOrDefault("expired_keys", "x"))
                    - Long.parseLong(expiryInfoBefore.getOrDefault("expired_keys", "x"));
        } catch (NumberFormatException missing) {
            expiredDelta = -1;
        }
    }

    /**
     * Writes the raw series as CSV, times in ms since the deadline window opened: the DBSIZE
     * samples with the ideal count, and the GET/SET commands per 10 ms bucket.
     */
    void dump(Path prefix) throws IOException {
        if (samples == null || deadlines == null) {
            return;
        }
        Files.createDirectories(prefix.toAbsolutePath().getParent());
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(Path.of(prefix + "-dbsize.csv")))) {
            w.println("sent_ms,received_ms,dbsize,ideal_at_mid");
            for (int i = 0; i < samples.count(); i++) {
                w.printf(java.util.Locale.ROOT, "%.3f,%.3f,%d,%d%n", samples.sent()[i] - windowStart,
                        samples.received()[i] - windowStart, samples.dbsize()[i],
                        StormAnalysis.ideal(deadlines, base, samples.mid(i)));
            }
        }
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(Path.of(prefix + "-getset.csv")))) {
            w.println("phase,bucket_start_ms,commands,max_batch_rtt_us");
            writeOps(w, "quiet", quietOps, quietRtt, quietFrom, quietTo);
            writeOps(w, "storm", stormOps, stormRtt, stormLoadFrom, stormLoadTo);
        }
    }

    private void writeOps(PrintWriter w, String phase, long[] ops, long[] rtt, double from, double to) {
        if (ops == null) {
            return;
        }
        int b0 = Math.max(0, (int) Math.ceil(from / MixedLoad.BUCKET_MS));
        int b1 = Math.min(ops.length, (int) Math.floor(to / MixedLoad.BUCKET_MS));
        for (int b = b0; b < b1; b++) {
            w.printf(java.util.Locale.ROOT, "%s,%.0f,%d,%d%n", phase, b * MixedLoad.BUCKET_MS - windowStart,
                    ops[b], rtt[b]);
        }
    }
}
