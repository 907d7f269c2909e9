package dev.cajon.server.session;

import dev.cajon.server.command.CommandFlag;
import dev.cajon.server.command.CommandSpec;
import java.util.Set;
import java.util.TreeSet;

/**
 * What an app's connections may run. An app is isolated by its drawer, not by ACL rules: every
 * keyspace command only ever sees the app's own keys, so an app may run every command except
 * those that act on the server beyond its drawer. Those are the commands Redis flags
 * {@code admin} (CONFIG, SHUTDOWN, CLIENT PAUSE, ACL SETUSER ...), read from the command table,
 * so a command added later is decided by its row. They answer Redis's NOPERM error, as they would
 * for a Redis user with {@code -@admin}.
 *
 * <p>The exceptions are the admin commands whose handlers act only within the caller's app,
 * because Cajon scopes them (there is no flag for that, hence a list): CLIENT LIST (its own
 * connections), CLIENT KILL (it only finds its own connections) and CLIENT NO-EVICT (its own
 * connection's flag).
 *
 * <p>The admin is the {@code default} user: it runs everything (in its own app, "default").
 */
public final class AppPermissions {
    private AppPermissions() {
    }

    /** Admin-flagged commands an app may still run: they only act within the app. */
    static final Set<String> SCOPED_TO_APP = Set.of("client|list", "client|kill", "client|no-evict");

    /** Whether an app may run {@code spec} (a subcommand row for a container command). */
    public static boolean allowed(CommandSpec spec) {
        return !spec.has(CommandFlag.ADMIN) || SCOPED_TO_APP.contains(spec.name());
    }

    /**
     * The dispatcher's check, after authentication, for a connection of an app: whether
     * {@code spec} is refused with NOPERM. Inside MULTI a {@code no_multi} command is left to the
     * dispatcher's transaction check, which Redis 7.0 runs first (an app's SHUTDOWN in MULTI
     * answers "Command not allowed inside a transaction").
     */
    public static boolean denied(ClientSession s, CommandSpec spec) {
        return !allowed(spec) && !(spec.has(CommandFlag.NO_MULTI) && s.transaction().inMulti());
    }

    /** An app's command rules in ACL LIST's words: all commands but the admin ones it may not run. */
    public static String describeApp() {
        StringBuilder sb = new StringBuilder("+@all -@admin");
        for (String name : new TreeSet<>(SCOPED_TO_APP)) {
            sb.append(" +").append(name);
        }
        return sb.toString();
    }
}
