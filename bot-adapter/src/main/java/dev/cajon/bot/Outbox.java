package dev.cajon.bot;

import dev.cajon.bot.index.Wheel;
import dev.cajon.bot.kv.Kv;
import dev.cajon.bot.kv.KvException;
import dev.cajon.bot.kv.Op;
import dev.cajon.bot.kv.SetOptions;
import dev.cajon.bot.kv.SetReply;
import dev.cajon.bot.store.Fields;
import dev.cajon.bot.store.Optimistic;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The outbox: every send is recorded under its idempotency key before the provider is called.
 *
 * <p>An outbound record's states: {@code PENDING} (journaled, due at {@code due}) &rarr;
 * {@code CALLING} (claimed with a fencing token, the provider is being called) &rarr;
 * {@code SENT} (with the provider's id). A failure goes back to {@code PENDING} with a later
 * {@code due} (backoff), or to {@code DEAD} when the retries are used up. A record found
 * {@code CALLING} by someone who is not its live owner (the lease ran out, or its owner is an
 * earlier life of this instance) may have reached the provider: it is <em>ambiguous</em>, and
 * the policy decides ({@code AMBIGUOUS}, held, or back to {@code PENDING} with
 * {@code ambiguous=1}). {@code DISCARDED} is an operator's end. Terminal records expire after
 * the retention.
 *
 * <p>What must stay true: the provider is called only by the holder of a fresh CALLING claim;
 * {@code markSent} and {@code markFailed} commit only if the record still carries that claim's
 * fencing token, otherwise they are counted in staleLeases; a key recorded SENT is never sent
 * again. Every record that is not terminal has a wheel entry at or after its next due time.
 */
final class Outbox {
    private final Engine e;
    /** Runs the heartbeats of provider calls (see {@link #callProvider}); set once the adapter has its timers. */
    private volatile java.util.concurrent.ScheduledExecutorService timers;

    Outbox(Engine e) {
        this.e = e;
    }

    void timers(java.util.concurrent.ScheduledExecutorService t) {
        timers = t;
    }

    /**
     * The provider call of a claim, with a heartbeat: every lease / 3 while the call runs, the
     * record's {@code until} moves on by a lease (a read-modify-write fenced by the claim's token
     * and owner), so a call that outlasts the lease is not taken for a crash by a sweeper (which
     * would mark it ambiguous, and under RESEND send it again). A heartbeat that writes makes the
     * WATCH kept for markSent see a change: the full fenced commit then decides, as it does for
     * any change.
     */
    private String callProvider(String rk, long fence, String chat, String content) throws Exception {
        java.util.concurrent.ScheduledExecutorService t = timers;
        java.util.concurrent.ScheduledFuture<?> beat = t == null ? null : t.scheduleAtFixedRate(
                () -> extendCall(rk, fence), e.leaseMillis / 3, e.leaseMillis / 3,
                java.util.concurrent.TimeUnit.MILLISECONDS);
        try {
            return e.provider.send(chat, content);
        } finally {
            if (beat != null) {
                beat.cancel(false);
            }
        }
    }

    private void extendCall(String rk, long fence) {
        try {
            long until = e.now() + e.leaseMillis;
            Optimistic.run(e.kv, List.of(rk), r -> {
                Fields f = Fields.decode(r.get(0));
                if (f == null || !f.get("state").equals("CALLING") || f.getLong("fence", -1) != fence
                        || !e.owner.equals(f.get("owner")) || f.getLong("until", 0) >= until) {
                    return Optimistic.Plan.none(false);
                }
                return new Optimistic.Plan<>(List.of(new Op.Set(rk, f.copy().put("until", until).encode(),
                        e.retentionMillis)), true);
            });
        } catch (RuntimeException ex) {
            Engine.log.warn("heartbeat of the send {} failed; it tries again", rk, ex);
        }
    }

    private Fields read(String key) {
        return Fields.decode(e.kv.get(e.keys.outbound(key)));
    }

    /** Sends now, through the record; see the class comment. */
    SendResult send(String chat, String content, String key) {
        if (content.getBytes(StandardCharsets.UTF_8).length > e.maxPayloadBytes) {
            return bypass(chat, content, key, SendResult.Status.BYPASSED);
        }
        Calling calling;
        try {
            calling = journalCalling(chat, content, key);
        } catch (KvException ex) {
            if (!e.failOpen) {
                throw new JournalException("outbox could not record " + key, ex);
            }
            Engine.log.warn("outbox store down, failOpen: sending {} unrecorded", key, ex);
            return bypass(chat, content, key, SendResult.Status.FAIL_OPEN);
        }
        if (calling.tx() != null) {
            return call(key, calling);
        }
        Fields f = calling.record(); // journaled before (a crash, a re-run handler): sent, or due now?
        if (f != null && f.get("state").equals("PENDING") && f.getLong("due", 0) <= e.now()) {
            return attempt(key);
        }
        return outcome(key, f, true);
    }

    /**
     * A new send's journal, which is also its claim: the record is created CALLING under fence 1
     * (SET NX), so there is no PENDING step to claim. Before it, in order, the wheel entry (the
     * record is never unindexed; its look comes at the lease's end) and the claims log entry (a
     * claim of this life is always in its log). Right after it, in its round trip, WATCH and GET
     * of the record: when the GET shows the record as written, the claim holds, and the WATCH
     * (kept through the provider call) lets markSent commit with EXEC alone, fenced. Two round
     * trips to here with an index from the wheel's block (the log entry rides with the wheel
     * entry), three when a block is taken first. When the key was known, the record found instead (tx null).
     */
    private Calling journalCalling(String chat, String content, String key) {
        String ref = Refs.outbound(key);
        String rk = e.keys.outbound(key);
        e.before("outbox.journal");
        long now = e.now();
        Wheel.Slot slot = e.wheel.slot(now + e.leaseMillis, ref);
        Op log = e.claims.appendOp(ref);
        if (slot.needsIncr()) {
            List<Object> r = e.kv.pipeline(List.of(e.wheel.incr(slot), log));
            e.wheel.finish(slot, (Long) r.get(0));
        } else {
            e.wheel.finish(slot, null, List.of(log)); // the log entry with the wheel entry: one round trip
        }
        Fields rec = Fields.of().put("state", "CALLING").put("chat", chat).put("content", content)
                .put("attempts", 0).put("due", now).put("fence", 1).put("created", now)
                .put("owner", e.owner).put("until", now + e.leaseMillis);
        String written = rec.encode();
        Kv.Tx tx = e.kv.watch(List.of(rk), List.of(new Op.SetNx(rk, written, e.retentionMillis)));
        Fields found;
        try {
            boolean created = (Boolean) tx.before().get(0);
            String seen = tx.get(rk);
            if (created) {
                e.counters.outboxJournaled.increment();
            }
            if (created && written.equals(seen)) {
                e.after("outbox.journal"); // a crash here: the finally gives the connection back
                Calling c = new Calling(tx, new Claim(rec, 1), null);
                tx = null; // handed over to call()
                return c;
            }
            found = Fields.decode(seen);
        } finally {
            if (tx != null) {
                tx.close();
            }
        }
        e.after("outbox.journal");
        return new Calling(null, null, found);
    }

    /** A new send's claim with its WATCH held (tx), or, for a known key, its record. */
    private record Calling(Kv.Tx tx, Claim claim, Fields record) {
    }

    /** The provider call of a fresh claim, then markSent by EXEC on the WATCH kept since the claim. */
    private SendResult call(String key, Calling calling) {
        String rk = e.keys.outbound(key);
        Claim claim = calling.claim();
        Kv.Tx tx = calling.tx();
        String pid;
        try {
            e.before("outbox.markCalling"); // the journal was the claim
            e.after("outbox.markCalling");
            e.before("provider.send");
            pid = callProvider(rk, claim.fence(), claim.record().get("chat"), claim.record().get("content"));
            e.after("provider.send");
        } catch (Exception ex) {
            tx.close(); // first: markFailed takes connections of its own
            return markFailed(key, claim, ex);
        } catch (Error err) {
            tx.close();
            throw err;
        }
        java.util.function.UnaryOperator<Fields> sent = c -> c.put("state", "SENT").put("pid", pid).put("owner", "")
                .put("sentAt", e.now());
        boolean ok = false;
        boolean broken = false;
        try {
            e.before("outbox.markSent");
            // nothing changed the record since the GET that showed our claim: EXEC is the fenced commit
            Op mark = new Op.Set(rk, sent.apply(claim.record().copy()).encode(), e.retentionMillis);
            ok = tx.exec(List.of(mark)) != null;
        } catch (KvException ex) { // the held connection broke (a server's idle timeout during a long call)
            broken = true;
            Engine.log.debug("markSent of {} on its WATCH failed; the full commit decides", key, ex);
        } finally {
            tx.close();
        }
        if (!ok) { // something wrote the record meanwhile, or the EXEC's fate is unknown: the full check decides
            ok = commit(rk, claim.fence(), sent);
        }
        if (!ok && broken) { // the EXEC may have gone through before the connection broke
            Fields now = read(key);
            ok = now != null && now.get("state").equals("SENT") && pid.equals(now.get("pid"));
        }
        e.after("outbox.markSent");
        if (!ok) {
            stale(Refs.outbound(key), "markSent");
        }
        return new SendResult(SendResult.Status.SENT, key, pid);
    }

    /** Records a send due at {@code notBefore}; a second enqueue of the key does nothing. */
    SendResult enqueue(String chat, String content, String key, long notBefore) {
        if (content.getBytes(StandardCharsets.UTF_8).length > e.maxPayloadBytes) {
            // a send later must be recorded, and this one cannot be: refused, not sent early
            throw new IllegalArgumentException("a deferred send of more than maxPayloadBytes ("
                    + e.maxPayloadBytes + ") cannot be recorded; send it now (it bypasses the outbox) or make it smaller");
        }
        SendResult existing = journalDeferred(chat, content, key, notBefore);
        return existing != null ? existing : new SendResult(SendResult.Status.PENDING, key, null);
    }

    private SendResult bypass(String chat, String content, String key, SendResult.Status status) {
        if (status == SendResult.Status.BYPASSED) {
            e.counters.outboxBypassed.increment();
            Engine.log.warn("send {} of {} bytes is over maxPayloadBytes ({}): sent without the outbox",
                    key, content.length(), e.maxPayloadBytes);
            e.emit(BotEvent.Type.OUTBOUND_BYPASSED, key, "payload over maxPayloadBytes");
        }
        try {
            return new SendResult(status, key, e.provider.send(chat, content));
        } catch (RuntimeException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new SendFailedException("unrecorded send " + key + " failed", ex);
        }
    }

    /**
     * A deferred send's journal (PENDING, due at {@code due}): null when this call created it,
     * else the known record's outcome.
     */
    private SendResult journalDeferred(String chat, String content, String key, long due) {
        // no lookup first: the SET NX below tells a new key from a known one, and a known key's
        // wheel entry only costs the sweeper one read later
        String ref = Refs.outbound(key);
        e.before("outbox.journal");
        e.wheel.schedule(due, ref);
        Fields rec = Fields.of().put("state", "PENDING").put("chat", chat).put("content", content)
                .put("attempts", 0).put("due", due).put("fence", 0).put("created", e.now());
        SetReply r = e.kv.set(e.keys.outbound(key), rec.encode(), SetOptions.nx(e.retentionMillis));
        e.after("outbox.journal");
        if (!r.applied()) {
            return outcome(key, read(key), true);
        }
        e.counters.outboxJournaled.increment();
        e.counters.outboxDeferred.increment();
        return null;
    }

    /** What a caller learns from a record it did not send itself. */
    private SendResult outcome(String key, Fields f, boolean countDedupe) {
        if (f == null) {
            return new SendResult(SendResult.Status.DISCARDED, key, null);
        }
        String state = f.get("state");
        if (state.equals("SENT")) {
            if (countDedupe) {
                e.counters.outboxDeduped.increment();
            }
            return new SendResult(SendResult.Status.DEDUPED, key, f.get("pid"));
        }
        return new SendResult(switch (state) {
            case "CALLING" -> SendResult.Status.IN_FLIGHT;
            case "AMBIGUOUS" -> SendResult.Status.AMBIGUOUS;
            case "DEAD" -> SendResult.Status.DEAD;
            case "DISCARDED" -> SendResult.Status.DISCARDED;
            default -> SendResult.Status.PENDING;
        }, key, null);
    }

    private record Claim(Fields record, long fence) {
    }

    /** Claims a due PENDING record and calls the provider; see the class comment. */
    SendResult attempt(String key) {
        String rk = e.keys.outbound(key);
        long now = e.now();
        e.before("outbox.markCalling");
        // the log entry ahead of the WATCH: a claim of this life is always in its log
        Optimistic.Before log = Optimistic.Before.of(List.of(e.claims.appendOp(Refs.outbound(key))));
        Object got = Optimistic.run(e.kv, List.of(rk), log, r -> {
            Fields f = Fields.decode(r.get(0));
            if (f == null || !f.get("state").equals("PENDING") || f.getLong("due", 0) > now) {
                return Optimistic.Plan.none(f);
            }
            long fence = f.getLong("fence", 0) + 1;
            Fields c = f.copy().put("state", "CALLING").put("owner", e.owner).put("fence", fence)
                    .put("until", now + e.leaseMillis);
            return new Optimistic.Plan<>(List.of(new Op.Set(rk, c.encode(), e.retentionMillis)), new Claim(c, fence));
        });
        e.after("outbox.markCalling");
        if (!(got instanceof Claim claim)) {
            return outcome(key, (Fields) got, false);
        }
        Fields f = claim.record();
        String pid;
        try {
            e.before("provider.send");
            pid = callProvider(rk, claim.fence(), f.get("chat"), f.get("content"));
            e.after("provider.send");
        } catch (Exception ex) {
            return markFailed(key, claim, ex);
        }
        e.before("outbox.markSent");
        boolean ok = commit(rk, claim.fence(), c -> c.put("state", "SENT").put("pid", pid).put("owner", "")
                .put("sentAt", e.now()));
        e.after("outbox.markSent");
        if (!ok) {
            stale(Refs.outbound(key), "markSent");
        }
        return new SendResult(SendResult.Status.SENT, key, pid);
    }

    private SendResult markFailed(String key, Claim claim, Exception ex) {
        String rk = e.keys.outbound(key);
        int attempts = (int) claim.record().getLong("attempts", 0) + 1;
        boolean dead = attempts > e.outboxRetries;
        long due = e.now() + e.backoff.delayMillis(attempts, e.random);
        if (!dead) {
            e.wheel.schedule(due, Refs.outbound(key)); // before the state: the retry is never unindexed
        }
        String error = String.valueOf(ex.getMessage());
        e.before("outbox.markFailed");
        boolean ok = commit(rk, claim.fence(), c -> c.put("state", dead ? "DEAD" : "PENDING")
                .put("attempts", attempts).put("due", due).put("error", error).put("owner", ""));
        e.after("outbox.markFailed");
        if (!ok) {
            stale(Refs.outbound(key), "markFailed");
            return outcome(key, read(key), false);
        }
        if (dead) {
            e.deadOut.append(Refs.outbound(key));
            e.counters.outboxDead.increment();
            e.emit(BotEvent.Type.OUTBOUND_DEAD, key, error);
            return new SendResult(SendResult.Status.DEAD, key, null);
        }
        e.failedOut.append(Refs.outbound(key));
        e.counters.outboxRetried.increment();
        return new SendResult(SendResult.Status.PENDING, key, null);
    }

    private void stale(String ref, String step) {
        e.counters.staleLeases.increment();
        e.emit(BotEvent.Type.STALE_LEASE, ref, step + " rejected: the claim's fencing token is stale");
    }

    /** Applies {@code change} if the record is still CALLING under {@code fence} by this owner. */
    private boolean commit(String rk, long fence, java.util.function.UnaryOperator<Fields> change) {
        return Optimistic.run(e.kv, List.of(rk), r -> {
            Fields f = Fields.decode(r.get(0));
            if (f == null || !f.get("state").equals("CALLING") || f.getLong("fence", -1) != fence
                    || !e.owner.equals(f.get("owner"))) {
                return Optimistic.Plan.none(false);
            }
            return new Optimistic.Plan<>(List.of(new Op.Set(rk, change.apply(f.copy()).encode(), e.retentionMillis)), true);
        });
    }

    /** The wheel or the claims log points at {@code key}: act on what its record says. */
    void onDue(String key, boolean fromClaimsLog) {
        Fields f = read(key);
        if (f == null) {
            return;
        }
        String ref = Refs.outbound(key);
        long now = e.now();
        switch (f.get("state")) {
            case "PENDING" -> {
                long due = f.getLong("due", 0);
                if (due > now) {
                    if (!fromClaimsLog) {
                        e.wheel.schedule(due, ref);
                    }
                    return;
                }
                e.wheel.schedule(now + e.leaseMillis, ref);
                attempt(key);
            }
            case "CALLING" -> {
                String o = f.get("owner", "");
                if (f.getLong("until", 0) <= now || e.mineFromBefore(o)) {
                    ambiguous(key, f);
                } else if (!fromClaimsLog) {
                    e.wheel.schedule(f.getLong("until", now), ref);
                }
            }
            default -> {
                // SENT, DEAD, AMBIGUOUS (held), DISCARDED: nothing is due
            }
        }
    }

    /** Whether a claims-log entry for {@code key} needs nothing more from this instance. */
    /** Whether a claim of the life {@code life} on {@code key} is over (not held by that life). */
    boolean resolvedForClaims(String key, String life) {
        Fields f = read(key);
        return f == null || !f.get("state").equals("CALLING") || !f.get("owner", "").equals(life);
    }

    private void ambiguous(String key, Fields seen) {
        String rk = e.keys.outbound(key);
        String before = seen.encode();
        boolean resend = e.ambiguousPolicy == AmbiguousPolicy.RESEND;
        long now = e.now();
        if (resend) {
            e.wheel.schedule(now + e.leaseMillis, Refs.outbound(key));
        }
        boolean changed = Optimistic.run(e.kv, List.of(rk), r -> {
            if (!before.equals(r.get(0))) {
                return Optimistic.Plan.none(false);
            }
            Fields f = seen.copy().put("ambiguous", 1).put("owner", "")
                    .put("state", resend ? "PENDING" : "AMBIGUOUS").put("due", now);
            return new Optimistic.Plan<>(List.of(new Op.Set(rk, f.encode(), e.retentionMillis)), true);
        });
        if (!changed) {
            return;
        }
        e.ambiguous.append(Refs.outbound(key));
        e.counters.outboxAmbiguous.increment();
        e.emit(BotEvent.Type.OUTBOUND_AMBIGUOUS, key, "crashed between the provider call and its record; policy "
                + e.ambiguousPolicy);
        if (resend) {
            attempt(key);
        }
    }

    /** Operations: puts a dead, ambiguous or pending record back to a due PENDING and sends it. */
    SendResult retry(String key) {
        String rk = e.keys.outbound(key);
        long now = e.now();
        e.wheel.schedule(now + e.leaseMillis, Refs.outbound(key));
        boolean ok = Optimistic.run(e.kv, List.of(rk), r -> {
            Fields f = Fields.decode(r.get(0));
            if (f == null || !List.of("DEAD", "AMBIGUOUS", "PENDING").contains(f.get("state"))) {
                return Optimistic.Plan.none(false);
            }
            Fields p = f.copy().put("state", "PENDING").put("due", now).put("attempts", 0);
            return new Optimistic.Plan<>(List.of(new Op.Set(rk, p.encode(), e.retentionMillis)), true);
        });
        return ok ? attempt(key) : outcome(key, read(key), false);
    }

    /** Operations: gives up on a send that is not sent. */
    boolean discard(String key) {
        String rk = e.keys.outbound(key);
        return Optimistic.run(e.kv, List.of(rk), r -> {
            Fields f = Fields.decode(r.get(0));
            if (f == null || f.get("state").equals("SENT") || f.get("state").equals("DISCARDED")) {
                return Optimistic.Plan.none(false);
            }
            Fields d = f.copy().put("state", "DISCARDED").put("owner", "");
            return new Optimistic.Plan<>(List.of(new Op.Set(rk, d.encode(), e.retentionMillis)), true);
        });
    }

    OutboundRecord record(String key) {
        Fields f = read(key);
        return f == null ? null : new OutboundRecord(key, f.get("chat"), f.get("state"), (int) f.getLong("attempts", 0),
                f.getLong("ambiguous", 0) == 1, f.get("pid"), f.get("error"), f.get("content"));
    }
}
