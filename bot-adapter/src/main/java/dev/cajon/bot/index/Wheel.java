package dev.cajon.bot.index;

import dev.cajon.bot.kv.Kv;
import dev.cajon.bot.kv.KvException;
import dev.cajon.bot.kv.Op;
import dev.cajon.bot.kv.SetOptions;
import dev.cajon.bot.kv.SetReply;
import dev.cajon.bot.store.Keys;
import dev.cajon.bot.store.Optimistic;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A timer wheel on strings and counters: how the adapter finds what is due (a retry, a deferred
 * send, a lease that may have expired) without ever scanning records.
 *
 * <p>Time is cut into buckets of {@code width} ms. Bucket B holds what is due at or before
 * {@code B * width}: a counter {@code {w:B}:n} and entries {@code {w:B}:1..n}, each the
 * reference of a record to look at. The sweeper keeps a cursor, the last bucket it swept, and
 * sweeps each bucket once its time has come.
 *
 * <p>The hand-over between a producer and the sweeper, which may run in different processes:
 * <ol>
 *   <li>The producer INCRs the bucket's counter, then writes its entry with SET NX.</li>
 *   <li>The sweeper <em>seals</em> the bucket: in one WATCHed transaction it replaces the
 *       counter {@code n} by the string {@code "S<n>"}. Then it reads entries 1..n, each with
 *       SET tombstone NX GET: an entry that is there is taken, a missing one is tombstoned.</li>
 *   <li>A producer whose INCR fails (the counter is a seal now) or whose SET NX fails (the slot
 *       was tombstoned) moves to the next bucket. So every entry is either seen by the sweeper
 *       or written again later: nothing falls between.</li>
 * </ol>
 * A crash of the sweeper before its cursor moves makes the next sweep read the sealed bucket
 * again ({@code "S<n>"} keeps the count): entries may be seen twice, never lost, so whoever
 * consumes them must be idempotent (every record's state says whether there is work).
 *
 * <p>Blocks of indexes: a producer that fills a bucket quickly takes its indexes several at a time,
 * INCRBY k instead of INCR, and hands them out itself, so most schedules skip the INCR's round
 * trip. The first block of a bucket is an eighth of the slots this process took in the bucket
 * before (at least 1), and each further block of the same bucket is as many as the bucket took
 * so far (1, 1, 2, 4 ...), up to {@link #MAX_BLOCK}. An index taken and never written is a hole:
 * the sweeper tombstones it like any slot it finds empty (one SET NX GET), and a producer that
 * writes it after the seal is refused and moves on as above. So the hand-over is unchanged; a
 * bucket's holes from one process are its last block's leftovers, fewer than the slots the
 * process used there or than an eighth of those it used in the bucket before, plus the blocks
 * of threads that took one at the same moment as another (the later one replaces the first's).
 *
 * <p>Costs: scheduling is 1 round trip with an index of a block (the SET NX, which can ride ahead
 * of a WATCH), 2 when a block must be taken first (the INCRBY can ride in a pipeline with other
 * commands: see {@link Slot}); sweeping is 2 per bucket (WATCH with the GET, then EXEC) plus 1 per
 * index handed out plus 2 (the cursor), and so proportional to the time elapsed and to what is due, never to what is kept.
 * Keys: a bucket's counter lives {@code sealTtl} after its seal; entries live until their due
 * time plus {@code entryGrace}.
 */
public final class Wheel {
    private static final String TOMBSTONE = "-";
    private static final int MAX_BUCKET_TRIES = 32;
    /** The most indexes one INCRBY takes (see the class comment). */
    static final int MAX_BLOCK = 64;
    private final Kv kv;
    private final Keys keys;
    private final long width;
    private final LongSupplier clock;
    private final long sealTtl;
    private final long entryGrace;
    /**
     * This process's blocks, by bucket, until the bucket's time: the next unused index, the
     * block's last, the size of the last block taken, and how many slots were asked for.
     */
    private final java.util.TreeMap<Long, long[]> blocks = new java.util.TreeMap<>();
    private static final int NEXT = 0;
    private static final int LAST = 1;
    private static final int SIZE = 2;
    private static final int USED = 3;

    public Wheel(Kv kv, Keys keys, long widthMillis, LongSupplier clock, long sealTtlMillis, long entryGraceMillis) {
        this.kv = kv;
        this.keys = keys;
        this.width = widthMillis;
        this.clock = clock;
        this.sealTtl = sealTtlMillis;
        this.entryGrace = entryGraceMillis;
    }

    private long bucketOf(long dueMillis) {
        return Math.floorDiv(dueMillis + width - 1, width); // ceil: the bucket's time is >= due
    }

    /** Asks for {@code ref} to be handed to the sweeper at {@code dueMillis} (or a little after). */
    public void schedule(long dueMillis, String ref) {
        Slot s = slot(dueMillis, ref);
        Long top = s.needsIncr() ? (Long) kv.pipeline(List.of(incr(s))).get(0) : null;
        finish(s, top);
    }

    /**
     * A schedule taken apart, so that its commands can ride with others. With an {@code index}
     * from this process's block of the bucket, {@link #entry} alone (its SET NX must be applied
     * before the record it indexes is written); without, {@link #incr} first (pipelined with
     * anything independent: INCRBY {@code block}), then {@link #entry} on its answer.
     */
    public record Slot(String ref, long bucket, long now, Long index, int block) {
        /** Whether {@link #incr} must be sent (and answered) before {@link #entry}. */
        public boolean needsIncr() {
            return index == null;
        }
    }

    public Slot slot(long dueMillis, String ref) {
        long now = clock.getAsLong();
        long bucket = Math.max(bucketOf(dueMillis), Math.floorDiv(now, width) + 1);
        synchronized (blocks) {
            blocks.headMap(Math.floorDiv(now, width), true).clear(); // their time has come: the sweeper seals them
            long[] b = blocks.computeIfAbsent(bucket, k -> new long[] {1, 0, 0, 0});
            b[USED]++;
            if (b[NEXT] <= b[LAST]) {
                return new Slot(ref, bucket, now, b[NEXT]++, 0);
            }
            // as many as the bucket took so far (1, 1, 2, 4 ...: a block's leftovers are always
            // fewer than the slots used), the first sized from the bucket before
            long[] before = blocks.get(bucket - 1);
            long size = b[SIZE] > 0 ? b[USED] - 1 : before != null ? before[USED] / 8 : 1;
            return new Slot(ref, bucket, now, null, (int) Math.max(1, Math.min(MAX_BLOCK, size)));
        }
    }

    /** The slot's INCRBY of its bucket's counter (only when {@link Slot#needsIncr}). */
    public Op incr(Slot s) {
        return new Op.Incr(keys.bucketCount(s.bucket), s.block);
    }

    /**
     * The entry's SET NX, with the rest of the schedule (the next buckets) should it be refused.
     * For a slot that {@link Slot#needsIncr}, {@code top} is the INCRBY's answer: the slot takes
     * the first index of the block and this process keeps the others; when the INCRBY found the
     * bucket sealed ({@code top} null) the rest is done here and nothing is left to send.
     */
    public Optimistic.Before entry(Slot s, Long top) {
        long i;
        if (s.index != null) {
            i = s.index;
        } else if (top == null) {
            scheduleFrom(s, s.bucket + 1, MAX_BUCKET_TRIES - 1);
            return null;
        } else {
            i = top - s.block + 1;
            synchronized (blocks) {
                long[] b = blocks.get(s.bucket); // gone once the bucket's time has come
                if (b != null) {
                    b[NEXT] = i + 1;
                    b[LAST] = top;
                    b[SIZE] = s.block;
                }
            }
        }
        Op set = new Op.SetNx(keys.bucketEntry(s.bucket, i), s.ref, ttl(s, s.bucket));
        return new Optimistic.Before(List.of(set), r -> (Boolean) r.get(0),
                () -> scheduleFrom(s, s.bucket + 1, MAX_BUCKET_TRIES - 1));
    }

    /** {@link #entry} sent on its own: the schedule is complete when this returns. */
    public void finish(Slot s, Long top) {
        finish(s, top, List.of());
    }

    /** {@link #finish}, with {@code ahead} (independent single commands) sent before the entry in its round trip. */
    public void finish(Slot s, Long top, List<Op> ahead) {
        Optimistic.Before b = entry(s, top);
        if (b == null) {
            if (!ahead.isEmpty()) {
                kv.pipeline(ahead);
            }
            return;
        }
        b = b.after(ahead);
        if (!b.ok().test(kv.pipeline(b.ops()))) {
            b.fix().run();
        }
    }

    private long ttl(Slot s, long b) {
        return Math.max(1, b * width - s.now) + entryGrace;
    }

    private void scheduleFrom(Slot s, long from, int tries) {
        long b = from;
        for (int t = 0; t < tries; t++, b++) {
            Long i = kv.incr(keys.bucketCount(b));
            if (i == null) {
                continue; // sealed: the sweeper has been here
            }
            SetReply r = kv.set(keys.bucketEntry(b, i), s.ref, SetOptions.nx(ttl(s, b)));
            if (r.applied()) {
                return;
            }
        }
        throw new KvException("could not schedule " + s.ref + ": " + MAX_BUCKET_TRIES + " buckets sealed in a row");
    }

    /**
     * Starts the cursor at now if no sweeper ever ran on this store (SET NX): called before
     * anything is scheduled, so every bucket ever given an entry lies after the cursor.
     */
    public void start() {
        kv.set(keys.wheelCursor(), Long.toString(Math.floorDiv(clock.getAsLong(), width)), SetOptions.nx(0));
    }

    /**
     * Sweeps every bucket whose time has come, at most {@code maxBuckets} of them, handing each
     * entry to {@code due}. Returns the number of entries handed over.
     */
    public int sweep(int maxBuckets, Consumer<String> due) {
        long last = Math.floorDiv(clock.getAsLong(), width);
        String c = kv.get(keys.wheelCursor());
        if (c == null) {
            start();
            c = kv.get(keys.wheelCursor());
        }
        long cursor = Long.parseLong(c);
        int handed = 0;
        long b = cursor + 1;
        for (; b <= last && b <= cursor + maxBuckets; b++) {
            long n = seal(b);
            for (long i = 1; i <= n; i++) {
                SetReply r = kv.set(keys.bucketEntry(b, i), TOMBSTONE, SetOptions.nx(sealTtl).withGet());
                if (!r.applied() && r.old() != null && !TOMBSTONE.equals(r.old())) {
                    due.accept(r.old());
                    handed++;
                }
            }
        }
        if (b > cursor + 1) {
            kv.set(keys.wheelCursor(), Long.toString(b - 1)); // once: a crash before it only sweeps again
        }
        return handed;
    }

    /** Seals bucket {@code b} and returns how many entries it was given. */
    private long seal(long b) {
        String k = keys.bucketCount(b);
        return Optimistic.run(kv, List.of(k), r -> {
            String v = r.get(0);
            if (v != null && v.startsWith("S")) {
                return Optimistic.Plan.none(Long.parseLong(v.substring(1)));
            }
            long n = v == null ? 0 : Long.parseLong(v);
            return new Optimistic.Plan<>(List.of(new Op.Set(k, "S" + n, sealTtl)), n);
        });
    }
}
