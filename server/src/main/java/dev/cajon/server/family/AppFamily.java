package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.container;
import static dev.cajon.server.command.Specs.sub;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.apps.Quotas;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import java.util.List;

/**
 * APP: Cajon's own container command for what Redis has no words for, an app's quota and usage.
 * The accounts themselves are ACL users (see AclFamily); this only sizes their drawers.
 * <ul>
 *   <li>{@code APP QUOTA <app> [MAXKEYS n] [MAXBYTES n]} (admin): sets the app's own limits (0:
 *       none); {@code APP QUOTA <app> DEFAULT} goes back to the server's defaults.</li>
 *   <li>{@code APP INFO [<app>]}: a map of the app's usage and limits. An app may ask only for
 *       its own (NOPERM otherwise); the admin for any.</li>
 * </ul>
 */
public final class AppFamily {
    private AppFamily() {
    }

    static void quota(Ctx c) {
        String app = c.argv().str(2);
        if (c.server().accounts().user(app) == null) {
            throw new CommandError(RedisErrors.noSuchApp(app));
        }
        Quotas q = c.server().quotas();
        if (c.argc() == 4 && ArgCursor.is(c.arg(3), "default")) {
            c.server().accounts().updateApp(app, rec -> rec.withQuotas(-1, -1));
            q.set(app, null);
            c.ok();
            return;
        }
        Quotas.Limits current = q.of(app);
        long keys = current.maxKeys();
        long bytes = current.maxBytes();
        ArgCursor a = c.args(3);
        if (!a.hasNext()) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        while (a.hasNext()) {
            if (a.nextIs("maxkeys")) {
                keys = nonNegative(a.nextLong());
            } else if (a.nextIs("maxbytes")) {
                bytes = nonNegative(a.nextLong());
            } else {
                throw new CommandError(RedisErrors.SYNTAX);
            }
        }
        long k = keys;
        long b = bytes;
        // saved with the app first (apps.registry), so a restart or a kill -9 keeps it
        c.server().accounts().updateApp(app, rec -> rec.withQuotas(k, b));
        q.set(app, new Quotas.Limits(keys, bytes));
        c.ok();
    }

    private static long nonNegative(long v) {
        if (v < 0) {
            throw new CommandError(RedisErrors.NOT_INTEGER);
        }
        return v;
    }

    static void info(Ctx c) {
        String own = c.session().app();
        String app = c.argc() == 3 ? c.argv().str(2) : own;
        if (!app.equals(own) && !own.equals(dev.cajon.storage.Store.DEFAULT_APP)) {
            throw new CommandError(RedisErrors.noPermission("app|info"));
        }
        Quotas q = c.server().quotas();
        Quotas.Limits l = q.of(app);
        c.mapHeader(7);
        c.bulk("app");
        c.bulk(app);
        c.bulk("keys");
        c.integer(c.server().store().appKeys(app));
        c.bulk("bytes");
        c.integer(c.server().store().appBytes(app));
        c.bulk("max-keys");
        c.integer(l.maxKeys());
        c.bulk("max-bytes");
        c.integer(l.maxBytes());
        c.bulk("quota");
        c.bulk(q.own(app) != null ? "own" : "default");
        c.bulk("rejected-writes");
        c.integer(q.rejected(app));
    }

    static void help(Ctx c) {
        c.helpLines(List.of(
                "APP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "QUOTA <app> [MAXKEYS <n>] [MAXBYTES <n>]",
                "    Set the app's own quota (0: no limit). Admin only.",
                "QUOTA <app> DEFAULT",
                "    Let the app take the server's default quota again. Admin only.",
                "INFO [<app>]",
                "    The app's keys, bytes, quota and writes refused by it.",
                "HELP",
                "    Print this help."));
    }

    public static void register(CommandTable t) {
        t.register(container("app", -2, "", "server", "0.1.0", "A container for Cajon's app commands", null, List.of(
                sub("app", "quota", -4, "admin noscript loading stale", "0.1.0", "Set an app's key and byte quota", AppFamily::quota),
                sub("app", "info", -2, "noscript loading stale", "0.1.0", "An app's usage and quota", AppFamily::info),
                sub("app", "help", 2, "loading stale", "0.1.0", "Show helpful text about the different subcommands", AppFamily::help))));
    }
}
