package dev.cajon.bench.jmh;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What each part of a command's metering costs on one thread: the two clock reads, a Micrometer
 * counter increment, and a Prometheus timer record with and without its percentile histogram, and
 * with the histogram in a registry whose wall clock is read once a second (as the server's is).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MetricsBenchmark {
    private Counter counter;
    private Timer histogram;
    private Timer plain;
    private Timer coarse;
    private long nanos = 700;

    @Setup
    public void setUp() {
        PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        counter = Counter.builder("c").tag("app", "a").tag("command", "get").register(r);
        histogram = Timer.builder("t").tag("command", "get").publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(1_000)).maximumExpectedValue(Duration.ofSeconds(10))
                .register(r);
        plain = Timer.builder("p").tag("command", "get").register(r);
        // the server's registry: a wall clock read once a second (CoarseClock), not per record
        long wall = System.currentTimeMillis();
        PrometheusMeterRegistry coarseRegistry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT,
                new io.prometheus.metrics.model.registry.PrometheusRegistry(), new io.micrometer.core.instrument.Clock() {
                    @Override
                    public long wallTime() {
                        return wall;
                    }

                    @Override
                    public long monotonicTime() {
                        return System.nanoTime();
                    }
                });
        coarse = Timer.builder("t").tag("command", "get").publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(1_000)).maximumExpectedValue(Duration.ofSeconds(10))
                .register(coarseRegistry);
    }

    @Benchmark
    public long nanoTimeTwice() {
        long s = System.nanoTime();
        return System.nanoTime() - s;
    }

    @Benchmark
    public void counterIncrement() {
        counter.increment();
    }

    @Benchmark
    public void timerWithHistogram() {
        nanos = (nanos * 7 + 13) & 0xFFFF;
        histogram.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** As the server records: the histogram timer of a registry whose wall clock is coarse. */
    @Benchmark
    public void timerWithHistogramCoarseClock() {
        nanos = (nanos * 7 + 13) & 0xFFFF;
        coarse.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Benchmark
    public void timerWithoutHistogram() {
        nanos = (nanos * 7 + 13) & 0xFFFF;
        plain.record(nanos, TimeUnit.NANOSECONDS);
    }
}
