package dev.cajon.storage;

import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.collection.Collection;
import dev.cajon.storage.collection.CollectionAccess.WrongType;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One collection kept open across the commands of a pipeline: the write-behind of a read batch.
 *
 * <h2>Why</h2>
 * A collection write costs about ten Chronicle operations (the key entry and every page on the
 * path read, every changed page and the key entry written, the collections journal), 10-15 us,
 * where Redis spends 1-2 on the whole command. When a client pipelines commands on one key (a
 * queue being filled or drained, a hash being loaded, every redis-benchmark type test), those
 * operations are the same at every command: the same pages read, rewritten, read again.
 *
 * <h2>What it does</h2>
 * On a thread that asked for it ({@link #enableOnThisThread}: the server's event loops), a
 * single-key collection command leaves its {@link CollectionView} open, with the key's stripe
 * still held, instead of applying it. The next command on the same key of the same keyspace runs
 * on that view: it sees the earlier commands' buffered pages (decoded nodes come back from the
 * {@link dev.cajon.storage.collection.NodeCache} without a lookup), and adds its own. Anything
 * else applies the view first ({@link #release}): the whole buffered write goes to the map as one
 * {@link KeyCollections#apply}, journalled whole, and the stripe is let go. That happens
 * <ul>
 *   <li>before any other command runs (the dispatcher asks, for every command that is not a
 *       single-key hash, list, set or sorted-set command), and before any other lock of any
 *       keyspace is taken on this thread ({@link KeyspaceEngine#locked}, {@code lockAll}, the key
 *       walks, the db gate): a thread holding a view never waits for a lock, so it cannot be part
 *       of a deadlock, and every other thread waits at most until this one's batch ends;</li>
 *   <li>before any reply leaves the connection (the connection's batch flush, the end of its
 *       read), so a reply is never sent for a write that is not in the map: an acknowledged write
 *       survives {@code kill -9} exactly as before, and {@code appendfsync always} syncs it with
 *       its batch;</li>
 *   <li>after {@link #MAX_COMMANDS} commands, {@link #MAX_PAGES} buffered pages or {@link #MAX_BYTES}
 *       bytes of them (so that its journal entry fits one slot), so a view
 *       never grows large, and never inside an EXEC (its atomic section applies every write).</li>
 * </ul>
 * A command whose body throws on a held view (a wrong argument found late, say) leaves no trace:
 * the view is put back as it was before it ({@link CollectionView#mark}).
 *
 * <h2>What the others see</h2>
 * Another thread's command on the key waits for the stripe, so it sees the held commands
 * either all or none, as if they ran just before it; lock-free readers (SCAN, KEYS) see them once
 * applied, before their replies are sent. The apps' quotas and INFO's counts lag by at most one
 * turn of the event loop.
 *
 * <h2>Out of room</h2>
 * Applying can find the map full. The view is not held when the keyspace already needs growth;
 * if applying still runs out of room, the stripe is let go for the growth, taken again, and the
 * view applied if the key and its pages are as the view read them. If another thread changed the
 * key in that window, the held commands cannot be applied over it: they are dropped, and the
 * connections that sent them are closed before any of their replies leave ({@link #owner}), as if
 * they had been cut before those commands ran.
 *
 * <h2>Across the connections of a loop's turn</h2>
 * A connection whose read ends while a view is held ({@link #holding}) does not apply it: its
 * replies wait for the end of the event loop's turn (the server's {@code GroupCommit}, Redis's
 * beforeSleep), where the view is applied once and then every waiting connection flushes. So at
 * {@code -P 1} the connections of one turn that write one key share an apply instead of making
 * one per read (measured: it moves no rate beyond this machine's noise, see docs/BENCHMARKS.md).
 * The bounds above still hold, and the other loop waits for the key's stripe at most one turn.
 */
public final class HeldViews {
    private static final Logger log = LoggerFactory.getLogger(HeldViews.class);

    /** Commands a view serves before it is applied anyway. */
    static final int MAX_COMMANDS = 128;
    /** Buffered pages (written or freed) past which a view is applied after its command. */
    static final int MAX_PAGES = 32;
    /**
     * Buffered page bytes past which a view is applied after its command: half a slot of the
     * collections journal ({@link Journals#COLLECTION_SLOT_SIZE}), so that with the next command's
     * pages the apply still fits one slot. A bigger apply goes to the journal's large area,
     * through the file channel under one lock for the whole keyspace. Measured at -P 16 against the
     * 32-page bound alone: within this machine's noise (HSET, SADD, ZADD, LPUSH, LPOP; four A/B
     * runs, one of which had HSET and ZADD 10-30 % faster with the smaller batches).
     */
    static final int MAX_BYTES = Journals.COLLECTION_SLOT_SIZE / 2;

    /**
     * On by default; {@code -Dcajon.heldviews=false} turns holding off (every command then applies
     * its own writes, as before held views).
     */
    private static final boolean ON = !"false".equals(System.getProperty("cajon.heldviews"));

    /** Whether threads may hold views in this process (constant: the checks below fold away when off). */
    public static boolean on() {
        return ON;
    }

    /**
     * Whether a read on a key nothing holds opens a view to hold; off by default
     * ({@code -Dcajon.heldviews.reads=true} turns it on). A read has no write to save up, and a
     * view it held would keep the key's stripe, and so the other loop, waiting to the end of the
     * turn. LRANGE_100 at -P 16, four alternating runs: 87k against 76k rps (geometric means), three
     * of the four faster without it, within this machine's noise. A read on the key a write holds
     * still runs on that view.
     */
    static final boolean READS = "true".equals(System.getProperty("cajon.heldviews.reads"));

    private static final ThreadLocal<HeldViews> CURRENT = new ThreadLocal<>();
    /** A test turned holding on for its own threads ({@link #enableForTests}). */
    private static volatile boolean forTests;

    private KeyspaceEngine e;
    private byte[] key;
    private byte[] userKey;
    private CollectionView view;
    private int stripe;
    private int commands;
    /** A body runs on the held view now. */
    private boolean running;
    /** Depth of {@link #without}: nothing is held while above 0. */
    private int suspended;
    /** Whose commands the held view serves (connections of this loop's turn): told when they are lost. */
    private final java.util.ArrayList<Runnable> owners = new java.util.ArrayList<>();
    /** Who sends the command that runs now ({@link #owner}): it joins the view it runs on. */
    private Runnable nextOwner;

    /** This thread's own task queue (see {@link #enableOnThisThread}). */
    private java.util.concurrent.Executor loop;
    /** A task to apply the held view is queued on {@link #loop}. */
    private boolean sweepQueued;

    private HeldViews() {
    }

    private void sweep() {
        sweepQueued = false;
        if (view != null) {
            apply();
        }
    }

    /**
     * Lets this thread hold views from now on (idempotent; nothing when {@code -Dcajon.heldviews=false}).
     * {@code loop} runs tasks on this thread after its current work (a Netty event loop): each
     * view held gets one there that applies it if nothing did before, so a view never stays held
     * past the loop's turn whatever path the connection took.
     */
    public static void enableOnThisThread(java.util.concurrent.Executor loop) {
        if (ON) {
            enableForTests(loop);
        }
    }

    /** {@link #enableOnThisThread} whatever the switch says. */
    static void enableForTests(java.util.concurrent.Executor loop) {
        forTests = true;
        if (CURRENT.get() == null) {
            HeldViews h = new HeldViews();
            h.loop = loop;
            CURRENT.set(h);
        }
    }

    /**
     * Names who the views opened from now on serve: {@code lost} runs if their commands cannot be
     * applied (see the class comment), before any of their replies may leave.
     */
    public static void owner(Runnable lost) {
        if (!ON) {
            return;
        }
        HeldViews h = CURRENT.get();
        if (h != null) {
            h.nextOwner = lost;
        }
    }

    /** Applies this thread's held view, if any, and lets its stripe go. */
    public static void release() {
        if (!ON && !forTests) {
            return;
        }
        HeldViews h = CURRENT.get();
        if (h != null && h.view != null) {
            if (h.running) {
                throw new IllegalStateException("a body on a held view asked for another lock");
            }
            h.apply();
        }
    }

    /**
     * Whether this thread holds a view now: a connection whose read ends then leaves its replies
     * for the end of the loop's turn, when the view is applied, so that the other connections of
     * the turn can add to it.
     */
    public static boolean holding() {
        if (!ON && !forTests) {
            return false;
        }
        HeldViews h = CURRENT.get();
        return h != null && h.view != null;
    }

    /** This thread's holder, or null when it does not hold now (then callers take their usual path). */
    static HeldViews current() {
        if (!ON && !forTests) {
            return null;
        }
        HeldViews h = CURRENT.get();
        return h == null || h.suspended > 0 ? null : h;
    }

    /**
     * Runs {@code body} with what this thread holds applied first and nothing held while it runs:
     * for code that takes a lock which ranks before the stripes. Serving blocked clients is the
     * case: it runs under the blocking registry's monitor, which is taken before stripe locks, and
     * a thread that entered it with a stripe held (its held view), or took one there and kept it,
     * could wait for a stripe another thread holds while that one waits for the monitor.
     */
    public static <T> T without(java.util.function.Supplier<T> body) {
        if (!ON && !forTests) {
            return body.get();
        }
        HeldViews h = CURRENT.get();
        if (h == null) {
            return body.get();
        }
        release();
        h.suspended++;
        try {
            return body.get();
        } finally {
            h.suspended--;
        }
    }

    /** Whether the held view is {@code key}'s of {@code engine}. */
    boolean holds(KeyspaceEngine engine, byte[] k) {
        return view != null && e == engine && Arrays.equals(key, k);
    }

    /** What {@link #open} returns when the command must take the usual path instead. */
    static final Object NOT_HELD = new Object();

    /**
     * Runs a command's body on the held view ({@link #holds} is true and the collection exists).
     * A body that throws leaves the view as it was.
     */
    <T> T reuse(byte type, Function<Collection, T> body) {
        CollectionView v = view;
        if (v.type() != type) {
            throw WrongType.INSTANCE;
        }
        Lookups.found(true);
        CollectionView.Mark m = v.mark();
        T result;
        running = true;
        try {
            result = body.apply(v);
        } catch (RuntimeException | Error ex) {
            v.reset(m);
            throw ex;
        } finally {
            running = false;
        }
        if (nextOwner != null && (owners.isEmpty() || owners.get(owners.size() - 1) != nextOwner)
                && !owners.contains(nextOwner)) {
            owners.add(nextOwner); // another connection's command joins the view
        }
        between(v);
        return result;
    }

    /**
     * Runs a command's body on a view of {@code key} opened now, under its stripe, and holds the
     * view afterwards; {@link #NOT_HELD}, with nothing run, when the keyspace needs growth (the
     * usual path grows it). {@code write} false: a read, which holds nothing when the key is
     * absent. Throws what the body throws, with nothing held.
     */
    @SuppressWarnings("unchecked")
    <T> T open(KeyspaceEngine engine, byte[] k, byte[] uk, byte type, boolean write, Function<Collection, T> body) {
        int s = engine.lockStripe(k);
        boolean held = false;
        try {
            if (Growth.needed(engine)) { // asked under the stripe (see Growth.needed)
                return (T) NOT_HELD;
            }
            byte[] v = engine.readLive(k);
            Lookups.found(v != null);
            if (v != null && ValueHeader.type(v) != type) {
                throw WrongType.INSTANCE;
            }
            if (v == null && !write) {
                return body.apply(null);
            }
            CollectionView cv = new CollectionView(engine, k, uk, v, type);
            T result = body.apply(cv);
            e = engine;
            key = k;
            userKey = uk;
            view = cv;
            stripe = s;
            commands = 0;
            owners.clear();
            if (nextOwner != null) {
                owners.add(nextOwner);
            }
            held = true;
            if (!sweepQueued) {
                sweepQueued = true;
                loop.execute(this::sweep);
            }
            between(cv);
            return result;
        } finally {
            if (!held) {
                unlock(engine, k, uk, s);
            }
        }
    }

    /** After each command on the held view: its trees' pages buffered, its nodes cached; applied when big. */
    private void between(CollectionView v) {
        v.flushTrees();
        v.done();
        if (++commands >= MAX_COMMANDS || v.pages.size() > MAX_PAGES || bufferedBytes(v) > MAX_BYTES || !v.exists()) {
            // an emptied collection is applied at once: a new one on the key starts afresh
            apply();
        }
    }

    /** What the view's buffered pages add to its journal entry, about (a freed page is a short record). */
    private static int bufferedBytes(CollectionView v) {
        int n = 0;
        for (byte[] p : v.pages.values()) {
            n += p == null ? 32 : p.length + 32;
        }
        return n;
    }

    /** Applies the held view and lets its stripe go; see the class comment for a full map. */
    private void apply() {
        CollectionView v = view;
        KeyspaceEngine en = e;
        view = null;
        e = null;
        String lost = null;
        try {
            for (int attempt = 0; ; attempt++) {
                try {
                    KeyCollections.apply(en, new CollectionView[] {v});
                    break;
                } catch (CapacityExhausted ex) {
                    // taken back whole: grow with the stripe let go (growth takes every stripe in
                    // order), then apply again if nobody changed the key meanwhile
                    if (attempt >= Growth.MAX_GROW_RETRIES) {
                        throw new IllegalStateException("keyspace " + en.name + " cannot grow", ex.getCause());
                    }
                    en.stripe(stripe).unlock();
                    try {
                        Growth.grow(en, true, 0);
                    } finally {
                        en.lockIndex(stripe);
                    }
                    if (!asRead(en, v)) {
                        lost = "the key changed while its map grew";
                        break;
                    }
                }
            }
        } catch (RuntimeException ex) {
            lost = ex.toString();
            log.error("{}: applying held writes", en.name, ex);
        } finally {
            unlock(en, key, userKey, stripe);
            key = null;
            userKey = null;
        }
        if (lost != null) {
            log.error("{}: the held writes on one key are dropped with the {} client(s) that sent them: {}",
                    en.name, owners.size(), lost);
            for (Runnable r : owners) {
                r.run();
            }
        }
        owners.clear();
    }

    /** Whether the map holds the key entry and pages as {@code v} read them (none of its new pages). */
    private static boolean asRead(KeyspaceEngine en, CollectionView v) {
        var m = en.map();
        if (!Arrays.equals(m.get(v.key), v.old)) {
            return false;
        }
        for (Map.Entry<Long, byte[]> r : v.read.entrySet()) {
            if (!Arrays.equals(m.get(KeyCodec.pageKey(v.cid, r.getKey())), r.getValue())) {
                return false;
            }
        }
        for (long id : v.added) {
            if (m.containsKey(KeyCodec.pageKey(v.cid, id))) {
                return false;
            }
        }
        return true;
    }

    /** What {@link KeyspaceEngine#locked} does when its body is done: the key file, growth, the lock. */
    private static void unlock(KeyspaceEngine en, byte[] k, byte[] uk, int s) {
        ReentrantLock l = en.stripe(s);
        boolean grow;
        try {
            en.syncKeyFile(k, uk);
        } finally {
            grow = l.getHoldCount() == 1 && Growth.needed(en);
            l.unlock();
        }
        Growth.ifNeeded(en, grow);
    }
}
