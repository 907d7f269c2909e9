package dev.cajon.bench.storm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Turns the raw samples of one storm run into the numbers of the report. Pure functions over
 * arrays, all times in milliseconds on the run's {@link Timeline}.
 *
 * <h2>Which end of a DBSIZE sample</h2>
 * The server computed a DBSIZE reply at some moment between our "sent" and "received". Each
 * number uses the end that cannot flatter the server, or says otherwise:
 * <ul>
 *   <li>"empty after the last deadline" uses the midpoint of the first empty sample (the error is
 *       at most half a round trip, and samples are 10 ms apart, so the figure is good to about
 *       ±10 ms);</li>
 *   <li>"stale keys at last deadline + 500 ms" is the first sample sent at or after that instant:
 *       the state a client would see asking then;</li>
 *   <li>the lag lower bound and the stale count during the window use "sent", the earliest
 *       moment the observed count can describe, so neither overstates;</li>
 *   <li>the check for keys gone before their deadline uses "received", so a slow reply is not
 *       mistaken for early reclamation.</li>
 * </ul>
 *
 * <h2>Ideal curve and the lag bound</h2>
 * With the sorted deadlines {@code d[0..N)}, a perfect server holds {@code base + #{d > t}} keys at
 * time {@code t}. If a sample sent at {@code t} shows {@code k} TTL keys still there, then some
 * remaining key has a deadline of at most {@code d[N-k]} (any {@code k} of the keys include one no
 * later than the k-th largest), so that key is at least {@code t - d[N-k]} late. The maximum over
 * all samples is a lower bound of the worst per-key lag, exact when keys are reclaimed in deadline
 * order. It needs nothing from the server, so it works for Redis as well as for Cajon.
 */
final class StormAnalysis {

    private StormAnalysis() {
    }

    /** Number of deadlines {@code <= t} in a sorted array. */
    static int countAtOrBefore(double[] sorted, double t) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] <= t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** What a perfect server's DBSIZE would be at {@code t}. */
    static long ideal(double[] sorted, long base, double t) {
        return base + sorted.length - countAtOrBefore(sorted, t);
    }

    /** Index of the first sample sent at or after {@code t}, or -1. */
    static int firstSentAtOrAfter(DbsizeSampler.Samples s, double t) {
        for (int i = 0; i < s.count(); i++) {
            if (s.sent()[i] >= t) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Index of the first sample sent at or after {@code from} that shows at most {@code base} keys
     * (every TTL key gone), or -1.
     */
    static int firstEmpty(DbsizeSampler.Samples s, long base, double from) {
        for (int i = 0; i < s.count(); i++) {
            if (s.sent()[i] >= from && s.dbsize()[i] <= base) {
                return i;
            }
        }
        return -1;
    }

    /** A lower bound of the worst per-key lag, in ms (see the class comment); 0 if none seen. */
    static double lagLowerBound(DbsizeSampler.Samples s, double[] sorted, long base, double from) {
        int n = sorted.length;
        double worst = 0;
        for (int i = 0; i < s.count(); i++) {
            if (s.sent()[i] < from) {
                continue;
            }
            long k = s.dbsize()[i] - base;
            if (k < 1 || k > n) {
                continue;
            }
            worst = Math.max(worst, s.sent()[i] - sorted[(int) (n - k)]);
        }
        return worst;
    }

    /**
     * The sample index with the most expired keys still counted, or -1. A sample's stale count is
     * DBSIZE minus the ideal count when the request was sent, the earliest moment the reply can
     * describe, so it never overstates.
     */
    static int mostStale(DbsizeSampler.Samples s, double[] sorted, long base, double from) {
        int best = -1;
        long worst = 0;
        for (int i = 0; i < s.count(); i++) {
            if (s.sent()[i] < from) {
                continue;
            }
            long stale = staleAt(s, sorted, base, i);
            if (stale > worst) {
                worst = stale;
                best = i;
            }
        }
        return best;
    }

    static long staleAt(DbsizeSampler.Samples s, double[] sorted, long base, int i) {
        return s.dbsize()[i] - ideal(sorted, base, s.sent()[i]);
    }

    /**
     * The most keys missing before their deadline: {@code ideal(received + slackMs) - dbsize},
     * over samples sent at or after {@code from}. Using "received", the latest moment the reply
     * can describe, means a slow reply is never mistaken for early reclamation; positive means a
     * server dropped keys early (or lost keys). The slack covers "expired when now > at" versus
     * "now >= at" and clock rounding.
     */
    static long mostEarly(DbsizeSampler.Samples s, double[] sorted, long base, double from, double slackMs) {
        long worst = 0;
        for (int i = 0; i < s.count(); i++) {
            if (s.sent()[i] < from) {
                continue;
            }
            worst = Math.max(worst, ideal(sorted, base, s.received()[i] + slackMs) - s.dbsize()[i]);
        }
        return worst;
    }

    /** Commands per second over the whole 10 ms buckets inside {@code [from, to)}; NaN if none. */
    static double throughput(long[] ops, double from, double to) {
        int b0 = (int) Math.ceil(from / MixedLoad.BUCKET_MS);
        int b1 = (int) Math.floor(to / MixedLoad.BUCKET_MS);
        b1 = Math.min(b1, ops.length);
        if (b1 <= b0 || b0 < 0) {
            return Double.NaN;
        }
        long sum = 0;
        for (int b = b0; b < b1; b++) {
            sum += ops[b];
        }
        return sum / ((b1 - b0) * MixedLoad.BUCKET_MS / 1000.0);
    }

    /** Commands per second in consecutive 100 ms windows starting at {@code from}, whole ones only. */
    static double[] windows(long[] ops, double from, double to) {
        List<Double> out = new ArrayList<>();
        for (double w = from; w + 100 <= to + 1e-9; w += 100) {
            double v = throughput(ops, w, w + 100);
            if (Double.isNaN(v)) {
                break;
            }
            out.add(v);
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** The slowest batch round trip in {@code [from, to)}, in ms; NaN if none. */
    static double maxRttMillis(long[] rttMicros, double from, double to) {
        int b0 = Math.max(0, (int) Math.ceil(from / MixedLoad.BUCKET_MS));
        int b1 = Math.min(rttMicros.length, (int) Math.floor(to / MixedLoad.BUCKET_MS));
        long max = -1;
        for (int b = b0; b < b1; b++) {
            max = Math.max(max, rttMicros[b]);
        }
        return max < 0 ? Double.NaN : max / 1000.0;
    }

    static double min(double[] a) {
        return a.length == 0 ? Double.NaN : Arrays.stream(a).min().getAsDouble();
    }

    static double mean(double[] a) {
        return a.length == 0 ? Double.NaN : Arrays.stream(a).average().getAsDouble();
    }

    static double median(double[] a) {
        if (a.length == 0) {
            return Double.NaN;
        }
        double[] s = a.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /** Gaps between consecutive samples sent in {@code [from, to)}. */
    static double[] intervals(DbsizeSampler.Samples s, double from, double to) {
        List<Double> out = new ArrayList<>();
        for (int i = 1; i < s.count(); i++) {
            if (s.sent()[i - 1] >= from && s.sent()[i] < to) {
                out.add(s.sent()[i] - s.sent()[i - 1]);
            }
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** Round trips of the samples sent in {@code [from, to)}. */
    static double[] roundTrips(DbsizeSampler.Samples s, double from, double to) {
        List<Double> out = new ArrayList<>();
        for (int i = 0; i < s.count(); i++) {
            if (s.sent()[i] >= from && s.sent()[i] < to) {
                out.add(s.received()[i] - s.sent()[i]);
            }
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }
}
