package dev.cajon.bench.harness;

import java.util.Arrays;
import java.util.List;

/**
 * The two summaries the reports use. Medians, not means, because a shared machine produces
 * occasional slow outliers that would drag a mean; geometric means of ratios, because they treat
 * "twice as fast" and "half as fast" symmetrically.
 */
final class Stats {

    private Stats() {
    }

    /** The median, or NaN for no values. */
    static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).filter(x -> !Double.isNaN(x))
                .sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }

    /** The geometric mean of the finite positive values, or NaN if there are none. */
    static double geomean(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue)
                .filter(x -> x > 0 && Double.isFinite(x)).toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return Math.exp(Arrays.stream(v).map(Math::log).sum() / v.length);
    }

    /** (max - min) / median in percent: how much the samples of one cell disagree. */
    static double spreadPercent(List<Double> values) {
        double med = median(values);
        if (Double.isNaN(med) || med == 0) {
            return Double.NaN;
        }
        double min = values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        return 100 * (max - min) / med;
    }
}
