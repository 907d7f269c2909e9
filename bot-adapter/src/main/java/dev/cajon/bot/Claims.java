package dev.cajon.bot;

import dev.cajon.bot.kv.Kv;
import dev.cajon.bot.kv.Op;
import dev.cajon.bot.kv.SetOptions;
import dev.cajon.bot.store.Keys;
import dev.cajon.bot.store.SeqLog;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiPredicate;
import java.util.function.Consumer;

/**
 * What each life of an instance claimed, so that a restart takes back at once what the last
 * life held (instead of waiting for its leases to run out).
 *
 * <p>Each life (owner {@code instanceId#incarnation}) writes its claims to a log of its own,
 * {@code {log:claims:OWNER}:I}, numbered by a counter in this process: an append is one SET, no
 * INCR. The lives of an instanceId are a {@link SeqLog} ({@code lives:ID}), appended once per
 * start. While a life runs, every sweep moves its low-water cursor over the claims that are
 * resolved (the record is finished, or no longer held by this life), so a log stays as short as
 * what is in flight. A restart walks each earlier life from its cursor: the claims still held by
 * that life are taken back ({@code recover}); a life whose claims are all resolved is itself
 * resolved in the lives log.
 *
 * <p>A life's numbers are dense, except where it died between taking a number and writing the
 * entry (one per thread at most): a walk of a dead life stops only after {@link #GAP} missing
 * entries in a row.
 */
final class Claims {
    static final int GAP = 64;
    private final Kv kv;
    private final Keys keys;
    private final String owner;
    private final long ttl;
    private final SeqLog lives;
    private final AtomicLong seq = new AtomicLong();
    private long low;
    /**
     * When each number past the cursor was taken: an entry that is still missing is being
     * written (its claim follows it), unless it was taken a lease ago or more (its write failed,
     * and so did the claim after it).
     */
    private final java.util.concurrent.ConcurrentSkipListMap<Long, Long> takenAt =
            new java.util.concurrent.ConcurrentSkipListMap<>();
    private final java.util.function.LongSupplier clock;
    private final long leaseMillis;

    Claims(Kv kv, Keys keys, String instanceId, String owner, long ttlMillis, java.util.function.LongSupplier clock,
           long leaseMillis) {
        this.kv = kv;
        this.keys = keys;
        this.owner = owner;
        this.ttl = ttlMillis;
        this.lives = new SeqLog(kv, keys, "lives:" + instanceId, ttlMillis);
        this.clock = clock;
        this.leaseMillis = leaseMillis;
    }

    private String log(String life) {
        return "claims:" + life;
    }

    /** Registers this life: two round trips, once per start. */
    void start() {
        lives.append(owner);
    }

    /**
     * The SET that logs a claim of this life (no INCR: numbered here), to send in a pipeline that
     * is applied before the claim's transaction: a claim of this life is always in its log.
     */
    Op appendOp(String ref) {
        long n = seq.incrementAndGet();
        takenAt.put(n, clock.getAsLong());
        return new Op.Set(keys.logEntry(log(owner), n), ref, ttl);
    }

    /**
     * Moves this life's cursor over its resolved claims, at most {@code limit} of them; costs
     * nothing when nothing was claimed since the last call. {@code resolved(ref, owner)}.
     */
    synchronized int compact(int limit, BiPredicate<String, String> resolved) {
        long end = seq.get();
        long newLow = low;
        int seen = 0;
        long now = clock.getAsLong();
        for (long i = low + 1; i <= end && seen < limit; i++, seen++) {
            String ref = kv.get(keys.logEntry(log(owner), i));
            if (ref == null) {
                Long at = takenAt.get(i);
                if (at != null && now - at < leaseMillis) {
                    break; // numbered, not written yet: its claim may follow, the cursor waits here
                }
            } else if (!resolved.test(ref, owner)) {
                break; // still in flight: the cursor waits here
            }
            newLow = i;
        }
        if (newLow > low) {
            takenAt.headMap(newLow, true).clear();
            low = newLow;
            kv.set(keys.logLow(log(owner)), Long.toString(low), SetOptions.px(ttl));
        }
        return seen;
    }

    /** Takes back what earlier lives of this instance still hold. Returns the claims looked at. */
    int recover(BiPredicate<String, String> resolved, Consumer<String> recover) {
        int[] seen = {0};
        for (int batch = 0; batch < 1_000; batch++) {
            int n = lives.walk(256, life -> life.equals(owner) ? false : recoverLife(life, resolved, recover, seen),
                    life -> { });
            if (n < 256) {
                break;
            }
        }
        return seen[0];
    }

    /** Walks one earlier life; true when none of its claims is held any more. */
    private boolean recoverLife(String life, BiPredicate<String, String> resolved, Consumer<String> recover,
                                int[] seen) {
        String lowKey = keys.logLow(log(life));
        String l = kv.get(lowKey);
        long from = l == null ? 0 : Long.parseLong(l);
        boolean all = true;
        int missing = 0;
        long last = from;
        for (long i = from + 1; missing < GAP; i++) {
            String ref = kv.get(keys.logEntry(log(life), i));
            if (ref == null) {
                missing++;
                continue;
            }
            missing = 0;
            last = i;
            seen[0]++;
            if (!resolved.test(ref, life)) {
                recover.accept(ref);
                all &= resolved.test(ref, life);
            }
        }
        if (all && last > from) {
            kv.set(lowKey, Long.toString(last), SetOptions.px(ttl));
        }
        return all;
    }
}
