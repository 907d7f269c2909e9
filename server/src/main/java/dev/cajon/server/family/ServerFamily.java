package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.cmd;
import static dev.cajon.server.command.Specs.container;
import static dev.cajon.server.command.Specs.sub;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.protocol.Resp;
import dev.cajon.server.ServerContext;
import dev.cajon.server.ServerStats;
import dev.cajon.server.Version;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandDocs;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandFlag;
import dev.cajon.server.command.CommandSpec;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.storage.Keyspace;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Server commands: COMMAND (and its subcommands), INFO, DBSIZE, FLUSHDB, FLUSHALL, TIME. */
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

    // ------------------------------------------------------------------ INFO

    static void info(Ctx c) {
        Set<String> wanted = new LinkedHashSet<>();
        for (int i = 1; i < c.argc(); i++) {
            wanted.add(c.argv().str(i).toLowerCase(Locale.ROOT));
        }
        boolean all = wanted.isEmpty() || wanted.contains("all") || wanted.contains("default")
                || wanted.contains("everything");
        // as in Redis: commandstats only when asked for by name, "all" or "everything"
        boolean full = wanted.contains("all") || wanted.contains("everything");
        StringBuilder sb = new StringBuilder();
        for (String section : List.of("server", "clients", "memory", "persistence", "stats", "commandstats", "errorstats", "keyspace")) {
            if (section.equals("commandstats") ? !full && !wanted.contains(section) : !all && !wanted.contains(section)) {
                continue;
            }
            if (sb.length() > 0) {
                sb.append("\r\n");
            }
            switch (section) {
                case "server":
                    serverSection(c, sb);
                    break;
                case "clients":
                    sb.append("# Clients\r\n");
                    line(sb, "connected_clients", c.server().clients().size());
                    line(sb, "maxclients", c.server().netLimits().maxclients());
                    line(sb, "blocked_clients", c.server().blocking().blockedClients()); // as 7.0: CLIENT PAUSE not counted
                    break;
                case "memory":
                    memorySection(c, sb);
                    break;
                case "persistence":
                    persistenceSection(c, sb);
                    break;
                case "stats":
                    statsSection(c, sb);
                    break;
                // the server's counts over every app: an app's connection sees the headers only
                // (its own counts are the per-app Prometheus meters)
                case "commandstats":
                    serverWide(c, sb, "# Commandstats", c.server().commandStats()::commandstats);
                    break;
                case "errorstats":
                    serverWide(c, sb, "# Errorstats", c.server().commandStats()::errorstats);
                    break;
                default:
                    keyspaceSection(c, sb);
                    break;
            }
        }
        c.verbatim(sb.toString());
    }

    /** A section of the server's counts over every app: an app's connection gets its header only. */
    private static void serverWide(Ctx c, StringBuilder sb, String header, java.util.function.Consumer<StringBuilder> section) {
        if (c.session().appUser()) {
            sb.append(header).append("\r\n");
        } else {
            section.accept(sb);
        }
    }

    private static void line(StringBuilder sb, String k, Object v) {
        sb.append(k).append(':').append(v).append("\r\n");
    }

    private static void serverSection(Ctx c, StringBuilder sb) {
        ServerContext s = c.server();
        long up = (s.clock().nowMillis() - s.startMillis()) / 1000;
        sb.append("# Server\r\n");
        line(sb, "redis_version", Version.REDIS_COMPAT);
        line(sb, "cajon_version", Version.CAJON);
        line(sb, "redis_mode", "standalone");
        line(sb, "os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        line(sb, "arch_bits", 64);
        line(sb, "multiplexing_api", "netty");
        line(sb, "java_version", System.getProperty("java.version"));
        line(sb, "process_id", ProcessHandle.current().pid());
        line(sb, "run_id", s.runId());
        line(sb, "tcp_port", s.port());
        line(sb, "uptime_in_seconds", up);
        line(sb, "uptime_in_days", up / 86400);
        line(sb, "executable", "cajon-server");
        line(sb, "data_dir", s.store().dir().toAbsolutePath());
    }

    private static void memorySection(Ctx c, StringBuilder sb) {
        String app = c.session().app();
        if (!app.equals(dev.cajon.storage.Store.DEFAULT_APP)) {
            // an app sees its own drawer: its data and its byte quota (as maxmemory), nothing of the process
            long used = c.server().store().appBytes(app);
            sb.append("# Memory\r\n");
            line(sb, "used_memory", used);
            line(sb, "used_memory_human", human(used));
            line(sb, "used_memory_dataset", used);
            line(sb, "maxmemory", c.server().quotas().of(app).maxBytes());
            line(sb, "maxmemory_policy", "noeviction");
            return;
        }
        // Redis's used_memory is what its allocator handed out; Cajon's is the JVM heap in use, the
        // off-heap Chronicle maps, and the JVM's direct buffers (Netty's). used_memory_rss is the
        // process's resident set as the OS counts it (VmRSS), mapped files included.
        Runtime rt = Runtime.getRuntime();
        long heap = rt.totalMemory() - rt.freeMemory();
        long mapped = 0;
        long dataset = 0;
        for (Keyspace ks : c.server().store().keyspaces()) {
            mapped += ks.mapBytes();
            dataset += ks.liveBytes();
        }
        long direct = 0;
        for (java.lang.management.BufferPoolMXBean pool
                : ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                direct = Math.max(0, pool.getMemoryUsed());
            }
        }
        long used = heap + mapped + direct;
        long rss = residentBytes();
        long peak = PEAK.accumulateAndGet(used, Math::max);
        sb.append("# Memory\r\n");
        line(sb, "used_memory", used);
        line(sb, "used_memory_human", human(used));
        line(sb, "used_memory_rss", rss);
        line(sb, "used_memory_rss_human", human(rss));
        line(sb, "used_memory_peak", peak);
        line(sb, "used_memory_peak_human", human(peak));
        line(sb, "used_memory_dataset", dataset);
        line(sb, "used_memory_heap", heap);
        line(sb, "used_memory_heap_committed", rt.totalMemory());
        line(sb, "used_memory_maps", mapped);
        line(sb, "used_memory_direct", direct);
        line(sb, "keyspaces_mapped", c.server().store().mappedKeyspaces());
        line(sb, "maxmemory", 0);
        line(sb, "maxmemory_human", "0B");
        line(sb, "maxmemory_policy", "noeviction");
        line(sb, "mem_fragmentation_ratio", used == 0 ? "0.00"
                : String.format(Locale.ROOT, "%.2f", (double) rss / used));
    }

    /** The highest used_memory INFO has seen (Redis tracks it on every allocation; this on every INFO). */
    private static final java.util.concurrent.atomic.AtomicLong PEAK = new java.util.concurrent.atomic.AtomicLong();

    /** VmRSS of this process, in bytes; 0 where /proc is not there. */
    private static long residentBytes() {
        try {
            for (String l : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.substring(6).trim().split("\\s+")[0]) * 1024;
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }

    private static String human(long bytes) {
        if (bytes < 1024) {
            return bytes + "B";
        }
        double v = bytes;
        String[] units = {"K", "M", "G", "T"};
        int i = -1;
        while (v >= 1024 && i < units.length - 1) {
            v /= 1024;
            i++;
        }
        return String.format(Locale.ROOT, "%.2f%s", v, units[i]);
    }

    /**
     * Redis's persistence section where Cajon has an equivalent: no RDB and no AOF (the map files
     * are the data), so the saves (SAVE, BGSAVE: a sync of those files), the fsync policy of
     * those files and its counters.
     */
    private static void persistenceSection(Ctx c, StringBuilder sb) {
        dev.cajon.storage.durability.Durability d = c.server().store().durability();
        sb.append("# Persistence\r\n");
        line(sb, "loading", 0);
        // SAVE and BGSAVE sync the map files (there is no RDB to write): Redis's rdb_ fields for them
        dev.cajon.server.Saves sv = c.server().saves();
        line(sb, "rdb_bgsave_in_progress", sv.inProgress() ? 1 : 0);
        line(sb, "rdb_last_save_time", sv.lastSave());
        line(sb, "rdb_last_bgsave_status", sv.lastOk() ? "ok" : "err");
        line(sb, "rdb_last_bgsave_time_sec", sv.lastSeconds());
        line(sb, "rdb_current_bgsave_time_sec", sv.currentSeconds());
        line(sb, "rdb_saves", sv.count());
        line(sb, "fsync_policy", d.policy().word());
        line(sb, "fsyncs_total", d.syncs());
        line(sb, "fsync_passes", d.passes());
        line(sb, "fsync_last_us", d.lastPassMicros());
        line(sb, "fsync_pending_files", d.pending());
        line(sb, "fsync_errors", d.errors());
        // Redis's aof_last_write_status: err once a sync has failed
        line(sb, "aof_last_write_status", d.errors() == 0 ? "ok" : "err");
    }

    private static void statsSection(Ctx c, StringBuilder sb) {
        ServerStats st = c.server().stats();
        sb.append("# Stats\r\n");
        line(sb, "total_connections_received", st.connectionsReceived.sum());
        line(sb, "total_commands_processed", st.commandsProcessed.sum());
        line(sb, "total_net_input_bytes", st.netInputBytes.sum());
        line(sb, "total_net_output_bytes", st.netOutputBytes.sum());
        line(sb, "rejected_connections", c.server().netLimits().rejected.sum());
        line(sb, "expired_keys", c.server().expiredKeys());
        line(sb, "evicted_keys", 0);
        line(sb, "keyspace_hits", st.keyspaceHits.sum());
        line(sb, "keyspace_misses", st.keyspaceMisses.sum());
        line(sb, "total_error_replies", st.errorReplies.sum());
        dev.cajon.storage.expiry.ExpiryWheel wheel = c.server().wheel();
        if (wheel != null) {
            // Cajon's own: the expiry wheel (records filed, their memory, worst reclamation lag)
            line(sb, "expire_wheel_records", wheel.scheduled());
            line(sb, "expire_wheel_bytes", wheel.bytes());
            line(sb, "expire_wheel_reclaimed_keys", wheel.reclaimedCount());
            line(sb, "expire_wheel_assisted_keys", wheel.assistedCount());
            line(sb, "expire_wheel_max_lag_ms", wheel.maxLagMillis());
            line(sb, "expire_wheel_lag_p99_ms", wheel.lagPercentileMillis(0.99));
        }
    }

    private static void keyspaceSection(Ctx c, StringBuilder sb) {
        sb.append("# Keyspace\r\n");
        c.server().store().forEachKeyspace(c.session().app(), (db, ks) -> {
            long keys = ks.size();
            if (keys > 0) {
                sb.append("db").append(db).append(":keys=").append(keys).append(",expires=")
                        .append(ks.volatileSize()).append(",avg_ttl=").append(ks.averageTtl()).append("\r\n");
            }
        });
    }

    public static void register(CommandTable t) {
        t.register(container("command", -1, "loading stale", "server", "2.8.13", "Get array of Redis command details", ServerFamily::command, List.of(
                sub("command", "count", 2, "loading stale", "2.8.13", "Get total number of Redis commands", ServerFamily::commandCount),
                sub("command", "info", -2, "loading stale", "2.8.13", "Get array of specific Redis command details, or all when no argument is given.", ServerFamily::commandInfo),
                sub("command", "docs", -2, "loading stale", "7.0.0", "Get array of specific Redis command documentation", ServerFamily::commandDocs),
                sub("command", "list", -2, "loading stale", "7.0.0", "Get an array of Redis command names", ServerFamily::commandList),
                sub("command", "help", 2, "loading stale", "5.0.0", "Show helpful text about the different subcommands", ServerFamily::commandHelp))));
        t.register(cmd("info", -1, "loading stale", 0, 0, 0, "server", "1.0.0", "Get information and statistics about the server", ServerFamily::info));
        t.register(cmd("dbsize", 1, "readonly fast", 0, 0, 0, "server", "1.0.0", "Return the number of keys in the selected database", ServerFamily::dbsize));
        t.register(cmd("flushdb", -1, "write", 0, 0, 0, "server", "1.0.0", "Remove all keys from the current database", ServerFamily::flushdb));
        t.register(cmd("flushall", -1, "write", 0, 0, 0, "server", "1.0.0", "Remove all keys from all databases", ServerFamily::flushall));
        t.register(cmd("shutdown", -1, "admin noscript loading stale no_multi allow_busy", 0, 0, 0, "server", "1.0.0", "Synchronously save the dataset to disk and then shut down the server", ServerFamily::shutdown));
        t.register(cmd("time", 1, "loading stale fast", 0, 0, 0, "server", "2.6.0", "Return the current server time", ServerFamily::time));
    }
}
