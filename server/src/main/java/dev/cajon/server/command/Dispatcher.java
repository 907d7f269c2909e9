package dev.cajon.server.command;

import dev.cajon.protocol.Argv;
import dev.cajon.protocol.RedisErrors;
import dev.cajon.protocol.Resp;
import dev.cajon.server.ServerContext;
import dev.cajon.server.session.AppPermissions;
import dev.cajon.server.metrics.CommandStats;
import dev.cajon.server.metrics.Metering;
import dev.cajon.server.metrics.SessionMetrics;
import dev.cajon.server.session.ClientSession;
import dev.cajon.server.session.Transaction;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the generic checks every command goes through, always in Redis's order (see
 * {@code processCommand} in Redis's server.c), then the handler:
 * <ol>
 *   <li>unknown command, then unknown subcommand of a container command;</li>
 *   <li>arity (of the subcommand, if any);</li>
 *   <li>authentication (commands flagged {@code no_auth} are exempt);</li>
 *   <li>for a connection of an app, the permission check ({@link AppPermissions}: NOPERM);</li>
 *   <li>inside MULTI: commands flagged {@code no_multi} are refused, and every command but
 *       EXEC, DISCARD, MULTI, WATCH, QUIT and RESET is queued ({@code +QUEUED}); a command
 *       refused by any check above makes the transaction fail (EXEC answers EXECABORT);</li>
 *   <li>the handler, with a {@link CommandError} turned into its error reply.</li>
 * </ol>
 * Handlers never check arity or authentication themselves.
 */
public final class Dispatcher {
    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

    private final ServerContext server;
    private final CommandTable table;

    public Dispatcher(ServerContext server, CommandTable table) {
        this.server = server;
        this.table = table;
    }

    public CommandTable table() {
        return table;
    }

    public void dispatch(Ctx c, Argv argv) {
        Object checked = check(c.session(), argv);
        if (!(checked instanceof CommandSpec spec)) {
            reject(c, argv, (String) checked);
            return;
        }
        Transaction tx = c.session().transaction();
        if (server.quotas().active() && deniedByQuota(c, spec, tx)) {
            reject(c, argv, RedisErrors.OOM);
            return;
        }
        if (addsData(spec, tx) && server.store().durability().disk().low()) {
            reject(c, argv, RedisErrors.DISK_LOW); // see DiskSpace: reads, deletes and expiry go on
            return;
        }
        if (tx.inMulti() && !Transaction.runsInMulti(spec.name())) {
            if (spec.has(CommandFlag.NO_MULTI)) {
                reject(c, argv, RedisErrors.NOT_IN_MULTI);
                return;
            }
            tx.queue(argv, spec);
            c.raw(Resp.QUEUED);
            return;
        }
        execute(c, argv, spec);
        c.serveReadyKeys(); // after the whole command (or EXEC): clients blocked on the keys it wrote
    }

    /**
     * The row {@code argv} runs as when it passes the generic checks (CLIENT PAUSE asks before the
     * command is dispatched), or null when {@link #dispatch} will answer an error instead.
     */
    public CommandSpec runnable(ClientSession s, Argv argv) {
        return check(s, argv) instanceof CommandSpec spec ? spec : null;
    }

    /** The row {@code argv} names, or null for an unknown command or subcommand. */
    private CommandSpec row(Argv argv) {
        CommandSpec spec = table.lookup(argv.arg(0));
        if (spec != null && spec.isContainer() && argv.argc() >= 2) {
            return CommandTable.lookupSub(spec, argv.arg(1));
        }
        return spec;
    }

    /** The generic checks in Redis's order: the row to run, or the error text to answer. */
    private Object check(ClientSession s, Argv argv) {
        CommandSpec spec = table.lookup(argv.arg(0));
        if (spec == null) {
            return RedisErrors.unknownCommand(argv);
        }
        if (spec.isContainer() && argv.argc() >= 2) {
            CommandSpec sub = CommandTable.lookupSub(spec, argv.arg(1));
            if (sub == null) {
                return RedisErrors.unknownSubcommand(argv.arg(1), spec.name());
            }
            spec = sub;
        }
        if (!spec.arityOk(argv.argc())) {
            return RedisErrors.wrongArity(spec.name());
        }
        if (!s.authenticated() && !spec.has(CommandFlag.NO_AUTH)) {
            return RedisErrors.NOAUTH;
        }
        if (s.appUser() && AppPermissions.denied(s, spec)) {
            return RedisErrors.noPermission(spec.name());
        }
        return spec;
    }

    /** Whether the command may add data: flagged denyoom, or an EXEC with such a command queued. */
    private static boolean addsData(CommandSpec spec, Transaction tx) {
        return spec.has(CommandFlag.DENYOOM) || spec.name().equals("exec") && tx.queuedDenyoom();
    }

    /**
     * The app's quota is reached and the command would add data: flagged denyoom, or an EXEC with
     * such a command queued (as Redis's processCommand treats maxmemory).
     */
    private boolean deniedByQuota(Ctx c, CommandSpec spec, Transaction tx) {
        if (!addsData(spec, tx) || !server.quotas().refuse(c.session().app())) {
            return false;
        }
        dev.cajon.server.metrics.AppMetrics m = Metering.app(server, c.session());
        if (m != null) {
            m.quotaRejected(); // cajon_app_quota_rejected_total
        }
        return true;
    }

    /**
     * A command refused before it ran; inside MULTI, the transaction will abort. A refused EXEC
     * (wrong arity, NOAUTH) discards the transaction and its watches at once, and says so, as
     * Redis's execCommandAbort does, inside MULTI or not.
     */
    private void reject(Ctx c, Argv argv, String error) {
        CommandSpec row = row(argv);
        if (row != null) {
            server.commandStats().rejected(row); // rejected_calls; an unknown (sub)command has no row
        }
        Transaction tx = c.session().transaction();
        if (ArgCursor.is(argv.arg(0), "exec")) {
            tx.reset();
            c.error(RedisErrors.execAbortedBecause(error));
            return;
        }
        if (tx.inMulti()) {
            tx.fail();
        }
        c.error(error);
    }

    /**
     * Runs a command whose checks have passed: now, or from EXEC for a queued one. Any failure
     * becomes an error reply, so one command's failure never breaks the reply stream.
     */
    public void execute(Ctx c, Argv argv, CommandSpec spec) {
        server.stats().commandsProcessed.increment();
        c.session().touched(spec.name(), server.clock().nowMillis());
        c.begin(argv, spec);
        SessionMetrics metrics = Metering.of(c); // null without metrics; found once per session and app
        CommandStats stats = server.commandStats(); // INFO commandstats: always on, as in Redis
        ByteBuf out = c.out();
        int mark = out.writerIndex();
        long timed = stats.start(spec);
        long start = metrics == null ? SessionMetrics.NOT_TIMED : metrics.start(spec); // NOT_TIMED: sampled out
        boolean collectionRead = spec.has(CommandFlag.READONLY) && COLLECTION_GROUPS.contains(spec.group());
        if (collectionRead) {
            dev.cajon.storage.Lookups.clear();
        }
        if (dev.cajon.storage.HeldViews.on() && !keepsView(spec)) {
            dev.cajon.storage.HeldViews.release(); // what the commands before it wrote is in the map
        }
        handle(c, spec);
        if (collectionRead) {
            // INFO keyspace_hits/misses: the collection keys the read looked up (the string
            // families count their own lookups as they reply)
            long[] found = dev.cajon.storage.Lookups.counts();
            server.stats().keyspaceHits.add(found[0]);
            server.stats().keyspaceMisses.add(found[1]);
        }
        boolean failed = Metering.repliedError(c, out, mark);
        stats.end(spec, timed, failed);
        if (metrics != null) {
            metrics.end(spec, start, failed);
        }
    }

    /** The command groups whose reads go through the collections' storage (see {@code Lookups}). */
    private static final java.util.Set<String> COLLECTION_GROUPS = java.util.Set.of("hash", "set", "sorted-set", "list");

    /**
     * Whether a command may run on a collection view held from the command before it ({@link
     * dev.cajon.storage.HeldViews}): a single-key hash, list, set or sorted-set command that is not
     * blocking. Its storage calls go through the collections alone, which hold or apply as needed;
     * every other command runs after the held view is applied.
     */
    static boolean keepsView(CommandSpec spec) {
        return spec.firstKey() == 1 && spec.lastKey() == 1 && COLLECTION_GROUPS.contains(spec.group())
                && !spec.has(CommandFlag.BLOCKING) && !spec.has(CommandFlag.MOVABLEKEYS);
    }

    private static void handle(Ctx c, CommandSpec spec) {
        try {
            spec.handler().handle(c);
        } catch (CommandError e) {
            c.error(e.getMessage());
        } catch (dev.cajon.storage.collection.CollectionAccess.WrongType e) {
            c.error(RedisErrors.WRONG_TYPE); // storage's "another type" from any family
        } catch (dev.cajon.storage.collection.EntryTooLarge e) {
            c.error(RedisErrors.COLLECTION_ENTRY_TOO_LARGE); // nothing was written
        } catch (dev.cajon.storage.durability.DiskFull e) {
            c.error(RedisErrors.diskFull(e.getMessage())); // growth found no room: nothing was written
        } catch (RuntimeException e) {
            log.error("command {} failed", spec.name(), e);
            c.error(RedisErrors.internalError(e));
        }
    }
}
