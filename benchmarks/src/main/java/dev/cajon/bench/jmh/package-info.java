/**
 * JMH benchmarks of the hot path, one class per area: {@link dev.cajon.bench.jmh.RespDecodeBenchmark}
 * and {@link dev.cajon.bench.jmh.RespEncodeBenchmark} (protocol),
 * {@link dev.cajon.bench.jmh.DispatchBenchmark} (command table and dispatcher),
 * {@link dev.cajon.bench.jmh.StorageBenchmark} (keyspace on Chronicle Map),
 * {@link dev.cajon.bench.jmh.ExpiryWheelBenchmark} (expiry wheel) and
 * {@link dev.cajon.bench.jmh.EndToEndBenchmark} (the real pipeline in an EmbeddedChannel).
 *
 * <p>Run them with {@code bin/jmh} (any JMH arguments, e.g. {@code bin/jmh Dispatch -prof gc}),
 * which builds this module when needed and passes the JVM flags of {@code server/target/jvm.flags}
 * to every fork; the benchmarks that open a Chronicle Map refuse to run without them.
 * {@code bin/jmh --baseline} records the whole set into {@code benchmarks/jmh-baseline/};
 * {@code bin/jmh --compare A.json B.json} compares two recorded runs.
 *
 * <p>{@code bin/jmh} also runs the benchmark threads as Netty {@code FastThreadLocalThread}s
 * ({@link dev.cajon.bench.jmh.EventLoopThreadExecutor}), as the event loops that run commands in
 * production are: Netty's object pools only work on those.
 *
 * <p>Principle 12 of the guide (hot paths don't allocate) is checked with {@code -prof gc}: its
 * {@code gc.alloc.rate.norm} is the bytes allocated per operation, i.e. per command.
 */
package dev.cajon.bench.jmh;
