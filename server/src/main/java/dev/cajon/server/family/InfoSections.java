package dev.cajon.server.family;

import dev.cajon.server.ServerContext;
import dev.cajon.server.ServerStats;
import dev.cajon.server.Version;
import dev.cajon.server.command.Ctx;
import dev.cajon.storage.Keyspace;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * INFO and its sections, in Redis 7.0's order and field names, with the values Cajon really has
 * (Replication: a primary with no replicas; Modules: none; Cluster: not enabled). Registered by
 * {@link ServerFamily}.
 */
final class InfoSections {
    private InfoSections() {
    }

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
        for (String section : List.of("server", "clients", "memory", "persistence", "stats", "replication", "cpu",
                "modules", "commandstats", "errorstats", "cluster", "keyspace")) {
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
                case "replication":
                    replicationSection(c, sb);
                    break;
                case "cpu":
                    cpuSection(sb);
                    break;
                case "modules":
                    sb.append("# Modules\r\n"); // none: Cajon loads no modules
                    break;
                case "cluster":
                    sb.append("# Cluster\r\n");
                    line(sb, "cluster_enabled", 0);
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
        // as Redis's: unlinked collections whose pages the lazyfree thread has still to free
        line(sb, "lazyfree_pending_objects", dev.cajon.storage.LazyFree.pendingJobs());
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

    /**
     * A primary with no replicas, as Redis answers without replication: clients and tools read
     * {@code role} (ioredis's and Lettuce's topology checks, monitoring). The replication id is
     * the server's run id, a random 40-hex string drawn at start.
     */
    private static void replicationSection(Ctx c, StringBuilder sb) {
        sb.append("# Replication\r\n");
        line(sb, "role", "master");
        line(sb, "connected_slaves", 0);
        line(sb, "master_failover_state", "no-failover");
        line(sb, "master_replid", c.server().runId());
        line(sb, "master_replid2", "0000000000000000000000000000000000000000");
        line(sb, "master_repl_offset", 0);
        line(sb, "second_repl_offset", -1);
        line(sb, "repl_backlog_active", 0);
        line(sb, "repl_backlog_size", 1048576);
        line(sb, "repl_backlog_first_byte_offset", 0);
        line(sb, "repl_backlog_histlen", 0);
    }

    /**
     * The process's CPU time, user and system, from {@code /proc/self/stat} (Linux; 0 elsewhere),
     * in Redis's seconds.microseconds; Cajon starts no child processes. Redis's *_main_thread
     * fields are left out: no one thread of Cajon does the work that Redis's main thread does.
     */
    private static void cpuSection(StringBuilder sb) {
        double user = 0;
        double sys = 0;
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after the command name: state is field 3, utime 14 and stime 15 (1-based), in clock ticks
            user = Long.parseLong(f[11]) / 100.0;
            sys = Long.parseLong(f[12]) / 100.0;
        } catch (java.io.IOException | RuntimeException e) {
            // not Linux: zeros
        }
        sb.append("# CPU\r\n");
        line(sb, "used_cpu_sys", String.format(Locale.ROOT, "%.6f", sys));
        line(sb, "used_cpu_user", String.format(Locale.ROOT, "%.6f", user));
        line(sb, "used_cpu_sys_children", "0.000000");
        line(sb, "used_cpu_user_children", "0.000000");
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
}
