package dev.cajon.server;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cajon-server [--config FILE] [--bind ADDR] [--port N] [--dir DIR] [--requirepass PASS]}: runs
 * the server in the foreground.
 */
@Command(name = "cajon-server", mixinStandardHelpOptions = true, versionProvider = Main.VersionProvider.class,
        description = "Cajon: a Redis-compatible key-value server on persisted Chronicle Map storage.")
public final class Main implements Callable<Integer> {
    /**
     * Logging is set up on first use, not when this class loads: that takes 0.1-0.2 s, and
     * {@link #main} starts Chronicle's set-up on another thread first, so the two overlap.
     */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(Main.class);
    }

    @Option(names = "--config", paramLabel = "FILE",
            description = "Read redis.conf-style 'name value' lines (bind, port, ... : these options' names without"
                    + " the dashes); options given here override the file, and CONFIG REWRITE writes it back.")
    Path config;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Set on the Main that already holds the file's values under the command line's. */
    private boolean configMerged;

    @Option(names = "--bind", paramLabel = "ADDR", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    String bind = ServerConfig.DEFAULT_BIND;

    @Option(names = "--port", paramLabel = "N", description = "TCP port (default: ${DEFAULT-VALUE}).")
    int port = ServerConfig.DEFAULT_PORT;

    @Option(names = "--dir", paramLabel = "DIR", description = "Data directory (default: ${DEFAULT-VALUE}).")
    Path dir = ServerConfig.DEFAULT_DIR;

    @Option(names = "--io-threads", paramLabel = "N", description = "Event loop threads (default: one per core but one, at least one).")
    int ioThreads = 0;

    @Option(names = "--expiry-threads", paramLabel = "N",
            description = "Threads that reclaim expired keys; all but one only help when reclamation falls behind (default: one per core).")
    int expiryThreads = 0;

    @Option(names = "--expiry-warmup", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "After start, run the expiry path on a scratch store so that the first expiry storm"
                    + " meets compiled code (default: on; --no-expiry-warmup turns it off).")
    boolean expiryWarmup = true;

    @Option(names = "--requirepass", paramLabel = "PASS",
            description = "Password of the 'default' user, the admin (default: none, as in Redis without requirepass)."
                    + " Apps are created with ACL SETUSER and have their own passwords.")
    String requirepass;

    @Option(names = "--metrics-port", paramLabel = "N",
            description = "Serve Prometheus metrics on http://ADDR:N/metrics (default: off; 0 picks a free port).")
    int metricsPort = ServerConfig.METRICS_OFF;

    @Option(names = "--metrics-bind", paramLabel = "ADDR",
            description = "Address the metrics endpoint listens on (default: ${DEFAULT-VALUE}).")
    String metricsBind = ServerConfig.DEFAULT_METRICS_BIND;

    @Option(names = "--app-max-keys", paramLabel = "N",
            description = "Key quota of every app without one of its own (APP QUOTA); 0, the default, is none.")
    long appMaxKeys;

    @Option(names = "--app-max-bytes", paramLabel = "N",
            description = "Byte quota of every app without one of its own (APP QUOTA); 0, the default, is none.")
    long appMaxBytes;

    @Option(names = "--max-open-keyspaces", paramLabel = "N",
            description = "Keep at most N keyspaces (app, db) mapped; the least recently used are closed past it"
                    + " and reopened on their next command (default: ${DEFAULT-VALUE}).")
    int maxOpenKeyspaces = ServerConfig.DEFAULT_MAX_OPEN_KEYSPACES;

    @Option(names = "--keyspace-idle", paramLabel = "SECONDS",
            description = "Close a keyspace unused for this long; its next command reopens it in a few"
                    + " milliseconds. 0 closes them only past --max-open-keyspaces (default: ${DEFAULT-VALUE}).")
    long keyspaceIdleSeconds = ServerConfig.DEFAULT_KEYSPACE_IDLE_SECONDS;

    @Option(names = "--appendfsync", paramLabel = "always|everysec|no",
            description = "When writes reach the disk, as Redis's appendfsync: always (before each reply), everysec"
                    + " (once a second, the default) or no (when the OS likes). Every policy survives kill -9.")
    String appendfsync = "everysec";

    @Option(names = "--min-free-disk", paramLabel = "BYTES",
            description = "Below this much free space on the data directory's disk, commands that add data are"
                    + " refused with -MISCONF; reads and deletes go on (default: 64mb; 0 turns it off).")
    String minFreeDisk = "64mb";

    @Option(names = "--maxclients", paramLabel = "N",
            description = "Most clients connected at once (default: ${DEFAULT-VALUE}); the open files limit is raised to fit.")
    int maxclients = dev.cajon.server.limits.NetSettings.DEFAULT_MAXCLIENTS;

    @Option(names = "--timeout", paramLabel = "SECONDS",
            description = "Close a client idle for this long (default: 0, never).")
    int timeout;

    @Option(names = "--tcp-keepalive", paramLabel = "SECONDS",
            description = "TCP keepalive idle time of client connections (default: ${DEFAULT-VALUE}; 0 is off).")
    int tcpKeepalive = 300;

    @Option(names = "--proto-max-bulk-len", paramLabel = "BYTES",
            description = "Longest bulk argument, e.g. 512mb (default: ${DEFAULT-VALUE}).")
    String protoMaxBulkLen = "512mb";

    @Option(names = "--client-query-buffer-limit", paramLabel = "BYTES",
            description = "Most input held for one client (default: ${DEFAULT-VALUE}).")
    String clientQueryBufferLimit = "1gb";

    @Option(names = "--client-output-buffer-limit", paramLabel = "'normal HARD SOFT SECONDS'",
            description = "Close a client whose pending replies in memory pass HARD, or SOFT for SECONDS"
                    + " (default: '${DEFAULT-VALUE}'; Redis's is 'normal 0 0 0', unbounded).")
    String clientOutputBufferLimit = "normal 64mb 16mb 60";

    @Option(names = "--protected-mode", paramLabel = "yes|no",
            description = "Without a password for the default user, refuse clients not on loopback (default: ${DEFAULT-VALUE}).")
    String protectedMode = "yes";

    /** The connection limits from the options, or an error message. */
    Object netSettings() {
        long bulk = dev.cajon.server.limits.MemorySize.parse(protoMaxBulkLen);
        long query = dev.cajon.server.limits.MemorySize.parse(clientQueryBufferLimit);
        if (bulk < (1 << 20) || query < (1 << 20)) {
            return "--proto-max-bulk-len and --client-query-buffer-limit must be memory values of at least 1mb";
        }
        String[] out = clientOutputBufferLimit.trim().split("\\s+");
        long hard = out.length == 4 ? dev.cajon.server.limits.MemorySize.parse(out[1]) : -1;
        long soft = out.length == 4 ? dev.cajon.server.limits.MemorySize.parse(out[2]) : -1;
        int secs;
        try {
            secs = out.length == 4 ? Integer.parseInt(out[3]) : -1;
        } catch (NumberFormatException e) {
            secs = -1;
        }
        if (!out[0].equals("normal") || hard < 0 || soft < 0 || secs < 0) {
            return "--client-output-buffer-limit must be 'normal HARD SOFT SECONDS'";
        }
        if (!protectedMode.equals("yes") && !protectedMode.equals("no")) {
            return "--protected-mode must be yes or no";
        }
        if (maxclients < 1 || timeout < 0 || tcpKeepalive < 0) {
            return "--maxclients must be at least 1, --timeout and --tcp-keepalive at least 0";
        }
        return new dev.cajon.server.limits.NetSettings(bulk, query, maxclients, timeout, tcpKeepalive, hard, soft, secs,
                protectedMode.equals("yes"));
    }

    static final class VersionProvider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"cajon-server " + Version.CAJON + " (Redis " + Version.REDIS_COMPAT + " compatible)"};
        }
    }

    /**
     * Initialises Chronicle's classes (its static set-up probes the OS, CPU affinity and the JVM:
     * about 0.3 s) on a second thread while this one sets up logging and parses the options.
     * Nothing is opened here; a failure just leaves the work to the thread that opens the store.
     * Not for --help or --version, which never open a store.
     */
    private static Thread preload(String[] args) {
        for (String a : args) {
            if (a.equals("-h") || a.equals("--help") || a.equals("-V") || a.equals("--version")) {
                return null;
            }
        }
        skipChroniclePosixLayer();
        Thread t = new Thread(() -> {
            try {
                Class.forName("net.openhft.chronicle.map.ChronicleMapBuilder", true, Main.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                // the store's own open reports whatever is wrong
            }
        }, "cajon-preload");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * With {@code --config}: the file's lines as options, each one the command line does not give
     * itself, before the command line's own, parsed again by picocli; exits 1 with redis-server's
     * message for a bad line.
     */
    private Integer callWithConfig() throws Exception {
        java.util.Map<String, String> file;
        try {
            file = dev.cajon.server.config.ConfigFile.read(config);
        } catch (java.io.IOException e) {
            // redis-server's words, with strerror's text for the usual two
            String why = e instanceof java.nio.file.NoSuchFileException ? "No such file or directory"
                    : e instanceof java.nio.file.AccessDeniedException ? "Permission denied" : String.valueOf(e.getMessage());
            System.err.println("Fatal error, can't open config file '" + config + "': " + why);
            return 1;
        } catch (dev.cajon.server.config.ConfigFile.Error e) {
            System.err.print(e.fatal());
            return 1;
        }
        CommandLine.ParseResult given = spec.commandLine().getParseResult();
        java.util.List<String> args = new java.util.ArrayList<>();
        for (java.util.Map.Entry<String, String> e : file.entrySet()) {
            boolean noPassword = e.getKey().equals("requirepass") && e.getValue().isEmpty();
            if (!noPassword && !given.hasMatchedOption("--" + e.getKey())) {
                args.add("--" + e.getKey() + "=" + e.getValue());
            }
        }
        args.addAll(given.originalArgs());
        Main merged = new Main();
        new CommandLine(merged).parseArgs(args.toArray(new String[0]));
        merged.configMerged = true;
        merged.config = config.toAbsolutePath().normalize();
        return merged.call();
    }

    @Override
    public Integer call() throws Exception {
        if (config != null && !configMerged) {
            return callWithConfig();
        }
        long t0 = System.nanoTime();
        ServerConfig cfg = ServerConfig.defaults().withBind(bind).withPort(port).withDir(dir).withIoThreads(ioThreads).withExpiryThreads(expiryThreads)
                .withExpiryWarmup(expiryWarmup).withRequirepass(requirepass)
                .withMetrics(metricsPort, metricsBind).withAppQuota(Math.max(0, appMaxKeys), Math.max(0, appMaxBytes))
                .withIdleKeyspaces(maxOpenKeyspaces, Math.max(0, keyspaceIdleSeconds));
        dev.cajon.storage.durability.FsyncPolicy fsync = dev.cajon.storage.durability.FsyncPolicy.parse(appendfsync);
        if (fsync == null) {
            System.err.println("cajon-server: --appendfsync " + dev.cajon.server.config.ConfigFile.APPENDFSYNC_VALUES);
            return CommandLine.ExitCode.USAGE;
        }
        cfg = cfg.withAppendfsync(fsync);
        long diskFloor;
        try {
            diskFloor = dev.cajon.server.limits.LimitParameters.memory(
                    "min-free-disk".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), minFreeDisk, 0);
        } catch (dev.cajon.server.command.CommandError e) {
            System.err.println("cajon-server: --min-free-disk " + dev.cajon.server.limits.LimitParameters.reason(
                    "min-free-disk".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), e));
            return CommandLine.ExitCode.USAGE;
        }
        Object net = netSettings();
        if (net instanceof String) {
            System.err.println("cajon-server: " + net);
            return CommandLine.ExitCode.USAGE;
        }
        dev.cajon.server.limits.NetSettings limits = (dev.cajon.server.limits.NetSettings) net;
        // as redis-server: raise the open files limit for maxclients, or lower maxclients to fit
        // (and one descriptor per open keyspace, which the budget bounds)
        limits = limits.withMaxclients(dev.cajon.server.limits.FdLimit.adjust(limits.maxclients(), maxOpenKeyspaces));
        cfg = cfg.withNet(limits).withConfigFile(config);
        CajonServer server;
        try {
            server = CajonServer.start(cfg);
        } catch (dev.cajon.storage.Store.DataDirLockedException e) {
            System.err.println("cajon-server: " + e.getMessage());
            return 2;
        }
        server.store().durability().disk().minFree(diskFloor);
        CountDownLatch stopRequested = new CountDownLatch(1);
        // the SHUTDOWN command stops the process the way SIGTERM does
        server.context().onShutdownRequest(stopRequested::countDown);
        // SIGTERM / SIGINT: stop cleanly on the main thread and exit 0, as Redis does
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(name), sig -> stopRequested.countDown());
            } catch (IllegalArgumentException e) {
                Log.LOG.warn("cannot handle SIG{}: {}", name, e.getMessage());
            }
        }
        // any other way out of the JVM still closes the maps
        Thread fallback = new Thread(server::close, "cajon-shutdown");
        Runtime.getRuntime().addShutdownHook(fallback);
        Log.LOG.info("Cajon {} ready to accept connections on {}:{} (data dir {}, appendfsync {}, {} transport, {} recovery, started in {} ms)",
                Version.CAJON, bind, server.port(), dir.toAbsolutePath().normalize(), fsync.word(), server.transport(),
                server.store().recovered() ? "after" : "no", (System.nanoTime() - t0) / 1_000_000);
        if (limits.protectedMode() && server.context().accounts().defaultNopass() && !loopback(bind)) {
            Log.LOG.warn("Protected mode is on and the default user has no password: clients from other addresses than"
                    + " loopback get -DENIED. Set --requirepass, or --protected-mode no behind a firewall.");
        }
                if (server.metricsAddress() != null) {
            java.net.InetSocketAddress m = server.metricsAddress();
            Log.LOG.info("Prometheus metrics on http://{}:{}/metrics", m.getHostString(), m.getPort());
        }
        // the heap back to the OS after a burst, nothing while idle (see HeapReturner)
        dev.cajon.server.limits.HeapReturner heap = new dev.cajon.server.limits.HeapReturner().start();
        stopRequested.await();
        Log.LOG.info("shutting down");
        heap.close();
        server.close();
        return 0;
    }

    private static boolean loopback(String address) {
        try {
            return java.net.InetAddress.getByName(address).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    /** Chronicle's POSIX layer without jnr-ffi: see {@link dev.cajon.server.nativeio.FallocateOnlyPosix}. */
    static void skipChroniclePosixLayer() {
        dev.cajon.server.nativeio.FallocateOnlyPosix.install();
    }

    /**
     * The options of an ordinary start, read without picocli; null for anything else (help,
     * version, a mistake, an unusual spelling), which picocli then handles with its usual usage
     * and error messages. Picocli's 170 classes are compiled for Java 5, a format class-data
     * sharing cannot archive, so loading and verifying them took 0.1-0.2 s of every start.
     *
     * <p>Accepts exactly a subset of what picocli accepts, with the same meaning ({@code MainTest}
     * compares the two): each known option at most once, as {@code --opt value} or
     * {@code --opt=value}, a non-empty value that does not start with '-', and numbers as plain
     * decimals without a leading zero.
     */
    static Main quickParse(String[] args) {
        Main m = new Main();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (String a : args) {
            if (a.startsWith("@")) {
                return null; // picocli reads arguments from a file named after '@'
            }
        }
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            String value;
            int eq = name.indexOf('=');
            if (eq > 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                return null;
            }
            if (!seen.add(name) || value.isEmpty() || value.charAt(0) == '-') {
                return null;
            }
            switch (name) {
                case "--bind":
                    m.bind = value;
                    break;
                case "--dir":
                    m.dir = Path.of(value);
                    break;
                case "--requirepass":
                    m.requirepass = value;
                    break;
                case "--metrics-bind":
                    m.metricsBind = value;
                    break;
                case "--appendfsync":
                    m.appendfsync = value;
                    break;
                case "--port":
                case "--io-threads":
                case "--expiry-threads":
                case "--metrics-port":
                    int n = plainDecimal(value);
                    if (n < 0) {
                        return null;
                    }
                    if (name.equals("--port")) {
                        m.port = n;
                    } else if (name.equals("--io-threads")) {
                        m.ioThreads = n;
                    } else if (name.equals("--metrics-port")) {
                        m.metricsPort = n;
                    } else {
                        m.expiryThreads = n;
                    }
                    break;
                default:
                    return null; // --config too: picocli's path knows which options the command line gave
            }
        }
        return m;
    }

    /** {@code s} as a plain decimal int ("0" or no leading zero, at most 9 digits), else -1. */
    private static int plainDecimal(String s) {
        if (s.length() > 9 || s.length() > 1 && s.charAt(0) == '0') {
            return -1;
        }
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }

    public static void main(String[] args) {
        Thread preload = preload(args);
        Main quick = quickParse(args);
        int code;
        if (quick == null) {
            code = new CommandLine(new Main()).execute(args);
        } else {
            try {
                code = quick.call();
            } catch (Exception e) {
                // what picocli's execute does with an exception from call()
                e.printStackTrace();
                code = CommandLine.ExitCode.SOFTWARE;
            }
        }
        if (preload != null) {
            // an early exit (a bad option, a data dir in use) must not cut Chronicle's static
            // set-up in half: native libraries torn down under it log stack traces
            try {
                preload.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        System.exit(code);
    }
}
