package dev.cajon.server;

import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Dispatcher;
import dev.cajon.server.family.AclFamily;
import dev.cajon.server.family.AppFamily;
import dev.cajon.server.family.ClientFamily;
import dev.cajon.server.family.HashFamily;
import dev.cajon.server.family.ListFamily;
import dev.cajon.server.family.SetFamily;
import dev.cajon.server.family.SortedSetFamily;
import dev.cajon.server.family.ConnectionFamily;
import dev.cajon.server.family.CounterFamily;
import dev.cajon.server.family.ExpiryFamily;
import dev.cajon.server.family.KeyFamily;
import dev.cajon.server.family.ObjectFamily;
import dev.cajon.server.family.ConfigFamily;
import dev.cajon.server.family.ServerFamily;
import dev.cajon.server.family.StringFamily;
import dev.cajon.server.family.TransactionFamily;
import dev.cajon.server.session.Accounts;
import dev.cajon.server.session.ClientPause;
import dev.cajon.server.session.ClientSession;
import dev.cajon.storage.Clock;
import dev.cajon.storage.Store;
import dev.cajon.storage.expiry.ExpiryWheel;
import java.security.SecureRandom;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every connection shares: the store, the command table and dispatcher, the clock, the
 * counters, the registry of connected clients and CLIENT PAUSE's state. Independent of Netty, so
 * family tests can run commands in-process against it.
 */
public final class ServerContext {
    public static final int DATABASES = 16;

    private final ServerConfig config;
    private final Store store;
    private final Saves saves;
    private final Accounts accounts;
    private volatile String requirepass;
    private final CommandTable table;
    private final Dispatcher dispatcher;
    private final ServerStats stats = new ServerStats();
    private final dev.cajon.server.metrics.CommandStats commandStats;
    private final Map<Long, ClientSession> clients = new ConcurrentHashMap<>();
    private final AtomicLong nextClientId = new AtomicLong(1);
    private final ClientPause clientPause;
    private final long startMillis;
    private final String runId;
    private volatile int port;
    private final ExpiryWheel wheel;
    private final dev.cajon.server.apps.Quotas quotas;
    private final dev.cajon.server.limits.NetLimits netLimits;
    private final dev.cajon.server.net.Connections connections;
    /** {@link #wheel} when reapers run and event loops help them in a backlog; else null. */
    private final ExpiryWheel assisted;
    private final dev.cajon.server.blocking.BlockingKeys blocking;

    public ServerContext(ServerConfig config, Store store) {
        this(config, store, null);
    }

    /** @param wheel the expiry index the store reports deadlines to, or null (lazy expiry only) */
    public ServerContext(ServerConfig config, Store store, ExpiryWheel wheel) {
        this.wheel = wheel;
        // a manual clock's tests drive the wheel themselves: nothing reclaims behind their back
        this.assisted = config.activeExpiry() ? wheel : null;
        this.config = config;
        this.store = store;
        this.saves = new Saves(store, config.clock());
        this.netLimits = new dev.cajon.server.limits.NetLimits(config.net());
        // process-wide, as in Redis: a new server starts from Redis's defaults
        dev.cajon.server.config.TypeParameters.reset();
        this.connections = new dev.cajon.server.net.Connections(netLimits, config.clock()::nowMillis);
        this.quotas = new dev.cajon.server.apps.Quotas(store);
        this.accounts = Accounts.open(store, config.requirepass());
        this.requirepass = config.requirepass();
        quotas.defaults(new dev.cajon.server.apps.Quotas.Limits(config.appMaxKeys(), config.appMaxBytes()));
        // the quotas saved with each app (-1: the server's default)
        for (dev.cajon.storage.namespace.App a : accounts.users()) {
            if (a.maxKeys() >= 0 || a.maxBytes() >= 0) {
                quotas.set(a.name(), new dev.cajon.server.apps.Quotas.Limits(Math.max(0, a.maxKeys()),
                        Math.max(0, a.maxBytes())));
            }
        }
        this.table = standardTable();
        this.dispatcher = new Dispatcher(this, table);
        this.commandStats = new dev.cajon.server.metrics.CommandStats(table);
        this.startMillis = config.clock().nowMillis();
        this.clientPause = new ClientPause(config.clock());
        this.blocking = new dev.cajon.server.blocking.BlockingKeys(config.clock());
        byte[] r = new byte[20];
        new SecureRandom().nextBytes(r);
        StringBuilder sb = new StringBuilder();
        for (byte b : r) {
            sb.append(String.format("%02x", b));
        }
        this.runId = sb.toString();
    }

    /** Every family's commands, registered explicitly. */
    public static CommandTable standardTable() {
        CommandTable t = new CommandTable();
        ConnectionFamily.register(t);
        ClientFamily.register(t);
        ServerFamily.register(t);
        ConfigFamily.register(t);
        StringFamily.register(t);
        CounterFamily.register(t);
        dev.cajon.server.family.BitmapFamily.register(t);
        HashFamily.register(t);
        SetFamily.register(t);
        SortedSetFamily.register(t);
        ListFamily.register(t);
        KeyFamily.register(t);
        ObjectFamily.register(t);
        dev.cajon.server.family.FunctionFamily.register(t);
        dev.cajon.server.family.SaveFamily.register(t);
        ExpiryFamily.register(t);
        TransactionFamily.register(t);
        AclFamily.register(t);
        AppFamily.register(t);
        return t;
    }

    /** What SHUTDOWN does; whoever runs the server sets it (bin/cajon-server: stop the process). */
    private volatile Runnable shutdownRequest = () -> { };

    public void onShutdownRequest(Runnable r) {
        shutdownRequest = r;
    }

    /** SHUTDOWN: stop the server cleanly, as SIGTERM does. Returns at once. */
    public void requestShutdown() {
        shutdownRequest.run();
    }

    /** The expiry wheel, or null when only lazy expiry runs. */
    public ExpiryWheel wheel() {
        return wheel;
    }

    /**
     * Called by an event loop after each read batch: when the wheel has fallen behind the clock
     * (an expiry storm), reclaims one small chunk of due keys on this thread (see
     * {@link ExpiryWheel#assist}); otherwise costs a clock read.
     */
    public void assistExpiry() {
        if (assisted != null) {
            assisted.assist();
        }
    }

    /** The connection limits in force (CONFIG SET changes them). */
    public dev.cajon.server.limits.NetLimits netLimits() {
        return netLimits;
    }

    /** The open connections (idle timeout). */
    public dev.cajon.server.net.Connections connections() {
        return connections;
    }

    public ServerConfig config() {
        return config;
    }

    /** The users (the admin and the apps): AUTH, ACL, and what a new connection starts as. */
    public Accounts accounts() {
        return accounts;
    }

    /**
     * {@code requirepass} as CONFIG GET shows it: {@code --requirepass} or the config file's
     * value, then the last CONFIG SET requirepass (null: none). As in Redis, an ACL SETUSER of
     * default changes the password but not this value.
     */
    public String requirepass() {
        return requirepass;
    }

    /**
     * CONFIG SET requirepass, as Redis's ACLUpdateDefaultUserPassword: the default user's
     * passwords are replaced by this one, or it gets nopass for an empty one. Clients already
     * authenticated stay so.
     */
    public void requirepass(String pass) {
        String p = pass == null || pass.isEmpty() ? null : pass;
        accounts.setUser(Accounts.DEFAULT_USER, p == null
                ? java.util.List.of("resetpass".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                        "nopass".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
                : java.util.List.of("resetpass".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                        (">" + p).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        requirepass = p;
    }

    /** SAVE, BGSAVE and LASTSAVE. */
    public Saves saves() {
        return saves;
    }

    public Store store() {
        return store;
    }

    /** Each app's key and byte quota (checked by the dispatcher before denyoom commands). */
    public dev.cajon.server.apps.Quotas quotas() {
        return quotas;
    }

    public Clock clock() {
        return config.clock();
    }

    public CommandTable table() {
        return table;
    }

    public Dispatcher dispatcher() {
        return dispatcher;
    }

    /** INFO commandstats and errorstats. */
    public dev.cajon.server.metrics.CommandStats commandStats() {
        return commandStats;
    }

    public ServerStats stats() {
        return stats;
    }

    /** INFO's expired_keys: keys expired since the start or the last CONFIG RESETSTAT. */
    public long expiredKeys() {
        return stats.expiredKeys(expiredSinceOpen());
    }

    /** CONFIG RESETSTAT: every INFO stats counter starts again from zero. */
    public void resetStats() {
        stats.reset(expiredSinceOpen());
        commandStats.reset();
        netLimits().rejected.reset();
        if (wheel != null) {
            wheel.resetStats();
        }
    }

    private long expiredSinceOpen() {
        long n = 0;
        for (dev.cajon.storage.Keyspace ks : store.keyspaces()) {
            n += ks.expiredCount();
        }
        return n;
    }

    public long startMillis() {
        return startMillis;
    }

    public String runId() {
        return runId;
    }

    public int port() {
        return port;
    }

    void port(int p) {
        this.port = p;
    }

    public ClientSession newSession(String addr, String laddr) {
        ClientSession s = new ClientSession(nextClientId.getAndIncrement(), addr, laddr, clock().nowMillis());
        accounts.connected(s);
        clients.put(s.id(), s);
        stats.connectionsReceived.increment();
        return s;
    }

    public void sessionClosed(ClientSession s) {
        clients.remove(s.id());
        s.transaction().reset(); // its watches go with it
    }

    public Collection<ClientSession> clients() {
        return clients.values();
    }

    /** The connected client with this id, or null. */
    public ClientSession client(long id) {
        return clients.get(id);
    }

    /**
     * CLIENT KILL of another client: it leaves the registry at once (CLIENT LIST no longer shows
     * it, as in Redis, where the client is freed before the reply) and its connection closes on
     * its own event loop. Returns false when it was already killed.
     */
    public boolean kill(ClientSession s) {
        if (!s.kill()) {
            return false;
        }
        clients.remove(s.id());
        return true;
    }

    /** CLIENT PAUSE's state and the connections waiting for it. */
    public ClientPause clientPause() {
        return clientPause;
    }

    /** INFO's blocked_clients: the clients blocked on keys (BLPOP ...) and those CLIENT PAUSE holds. */
    public int blockedClients() {
        return clientPause.waiting() + blocking.blockedClients();
    }

    /** The clients blocked on keys (BLPOP, BLMOVE ...). */
    public dev.cajon.server.blocking.BlockingKeys blocking() {
        return blocking;
    }
}
