package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.cmd;
import static dev.cajon.server.command.Specs.container;
import static dev.cajon.server.command.Specs.sub;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandDocs;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandFlag;
import dev.cajon.server.command.CommandSpec;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Server commands: COMMAND (and its subcommands), INFO (its sections: {@link InfoSections}), DBSIZE, FLUSHDB, FLUSHALL, TIME. */
public final class ServerFamily {
    private ServerFamily() {
    }

    static void dbsize(Ctx c) {
        c.integer(c.keyspace().dbsize());
    }

    /** FLUSHDB / FLUSHALL [ASYNC|SYNC]: both modes flush synchronously (it is a file reset). */
    private static void checkFlushMode(Ctx c) {
        if (c.argc() > 2) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        if (c.argc() == 2 && !ArgCursor.is(c.arg(1), "sync") && !ArgCursor.is(c.arg(1), "async")) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
    }

    static void flushdb(Ctx c) {
        checkFlushMode(c);
        c.keyspace().flush();
        c.ok();
    }

    static void flushall(Ctx c) {
        checkFlushMode(c);
        c.server().store().forEachKeyspace(c.session().app(), (db, ks) -> ks.flush());
        c.ok();
    }

    /**
     * SWAPDB a b: db a shows what db b held and the other way round, for every connection of the
     * app (see {@link dev.cajon.storage.Store#swapDbs}). As Redis 7.0: a watched key that exists in
     * either db makes its EXEC fail, other watches follow their db; a client blocked in either db
     * stays in its db and is served if its key exists in the data the db holds now. Inside EXEC
     * the transaction already holds both dbs whole, the db gate exclusively and the blocked
     * clients' registry (taken before its stripes): the waiters move with the swap, and are
     * served when the EXEC ends.
     */
    static void swapdb(Ctx c) {
        int a = swapIndex(c.arg(1), RedisErrors.SWAPDB_FIRST_INDEX);
        int b = swapIndex(c.arg(2), RedisErrors.SWAPDB_SECOND_INDEX);
        if (a < 0 || b < 0 || a >= dev.cajon.server.ServerContext.DATABASES || b >= dev.cajon.server.ServerContext.DATABASES) {
            throw new CommandError(RedisErrors.DB_INDEX_OUT_OF_RANGE);
        }
        dev.cajon.storage.Store store = c.server().store();
        String app = c.session().app();
        if (c.session().transaction().inMulti()) {
            // inside EXEC, which holds the registry lock and the db gate exclusively (TransactionFamily)
            dev.cajon.storage.Keyspace[] pair = store.swapDbs(app, a, b);
            if (pair != null) {
                for (dev.cajon.server.blocking.BlockingKeys.Ready r : c.server().blocking().rehome(pair[0], pair[1])) {
                    c.readyKey((dev.cajon.storage.Keyspace) r.keyspace(), r.key()); // served when the EXEC ends
                }
            }
        } else {
            c.server().blocking().swapping(() -> store.swapDbs(app, a, b));
        }
        c.ok();
    }

    /** A SWAPDB index: any 32-bit integer (the range is checked after both parsed), else {@code error}. */
    private static int swapIndex(byte[] arg, String error) {
        long v = ArgCursor.parseLong(arg, error);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new CommandError(error);
        }
        return (int) v;
    }

    /**
     * SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT], with Redis 7's argument rules. Every write is
     * already in the map files, so SAVE has nothing more to write and NOSAVE loses nothing; NOW
     * and FORCE change nothing either (there are no replicas to wait for). As with Redis there is
     * no reply: the connection closes while the server stops cleanly (the next start needs no
     * recovery). Cajon never has a shutdown pending, so ABORT always answers that.
     */
    static void shutdown(Ctx c) {
        boolean abort = false;
        boolean save = false;
        boolean nosave = false;
        boolean nowOrForce = false;
        for (int i = 1; i < c.argc(); i++) {
            byte[] a = c.arg(i);
            if (ArgCursor.is(a, "nosave")) {
                nosave = true;
            } else if (ArgCursor.is(a, "save")) {
                save = true;
            } else if (ArgCursor.is(a, "now") || ArgCursor.is(a, "force")) {
                nowOrForce = true;
            } else if (ArgCursor.is(a, "abort")) {
                abort = true;
            } else {
                throw new CommandError(RedisErrors.SYNTAX);
            }
        }
        if (abort && (save || nosave || nowOrForce) || save && nosave) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        if (abort) {
            throw new CommandError(RedisErrors.NO_SHUTDOWN_IN_PROGRESS);
        }
        c.session().closeAfterReply();
        c.server().requestShutdown();
    }

    static void time(Ctx c) {
        // the injected clock has millisecond resolution: the microseconds end in 000
        long micros = c.server().clock().nowMillis() * 1000;
        c.arrayHeader(2);
        c.bulk(Long.toString(micros / 1_000_000));
        c.bulk(Long.toString(micros % 1_000_000));
    }

    // ------------------------------------------------------------------ COMMAND

    /** One COMMAND INFO entry, in Redis 7's ten-field shape. */
    private static void commandEntry(Ctx c, CommandSpec s) {
        c.arrayHeader(10);
        c.bulk(s.name());
        c.integer(s.arity());
        c.setHeader(s.flags().size());
        for (CommandFlag f : s.flags()) {
            c.simple(f.redisName());
        }
        c.integer(s.firstKey());
        c.integer(s.lastKey());
        c.integer(s.step());
        List<String> cats = categories(s);
        c.setHeader(cats.size());
        cats.forEach(c::simple);
        c.setHeader(0); // tips
        keySpecs(c, s);
        if (s.subcommands().isEmpty()) {
            c.setHeader(0); // as Redis's addReplyCommandSubCommands
        } else {
            c.arrayHeader(s.subcommands().size());
            for (CommandSpec sub : s.subcommands()) {
                commandEntry(c, sub);
            }
        }
    }

    /**
     * Commands whose categories Redis's command JSON names outright rather than as their group and
     * flags give them (KEYSPACE, DANGEROUS, CONNECTION on server commands).
     */
    private static final java.util.Map<String, List<String>> EXPLICIT_CATEGORIES = java.util.Map.of(
            "client", List.of("@slow"),
            "command", List.of("@slow", "@connection"),
            "info", List.of("@slow", "@dangerous"),
            "dbsize", List.of("@keyspace", "@read", "@fast"),
            "flushdb", List.of("@keyspace", "@write", "@slow", "@dangerous"),
            "flushall", List.of("@keyspace", "@write", "@slow", "@dangerous"),
            "swapdb", List.of("@keyspace", "@write", "@fast", "@dangerous"),
            "lastsave", List.of("@admin", "@fast", "@dangerous"));

    /** ACL categories, listed in Redis's category order (keyspace, read, write, ..., connection). */
    private static List<String> categories(CommandSpec s) {
        List<String> explicit = EXPLICIT_CATEGORIES.get(s.name());
        if (explicit != null) {
            return explicit;
        }
        List<String> cats = new ArrayList<>();
        if (s.group().equals("generic")) {
            cats.add("@keyspace");
        }
        if (s.has(CommandFlag.READONLY)) {
            cats.add("@read");
        }
        if (s.has(CommandFlag.WRITE)) {
            cats.add("@write");
        }
        String typeCategory = switch (s.group()) {
            case "set" -> "@set";
            case "sorted-set" -> "@sortedset";
            case "list" -> "@list";
            case "hash" -> "@hash";
            case "string" -> "@string";
            case "bitmap" -> "@bitmap";
            default -> null;
        };
        if (typeCategory != null) {
            cats.add(typeCategory);
        }
        if (s.has(CommandFlag.ADMIN)) {
            cats.add("@admin");
        }
        cats.add(s.has(CommandFlag.FAST) ? "@fast" : "@slow");
        if (s.has(CommandFlag.BLOCKING)) {
            cats.add("@blocking");
        }
        if (s.has(CommandFlag.ADMIN)) {
            cats.add("@dangerous");
        }
        if (s.group().equals("connection")) {
            cats.add("@connection");
        }
        if (s.group().equals("transactions")) {
            cats.add("@transaction");
        }
        return cats;
    }

    /** A key spec equivalent to (firstKey, lastKey, step): begin at an index, then a range. */
    private static void keySpecs(Ctx c, CommandSpec s) {
        if (s.firstKey() <= 0) {
            c.setHeader(0);
            return;
        }
        c.setHeader(1);
        c.mapHeader(3);
        c.bulk("flags");
        c.setHeader(2);
        if (s.has(CommandFlag.WRITE)) {
            c.simple("RW");
            c.simple("update");
        } else {
            c.simple("RO");
            c.simple("access");
        }
        c.bulk("begin_search");
        c.mapHeader(2);
        c.bulk("type");
        c.bulk("index");
        c.bulk("spec");
        c.mapHeader(1);
        c.bulk("index");
        c.integer(s.firstKey());
        c.bulk("find_keys");
        c.mapHeader(2);
        c.bulk("type");
        c.bulk("range");
        c.bulk("spec");
        c.mapHeader(3);
        c.bulk("lastkey");
        c.integer(s.lastKey() < 0 ? s.lastKey() : s.lastKey() - s.firstKey());
        c.bulk("keystep");
        c.integer(s.step());
        c.bulk("limit");
        c.integer(0);
    }

    static void command(Ctx c) {
        List<CommandSpec> all = c.server().table().all();
        c.arrayHeader(all.size());
        all.forEach(s -> commandEntry(c, s));
    }

    static void commandCount(Ctx c) {
        c.integer(c.server().table().size());
    }

    /** COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]: subcommands too. */
    static void commandList(Ctx c) {
        byte[] pattern = null;
        String aclcat = null;
        boolean module = false;
        if (c.argc() == 5 && ArgCursor.is(c.arg(2), "filterby")) {
            if (ArgCursor.is(c.arg(3), "pattern")) {
                pattern = c.arg(4);
            } else if (ArgCursor.is(c.arg(3), "aclcat")) {
                aclcat = "@" + c.argv().str(4).toLowerCase(Locale.ROOT);
            } else if (ArgCursor.is(c.arg(3), "module")) {
                module = true;
            } else {
                throw new CommandError(RedisErrors.SYNTAX);
            }
        } else if (c.argc() != 2) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        List<String> names = new ArrayList<>();
        for (CommandSpec s : c.server().table().all()) {
            List<CommandSpec> rows = new ArrayList<>();
            rows.add(s);
            rows.addAll(s.subcommands());
            for (CommandSpec r : rows) {
                if (module
                        || pattern != null && !dev.cajon.server.command.Glob.matches(pattern,
                                r.name().getBytes(java.nio.charset.StandardCharsets.US_ASCII))
                        || aclcat != null && !categories(r).contains(aclcat)) {
                    continue;
                }
                names.add(r.name());
            }
        }
        c.arrayHeader(names.size());
        names.forEach(c::bulk);
    }

    static void commandHelp(Ctx c) {
        List<String> lines = List.of(
                "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "(no subcommand)",
                "    Return details about all Redis commands.",
                "COUNT",
                "    Return the total number of commands in this Redis server.",
                "LIST",
                "    Return a list of all commands in this Redis server.",
                "INFO [<command-name> ...]",
                "    Return details about multiple Redis commands.",
                "    If no command names are given, documentation details for all",
                "    commands are returned.",
                "DOCS [<command-name> ...]",
                "    Return documentation details about multiple Redis commands.",
                "    If no command names are given, documentation details for all",
                "    commands are returned.",
                "HELP",
                "    Print this help.");
        c.helpLines(lines);
    }

    private static CommandSpec find(Ctx c, byte[] name) {
        String n = new String(name, java.nio.charset.StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
        int bar = n.indexOf('|');
        if (bar < 0) {
            return c.server().table().get(n);
        }
        CommandSpec parent = c.server().table().get(n.substring(0, bar));
        return parent == null ? null : CommandTable.lookupSub(parent,
                n.substring(bar + 1).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    static void commandInfo(Ctx c) {
        if (c.argc() == 2) {
            command(c);
            return;
        }
        c.arrayHeader(c.argc() - 2);
        for (int i = 2; i < c.argc(); i++) {
            CommandSpec s = find(c, c.arg(i));
            if (s == null) {
                c.nullBulk();
            } else {
                commandEntry(c, s);
            }
        }
    }

    /**
     * One COMMAND DOCS entry: the name, then Redis's documentation map for it from
     * {@link CommandDocs} (pre-encoded), then, for a container, "subcommands" built from the
     * subcommands Cajon registers (Redis would list all of its own, in hash order). A command
     * missing from the docs resource gets just summary, since and group from its spec.
     */
    private static void docEntry(Ctx c, CommandSpec s) {
        c.bulk(s.name());
        CommandDocs.Doc doc = CommandDocs.standard().get(s.name());
        int pairs = (doc == null ? 3 : doc.size()) + (s.isContainer() ? 1 : 0);
        c.mapHeader(pairs);
        if (doc != null) {
            c.raw(doc.encoded(c.protocol()));
        } else {
            c.bulk("summary");
            c.bulk(s.summary());
            c.bulk("since");
            c.bulk(s.since());
            c.bulk("group");
            c.bulk(s.group());
        }
        if (s.isContainer()) {
            c.bulk("subcommands");
            c.mapHeader(s.subcommands().size());
            s.subcommands().forEach(sub -> docEntry(c, sub));
        }
    }

    static void commandDocs(Ctx c) {
        List<CommandSpec> list = new ArrayList<>();
        if (c.argc() == 2) {
            list.addAll(c.server().table().all());
        } else {
            for (int i = 2; i < c.argc(); i++) {
                CommandSpec s = find(c, c.arg(i));
                if (s != null) {
                    list.add(s);
                }
            }
        }
        c.mapHeader(list.size());
        list.forEach(s -> docEntry(c, s));
    }

    public static void register(CommandTable t) {
        t.register(container("command", -1, "loading stale", "server", "2.8.13", "Get array of Redis command details", ServerFamily::command, List.of(
                sub("command", "count", 2, "loading stale", "2.8.13", "Get total number of Redis commands", ServerFamily::commandCount),
                sub("command", "info", -2, "loading stale", "2.8.13", "Get array of specific Redis command details, or all when no argument is given.", ServerFamily::commandInfo),
                sub("command", "docs", -2, "loading stale", "7.0.0", "Get array of specific Redis command documentation", ServerFamily::commandDocs),
                sub("command", "list", -2, "loading stale", "7.0.0", "Get an array of Redis command names", ServerFamily::commandList),
                sub("command", "help", 2, "loading stale", "5.0.0", "Show helpful text about the different subcommands", ServerFamily::commandHelp))));
        t.register(cmd("info", -1, "loading stale", 0, 0, 0, "server", "1.0.0", "Get information and statistics about the server", InfoSections::info));
        t.register(cmd("dbsize", 1, "readonly fast", 0, 0, 0, "server", "1.0.0", "Return the number of keys in the selected database", ServerFamily::dbsize));
        t.register(cmd("flushdb", -1, "write", 0, 0, 0, "server", "1.0.0", "Remove all keys from the current database", ServerFamily::flushdb));
        t.register(cmd("swapdb", 3, "write fast", 0, 0, 0, "server", "4.0.0", "Swaps two Redis databases", ServerFamily::swapdb));
        t.register(cmd("flushall", -1, "write", 0, 0, 0, "server", "1.0.0", "Remove all keys from all databases", ServerFamily::flushall));
        t.register(cmd("shutdown", -1, "admin noscript loading stale no_multi allow_busy", 0, 0, 0, "server", "1.0.0", "Synchronously save the dataset to disk and then shut down the server", ServerFamily::shutdown));
        t.register(cmd("time", 1, "loading stale fast", 0, 0, 0, "server", "2.6.0", "Return the current server time", ServerFamily::time));
    }
}
