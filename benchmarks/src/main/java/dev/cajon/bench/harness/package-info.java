/**
 * The side-by-side load harness: runs the same {@code redis-benchmark} workload against a Cajon
 * server and against {@code redis-server} (plain and with an everysec AOF), and measures memory
 * per key and restart time for both.
 *
 * <p>Everything here drives servers as separate processes on 127.0.0.1 and never binds or
 * connects to any other address. Every wait is bounded by a timeout, and every child process is
 * registered with {@link dev.cajon.bench.harness.Reaper} so that it dies with the harness.
 *
 * <p>Entry points: {@link dev.cajon.bench.harness.SideBySide} (throughput and latency tables,
 * chart) and {@link dev.cajon.bench.harness.MemoryAndRestart} (RSS and disk per key, time from
 * start to the first PONG on a warm data dir). Both are run through {@code bin/bench-side-by-side}.
 */
package dev.cajon.bench.harness;
