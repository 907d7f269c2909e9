package dev.cajon.server.session;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.command.CommandError;
import dev.cajon.storage.Store;
import dev.cajon.storage.namespace.App;
import dev.cajon.storage.namespace.AppRegistry;
import dev.cajon.storage.namespace.PasswordHash;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The users of this server, in Redis's ACL vocabulary: {@code default}, the admin, whose app is
 * "default", and one user per app, each bound to its own drawer of keys. Answers AUTH and HELLO
 * AUTH, binds a connection to its app, and applies ACL SETUSER and DELUSER.
 *
 * <p>The apps live in the {@link AppRegistry} ({@code apps.registry} in the data directory) and
 * survive restarts and crashes; a change is on disk before it is acknowledged. The default user's
 * password comes from {@code --requirepass} at every start (none: {@code nopass}, as in a Redis
 * without requirepass); an ACL SETUSER of {@code default} changes it until the next start, as
 * CONFIG SET requirepass does in a Redis without a config file. Its quotas and settings, if the
 * registry holds a record for it, are kept.
 *
 * <p>Reads (AUTH, ACL LIST) use an immutable snapshot without locking; changes are serialized.
 * Passwords are never logged and never shown: replies print {@link #REDACTED} where Redis prints
 * a password's SHA-256, a hash that would let anyone who sees it test guesses quickly (or set the
 * same password on a Redis with {@code #<hash>}).
 */
public final class Accounts {
    private static final Logger log = LoggerFactory.getLogger(Accounts.class);

    public static final String DEFAULT_USER = Store.DEFAULT_APP;
    /** What replies show for each password, where Redis shows its SHA-256. */
    public static final String REDACTED = "<redacted>";

    private final Store store;
    private final AppRegistry registry;
    private final AuthCache cache = new AuthCache();
    /** Every user by name, default included, in name order; replaced whole on every change. */
    private volatile Map<String, App> users;

    private Accounts(Store store, AppRegistry registry, Map<String, App> users) {
        this.store = store;
        this.registry = registry;
        this.users = users;
    }

    /**
     * The users of {@code store}'s data directory: its registry's apps, and default with
     * {@code requirepass} (null: no password).
     */
    public static Accounts open(Store store, String requirepass) {
        AppRegistry registry = AppRegistry.open(store.dir());
        store.sweepDroppedApps(); // what a DELUSER cut short by a crash left behind
        Map<String, App> users = new TreeMap<>();
        registry.all().forEach(a -> users.put(a.name(), a));
        App stored = registry.get(DEFAULT_USER);
        App def = stored != null ? stored : App.created(DEFAULT_USER);
        def = requirepass == null
                ? def.withEnabled(true).withNopass(true).withPasswords(List.of())
                : def.withEnabled(true).withNopass(false).withPasswords(
                        List.of(PasswordHash.memoryOnly(requirepass.getBytes(StandardCharsets.UTF_8))));
        users.put(DEFAULT_USER, def);
        return new Accounts(store, registry, Collections.unmodifiableMap(users));
    }

    /** The user named {@code name}, or null. */
    public App user(String name) {
        return users.get(name);
    }

    /** Every user, in name order (ACL USERS, ACL LIST). */
    public Collection<App> users() {
        return users.values();
    }

    /** Whether the default user has {@code nopass} (AUTH with a password alone is then an error). */
    public boolean defaultNopass() {
        return users.get(DEFAULT_USER).nopass();
    }

    /**
     * A new connection: authenticated as default at once if default is on and has no password,
     * as Redis's createClient does; otherwise every command but AUTH, HELLO and QUIT answers NOAUTH.
     */
    public void connected(ClientSession s) {
        App def = users.get(DEFAULT_USER);
        s.authenticated(def.enabled() && def.nopass());
    }

    /**
     * RESET: the connection goes back to the default user and its app, authenticated only when
     * default is on and has no password, as Redis's clientSetDefaultAuth.
     */
    public void reset(ClientSession s) {
        App def = users.get(DEFAULT_USER);
        s.authenticatedAs(DEFAULT_USER, false);
        s.authenticated(def.enabled() && def.nopass());
    }

    // ------------------------------------------------------------------ AUTH

    /**
     * AUTH and HELLO AUTH: when {@code password} is right for {@code user} (case-sensitive, on),
     * binds {@code s} to that user's app and returns true. Otherwise {@code s} is left as it was
     * (a failed AUTH does not log a connection out, as in Redis).
     */
    public boolean login(ClientSession s, byte[] user, byte[] password) {
        String name = new String(user, StandardCharsets.ISO_8859_1);
        App u = verify(name, password);
        if (u == null) {
            return false;
        }
        String prevApp = s.app();
        boolean prevAuth = s.authenticated();
        boolean prevAppUser = s.appUser();
        s.authenticatedAs(name, !DEFAULT_USER.equals(name));
        // ACL DELUSER removes the user, then closes the connections of its app. This binding was
        // published (a volatile write) before looking again (a volatile read), so either DELUSER
        // sees this session in the app and closes it, or this sees the user gone and backs out.
        if (users.get(name) == null) {
            s.authenticatedAs(prevApp, prevAppUser);
            s.authenticated(prevAuth);
            return false;
        }
        return true;
    }

    /** The user when {@code password} is right for it, else null. Slow unless remembered. */
    App verify(String name, byte[] password) {
        App u = users.get(name);
        if (u == null || !u.enabled()) {
            return null;
        }
        if (u.nopass()) {
            return u;
        }
        if (u.passwords().isEmpty()) {
            return null;
        }
        AuthCache.Key k = cache.key(name, password);
        Boolean known = cache.lookup(k, u);
        if (known != null) {
            return known ? u : null;
        }
        boolean ok = false;
        for (PasswordHash p : u.passwords()) {
            if (p.matches(password)) {
                ok = true;
                break;
            }
        }
        cache.remember(k, u, ok);
        return ok ? u : null;
    }

    // ------------------------------------------------------------------ SETUSER, DELUSER

    /**
     * ACL SETUSER: applies {@code rules} to the user {@code name}, creating it (off, without
     * passwords, as Redis does) when new. A new app starts with an empty drawer: anything left on
     * disk under its name is dropped first. Throws {@link CommandError} with Redis's text for a
     * refused rule or name; nothing changes then.
     */
    public synchronized void setUser(String name, List<byte[]> rules) {
        App before = users.get(name);
        if (before == null) {
            if (!App.validName(name)) {
                throw new CommandError(RedisErrors.ACL_APP_NAME);
            }
            for (String existing : users.keySet()) {
                if (existing.equalsIgnoreCase(name)) {
                    throw new CommandError(RedisErrors.aclAppNameCase(existing));
                }
            }
        }
        App after = AclRules.apply(before != null ? before : App.created(name), rules);
        if (!DEFAULT_USER.equals(name)) {
            if (before == null) {
                store.dropApp(name);
            }
            try {
                registry.put(after);
            } catch (UncheckedIOException e) {
                log.error("ACL SETUSER {}: could not save the apps registry", name, e);
                throw new CommandError(RedisErrors.appsRegistryWrite(e.getMessage()));
            }
        }
        publish(name, after);
        log.info("ACL SETUSER {}: {} ({}, {} password(s){})", name, before == null ? "created" : "changed",
                after.enabled() ? "on" : "off", after.passwords().size(), after.nopass() ? ", nopass" : "");
    }

    /**
     * ACL DELUSER of apps that exist (the caller has refused "default"): each leaves the user
     * table at once (no new AUTH), its connections are closed by {@code closeClients}, its
     * keyspaces and directory are deleted, and then it leaves the registry. Returns how many
     * were deleted. A crash in between leaves an app that still exists with no data; a second
     * DELUSER finishes the job.
     */
    public synchronized int deleteUsers(List<String> names, Consumer<String> closeClients) {
        List<String> gone = new ArrayList<>();
        for (String n : names) {
            if (!DEFAULT_USER.equals(n) && users.containsKey(n) && !gone.contains(n)) {
                gone.add(n);
            }
        }
        if (gone.isEmpty()) {
            return 0;
        }
        Map<String, App> next = new TreeMap<>(users);
        next.keySet().removeAll(gone);
        users = Collections.unmodifiableMap(next);
        for (String n : gone) {
            closeClients.accept(n);
            store.dropApp(n);
        }
        try {
            registry.removeAll(gone);
        } catch (UncheckedIOException e) {
            log.error("ACL DELUSER {}: data deleted, but the apps registry could not be saved", gone, e);
            throw new CommandError(RedisErrors.appsRegistryWrite(e.getMessage()));
        }
        log.info("ACL DELUSER: deleted {} with their data", gone);
        return gone.size();
    }

    /**
     * Changes what an existing user's record holds besides its credentials (quotas, settings):
     * {@code change} gets the current record and returns the new one, which is saved before it
     * is in force. For default only the quotas and settings are saved (its password is
     * --requirepass's). Returns the new record, or null when there is no such user.
     */
    public synchronized App updateApp(String name, java.util.function.UnaryOperator<App> change) {
        App before = users.get(name);
        if (before == null) {
            return null;
        }
        App after = change.apply(before);
        if (!after.name().equals(name)) {
            throw new IllegalArgumentException("an update cannot rename " + name);
        }
        App saved = DEFAULT_USER.equals(name)
                ? after.withEnabled(true).withNopass(true).withPasswords(List.of()) : after;
        try {
            registry.put(saved);
        } catch (UncheckedIOException e) {
            log.error("updating {}: could not save the apps registry", name, e);
            throw new CommandError(RedisErrors.appsRegistryWrite(e.getMessage()));
        }
        publish(name, after);
        return after;
    }

    private void publish(String name, App u) {
        Map<String, App> next = new TreeMap<>(users);
        next.put(name, u);
        users = Collections.unmodifiableMap(next);
    }

    /** How many password checks are remembered (tests). */
    int cachedChecks() {
        return cache.size();
    }
}
