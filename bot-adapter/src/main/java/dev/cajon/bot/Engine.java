package dev.cajon.bot;

import dev.cajon.bot.crash.StepHook;
import dev.cajon.bot.index.Wheel;
import dev.cajon.bot.kv.Kv;
import dev.cajon.bot.store.Fields;
import dev.cajon.bot.store.Keys;
import dev.cajon.bot.store.SeqLog;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the inbox, the outbox and the sweeper share: the port, the key layout, the clock, the
 * settings, the counters, the wheel and the logs, and who this process is.
 *
 * <p>Who owns a lease: {@code owner = instanceId#incarnation}. The incarnation is new on every
 * start, so a restarted instance knows at once the records it held before it died (same
 * instanceId, older incarnation) from those it is working on now (its own incarnation).
 */
final class Engine {
    static final Logger log = LoggerFactory.getLogger(BotAdapter.class);

    final Kv kv;
    final Keys keys;
    final LongSupplier clock;
    final String instanceId;
    final String owner;
    final long leaseMillis;
    final long retentionMillis;
    final long chatStateTtlMillis;
    final long chatRetryMillis;
    final int inboundRetries;
    final int outboxRetries;
    final Backoff backoff;
    final AmbiguousPolicy ambiguousPolicy;
    final boolean failOpen;
    final int maxPayloadBytes;
    final Provider provider;
    final Handler handler;
    final Consumer<BotEvent> events;
    final StepHook steps;
    final RandomGenerator random;
    final Counters counters = new Counters();
    final Wheel wheel;
    final Claims claims;
    final SeqLog deadIn;
    final SeqLog failedIn;
    final SeqLog deadOut;
    final SeqLog failedOut;
    final SeqLog ambiguous;

    Engine(BotAdapter.Builder b) {
        this.kv = b.kv;
        this.keys = new Keys(b.namespace);
        this.clock = b.clock;
        this.instanceId = b.instanceId;
        this.owner = b.instanceId + "#" + UUID.randomUUID().toString().substring(0, 8);
        this.leaseMillis = b.lease.toMillis();
        this.retentionMillis = b.retention.toMillis();
        this.chatStateTtlMillis = b.chatStateTtl.toMillis();
        this.chatRetryMillis = b.chatRetry.toMillis();
        this.inboundRetries = b.inboundRetries;
        this.outboxRetries = b.outboxRetries;
        this.backoff = b.backoff;
        this.ambiguousPolicy = b.ambiguousPolicy;
        this.failOpen = b.failOpen;
        this.maxPayloadBytes = b.maxPayloadBytes;
        this.provider = b.provider;
        this.handler = b.handler;
        this.events = b.events;
        this.steps = b.kv instanceof StepHook h ? h : StepHook.NONE;
        this.random = b.random;
        this.wheel = new Wheel(kv, keys, b.wheelWidth.toMillis(), clock, 3_600_000L, retentionMillis);
        this.claims = new Claims(kv, keys, instanceId, owner, retentionMillis, clock, leaseMillis);
        this.deadIn = new SeqLog(kv, keys, "dead-in", retentionMillis);
        this.failedIn = new SeqLog(kv, keys, "failed-in", retentionMillis);
        this.deadOut = new SeqLog(kv, keys, "dead-out", retentionMillis);
        this.failedOut = new SeqLog(kv, keys, "failed-out", retentionMillis);
        this.ambiguous = new SeqLog(kv, keys, "ambiguous", retentionMillis);
    }

    long now() {
        return clock.getAsLong();
    }

    /** Held by an earlier life of this instance: take it back at once. */
    boolean mineFromBefore(String leaseOwner) {
        return leaseOwner != null && !leaseOwner.equals(owner)
                && leaseOwner.startsWith(instanceId + "#")
                && leaseOwner.indexOf('#', instanceId.length() + 1) < 0;
    }

    /** Whether a lease of {@code f} (owner, until) is still held by someone else than a past me. */
    boolean heldByOther(Fields f) {
        String o = f.get("owner", "");
        return !o.isEmpty() && f.getLong("until", 0) > now() && !mineFromBefore(o) && !o.equals(owner);
    }

    void emit(BotEvent.Type type, String ref, String detail) {
        try {
            events.accept(new BotEvent(type, ref, detail));
        } catch (RuntimeException e) {
            log.warn("event listener failed on {} {}", type, ref, e);
        }
    }

    void before(String step) {
        steps.before(step);
    }

    void after(String step) {
        steps.after(step);
    }
}
