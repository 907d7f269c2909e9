package dev.cajon.bot;

import dev.cajon.bot.index.Wheel;
import dev.cajon.bot.kv.Kv;
import dev.cajon.bot.kv.KvException;
import dev.cajon.bot.kv.Op;
import dev.cajon.bot.kv.SetOptions;
import dev.cajon.bot.kv.SetReply;
import dev.cajon.bot.store.Fields;
import dev.cajon.bot.store.Optimistic;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The inbox: journal, dedupe, claim under the chat's lease, handler, done.
 *
 * <p>An inbound record's states: {@code NEW} (journaled) &rarr; {@code LEASED} (claimed) &rarr;
 * {@code DONE}; a failed handler goes to {@code RETRY} (due after a backoff) or, with the
 * retries used up, to {@code DEAD}. A new delivery is journaled and claimed in one WATCHed
 * transaction that creates the record only if it is absent (LEASED when the chat is free, NEW
 * when it is busy): a second delivery of the same provider message id finds the record and is a
 * duplicate, atomically, for as long as the record is kept.
 *
 * <p>Fencing. The chat's lease key holds {@code owner}, {@code until} and {@code fence}; a claim
 * takes the lease (free, expired, or held by an earlier life of this instance) and the record
 * in one transaction, with {@code fence} one more than the lease's last. Every later commit of
 * the claim (heartbeat, done, retry, dead) is a transaction that checks the lease and the
 * record still carry that fence and this owner; a worker that lost its lease (a GC pause past
 * the deadline) has its commit rejected and counted in staleLeases. The chat's state is written
 * by the done commit, so a stale worker cannot overwrite a newer state: two messages of one chat
 * cannot lose an update. Inside this JVM a striped lock keeps a chat on one thread at a time.
 */
final class Inbox {
    private final Engine e;
    private final Outbox outbox;
    private final ScheduledExecutorService heartbeats;
    private final ReentrantLock[] chatLocks = new ReentrantLock[1024];

    Inbox(Engine e, Outbox outbox, ScheduledExecutorService heartbeats) {
        this.e = e;
        this.outbox = outbox;
        this.heartbeats = heartbeats;
        for (int i = 0; i < chatLocks.length; i++) {
            chatLocks[i] = new ReentrantLock();
        }
    }

    private ReentrantLock lockOf(String chat) {
        return chatLocks[Math.floorMod(chat.hashCode(), chatLocks.length)];
    }

    /**
     * A new delivery: journaled and claimed in one transaction (the record is written LEASED when
     * the chat is free, NEW when it is busy), so the common path pays one transaction for both.
     * Two round trips: the claims log entry and the wheel entry's SET NX with the WATCH and its
     * reads, then EXEC (three when the wheel takes a block of indexes first: its INCRBY with the
     * log entry).
     */
    HandleResult handle(InboundMessage m) {
        InboundId id = m.id();
        String ref = Refs.inbound(id);
        ReentrantLock lock = lockOf(id.chat());
        boolean locked;
        try {
            locked = lock.tryLock(e.leaseMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            locked = false;
        }
        try {
            Object got;
            Fields rec = Fields.of().put("state", "NEW").put("payload", m.payload()).put("attempts", 0)
                    .put("received", e.now());
            try {
                e.before("inbox.journal");
                if (locked) {
                    // the wheel entry is applied before the record (a journaled record is never
                    // unindexed), and so is the claims log entry (a claim of this life is always
                    // in its log): both ahead of the claim's WATCH, EXEC in the next round trip.
                    // When the wheel's block of the bucket is used up, its INCRBY goes first, with
                    // the log entry, in a round trip of its own
                    Wheel.Slot slot = e.wheel.slot(e.now() + e.leaseMillis, ref);
                    Op log = e.claims.appendOp(ref);
                    if (slot.needsIncr()) {
                        List<Object> r = e.kv.pipeline(List.of(e.wheel.incr(slot), log));
                        got = claim(id, rec, e.wheel.entry(slot, (Long) r.get(0)));
                    } else {
                        got = claim(id, rec, e.wheel.entry(slot, null).after(List.of(log)));
                    }
                } else { // this JVM's other worker holds the chat: journal only
                    e.wheel.schedule(e.now() + e.leaseMillis, ref); // first: a journaled record is never unindexed
                    SetReply r = e.kv.set(e.keys.inbound(id.chat(), id.messageId()), rec.encode(),
                            SetOptions.nx(e.retentionMillis));
                    got = r.applied() ? Refused.CHAT_BUSY : Refused.DUPLICATE;
                }
                e.after("inbox.journal");
            } catch (KvException ex) {
                if (!e.failOpen) {
                    throw new JournalException("inbox could not journal " + id, ex);
                }
                Engine.log.warn("inbox store down, failOpen: handling {} without the journal", id, ex);
                return failOpen(m);
            }
            if (got == Refused.DUPLICATE) {
                e.counters.inboundDuplicates.increment();
                return new HandleResult(HandleResult.Status.DUPLICATE, id, null);
            }
            e.counters.inboundJournaled.increment();
            e.before("inbox.claim");
            e.after("inbox.claim");
            return run(id, got);
        } finally {
            if (locked) {
                lock.unlock();
            }
        }
    }

    /** Waits (at most a lease) for this JVM's other worker on the chat, then processes. */
    private HandleResult processLocked(InboundId id) {
        ReentrantLock lock = lockOf(id.chat());
        boolean locked;
        try {
            locked = lock.tryLock(e.leaseMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            locked = false;
        }
        if (!locked) { // its wheel entry is there: the sweeper will run it
            e.wheel.schedule(e.now() + e.chatRetryMillis, Refs.inbound(id));
            return new HandleResult(HandleResult.Status.QUEUED, id, "the chat is busy in this process");
        }
        try {
            return process(id);
        } finally {
            lock.unlock();
        }
    }

    private HandleResult failOpen(InboundMessage m) {
        try {
            e.handler.handle(m, new FailOpenContext(m.id()));
            return new HandleResult(HandleResult.Status.FAIL_OPEN, m.id(), null);
        } catch (Exception ex) {
            return new HandleResult(HandleResult.Status.FAIL_OPEN, m.id(), "handler failed: " + ex);
        }
    }

    /** The sweeper or the claims log points at {@code id}: act on what its record says. */
    void onDue(InboundId id, boolean fromClaimsLog) {
        Fields f = Fields.decode(e.kv.get(e.keys.inbound(id.chat(), id.messageId())));
        if (f == null) {
            return;
        }
        String ref = Refs.inbound(id);
        long now = e.now();
        long next;
        switch (f.get("state")) {
            case "NEW" -> next = now;
            case "RETRY" -> next = f.getLong("due", now);
            case "LEASED" -> next = e.mineFromBefore(f.get("owner")) ? now : f.getLong("until", now);
            default -> {
                return; // DONE, DEAD
            }
        }
        if (next > now) {
            if (!fromClaimsLog) {
                e.wheel.schedule(next, ref);
            }
            return;
        }
        e.wheel.schedule(now + e.leaseMillis, ref); // the next look, should this one not finish
        ReentrantLock lock = lockOf(id.chat());
        if (!lock.tryLock()) {
            e.wheel.schedule(now + e.chatRetryMillis, ref);
            return;
        }
        try {
            process(id);
        } finally {
            lock.unlock();
        }
    }

    /** Whether a claim of the life {@code life} on {@code id} is over (not held by that life). */
    boolean resolvedForClaims(InboundId id, String life) {
        Fields f = Fields.decode(e.kv.get(e.keys.inbound(id.chat(), id.messageId())));
        return f == null || !f.get("state").equals("LEASED") || !f.get("owner", "").equals(life);
    }

    /**
     * A claim. {@code held}: the WATCH of the lease and the record taken right after the claim's
     * EXEC, in its round trip ({@link Optimistic#runHolding}), with what the claim wrote to them;
     * the commit uses it to be one EXEC (null when the backend holds none).
     */
    private record Claim(long fence, int attempt, String payload, String state, Kv.Tx held, String leaseWritten,
                         String recordWritten) {
        Claim holding(Kv.Tx tx) {
            return new Claim(fence, attempt, payload, state, tx, leaseWritten, recordWritten);
        }
    }

    private enum Refused { GONE, FINISHED, NOT_DUE, HELD, CHAT_BUSY, DUPLICATE }

    /** Claim (logged first), handler, commit; the JVM's lock of the chat is held. */
    private HandleResult process(InboundId id) {
        e.before("inbox.claim");
        // the log entry ahead of the claim's WATCH: a claim of this life is always in its log
        Object got = claim(id, null, Optimistic.Before.of(List.of(e.claims.appendOp(Refs.inbound(id)))));
        e.after("inbox.claim");
        return run(id, got);
    }

    /**
     * The claim: one transaction over the chat's lease, the record and the chat's state. With
     * {@code journal} (a new delivery) a missing record is created from it (LEASED, or NEW when
     * the chat is busy) and an existing one is a duplicate. Returns a {@link Claim} or why not.
     */
    private Object claim(InboundId id, Fields journal, Optimistic.Before before) {
        String rk = e.keys.inbound(id.chat(), id.messageId());
        String lk = e.keys.lease(id.chat());
        String sk = e.keys.state(id.chat());
        long now = e.now();
        Optimistic.Held<Object> got = Optimistic.runHolding(e.kv, List.of(lk, rk, sk), before, List.of(lk, rk), r -> {
            Fields lease = Fields.decode(r.get(0));
            Fields rec = Fields.decode(r.get(1));
            if (journal != null && rec != null) {
                return Optimistic.Plan.none(Refused.DUPLICATE);
            }
            if (rec == null && journal == null) {
                return Optimistic.Plan.none(Refused.GONE);
            }
            if (rec == null) {
                rec = journal;
            }
            String st = rec.get("state");
            if (st.equals("DONE") || st.equals("DEAD")) {
                return Optimistic.Plan.none(Refused.FINISHED);
            }
            if (st.equals("RETRY") && rec.getLong("due", 0) > now) {
                return Optimistic.Plan.none(Refused.NOT_DUE);
            }
            if (st.equals("LEASED") && e.heldByOther(rec)) {
                return Optimistic.Plan.none(Refused.HELD);
            }
            if (lease != null && e.heldByOther(lease)) {
                return journal == null ? Optimistic.Plan.none(Refused.CHAT_BUSY)
                        : new Optimistic.Plan<>(List.of(new Op.Set(rk, journal.encode(), e.retentionMillis)),
                        Refused.CHAT_BUSY);
            }
            long fence = lease == null ? 1 : lease.getLong("fence", 0) + 1;
            long until = now + e.leaseMillis;
            Fields l = Fields.of().put("owner", e.owner).put("fence", fence).put("until", until)
                    .put("mid", id.messageId());
            Fields c = rec.copy().put("state", "LEASED").put("owner", e.owner).put("fence", fence).put("until", until);
            int attempt = (int) rec.getLong("attempts", 0) + 1;
            String lw = l.encode();
            String cw = c.encode();
            return new Optimistic.Plan<>(List.of(new Op.Set(lk, lw, 2 * e.retentionMillis),
                    new Op.Set(rk, cw, e.retentionMillis)),
                    new Claim(fence, attempt, rec.get("payload"), r.get(2), null, lw, cw));
        });
        if (got.held() == null) {
            return got.result();
        }
        if (got.result() instanceof Claim claim) {
            return claim.holding(got.held());
        }
        got.held().close(); // a journal of a busy chat: nothing to commit
        return got.result();
    }

    /** Runs the handler of a claim and commits it, or reports why there was no claim. */
    private HandleResult run(InboundId id, Object got) {
        String ref = Refs.inbound(id);
        long now = e.now();
        if (!(got instanceof Claim claim)) {
            Refused why = (Refused) got;
            if (why == Refused.CHAT_BUSY || why == Refused.HELD) {
                e.wheel.schedule(now + e.chatRetryMillis, ref);
                return new HandleResult(HandleResult.Status.QUEUED, id, why.name());
            }
            return new HandleResult(why == Refused.NOT_DUE ? HandleResult.Status.RETRYING : HandleResult.Status.DONE,
                    id, why.name());
        }
        try {
            return runClaimed(id, claim);
        } finally {
            if (claim.held() != null) {
                claim.held().close(); // given back unused when the commit could not use it
            }
        }
    }

    /** The message this thread's handler is handling now, if any (see {@link #sendWhileHandling}). */
    private final ThreadLocal<Context> handling = new ThreadLocal<>();

    /**
     * A send without a key: while this thread's handler handles a message (the handler called
     * the adapter's own send instead of its context's), the n-th send of that message, as
     * {@link HandlerContext#send(String)}; null when no handler runs on this thread.
     */
    SendResult sendWhileHandling(String chat, String content) {
        Context ctx = handling.get();
        return ctx == null ? null : ctx.sendTo(chat, content);
    }

    private HandleResult runClaimed(InboundId id, Claim claim) {
        Context ctx = new Context(id, claim);
        ScheduledFuture<?> beat = heartbeats.scheduleAtFixedRate(() -> heartbeat(id, claim.fence()),
                e.leaseMillis / 3, e.leaseMillis / 3, TimeUnit.MILLISECONDS);
        Exception failure = null;
        try {
            e.before("inbox.handler");
            handling.set(ctx);
            try {
                e.handler.handle(new InboundMessage(id.chat(), id.messageId(), claim.payload()), ctx);
            } finally {
                handling.remove();
            }
            e.after("inbox.handler");
        } catch (Exception ex) {
            failure = ex;
        } finally {
            beat.cancel(false);
        }
        return failure == null ? done(id, ctx) : failed(id, claim, failure);
    }

    /** Extends the lease while the handler runs; a lost lease is left alone (the commit will tell). */
    private void heartbeat(InboundId id, long fence) {
        try {
            String rk = e.keys.inbound(id.chat(), id.messageId());
            String lk = e.keys.lease(id.chat());
            long until = e.now() + e.leaseMillis;
            Optimistic.run(e.kv, List.of(lk, rk), r -> {
                Fields l = Fields.decode(r.get(0));
                Fields rec = Fields.decode(r.get(1));
                if (!holds(l, rec, fence)) {
                    return Optimistic.Plan.none(false);
                }
                return new Optimistic.Plan<>(List.of(
                        new Op.Set(lk, l.copy().put("until", until).encode(), 2 * e.retentionMillis),
                        new Op.Set(rk, rec.copy().put("until", until).encode(), e.retentionMillis)), true);
            });
        } catch (Throwable t) {
            Engine.log.warn("heartbeat of {} failed", id, t);
        }
    }

    private boolean holds(Fields lease, Fields rec, long fence) {
        return lease != null && rec != null && e.owner.equals(lease.get("owner")) && lease.getLong("fence", -1) == fence
                && rec.get("state").equals("LEASED") && rec.getLong("fence", -1) == fence
                && e.owner.equals(rec.get("owner"));
    }

    /** Commits the claim: the record becomes {@code state}, the lease is released; false when stale. */
    /**
     * Commits the claim: the record becomes {@code change}d, the lease is released; false when
     * stale. With the claim's held WATCH, and the lease and the record still as the claim wrote
     * them when it was taken, it is one EXEC: the WATCH has covered them since, so an EXEC that
     * goes through wrote over exactly the claim's values. Anything else (a heartbeat extended the
     * lease, another worker took it, the backend held no WATCH) is the full fenced commit: WATCH
     * with the reads, then EXEC.
     */
    private boolean commit(InboundId id, Claim claim, java.util.function.UnaryOperator<Fields> change, Op stateOp) {
        String rk = e.keys.inbound(id.chat(), id.messageId());
        String lk = e.keys.lease(id.chat());
        Kv.Tx held = claim.held();
        if (held != null) {
            try {
                if (claim.leaseWritten().equals(held.get(lk)) && claim.recordWritten().equals(held.get(rk))) {
                    List<Op> ops = commitOps(lk, rk, Fields.decode(claim.leaseWritten()),
                            Fields.decode(claim.recordWritten()), change, stateOp);
                    if (held.exec(ops) != null) {
                        return true;
                    }
                }
            } finally {
                held.close();
            }
        }
        long fence = claim.fence();
        return Optimistic.run(e.kv, List.of(lk, rk), r -> {
            Fields l = Fields.decode(r.get(0));
            Fields rec = Fields.decode(r.get(1));
            if (!holds(l, rec, fence)) {
                return Optimistic.Plan.none(false);
            }
            return new Optimistic.Plan<>(commitOps(lk, rk, l, rec, change, stateOp), true);
        });
    }

    private List<Op> commitOps(String lk, String rk, Fields lease, Fields rec,
                               java.util.function.UnaryOperator<Fields> change, Op stateOp) {
        List<Op> ops = new ArrayList<>(3);
        ops.add(new Op.Set(rk, change.apply(rec.copy()).put("owner", "").encode(), e.retentionMillis));
        ops.add(new Op.Set(lk, lease.copy().put("owner", "").put("until", 0).encode(), 2 * e.retentionMillis));
        if (stateOp != null) {
            ops.add(stateOp);
        }
        return ops;
    }

    private HandleResult done(InboundId id, Context ctx) {
        e.before("inbox.markDone");
        String sk = e.keys.state(id.chat());
        Op stateOp = ctx.newState != null ? new Op.Set(sk, ctx.newState, e.chatStateTtlMillis)
                : ctx.claim.state() != null ? new Op.PExpire(sk, e.chatStateTtlMillis) : null; // a sliding TTL
        boolean ok = commit(id, ctx.claim, f -> f.put("state", "DONE").put("doneAt", e.now()), stateOp);
        e.after("inbox.markDone");
        if (!ok) {
            stale(id, "markDone");
            return new HandleResult(HandleResult.Status.STALE, id, "the lease was lost: done rejected");
        }
        return new HandleResult(HandleResult.Status.DONE, id, null);
    }

    private HandleResult failed(InboundId id, Claim claim, Exception ex) {
        int attempts = claim.attempt();
        boolean dead = attempts > e.inboundRetries;
        long due = e.now() + e.backoff.delayMillis(attempts, e.random);
        if (!dead) {
            e.wheel.schedule(due, Refs.inbound(id));
        }
        String error = String.valueOf(ex);
        e.before("inbox.markFailed");
        boolean ok = commit(id, claim, f -> f.put("state", dead ? "DEAD" : "RETRY")
                .put("attempts", attempts).put("due", due).put("error", error), null);
        e.after("inbox.markFailed");
        if (!ok) {
            stale(id, "markFailed");
            return new HandleResult(HandleResult.Status.STALE, id, "the lease was lost: failure rejected");
        }
        if (dead) {
            e.deadIn.append(Refs.inbound(id));
            e.counters.inboundDead.increment();
            e.emit(BotEvent.Type.INBOUND_DEAD, id.toString(), error);
            return new HandleResult(HandleResult.Status.DEAD, id, error);
        }
        e.failedIn.append(Refs.inbound(id));
        return new HandleResult(HandleResult.Status.RETRYING, id, error);
    }

    private void stale(InboundId id, String step) {
        e.counters.staleLeases.increment();
        e.emit(BotEvent.Type.STALE_LEASE, id.toString(), step + " rejected: the claim's fencing token is stale");
    }

    /** Operations: a dead (or retrying) record starts again from NEW and is handled now. */
    HandleResult replay(InboundId id) {
        String rk = e.keys.inbound(id.chat(), id.messageId());
        e.wheel.schedule(e.now() + e.leaseMillis, Refs.inbound(id));
        boolean ok = Optimistic.run(e.kv, List.of(rk), r -> {
            Fields f = Fields.decode(r.get(0));
            if (f == null || !(f.get("state").equals("DEAD") || f.get("state").equals("RETRY"))) {
                return Optimistic.Plan.none(false);
            }
            Fields n = f.copy().put("state", "NEW").put("attempts", 0);
            return new Optimistic.Plan<>(List.of(new Op.Set(rk, n.encode(), e.retentionMillis)), true);
        });
        if (!ok) {
            return new HandleResult(HandleResult.Status.DUPLICATE, id, "not dead or retrying: nothing replayed");
        }
        e.counters.inboundReplayed.increment();
        return processLocked(id);
    }

    InboundRecord record(InboundId id) {
        Fields f = Fields.decode(e.kv.get(e.keys.inbound(id.chat(), id.messageId())));
        return f == null ? null : new InboundRecord(id, f.get("state"), (int) f.getLong("attempts", 0), f.get("error"),
                f.get("payload"));
    }

    /** The handler's view of its claim. */
    private final class Context implements HandlerContext {
        private final InboundId id;
        private final Claim claim;
        private int sends;
        private String newState;

        Context(InboundId id, Claim claim) {
            this.id = id;
            this.claim = claim;
        }

        public InboundId id() {
            return id;
        }

        public long fence() {
            return claim.fence();
        }

        public int attempt() {
            return claim.attempt();
        }

        public SendResult send(String content) {
            return sendTo(id.chat(), content);
        }

        public SendResult send(String content, String key) {
            return key == null ? send(content) : outbox.send(id.chat(), content, key);
        }

        /** The n-th send while handling this message, to any chat: key {@code <inbound id>:<n>}. */
        SendResult sendTo(String chat, String content) {
            return outbox.send(chat, content, id + ":" + (++sends));
        }

        public SendResult enqueue(String content, String key, java.time.Instant notBefore) {
            return outbox.enqueue(id.chat(), content, key, notBefore.toEpochMilli());
        }

        public String state() {
            return newState != null ? newState : claim.state();
        }

        public void setState(String state) {
            newState = state;
        }
    }

    /** failOpen with the store down: sends go straight to the provider. */
    private final class FailOpenContext implements HandlerContext {
        private final InboundId id;
        private String state;

        FailOpenContext(InboundId id) {
            this.id = id;
        }

        public InboundId id() {
            return id;
        }

        public long fence() {
            return 0;
        }

        public int attempt() {
            return 1;
        }

        public SendResult send(String content) {
            return send(content, null);
        }

        public SendResult send(String content, String key) {
            try {
                return new SendResult(SendResult.Status.FAIL_OPEN, key, e.provider.send(id.chat(), content));
            } catch (Exception ex) {
                throw new SendFailedException("fail-open send to " + id.chat() + " failed", ex);
            }
        }

        public SendResult enqueue(String content, String key, java.time.Instant notBefore) {
            throw new JournalException("the store is down: a deferred send cannot be recorded", null);
        }

        public String state() {
            return state;
        }

        public void setState(String s) {
            state = s;
        }
    }
}
