package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.container;
import static dev.cajon.server.command.Specs.sub;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.ServerContext;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandFlag;
import dev.cajon.server.command.CommandSpec;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.session.Accounts;
import dev.cajon.server.session.AclRules;
import dev.cajon.server.session.AppPermissions;
import dev.cajon.server.session.ClientSession;
import dev.cajon.storage.namespace.App;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * The ACL container command, where Cajon's apps are managed in Redis's vocabulary: each ACL user
 * but {@code default} is an app with its own drawer of keys ({@link Accounts}).
 *
 * <p>SETUSER creates or changes an app (its name is its directory, so it must be a safe one),
 * DELUSER deletes apps with their data after closing their connections, LIST, USERS and GETUSER
 * describe them, WHOAMI names the connection's user, CAT lists the categories, GENPASS makes a
 * password, DRYRUN says whether a user may run a command, SAVE has nothing to do (every change is
 * saved when it is made). The replies have Redis 7.0.15's shapes; what they say is what is in
 * force in Cajon: every user has all its own keys ({@code ~* &*}), an app all commands but the
 * admin ones ({@link AppPermissions}), and passwords are shown as {@link Accounts#REDACTED},
 * never as the SHA-256 Redis shows. An app may run WHOAMI, CAT, GENPASS and HELP; the rest are
 * flagged {@code admin}, as in Redis, and answer it NOPERM.
 */
public final class AclFamily {
    private AclFamily() {
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    // ------------------------------------------------------------------ SETUSER, DELUSER

    /** ACL SETUSER username [rule ...]. */
    static void setuser(Ctx c) {
        byte[] user = c.arg(2);
        for (byte b : user) {
            if (b == ' ' || b == '\t' || b == '\n' || b == 0x0B || b == '\f' || b == '\r' || b == 0) {
                throw new CommandError(RedisErrors.ACL_USERNAME_SPACES); // Redis's ACLStringHasSpaces
            }
        }
        List<byte[]> rules = new ArrayList<>(c.argc() - 3);
        for (int i = 3; i < c.argc(); i++) {
            rules.add(c.arg(i));
        }
        c.server().accounts().setUser(name(user), rules);
        c.ok();
    }

    /**
     * ACL DELUSER username [username ...]: the number of users deleted (names that do not exist
     * are skipped). "default" anywhere in the list refuses the whole command, as in Redis.
     */
    static void deluser(Ctx c) {
        List<String> names = new ArrayList<>(c.argc() - 2);
        for (int i = 2; i < c.argc(); i++) {
            String n = name(c.arg(i));
            if (n.equals(Accounts.DEFAULT_USER)) {
                throw new CommandError(RedisErrors.ACL_DEFAULT_UNDELETABLE);
            }
            names.add(n);
        }
        ServerContext server = c.server();
        c.integer(server.accounts().deleteUsers(names, app -> {
            closeClientsOf(server, app);
            server.quotas().forget(app); // a re-created app starts from the server's defaults
            dev.cajon.server.metrics.ServerMetrics metrics = dev.cajon.server.metrics.ServerMetrics.of(server);
            if (metrics != null) {
                metrics.forget(app); // its meters go with it
            }
        }));
    }

    /** Closes every connection working in {@code app} (each on its own event loop). */
    private static void closeClientsOf(ServerContext server, String app) {
        for (ClientSession s : server.clients()) {
            if (s.app().equals(app)) {
                server.kill(s);
            }
        }
    }

    // ------------------------------------------------------------------ LIST, USERS, GETUSER, WHOAMI

    /** ACL LIST: one line per user, in name order, in Redis's config-file format. */
    static void list(Ctx c) {
        List<App> users = new ArrayList<>(c.server().accounts().users());
        c.arrayHeader(users.size());
        for (App u : users) {
            StringBuilder sb = new StringBuilder("user ").append(u.name()).append(u.enabled() ? " on" : " off");
            if (u.nopass()) {
                sb.append(" nopass");
            }
            for (int i = 0; i < u.passwords().size(); i++) {
                sb.append(" #").append(Accounts.REDACTED);
            }
            sb.append(' ').append(KEYS).append(' ').append(CHANNELS).append(' ').append(commands(u));
            c.bulk(sb.toString());
        }
    }

    static void users(Ctx c) {
        List<App> users = new ArrayList<>(c.server().accounts().users());
        c.arrayHeader(users.size());
        users.forEach(u -> c.bulk(u.name()));
    }

    /**
     * ACL GETUSER username: a map (RESP3) or flat array (RESP2) of flags, passwords, commands,
     * keys, channels and selectors, as Redis 7.0 answers; null for an unknown user.
     */
    static void getuser(Ctx c) {
        App u = c.server().accounts().user(name(c.arg(2)));
        if (u == null) {
            c.nullBulk();
            return;
        }
        c.mapHeader(6);
        c.bulk("flags");
        c.setHeader(u.nopass() ? 2 : 1);
        c.bulk(u.enabled() ? "on" : "off");
        if (u.nopass()) {
            c.bulk("nopass");
        }
        c.bulk("passwords");
        c.arrayHeader(u.passwords().size());
        for (int i = 0; i < u.passwords().size(); i++) {
            c.bulk(Accounts.REDACTED);
        }
        c.bulk("commands");
        c.bulk(commands(u));
        c.bulk("keys");
        c.bulk(KEYS);
        c.bulk("channels");
        c.bulk(CHANNELS);
        c.bulk("selectors");
        c.arrayHeader(0);
    }

    static void whoami(Ctx c) {
        c.bulk(c.session().app());
    }

    /** Every key of its own drawer: the only keys a user can reach. */
    private static final String KEYS = "~*";
    private static final String CHANNELS = "&*";

    private static String commands(App u) {
        return u.name().equals(Accounts.DEFAULT_USER) ? "+@all" : AppPermissions.describeApp();
    }

    // ------------------------------------------------------------------ CAT, GENPASS, DRYRUN, SAVE

    private static final List<String> CATEGORIES = AclRules.CATEGORIES;

    /**
     * ACL CAT [category]: the categories, or the commands Cajon serves in one (subcommands as
     * "parent|sub"), as COMMAND INFO reports their categories.
     */
    static void cat(Ctx c) {
        if (c.argc() > 3) {
            throw new CommandError(RedisErrors.subcommandSyntax(c.arg(1), "acl"));
        }
        if (c.argc() == 2) {
            c.arrayHeader(CATEGORIES.size());
            CATEGORIES.forEach(c::bulk);
            return;
        }
        String cat = new String(c.arg(2), StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        if (!CATEGORIES.contains(cat)) {
            throw new CommandError(RedisErrors.aclUnknownCategory(c.arg(2)));
        }
        List<String> names = new ArrayList<>();
        for (CommandSpec s : c.server().table().all()) {
            for (CommandSpec r : s.isContainer() ? s.subcommands() : List.of(s)) {
                if (inCategory(r, cat)) {
                    names.add(r.name());
                }
            }
        }
        c.arrayHeader(names.size());
        names.forEach(c::bulk);
    }

    /** The categories COMMAND INFO gives a row (from its flags and group). */
    private static boolean inCategory(CommandSpec s, String cat) {
        return switch (cat) {
            case "keyspace" -> s.group().equals("generic");
            case "read" -> s.has(CommandFlag.READONLY);
            case "write" -> s.has(CommandFlag.WRITE);
            case "string" -> s.group().equals("string");
            case "admin", "dangerous" -> s.has(CommandFlag.ADMIN);
            case "fast" -> s.has(CommandFlag.FAST);
            case "slow" -> !s.has(CommandFlag.FAST);
            case "connection" -> s.group().equals("connection");
            case "transaction" -> s.group().equals("transactions");
            default -> false;
        };
    }

    /** ACL GENPASS [bits]: that many random bits (256 by default) as hex digits, rounded up. */
    static void genpass(Ctx c) {
        if (c.argc() > 3) {
            throw new CommandError(RedisErrors.subcommandSyntax(c.arg(1), "acl"));
        }
        long bits = 256;
        if (c.argc() == 3) {
            bits = ArgCursor.parseLong(c.arg(2));
            if (bits <= 0 || bits > 4096) {
                throw new CommandError(RedisErrors.ACL_GENPASS_BITS);
            }
        }
        int chars = (int) ((bits + 3) / 4);
        byte[] random = new byte[(chars + 1) / 2];
        RANDOM.nextBytes(random);
        c.bulk(HexFormat.of().formatHex(random).substring(0, chars));
    }

    /**
     * ACL DRYRUN username command [arg ...]: +OK when the user may run the command, else why not
     * (a bulk string, as Redis answers); an unknown user or command, or a wrong arity, is an error.
     */
    static void dryrun(Ctx c) {
        App u = c.server().accounts().user(name(c.arg(2)));
        if (u == null) {
            throw new CommandError(RedisErrors.aclUserNotFound(c.arg(2)));
        }
        CommandSpec spec = c.server().table().lookup(c.arg(3));
        int argc = c.argc() - 3;
        if (spec != null && spec.isContainer() && argc >= 2) {
            spec = CommandTable.lookupSub(spec, c.arg(4));
        }
        if (spec == null) {
            throw new CommandError(RedisErrors.aclCommandNotFound(c.arg(3)));
        }
        if (!spec.arityOk(argc)) {
            throw new CommandError(RedisErrors.wrongArity(spec.name()));
        }
        if (u.name().equals(Accounts.DEFAULT_USER) || AppPermissions.allowed(spec)) {
            c.ok();
        } else {
            c.bulk(RedisErrors.dryRunDenied(spec.name()));
        }
    }

    /** ACL SAVE: every change is already in the apps registry on disk. */
    static void save(Ctx c) {
        c.ok();
    }

    /** Redis 7.0.15's ACL HELP, for the subcommands Cajon has (no LOAD, no LOG). */
    private static final List<String> HELP = List.of(
            "ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "CAT [<category>]",
            "    List all commands that belong to <category>, or all command categories",
            "    when no category is specified.",
            "DELUSER <username> [<username> ...]",
            "    Delete a list of users.",
            "DRYRUN <username> <command> [<arg> ...]",
            "    Returns whether the user can execute the given command without executing the command.",
            "GETUSER <username>",
            "    Get the user's details.",
            "GENPASS [<bits>]",
            "    Generate a secure 256-bit user password. The optional `bits` argument can",
            "    be used to specify a different size.",
            "LIST",
            "    Show users details in config file format.",
            "SAVE",
            "    Nothing to do: users are saved as soon as they change.",
            "SETUSER <username> <attribute> [<attribute> ...]",
            "    Create or modify a user with the specified attributes.",
            "USERS",
            "    List all the registered usernames.",
            "WHOAMI",
            "    Return the current connection username.",
            "HELP",
            "    Prints this help.");

    static void help(Ctx c) {
        c.helpLines(HELP);
    }

    /** A user name as given (Redis's names are binary; ISO-8859-1 keeps every byte). */
    private static String name(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    /** Redis 7.0.15's metadata, one line per subcommand. */
    public static void register(CommandTable t) {
        String acl = "acl";
        t.register(container(acl, -2, "", "server", "6.0.0", "A container for Access List Control commands ", null, List.of(
                sub(acl, "cat", -2, "noscript loading stale", "6.0.0", "List the ACL categories or the commands inside a category", AclFamily::cat),
                sub(acl, "deluser", -3, "admin noscript loading stale", "6.0.0", "Remove the specified ACL users and the associated rules", AclFamily::deluser),
                sub(acl, "dryrun", -4, "admin noscript loading stale", "7.0.0", "Returns whether the user can execute the given command without executing the command.", AclFamily::dryrun),
                sub(acl, "genpass", -2, "noscript loading stale", "6.0.0", "Generate a pseudorandom secure password to use for ACL users", AclFamily::genpass),
                sub(acl, "getuser", 3, "admin noscript loading stale", "6.0.0", "Get the rules for a specific ACL user", AclFamily::getuser),
                sub(acl, "list", 2, "admin noscript loading stale", "6.0.0", "List the current ACL rules in ACL config file format", AclFamily::list),
                sub(acl, "save", 2, "admin noscript loading stale", "6.0.0", "Save the current ACL rules in the configured ACL file", AclFamily::save),
                sub(acl, "setuser", -3, "admin noscript loading stale", "6.0.0", "Modify or create the rules for a specific ACL user", AclFamily::setuser),
                sub(acl, "users", 2, "admin noscript loading stale", "6.0.0", "List the username of all the configured ACL rules", AclFamily::users),
                sub(acl, "whoami", 2, "noscript loading stale", "6.0.0", "Return the name of the user associated to the current connection", AclFamily::whoami),
                sub(acl, "help", 2, "loading stale", "6.0.0", "Show helpful text about the different subcommands", AclFamily::help))));
    }
}
