package dev.cajon.server.blocking;

import dev.cajon.server.command.Ctx;
import dev.cajon.storage.Clock;
import dev.cajon.storage.collection.CollectionAccess;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The clients blocked on keys (BLPOP, BLMOVE, BLMPOP; the sorted-set pops to come), and the
 * serving of them when one of their keys gets a write: Redis's blocked.c, generic over the
 * type. A blocked client holds no thread: its connection parks the command ({@link Host#park})
 * and goes on reading; the reply comes later from whichever thread served it ({@link Host#unpark}).
 *
 * <h2>How a waiter is served</h2>
 * A command that can add to a key blocked on (LPUSH, LMOVE's destination, ...) records the key
 * with {@link Ctx#readyKey}; when the top-level command (or the whole EXEC) is done, the
 * dispatcher calls {@link #serve}. For each ready key, its waiters are tried in the order they
 * blocked (the longest-waiting first, as Redis); each {@link Attempt} does its pop under the
 * key's lock, so the data moves atomically, and a waiter that finds nothing (another client took
 * it first) keeps waiting. A waiter served by BLMOVE makes its destination ready in turn.
 *
 * <h2>Why no wake-up is lost</h2>
 * A blocking command first tries without the registry lock. Then {@link #block} counts the waiter
 * in {@link #waiting} (so a writer that commits afterwards will call {@link #serve}), and under
 * the registry lock tries once more before it queues the waiter. A push committed before that
 * second try is seen by it; one committed after it sees {@code waiting > 0} and serves under the
 * same lock, after the waiter is queued.
 *
 * <h2>Timeouts</h2>
 * Deadlines are read from the server's {@link Clock}; a timer on the waiter's event loop
 * ({@link Host#schedule}) checks at the deadline, and at least every {@link #RECHECK_MS}, so a
 * test that moves a manual clock sees the timeout without waiting for the real one (or calls
 * {@link #expireDue} itself).
 *
 * <p>Lock order: the registry lock, then a key's stripe lock (an attempt); nothing takes them the
 * other way round: writers serve only after their own command (or EXEC) is done, and what may run
 * inside an EXEC that holds stripes (INFO's count, CLIENT UNBLOCK) does not take the registry
 * lock on its thread.
 */
public final class BlockingKeys {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(BlockingKeys.class);

    /** Longest a timer waits before it reads the clock again. */
    static final long RECHECK_MS = 250;

    /** The connection a waiter belongs to. */
    public interface Host {
        /** The command blocked (called on the connection's own thread, during the command). */
        void park(Waiter w);

        /** The waiter was served or timed out: write {@code reply}, then go on. Any thread. */
        void unpark(Consumer<Ctx> reply);

        /** Runs {@code task} on the connection's thread after {@code delayMs}. */
        ScheduledFuture<?> schedule(Runnable task, long delayMs);
    }

    /** What a served waiter answers, and the key it pushed to (BLMOVE's destination), if any. */
    public record Served(Consumer<Ctx> reply, Object keyspace, byte[] pushedTo) {
        public static Served of(Consumer<Ctx> reply) {
            return new Served(reply, null, null);
        }
    }

    /** Tries to serve a waiter from one of its keys, doing the pop under the key's lock; null if nothing there. */
    @FunctionalInterface
    public interface Attempt {
        Served tryKey(byte[] key);
    }

    /** A key of one keyspace. */
    private record Slot(Object keyspace, ByteBuffer key) {
        static Slot of(Object keyspace, byte[] key) {
            return new Slot(keyspace, ByteBuffer.wrap(key));
        }
    }

    /** A key that got a write, to serve its waiters after the command. */
    public record Ready(Object keyspace, byte[] key) {
    }

    /** One blocked command. */
    public static final class Waiter {
        /** The keyspace of the waiter's db: another one after a SWAPDB of that db ({@link #swapped}). */
        Object keyspace;
        final byte[][] keys;
        final long deadline;
        /** The attempt on {@link #keyspace}, made by {@link #attemptOn}. */
        Attempt attempt;
        final java.util.function.Function<Object, Attempt> attemptOn;
        final Consumer<Ctx> onTimeout;
        final Host host;
        final long clientId;
        boolean done;
        ScheduledFuture<?> timer;

        /**
         * @param deadline  clock millis at which it times out; 0 for never
         * @param attemptOn the attempt on a keyspace: this one, or the one that holds the waiter's
         *                  db after a SWAPDB
         * @param onTimeout the reply at timeout (a null array, as Redis 7.0 answers every timed-out blocked client)
         */
        public Waiter(Object keyspace, byte[][] keys, long deadline, java.util.function.Function<Object, Attempt> attemptOn,
                      Consumer<Ctx> onTimeout, Host host, long clientId) {
            this.keyspace = keyspace;
            this.keys = keys;
            this.deadline = deadline;
            this.attemptOn = attemptOn;
            this.attempt = attemptOn.apply(keyspace);
            this.onTimeout = onTimeout;
            this.host = host;
            this.clientId = clientId;
        }
    }

    private final Clock clock;
    private final Map<Slot, ArrayDeque<Waiter>> byKey = new HashMap<>();
    private final Map<Long, Waiter> byClient = new java.util.concurrent.ConcurrentHashMap<>();
    /** Queued waiters, read without the lock (INFO may run inside an EXEC that holds stripe locks). */
    private final AtomicInteger blocked = new AtomicInteger();
    private final Set<Waiter> timed = new LinkedHashSet<>();
    /** Waiters, and commands about to block: a writer serves only when this is above 0. */
    private final AtomicInteger waiting = new AtomicInteger();

    public BlockingKeys(Clock clock) {
        this.clock = clock;
    }

    /** INFO's blocked_clients. */
    public int blockedClients() {
        return blocked.get();
    }

    /** Whether anyone waits (or is about to): a write then records its key as ready. */
    public boolean anyWaiting() {
        return waiting.get() > 0;
    }

    /**
     * Blocks {@code w}, unless one more try under the registry lock serves it: then returns what
     * it answers, and nothing is queued. Called on the waiter's connection thread.
     */
    public Served block(Waiter w) {
        // the registry lock ranks before stripe locks: nothing held across it (HeldViews.without)
        return dev.cajon.storage.HeldViews.without(() -> blockNow(w));
    }

    private Served blockNow(Waiter w) {
        waiting.incrementAndGet();
        boolean queued = false;
        try {
            synchronized (this) {
                for (byte[] k : w.keys) {
                    Served s = w.attempt.tryKey(k);
                    if (s != null) {
                        return s;
                    }
                }
                w.host.park(w);
                for (byte[] k : w.keys) {
                    ArrayDeque<Waiter> q = byKey.computeIfAbsent(Slot.of(w.keyspace, k), x -> new ArrayDeque<>());
                    if (!q.contains(w)) {
                        q.addLast(w);
                    }
                }
                byClient.put(w.clientId, w);
                blocked.incrementAndGet();
                if (w.deadline > 0) {
                    timed.add(w);
                    schedule(w);
                }
                queued = true;
                return null;
            }
        } finally {
            if (!queued) {
                waiting.decrementAndGet();
            }
        }
    }

    private void schedule(Waiter w) {
        long delay = Math.max(1, Math.min(RECHECK_MS, w.deadline - clock.nowMillis()));
        w.timer = w.host.schedule(() -> checkTimeout(w), delay);
    }

    private synchronized void checkTimeout(Waiter w) {
        if (w.done) {
            return;
        }
        if (clock.nowMillis() >= w.deadline) {
            remove(w);
            w.host.unpark(w.onTimeout);
        } else {
            schedule(w);
        }
    }

    /** Times out every waiter whose deadline the clock has reached; returns how many. */
    public synchronized int expireDue() {
        long now = clock.nowMillis();
        int n = 0;
        for (Waiter w : List.copyOf(timed)) {
            if (now >= w.deadline) {
                remove(w);
                w.host.unpark(w.onTimeout);
                n++;
            }
        }
        return n;
    }

    /** Takes {@code w} out of every queue; the caller holds the lock. */
    private void remove(Waiter w) {
        if (w.done) {
            return;
        }
        w.done = true;
        waiting.decrementAndGet();
        for (byte[] k : w.keys) {
            Slot s = Slot.of(w.keyspace, k);
            ArrayDeque<Waiter> q = byKey.get(s);
            if (q != null) {
                q.remove(w);
                if (q.isEmpty()) {
                    byKey.remove(s);
                }
            }
        }
        byClient.remove(w.clientId, w);
        blocked.decrementAndGet();
        timed.remove(w);
        if (w.timer != null) {
            w.timer.cancel(false);
        }
    }

    /** The client's connection closed: it waits no more. */
    public synchronized void cancel(Waiter w) {
        remove(w);
    }

    /**
     * CLIENT UNBLOCK: the blocked client answers {@code reply} (null: its timeout's reply); false
     * when it is not blocked on keys. The unblocking itself runs on the waiter's event loop, not
     * here: CLIENT UNBLOCK may run inside an EXEC holding stripe locks, and the registry lock is
     * taken before stripe locks ({@link #serve}). A waiter served in between gets its data instead.
     */
    public boolean unblock(long clientId, Consumer<Ctx> reply) {
        Waiter w = byClient.get(clientId);
        if (w == null) {
            return false;
        }
        w.host.schedule(() -> {
            synchronized (this) {
                if (!w.done) {
                    remove(w);
                    w.host.unpark(reply == null ? w.onTimeout : reply);
                }
            }
        }, 0);
        return true;
    }

    /**
     * SWAPDB swapped the keyspaces {@code a} and {@code b} between two dbs: a client blocked in a
     * db waits in that db, so its keys now belong to the other keyspace (each key's queue keeps
     * its order) and its attempt runs there. Then, as Redis's scanDatabaseForReadyKeys, every
     * key waited on in either db is tried: a client whose key exists in the data its db holds now
     * is served.
     */
    public void swapped(Object a, Object b) {
        synchronized (this) {
            serve(rehome(a, b));
        }
    }

    /**
     * {@link #swapped} without the serving: the keys to try afterwards (an EXEC serves them when
     * it ends, as Redis serves blocked clients after the whole transaction). The caller holds the
     * registry lock, taken before the swap (see {@link #holding}).
     */
    public List<Ready> rehome(Object a, Object b) {
        List<Ready> ready = new java.util.ArrayList<>();
        synchronized (this) {
            Map<Slot, ArrayDeque<Waiter>> moved = new HashMap<>();
            byKey.entrySet().removeIf(en -> {
                Object ks = en.getKey().keyspace();
                if (ks != a && ks != b) {
                    return false;
                }
                Object to = ks == a ? b : a;
                moved.put(new Slot(to, en.getKey().key()), en.getValue());
                ready.add(new Ready(to, en.getKey().key().array()));
                return true;
            });
            byKey.putAll(moved);
            for (Waiter w : byClient.values()) {
                if (!w.done && (w.keyspace == a || w.keyspace == b)) {
                    w.keyspace = w.keyspace == a ? b : a;
                    w.attempt = w.attemptOn.apply(w.keyspace);
                }
            }
        }
        return ready;
    }

    /**
     * Runs {@code body} holding the registry lock: an EXEC that queued a SWAPDB, so that no
     * blocked client is served between the swap and its move to its db's new keyspace. Taken
     * before the transaction's stripe locks, as the lock order wants.
     */
    public synchronized <T> T holding(java.util.function.Supplier<T> body) {
        return body.get();
    }

    /**
     * SWAPDB outside a transaction: {@code swap} (the store's, which holds both keyspaces whole
     * and answers them, or null for one db swapped with itself) runs under the registry lock, so
     * no blocked client is served between the swap and its move to its db's new keyspace.
     */
    public synchronized void swapping(java.util.function.Supplier<Object[]> swap) {
        Object[] pair = swap.get();
        if (pair != null) {
            swapped(pair[0], pair[1]);
        }
    }

    /** Serves the waiters of the keys that got writes, in the order they blocked. */
    public void serve(List<Ready> ready) {
        if (ready.isEmpty() || !anyWaiting()) {
            return;
        }
        // the writes are applied first, and the pops for the waiters are applied as they run
        dev.cajon.storage.HeldViews.without(() -> {
            serveNow(ready);
            return null;
        });
    }

    private synchronized void serveNow(List<Ready> ready) {
        ArrayDeque<Ready> todo = new ArrayDeque<>(ready);
        int rounds = 0;
        while (!todo.isEmpty() && rounds++ < 100_000) {
            Ready r = todo.pollFirst();
            ArrayDeque<Waiter> q = byKey.get(Slot.of(r.keyspace(), r.key()));
            if (q == null) {
                continue;
            }
            for (Waiter w : List.copyOf(q)) {
                if (w.done) {
                    continue;
                }
                Served s;
                try {
                    s = w.attempt.tryKey(r.key());
                } catch (CollectionAccess.WrongType e) {
                    // it waits for another type (BLPOP on a key that became a sorted set):
                    // skipped, as Redis serves only the clients blocked for the key's type
                    continue;
                } catch (RuntimeException e) {
                    // the waiter's keyspace failed (closed with its app ...): it gets the
                    // error, and the writer, whose own command is done, is not affected
                    log.warn("serving a client blocked on a key failed", e);
                    s = Served.of(x -> x.error(dev.cajon.protocol.RedisErrors.internalError(e)));
                }
                if (s == null) {
                    break;
                }
                remove(w);
                w.host.unpark(s.reply());
                if (s.pushedTo() != null) {
                    todo.addLast(new Ready(s.keyspace(), s.pushedTo()));
                }
            }
        }
    }
}
