package dev.cajon.server;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cajon-server [--bind ADDR] [--port N] [--dir DIR]}: runs the server in the foreground. */
@Command(name = "cajon-server", mixinStandardHelpOptions = true, versionProvider = Main.VersionProvider.class,
        description = "Cajon: a Redis-compatible key-value server on persisted Chronicle Map storage.")
public final class Main implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(Main.class);

    @Option(names = "--bind", paramLabel = "ADDR", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    String bind = ServerConfig.DEFAULT_BIND;

    @Option(names = "--port", paramLabel = "N", description = "TCP port (default: ${DEFAULT-VALUE}).")
    int port = ServerConfig.DEFAULT_PORT;

    @Option(names = "--dir", paramLabel = "DIR", description = "Data directory (default: ${DEFAULT-VALUE}).")
    Path dir = ServerConfig.DEFAULT_DIR;

    @Option(names = "--io-threads", paramLabel = "N", description = "Event loop threads (default: one per core).")
    int ioThreads = 0;

    @Option(names = "--expiry-threads", paramLabel = "N",
            description = "Threads that reclaim expired keys; all but one only help when reclamation falls behind (default: one per core).")
    int expiryThreads = 0;

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

    @Override
    public Integer call() throws Exception {
        long t0 = System.nanoTime();
        ServerConfig cfg = ServerConfig.defaults().withBind(bind).withPort(port).withDir(dir).withIoThreads(ioThreads).withExpiryThreads(expiryThreads);
        CajonServer server;
        try {
            server = CajonServer.start(cfg);
        } catch (dev.cajon.storage.Store.DataDirLockedException e) {
            System.err.println("cajon-server: " + e.getMessage());
            return 2;
        }
        CountDownLatch stopRequested = new CountDownLatch(1);
        // the SHUTDOWN command stops the process the way SIGTERM does
        server.context().onShutdownRequest(stopRequested::countDown);
        // SIGTERM / SIGINT: stop cleanly on the main thread and exit 0, as Redis does
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(name), sig -> stopRequested.countDown());
            } catch (IllegalArgumentException e) {
                log.warn("cannot handle SIG{}: {}", name, e.getMessage());
            }
        }
        // any other way out of the JVM still closes the maps
        Thread fallback = new Thread(server::close, "cajon-shutdown");
        Runtime.getRuntime().addShutdownHook(fallback);
        log.info("Cajon {} ready to accept connections on {}:{} (data dir {}, {} transport, {} recovery, started in {} ms)",
                Version.CAJON, bind, server.port(), dir.toAbsolutePath().normalize(), server.transport(),
                server.store().recovered() ? "after" : "no", (System.nanoTime() - t0) / 1_000_000);
        stopRequested.await();
        log.info("shutting down");
        server.close();
        return 0;
    }

    public static void main(String[] args) {
        Thread preload = preload(args);
        int code = new CommandLine(new Main()).execute(args);
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
