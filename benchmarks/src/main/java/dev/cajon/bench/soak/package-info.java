/**
 * The kill -9 soak ({@code bin/soak-kill9}): the real Cajon launcher on a temp data dir, a mixed
 * load from several client threads in two apps, SIGKILL at a random moment, restart on the same
 * dir, and a check of every key the load touched against a model of what was acknowledged.
 *
 * <p>Not a unit test and not timed: it reports counts and violations, and exits non-zero on any.
 * {@link dev.cajon.bench.soak.Kill9Soak} runs the rounds, {@link dev.cajon.bench.soak.LoadThread}
 * drives one client's keys, {@link dev.cajon.bench.soak.Step} encodes each command and the state
 * it leaves, {@link dev.cajon.bench.soak.Checker} compares the restarted server with the model.
 */
package dev.cajon.bench.soak;
