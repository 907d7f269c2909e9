package dev.cajon.bot;

import dev.cajon.bot.kv.Kv;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * A chat bot's durability layer: an inbox, an outbox, leases with fencing, retries and dead
 * letters, on any {@link Kv} (embedded Cajon storage, a Cajon server, Redis 7, a Redis Cluster).
 *
 * <pre>{@code
 * try (BotAdapter bot = BotAdapter.builder()
 *         .backend(JedisKv.remote("127.0.0.1", 6379))
 *         .instanceId("bot-1")
 *         .provider((chat, text) -> whatsapp.send(chat, text))
 *         .handler((msg, ctx) -> ctx.send("got " + msg.payload()))
 *         .outboxRetries(5).backoff(Duration.ofSeconds(1), Duration.ofSeconds(60))
 *         .build()) {
 *     webhook.onMessage(m -> bot.handle(new InboundMessage(m.from(), m.id(), m.text())));
 * }
 * }</pre>
 *
 * <p>{@link #build} recovers at once what an earlier life of the same instanceId left in flight
 * (see {@link #recover}); the sweeper ({@link #sweep}, also run every {@code sweepEvery} by a
 * background thread unless disabled) hands over what is due: deferred sends, retries, expired
 * leases and records journaled but never claimed.
 */
public final class BotAdapter implements AutoCloseable {
    private final Engine engine;
    private final Outbox outbox;
    private final Inbox inbox;
    private final ScheduledExecutorService timers;
    private volatile boolean closed;
    /** The store was down at build: the first sweep that reaches it recovers first. */
    private volatile boolean recoveryPending;

    private BotAdapter(Builder b) {
        this.engine = new Engine(b);
        this.outbox = new Outbox(engine);
        java.util.concurrent.ScheduledThreadPoolExecutor pool = new java.util.concurrent.ScheduledThreadPoolExecutor(2, r -> {
            Thread t = new Thread(r, "cajon-bot-" + b.instanceId);
            t.setDaemon(true);
            return t;
        });
        pool.setRemoveOnCancelPolicy(true); // one heartbeat per message, cancelled when it is done
        this.timers = pool;
        outbox.timers(pool);
        this.inbox = new Inbox(engine, outbox, timers);
        engine.counters.register(b.registry, b.instanceId);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Journals, dedupes, claims and handles one delivery; see {@link HandleResult}. */
    public HandleResult handle(InboundMessage message) {
        return inbox.handle(message);
    }

    /**
     * A send under an explicit key; without one ({@code key} null), the n-th send of the message
     * a handler on this thread is handling ({@code <inbound id>:<n>}, as the handler context's
     * send), or else a random key.
     */
    public SendResult send(String chat, String content, String key) {
        if (key == null) {
            SendResult r = inbox.sendWhileHandling(chat, content);
            if (r != null) {
                return r;
            }
        }
        return outbox.send(chat, content, key != null ? key : UUID.randomUUID().toString());
    }

    /** Records a send for {@code notBefore}; a second enqueue with the same key does nothing. */
    public SendResult enqueue(String chat, String content, String key, Instant notBefore) {
        return outbox.enqueue(chat, content, Objects.requireNonNull(key, "key"), notBefore.toEpochMilli());
    }

    /**
     * Hands over everything that has come due, and moves this life's claims-log cursor. Returns the
     * number of references the wheel handed over. Safe to run from several replicas at once.
     */
    public int sweep() {
        if (recoveryPending) {
            startUp();
            recoveryPending = false;
        }
        int n = engine.wheel.sweep(10_000, this::onDue);
        engine.claims.compact(10_000, this::resolvedForClaims); // 10,000 a sweep: at one sweep per 200 ms, 50,000 claims a second
        return n;
    }

    private void onDue(String ref) {
        try {
            if (Refs.isInbound(ref)) {
                inbox.onDue(Refs.inboundId(ref), false);
            } else {
                outbox.onDue(Refs.outboundKey(ref), false);
            }
        } catch (RuntimeException ex) {
            Engine.log.warn("sweeping {} failed; it stays due", ref.replace('\n', ' '), ex);
            engine.wheel.schedule(engine.now() + engine.chatRetryMillis, ref);
        }
    }

    /**
     * Takes back what an earlier life of this instanceId held (leased messages are handled again,
     * sends caught in CALLING are ambiguous), walking each earlier life's claims log from its
     * cursor. Runs on build (or on the first sweep that reaches a store that was down then).
     */
    public int recover() {
        return engine.claims.recover(this::resolvedForClaims, ref -> {
            if (Refs.isInbound(ref)) {
                inbox.onDue(Refs.inboundId(ref), true);
            } else {
                outbox.onDue(Refs.outboundKey(ref), true);
            }
        });
    }

    /** The wheel's cursor (first adapter on the store), this life in the lives log, recovery. */
    private void startUp() {
        engine.wheel.start();
        engine.claims.start();
        recover();
    }

    private boolean resolvedForClaims(String ref, String life) {
        return Refs.isInbound(ref) ? inbox.resolvedForClaims(Refs.inboundId(ref), life)
                : outbox.resolvedForClaims(Refs.outboundKey(ref), life);
    }

    // ------------------------------------------------------------------ operations

    public List<InboundRecord> deadInbound(int limit) {
        return inboundIn(engine.deadIn, "DEAD", limit);
    }

    public List<InboundRecord> failedInbound(int limit) {
        return inboundIn(engine.failedIn, "RETRY", limit);
    }

    public List<OutboundRecord> deadOutbound(int limit) {
        return outboundIn(engine.deadOut, "DEAD", limit);
    }

    /** Sends that failed at least once and wait for their retry. */
    public List<OutboundRecord> failedOutbound(int limit) {
        return outboundIn(engine.failedOut, "PENDING", limit);
    }

    public List<OutboundRecord> ambiguousOutbound(int limit) {
        return outboundIn(engine.ambiguous, "AMBIGUOUS", limit);
    }

    private List<InboundRecord> inboundIn(dev.cajon.bot.store.SeqLog log, String state, int limit) {
        Set<InboundId> seen = new LinkedHashSet<>();
        List<InboundRecord> out = new ArrayList<>();
        log.walk(Math.max(limit * 4, 64), ref -> {
            InboundRecord r = inbox.record(Refs.inboundId(ref));
            return r == null || !r.state().equals(state);
        }, ref -> {
            InboundId id = Refs.inboundId(ref);
            if (out.size() < limit && seen.add(id)) {
                out.add(inbox.record(id));
            }
        });
        return out;
    }

    private List<OutboundRecord> outboundIn(dev.cajon.bot.store.SeqLog log, String state, int limit) {
        Set<String> seen = new LinkedHashSet<>();
        List<OutboundRecord> out = new ArrayList<>();
        log.walk(Math.max(limit * 4, 64), ref -> {
            OutboundRecord r = outbox.record(Refs.outboundKey(ref));
            return r == null || !r.state().equals(state);
        }, ref -> {
            String key = Refs.outboundKey(ref);
            if (out.size() < limit && seen.add(key)) {
                out.add(outbox.record(key));
            }
        });
        return out;
    }

    /** Runs a dead (or retrying) inbound record again from the start, now. */
    public HandleResult replayInbound(InboundId id) {
        return inbox.replay(id);
    }

    /** Sends a dead, ambiguous or pending record now, with its retries counted afresh. */
    public SendResult retrySend(String key) {
        return outbox.retry(key);
    }

    /** Gives up on a send that was not sent. Returns whether the record changed. */
    public boolean discard(String key) {
        return outbox.discard(key);
    }

    public InboundRecord inbound(InboundId id) {
        return inbox.record(id);
    }

    public OutboundRecord outbound(String key) {
        return outbox.record(key);
    }

    /** The chat's state as the last done message left it (null if none, or expired). */
    public String chatState(String chat) {
        return engine.kv.get(engine.keys.state(chat));
    }

    public BotMetrics metrics() {
        return engine.counters.snapshot();
    }

    public String instanceId() {
        return engine.instanceId;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        timers.shutdownNow();
        try {
            timers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void startSweeper(Duration every) {
        timers.scheduleWithFixedDelay(() -> {
            try {
                sweep();
            } catch (Throwable t) {
                Engine.log.warn("sweep failed", t);
            }
        }, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The adapter's settings; {@link #backend}, {@link #provider} and {@link #handler} are required. */
    public static final class Builder {
        Kv kv;
        String namespace = "bot";
        String instanceId = "bot";
        LongSupplier clock = System::currentTimeMillis;
        Duration lease = Duration.ofSeconds(60);
        Duration retention = Duration.ofDays(7);
        Duration chatStateTtl;
        Duration chatRetry = Duration.ofMillis(500);
        Duration wheelWidth = Duration.ofMillis(500);
        Duration sweepEvery = Duration.ofMillis(200);
        boolean sweeper = true;
        int inboundRetries = 3;
        int outboxRetries = 5;
        Backoff backoff = Backoff.DEFAULT;
        AmbiguousPolicy ambiguousPolicy = AmbiguousPolicy.HOLD;
        boolean failOpen;
        int maxPayloadBytes = 1 << 20;
        Provider provider;
        Handler handler = (m, ctx) -> { };
        Consumer<BotEvent> events = ev -> { };
        MeterRegistry registry;
        RandomGenerator random = new java.util.SplittableRandom();

        /** The store: {@code new EmbeddedKv(store, app, db)}, {@code JedisKv.remote(...)}, {@code JedisKv.cluster(...)}. */
        public Builder backend(Kv kv) {
            this.kv = kv;
            return this;
        }

        /** Who this replica is; keep it across restarts so a restart takes its records back at once. */
        public Builder instanceId(String id) {
            if (id.isEmpty() || id.indexOf('#') >= 0) {
                throw new IllegalArgumentException("an instanceId is not empty and has no '#': " + id);
            }
            this.instanceId = id;
            return this;
        }

        /** The prefix of every key (default "bot"). */
        public Builder namespace(String ns) {
            this.namespace = ns;
            return this;
        }

        public Builder clock(Clock c) {
            this.clock = c::millis;
            return this;
        }

        /** Cajon's clock, e.g. the ManualClock an embedded store was opened with. */
        public Builder clock(dev.cajon.storage.Clock c) {
            this.clock = c::nowMillis;
            return this;
        }

        public Builder provider(Provider p) {
            this.provider = p;
            return this;
        }

        public Builder handler(Handler h) {
            this.handler = h;
            return this;
        }

        public Builder lease(Duration d) {
            this.lease = d;
            return this;
        }

        public Builder retention(Duration d) {
            this.retention = d;
            return this;
        }

        /** How long the chat's state lives after its last message (a sliding TTL; default: the retention). */
        public Builder chatStateTtl(Duration d) {
            this.chatStateTtl = d;
            return this;
        }

        public Builder inboundRetries(int n) {
            this.inboundRetries = n;
            return this;
        }

        public Builder outboxRetries(int n) {
            this.outboxRetries = n;
            return this;
        }

        public Builder backoff(Duration base, Duration cap) {
            this.backoff = new Backoff(base, cap);
            return this;
        }

        public Builder ambiguousPolicy(AmbiguousPolicy p) {
            this.ambiguousPolicy = p;
            return this;
        }

        /** Handle messages (and send) without the store when it is down. Off by default: fail-closed. */
        public Builder failOpen(boolean on) {
            this.failOpen = on;
            return this;
        }

        public Builder maxPayloadBytes(int n) {
            this.maxPayloadBytes = n;
            return this;
        }

        public Builder events(Consumer<BotEvent> listener) {
            this.events = listener;
            return this;
        }

        public Builder meterRegistry(MeterRegistry r) {
            this.registry = r;
            return this;
        }

        /** Run {@link #sweep} every {@code every} on a background thread (default 200 ms). */
        public Builder sweepEvery(Duration every) {
            this.sweepEvery = every;
            return this;
        }

        /** Off: the caller runs {@link #sweep} itself (tests with a manual clock). */
        public Builder backgroundSweeper(boolean on) {
            this.sweeper = on;
            return this;
        }

        /** Precision of the due times (default 500 ms: a deferred send goes out within 1 s). */
        public Builder wheelWidth(Duration d) {
            this.wheelWidth = d;
            return this;
        }

        public Builder chatRetry(Duration d) {
            this.chatRetry = d;
            return this;
        }

        public Builder random(RandomGenerator r) {
            this.random = r;
            return this;
        }

        public BotAdapter build() {
            Objects.requireNonNull(kv, "backend");
            Objects.requireNonNull(provider, "provider");
            if (chatStateTtl == null) {
                chatStateTtl = retention;
            }
            if (lease.toMillis() < 3 || chatStateTtl.toMillis() <= 0 || retention.toMillis() <= 0) {
                throw new IllegalArgumentException("lease, retention and chatStateTtl must be positive");
            }
            BotAdapter a = new BotAdapter(this);
            try {
                a.startUp();
            } catch (dev.cajon.bot.kv.KvException e) {
                Engine.log.warn("the store is down: recovery of {} waits for the sweeper", instanceId, e);
                a.recoveryPending = true;
            }
            if (sweeper) {
                a.startSweeper(sweepEvery);
            }
            return a;
        }
    }
}
