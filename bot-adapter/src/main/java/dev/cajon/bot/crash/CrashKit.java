package dev.cajon.bot.crash;

import dev.cajon.bot.kv.Kv;
import dev.cajon.bot.kv.SetOptions;
import dev.cajon.bot.kv.SetReply;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A crash kit for the bot's own tests: wraps the backend and "kills the process" before or
 * after a named step of the adapter. From the crash on, every call of the dead adapter to the
 * store fails with {@link SimulatedCrash} (an Error, so no handler's {@code catch (Exception)}
 * swallows it), as if its process had died there. Build a second adapter on the same store
 * (the kit's {@link #underlying()} backend), with the same instanceId for a restart or another
 * for a replica, and watch it recover.
 *
 * <pre>{@code
 * CrashKit kit = CrashKit.wrap(kv).crashAfter("provider.send");   // sent, not yet recorded
 * BotAdapter first = BotAdapter.builder().backend(kit).instanceId("bot-1")...build();
 * assertThrows(SimulatedCrash.class, () -> first.handle(msg));
 * first.close();
 * BotAdapter second = BotAdapter.builder().backend(kit.underlying()).instanceId("bot-1")...build();
 * assertEquals("AMBIGUOUS", second.outbound(msg.id() + ":1").state());
 * }</pre>
 *
 * The steps: {@code inbox.journal, inbox.claim, inbox.handler, inbox.markDone, inbox.markFailed,
 * outbox.journal, outbox.markCalling, provider.send, outbox.markSent, outbox.markFailed}.
 */
public final class CrashKit implements Kv, StepHook {
    /** Every step the adapter names, in the order of one message's path. */
    public static final List<String> STEPS = List.of("inbox.journal", "inbox.claim", "inbox.handler",
            "outbox.journal", "outbox.markCalling", "provider.send", "outbox.markSent", "outbox.markFailed",
            "inbox.markDone", "inbox.markFailed");

    /** Thrown at the crash point and by every later call of the crashed adapter. */
    public static final class SimulatedCrash extends Error {
        private static final long serialVersionUID = 1L;

        public SimulatedCrash(String where) {
            super("simulated crash " + where);
        }
    }

    private final Kv kv;
    private volatile String step;
    private volatile boolean after;
    private volatile int nth = 1;
    private final AtomicInteger seen = new AtomicInteger();
    private volatile String crashedAt;

    private CrashKit(Kv kv) {
        this.kv = kv;
    }

    public static CrashKit wrap(Kv kv) {
        return new CrashKit(kv);
    }

    public CrashKit crashBefore(String step) {
        return crashAt(step, false, 1);
    }

    public CrashKit crashAfter(String step) {
        return crashAt(step, true, 1);
    }

    /** Crashes at the {@code nth} time (1-based) the adapter reaches {@code step}. */
    public CrashKit crashAt(String step, boolean after, int nth) {
        if (!STEPS.contains(step)) {
            throw new IllegalArgumentException("no step " + step + "; the steps are " + STEPS);
        }
        this.step = step;
        this.after = after;
        this.nth = nth;
        this.seen.set(0);
        return this;
    }

    /** Where the crash happened ("after provider.send"), or null while alive. */
    public String crashedAt() {
        return crashedAt;
    }

    public Kv underlying() {
        return kv;
    }

    private void hit(String s, boolean isAfter) {
        alive();
        if (s.equals(step) && isAfter == after && seen.incrementAndGet() == nth) {
            crashedAt = (isAfter ? "after " : "before ") + s;
            throw new SimulatedCrash(crashedAt);
        }
    }

    private void alive() {
        if (crashedAt != null) {
            throw new SimulatedCrash("(dead since " + crashedAt + ")");
        }
    }

    @Override
    public void before(String s) {
        hit(s, false);
    }

    @Override
    public void after(String s) {
        hit(s, true);
    }

    @Override
    public String get(String key) {
        alive();
        return kv.get(key);
    }

    @Override
    public SetReply set(String key, String value, SetOptions options) {
        alive();
        return kv.set(key, value, options);
    }

    @Override
    public Long incr(String key) {
        alive();
        return kv.incr(key);
    }

    @Override
    public boolean pexpire(String key, long millis) {
        alive();
        return kv.pexpire(key, millis);
    }

    @Override
    public boolean del(String key) {
        alive();
        return kv.del(key);
    }

    @Override
    public List<Object> pipeline(List<dev.cajon.bot.kv.Op> ops) {
        alive();
        return kv.pipeline(ops);
    }

    @Override
    public Tx watch(List<String> keys) {
        return watch(keys, List.of());
    }

    @Override
    public Tx watch(List<String> keys, List<dev.cajon.bot.kv.Op> before) {
        alive();
        return new Guarded(kv.watch(keys, before));
    }

    /** A transaction that fails like every other call once the backend has crashed. */
    private final class Guarded implements Tx {
        private final Tx tx;

        Guarded(Tx tx) {
            this.tx = tx;
        }

        @Override
        public List<Object> before() {
            return tx.before();
        }

        @Override
        public String get(String key) {
            alive();
            return tx.get(key);
        }

        @Override
        public List<Object> exec(List<dev.cajon.bot.kv.Op> ops) {
            alive();
            return tx.exec(ops);
        }

        @Override
        public Chained execThenWatch(List<dev.cajon.bot.kv.Op> ops, List<String> keys) {
            alive();
            Chained c = tx.execThenWatch(ops, keys);
            return c.next() == null ? c : new Chained(c.results(), new Guarded(c.next()));
        }

        @Override
        public void close() {
            tx.close();
        }
    }

    /** Closes nothing: the backend outlives the crashed adapter. */
    @Override
    public void close() {
    }
}
