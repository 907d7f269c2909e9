/**
 * The expiry storm benchmark: a million keys whose deadlines fall within two seconds, on Cajon and
 * on redis-server in turn. It measures how long after the last deadline DBSIZE is back to the keys
 * without TTL, how many expired keys are still counted 500 ms after it, and how much of the quiet
 * GET/SET throughput is left while the keys are reclaimed.
 *
 * <p>Entry point: {@link dev.cajon.bench.storm.ExpiryStorm}, run as
 * {@code bin/bench-side-by-side storm}. It reuses the harness's server processes, reaper, deadline
 * and Markdown section writer ({@code dev.cajon.bench.harness}); like the harness it only ever
 * talks to 127.0.0.1, bounds every wait, and kills its servers when it exits.
 */
package dev.cajon.bench.storm;
