package dev.cajon.bot.kv;

import dev.cajon.storage.CounterResult;
import dev.cajon.storage.ExpireCondition;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.OpStatus;
import dev.cajon.storage.SetCondition;
import dev.cajon.storage.SetResult;
import dev.cajon.storage.Store;
import dev.cajon.storage.StringValue;
import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.tx.Watch;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The port straight on Cajon's storage, in the bot's JVM: no sockets, no RESP. One app and db of
 * a {@link Store} that the caller opened (and closes).
 *
 * <p>What must stay true: the keyspace is fetched from the store by {@link #keyspace()} for every
 * operation and never kept, because the store may close an idle keyspace and open it again. A
 * transaction is the one exception: its WATCH belongs to the keyspace object it was taken on, so
 * EXEC checks that the store still hands out that object, and otherwise aborts (the caller's
 * optimistic loop runs again, as after any concurrent change).
 *
 * <p>EXEC runs as one {@link Keyspace#atomically} section over every watched and written key,
 * with the undo record when it writes two keys or more, exactly as the server's EXEC does: no
 * other caller sees part of it, and after a crash it is there whole or not at all.
 */
public final class EmbeddedKv implements Kv {
    private final Store store;
    private final String app;
    private final int db;

    public EmbeddedKv(Store store, String app, int db) {
        this.store = store;
        this.app = app;
        this.db = db;
    }

    /** The one place that finds the keyspace; see the class comment. */
    private Keyspace keyspace() {
        return store.keyspace(app, db);
    }

    /**
     * The server's min-free-disk rule for embedded use (see {@code DiskSpace}): a write that adds
     * data fails while the data directory's disk is under its floor, as the server's -MISCONF;
     * a DEL or PEXPIRE goes on.
     */
    private void checkDisk(List<Op> ops) {
        if (store.durability().disk().low()) {
            for (Op op : ops) {
                if (!(op instanceof Op.Del) && !(op instanceof Op.PExpire)) {
                    throw new KvException("MISCONF the data directory's disk has less than min-free-disk free");
                }
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(StringValue v) {
        return v == null ? null : new String(v.toBytes(), StandardCharsets.UTF_8);
    }

    private long deadline(Keyspace ks, long pxMillis) {
        return pxMillis > 0 ? ks.clock().nowMillis() + pxMillis : ValueHeader.NO_EXPIRY;
    }

    @Override
    public String get(String key) {
        return string(keyspace().strings().get(bytes(key)));
    }

    @Override
    public SetReply set(String key, String value, SetOptions o) {
        checkDisk(List.of(new Op.Set(key, value, o.pxMillis())));
        Keyspace ks = keyspace();
        SetCondition cond = switch (o.condition()) {
            case ALWAYS -> SetCondition.ALWAYS;
            case NX -> SetCondition.IF_ABSENT;
            case XX -> SetCondition.IF_PRESENT;
        };
        SetResult r = ks.strings().set(bytes(key), bytes(value), cond, deadline(ks, o.pxMillis()), o.get());
        if (r.status() != OpStatus.OK && r.status() != OpStatus.NOT_APPLIED) {
            throw new KvException("SET " + key + ": " + r.status());
        }
        return new SetReply(r.status() == OpStatus.OK, o.get() ? string(r.old()) : null);
    }

    @Override
    public Long incr(String key) {
        checkDisk(List.of(new Op.Incr(key, 1)));
        return incr(keyspace(), key, 1);
    }

    private static Long incr(Keyspace ks, String key, long by) {
        CounterResult r = ks.strings().incrBy(bytes(key), by);
        return switch (r.status()) {
            case OK -> r.value();
            case NOT_INTEGER, OVERFLOW -> null;
            default -> throw new KvException("INCR " + key + ": " + r.status());
        };
    }

    @Override
    public boolean pexpire(String key, long millis) {
        Keyspace ks = keyspace();
        return ks.expireAt(bytes(key), ks.clock().nowMillis() + millis, ExpireCondition.NONE);
    }

    @Override
    public boolean del(String key) {
        return keyspace().del(bytes(key));
    }

    @Override
    public Tx watch(List<String> keys) {
        Keyspace ks = keyspace();
        List<Watch> watches = new ArrayList<>(keys.size());
        for (String k : keys) {
            watches.add(ks.watch(bytes(k)));
        }
        return new EmbeddedTx(ks, keys, watches);
    }

    /** One op on its own: a single command of the keyspace (atomic on its key). */
    private Object apply(Keyspace ks, Op op) {
        if (op instanceof Op.Set s) {
            return ks.strings().set(bytes(s.key()), bytes(s.value()), SetCondition.ALWAYS,
                    deadline(ks, s.pxMillis()), false).status() == OpStatus.OK;
        } else if (op instanceof Op.SetNx s) {
            return ks.strings().set(bytes(s.key()), bytes(s.value()), SetCondition.IF_ABSENT,
                    deadline(ks, s.pxMillis()), false).status() == OpStatus.OK;
        } else if (op instanceof Op.Incr i) {
            return incr(ks, i.key(), i.by());
        } else if (op instanceof Op.PExpire p) {
            return ks.expireAt(bytes(p.key()), ks.clock().nowMillis() + p.millis(), ExpireCondition.NONE);
        } else {
            return ks.del(bytes(op.key()));
        }
    }

    /** No round trips to save: the ops one after the other, in order. */
    @Override
    public List<Object> pipeline(List<Op> ops) {
        checkDisk(ops);
        List<Object> out = new ArrayList<>(ops.size());
        for (Op op : ops) {
            out.add(apply(keyspace(), op));
        }
        return out;
    }

    @Override
    public Tx watch(List<String> keys, List<Op> before) {
        List<Object> results = pipeline(before);
        EmbeddedTx tx = (EmbeddedTx) watch(keys);
        tx.before = results;
        return tx;
    }

    @Override
    public void close() {
        // the store belongs to the caller
    }

    private final class EmbeddedTx implements Tx {
        private final Keyspace watched;
        private final List<String> keys;
        private final List<Watch> watches;
        private boolean done;
        private List<Object> before = List.of();

        EmbeddedTx(Keyspace watched, List<String> keys, List<Watch> watches) {
            this.watched = watched;
            this.keys = keys;
            this.watches = watches;
        }

        @Override
        public List<Object> before() {
            return before;
        }

        @Override
        public String get(String key) {
            return EmbeddedKv.this.get(key);
        }

        @Override
        public List<Object> exec(List<Op> ops) {
            if (done) {
                throw new IllegalStateException("EXEC twice on one WATCH");
            }
            done = true;
            try {
                checkDisk(ops);
                Keyspace ks = keyspace();
                if (ks != watched || ks.isClosed()) {
                    return null; // the keyspace was reopened: the watches saw nothing, so abort
                }
                byte[][] all = new byte[keys.size() + ops.size()][];
                for (int i = 0; i < keys.size(); i++) {
                    all[i] = bytes(keys.get(i));
                }
                for (int i = 0; i < ops.size(); i++) {
                    all[keys.size() + i] = bytes(ops.get(i).key());
                }
                return ks.atomically(all, false, ops.size() >= 2, () -> {
                    for (Watch w : watches) {
                        if (ks.changed(w)) {
                            return null;
                        }
                    }
                    List<Object> out = new ArrayList<>(ops.size());
                    for (Op op : ops) {
                        out.add(apply(ks, op));
                    }
                    return out;
                });
            } finally {
                unwatch();
            }
        }

        /** No round trip to save: EXEC, then a new WATCH; the caller compares what it reads. */
        @Override
        public Chained execThenWatch(List<Op> ops, List<String> watchKeys) {
            List<Object> r = exec(ops);
            if (r == null) {
                return new Chained(null, null);
            }
            EmbeddedTx next = (EmbeddedTx) watch(watchKeys);
            next.before = r;
            return new Chained(r, next);
        }

        private void unwatch() {
            if (!watched.isClosed()) {
                for (Watch w : watches) {
                    watched.unwatch(w);
                }
            }
            watches.clear();
        }

        @Override
        public void close() {
            if (!done) {
                done = true;
                unwatch();
            }
        }
    }
}
