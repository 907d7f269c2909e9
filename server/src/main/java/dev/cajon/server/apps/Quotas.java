package dev.cajon.server.apps;

import dev.cajon.storage.Store;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Each app's quota: how many keys and how many bytes (keys, values and blobs, as
 * {@code Keyspace.liveBytes} counts them) its drawer may hold, over all its dbs.
 *
 * <p>As Redis's maxmemory: the check runs before a command flagged {@code denyoom} (and before an
 * EXEC with one queued), and once the usage has reached the limit every such command is refused
 * with Redis's OOM error, while reads and deletes go on. The command that crosses the limit is
 * still served; the usage counted goes down again with deletes and expiry. The admin's own drawer
 * ({@link Store#DEFAULT_APP}) has no quota unless one is set for it.
 *
 * <p>What must stay true: with no limit anywhere, {@link #active} is false and a command pays one
 * field read. A limit is a number of keys or bytes; 0 means none.
 */
public final class Quotas {
    /** One app's limits; 0 = none. */
    public record Limits(long maxKeys, long maxBytes) {
        public static final Limits NONE = new Limits(0, 0);

        public boolean any() {
            return maxKeys > 0 || maxBytes > 0;
        }
    }

    private final Store store;
    private volatile Limits defaults = Limits.NONE;
    private final Map<String, Limits> own = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> rejected = new ConcurrentHashMap<>();
    private volatile boolean active;

    public Quotas(Store store) {
        this.store = store;
    }

    /** The limits of every app that has none of its own (not the admin's). */
    public void defaults(Limits d) {
        defaults = d;
        refresh();
    }

    public Limits defaults() {
        return defaults;
    }

    /** Sets {@code app}'s own limits, or with null goes back to the server's defaults. */
    public void set(String app, Limits l) {
        if (l == null) {
            own.remove(app);
        } else {
            own.put(app, l);
        }
        refresh();
    }

    /** The app's own limits, or null when it takes the server's defaults. */
    public Limits own(String app) {
        return own.get(app);
    }

    /** The limits in force for {@code app}. */
    public Limits of(String app) {
        Limits l = own.get(app);
        if (l != null) {
            return l;
        }
        return Store.DEFAULT_APP.equals(app) ? Limits.NONE : defaults;
    }

    private void refresh() {
        boolean any = defaults.any();
        for (Limits l : own.values()) {
            any |= l.any();
        }
        active = any;
    }

    /** Whether any app has a limit (the dispatcher's fast check). */
    public boolean active() {
        return active;
    }

    /**
     * Whether {@code app} is at or past a limit, so a denyoom command must be refused; counts the
     * refusal.
     */
    public boolean refuse(String app) {
        Limits l = of(app);
        if (!l.any()) {
            return false;
        }
        boolean over = l.maxKeys() > 0 && store.appKeys(app) >= l.maxKeys()
                || l.maxBytes() > 0 && store.appBytes(app) >= l.maxBytes();
        if (over) {
            rejected.computeIfAbsent(app, a -> new LongAdder()).increment();
        }
        return over;
    }

    /** Writes refused by {@code app}'s quota since the start. */
    public long rejected(String app) {
        LongAdder n = rejected.get(app);
        return n == null ? 0 : n.sum();
    }

    /** An app is gone (ACL DELUSER): its limits and counters go with it. */
    public void forget(String app) {
        own.remove(app);
        rejected.remove(app);
        refresh();
    }
}
