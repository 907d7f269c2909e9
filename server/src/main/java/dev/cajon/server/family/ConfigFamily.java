package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.container;
import static dev.cajon.server.command.Specs.sub;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.ServerContext;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.command.Glob;
import dev.cajon.server.limits.LimitParameters;
import java.util.ArrayList;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * CONFIG GET, SET, RESETSTAT, REWRITE and HELP.
 *
 * <p>GET answers for the parameters below, each with the value this server really runs with:
 * what clients and tools ask before they start (redis-benchmark reads {@code save} and
 * {@code appendonly}; queue libraries check {@code maxmemory-policy}, which must be
 * {@code noeviction} for a durable queue, and Cajon never evicts). Redis knows about 180
 * parameters, so a glob pattern matches fewer names here. The connection limits
 * ({@link LimitParameters}: maxclients, timeout, tcp-keepalive, proto-max-bulk-len,
 * client-query-buffer-limit, client-output-buffer-limit, protected-mode), {@code appendfsync} and Cajon's
 * {@code min-free-disk} (the disk floor below which commands that add data are refused) change at
 * run time, with Redis's checks and errors, and so does requirepass (the default user's password, as in Redis), and so do
 * the data types' encoding parameters ({@link dev.cajon.server.config.TypeParameters}). The other settings come from the command line or the config file and cannot change
 * while Cajon runs, so SET accepts only a parameter's current value and refuses any change with
 * Redis's "immutable config" error (and an unknown name with Redis's unknown-option error). REWRITE writes
 * the values in force back to the {@code --config} file, or answers as Redis does without one.
 */
public final class ConfigFamily {
    private ConfigFamily() {
    }

    /** Parameter name (lower case) to its current value; GET replies in this order. */
    private static final Map<String, Function<ServerContext, String>> PARAMETERS = parameters();

    private static Map<String, Function<ServerContext, String>> parameters() {
        Map<String, Function<ServerContext, String>> p = new LinkedHashMap<>();
        p.put("bind", s -> s.config().bind());
        p.put("port", s -> Integer.toString(s.port()));
        p.put("dir", s -> s.config().dir().toAbsolutePath().normalize().toString());
        // shown in clear, as Redis 7.0 does (CONFIG is an admin command)
        p.put("requirepass", s -> s.requirepass() == null ? "" : s.requirepass());
        p.put("databases", s -> Integer.toString(ServerContext.DATABASES));
        // every acknowledged write is already in the map files: no snapshots and no AOF to configure
        p.put("save", s -> "");
        p.put("appendonly", s -> "no");
        // the fsync policy of the map files, journals and blobs (changes at run time, as in Redis)
        p.put("appendfsync", s -> s.store().durability().policy().word());
        // Cajon's own: below this much free disk, commands that add data get -MISCONF (DiskSpace)
        p.put("min-free-disk", s -> Long.toString(s.store().durability().disk().minFree()));
        p.put("maxmemory", s -> "0");
        p.put("maxmemory-policy", s -> "noeviction");
        p.put("daemonize", s -> "no");
        // the connection limits, which CONFIG SET changes at run time
        LimitParameters.addGetters(p);
        // the data types' encoding thresholds (and the settings that only go with them)
        dev.cajon.server.config.TypeParameters.addGetters(p);
        return p;
    }

    /**
     * Parameters Redis itself never changes at run time (it refuses them even when set to their
     * current value); {@code dir} is one Cajon cannot change under its open files.
     */
    private static final java.util.Set<String> NEVER_SET = java.util.Set.of("databases", "daemonize", "dir");

    private static String lower(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
    }

    /**
     * CONFIG GET pattern [pattern ...]: a name without glob characters is looked up as given (and
     * answered under the spelling the client used, as Redis does); a pattern matches names
     * case-insensitively. Each parameter is answered once.
     */
    static void get(Ctx c) {
        Map<String, String[]> matches = new LinkedHashMap<>(); // lower-case name -> {reply name, value}
        for (int i = 2; i < c.argc(); i++) {
            byte[] pattern = c.arg(i);
            String given = new String(pattern, StandardCharsets.ISO_8859_1);
            String p = lower(pattern);
            boolean glob = p.indexOf('*') >= 0 || p.indexOf('?') >= 0 || p.indexOf('[') >= 0;
            if (!glob) {
                Function<ServerContext, String> v = PARAMETERS.get(p);
                if (v != null && !matches.containsKey(p)) {
                    matches.put(p, new String[] {given, v.apply(c.server())});
                }
                continue;
            }
            byte[] lp = p.getBytes(StandardCharsets.ISO_8859_1);
            for (Map.Entry<String, Function<ServerContext, String>> e : PARAMETERS.entrySet()) {
                if (!matches.containsKey(e.getKey())
                        && Glob.matches(lp, e.getKey().getBytes(StandardCharsets.ISO_8859_1))) {
                    matches.put(e.getKey(), new String[] {e.getKey(), e.getValue().apply(c.server())});
                }
            }
        }
        c.mapHeader(matches.size());
        for (String[] nv : matches.values()) {
            c.bulk(nv[0]);
            c.bulk(nv[1]);
        }
    }

    /**
     * CONFIG SET parameter value [parameter value ...]: nothing can change while Cajon runs, so a
     * pair that sets a parameter to the value it already has is accepted (scripts and test
     * harnesses send {@code CONFIG SET save ""} or {@code appendonly no}), and any other is
     * refused. Pairs are checked as Redis does: first every name in order (unknown, a change to an
     * immutable parameter, a name given twice), then the values of the settable ones; the first
     * failure decides the error, and nothing changes unless every pair is valid.
     */
    static void set(Ctx c) {
        if ((c.argc() - 2) % 2 != 0) {
            // past the arity check (at least one pair), an odd count is a syntax error in Redis
            throw new CommandError(RedisErrors.SYNTAX);
        }
        // Redis's first pass, pair by pair: an unknown name, a change to an immutable parameter or
        // a name given twice fails before any settable value is checked
        java.util.Set<String> named = new java.util.HashSet<>();
        for (int i = 2; i < c.argc(); i += 2) {
            String name = lower(c.arg(i));
            Function<ServerContext, String> current = PARAMETERS.get(name);
            if (current == null) {
                throw new CommandError(RedisErrors.unknownConfigOption(c.arg(i)));
            }
            boolean settable = LimitParameters.NAMES.contains(name) || name.equals("appendfsync") || name.equals("requirepass")
                    || name.equals("min-free-disk")
                    || dev.cajon.server.config.TypeParameters.NAMES.contains(name);
            String value = new String(c.arg(i + 1), StandardCharsets.ISO_8859_1);
            if (!settable && (NEVER_SET.contains(name) || !current.apply(c.server()).equalsIgnoreCase(value))) {
                // a value Redis itself would refuse gets Redis's reason; a valid change, Cajon's refusal
                checkFixedValue(c.arg(i), name, value);
                throw new CommandError(RedisErrors.immutableConfig(c.arg(i)));
            }
            if (!named.add(name)) {
                throw new CommandError(RedisErrors.configSetFailed(c.arg(i), "duplicate parameter"));
            }
        }
        List<Runnable> changes = new ArrayList<>();
        for (int i = 2; i < c.argc(); i += 2) {
            String name = lower(c.arg(i));
            if (LimitParameters.NAMES.contains(name)) {
                // a value's error names the parameter as Redis spells it, whatever the client's case
                changes.add(LimitParameters.prepare(c.server(), name.getBytes(StandardCharsets.ISO_8859_1), c.arg(i + 1)));
                continue;
            }
            if (dev.cajon.server.config.TypeParameters.NAMES.contains(name)) {
                changes.add(dev.cajon.server.config.TypeParameters.prepare(name.getBytes(StandardCharsets.ISO_8859_1), c.arg(i + 1)));
                continue;
            }
            if (name.equals("requirepass")) {
                String pass = new String(c.arg(i + 1), StandardCharsets.UTF_8);
                changes.add(() -> c.server().requirepass(pass));
                continue;
            }
            if (name.equals("min-free-disk")) {
                long floor = LimitParameters.memory("min-free-disk".getBytes(StandardCharsets.ISO_8859_1),
                        new String(c.arg(i + 1), StandardCharsets.ISO_8859_1), 0);
                changes.add(() -> c.server().store().durability().disk().minFree(floor));
                continue;
            }
            if (name.equals("appendfsync")) {
                dev.cajon.storage.durability.FsyncPolicy p =
                        dev.cajon.storage.durability.FsyncPolicy.parse(new String(c.arg(i + 1), StandardCharsets.ISO_8859_1));
                if (p == null) {
                    // a value's error names the parameter as Redis spells it, whatever the client's case
                    throw new CommandError(RedisErrors.configSetFailed("appendfsync".getBytes(StandardCharsets.ISO_8859_1),
                            dev.cajon.server.config.ConfigFile.APPENDFSYNC_VALUES));
                }
                changes.add(() -> c.server().store().durability().policy(p));
            }
        }
        // every pair was valid: all change together, as in Redis
        changes.forEach(Runnable::run);
        c.ok();
    }

    /** Redis's maxmemory-policy values, in its order. */
    private static final List<String> POLICIES = List.of("volatile-lru", "volatile-lfu", "volatile-random",
            "volatile-ttl", "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction");

    /**
     * Throws Redis's error when Redis would refuse {@code value} for {@code name}, a parameter
     * that Redis can change and Cajon cannot (maxmemory: Cajon has app quotas instead;
     * maxmemory-policy: it never evicts); returns when Redis would take it.
     */
    private static void checkFixedValue(byte[] given, String name, String value) {
        if (name.equals("maxmemory-policy")) {
            LimitParameters.enumValue(given, value, POLICIES);
        } else if (name.equals("maxmemory")) {
            LimitParameters.memory(given, value, 0);
        }
    }

    /** CONFIG RESETSTAT: the counters of INFO stats start again from zero, as in Redis. */
    static void resetstat(Ctx c) {
        c.server().resetStats();
        c.ok();
    }

    /** CONFIG REWRITE: the values in force written back to the {@code --config} file ({@link dev.cajon.server.config.ConfigRewrite}). */
    static void rewrite(Ctx c) {
        java.nio.file.Path file = c.server().config().configFile();
        if (file == null) {
            throw new CommandError(RedisErrors.NO_CONFIG_FILE);
        }
        try {
            Map<String, String> current = dev.cajon.server.config.ConfigRewrite.values(
                    c.server().config().withRequirepass(c.server().requirepass()), c.server().netLimits(),
                    c.server().store().durability().policy());
            Map<String, String> defaults = dev.cajon.server.config.ConfigRewrite.values(dev.cajon.server.ServerConfig.defaults(),
                    new dev.cajon.server.limits.NetLimits(dev.cajon.server.limits.NetSettings.defaults()));
            // the disk floor lives with the store (CONFIG SET changes it there)
            current.put("min-free-disk", Long.toString(c.server().store().durability().disk().minFree()));
            defaults.put("min-free-disk", Long.toString(dev.cajon.storage.durability.DiskSpace.DEFAULT_MIN_FREE));
            dev.cajon.server.config.ConfigRewrite.rewrite(file, current, defaults);
        } catch (java.io.IOException | RuntimeException e) {
            // Redis's reply when the rewrite fails
            throw new CommandError("ERR Rewriting config file: " + e.getMessage());
        }
        c.ok();
    }

    static void help(Ctx c) {
        List<String> lines = List.of(
                "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "GET <pattern>",
                "    Return parameters matching the glob-like <pattern> and their values.",
                "SET <directive> <value>",
                "    Set the configuration <directive> to <value>.",
                "RESETSTAT",
                "    Reset statistics reported by the INFO command.",
                "REWRITE",
                "    Rewrite the configuration file.",
                "HELP",
                "    Prints this help.");
        c.helpLines(lines);
    }

    public static void register(CommandTable t) {
        t.register(container("config", -2, "", "server", "2.0.0", "A container for server configuration commands", null, List.of(
                sub("config", "get", -3, "admin noscript loading stale", "2.0.0", "Get the values of configuration parameters", ConfigFamily::get),
                sub("config", "set", -4, "admin noscript loading stale", "2.0.0", "Set configuration parameters to the given values", ConfigFamily::set),
                sub("config", "resetstat", 2, "admin noscript loading stale", "2.0.0", "Reset the stats returned by INFO", ConfigFamily::resetstat),
                sub("config", "rewrite", 2, "admin noscript loading stale", "2.8.0", "Rewrite the configuration file with the in memory configuration", ConfigFamily::rewrite),
                sub("config", "help", 2, "loading stale", "5.0.0", "Show helpful text about the different subcommands", ConfigFamily::help))));
    }
}
