package dev.cajon.server.limits;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * Gives the heap back to the OS after a burst, and costs nothing while the server idles.
 *
 * <p>The data is off the heap, but a burst (a bulk load, a thousand AUTHs) grows the heap, and G1
 * only gives memory back at the end of a concurrent cycle or a full GC: a server that goes quiet
 * after a burst keeps its grown heap until the next one, which may be never. G1's own answer,
 * {@code -XX:G1PeriodicGCInterval}, runs a concurrent cycle whenever none ran for the interval,
 * and so keeps doing it every interval while the server idles: at 2 s it cost an idle server
 * 9 ms of CPU a second (24 against 15 ms/s without it), nearly a core-percent, to return nothing.
 *
 * <p>Here a daemon thread looks once a second at the process's resident anonymous memory
 * ({@code RssAnon}; the committed heap where /proc is not there) and the GC count. When no GC
 * has run for {@value #QUIET_TICKS} looks (the burst is over) and that memory has grown by more
 * than {@value #SLACK_MIB} MiB since it last settled, it asks for a collection ({@code System.gc()},
 * which the launcher's {@code -XX:+ExplicitGCInvokesConcurrent} makes a concurrent cycle, with
 * G1's short pauses, not a full stop). After it the reading is the new settled one, so a
 * heap that could not shrink is not asked again, and an idle server is never asked at all.
 *
 * <p>Why resident memory and not the committed heap: a heap that start-up already expanded
 * (171 MiB committed on a fresh server, 64 MiB of it ever touched) does not grow in a burst, it
 * becomes resident: 100k small hashes loaded took RssAnon from 98 to 201 MiB with the committed
 * heap unchanged, so the committed heap never said "grown", and the 100 MiB stayed. One
 * concurrent cycle took it back to 65 MiB committed and 97 MiB of RssAnon.
 */
public final class HeapReturner implements AutoCloseable {
    static final int QUIET_TICKS = 2;
    static final long SLACK_MIB = 16;

    private final List<GarbageCollectorMXBean> gcs = ManagementFactory.getGarbageCollectorMXBeans();
    private final Thread thread;
    private volatile boolean running = true;
    private long settled;
    private long lastGcs = -1;
    private int quiet;

    /** What is watched: resident anonymous bytes, or the committed heap without /proc. */
    private final java.util.function.LongSupplier footprint;

    /** The GCs run so far, and how a collection is asked for (tests give their own). */
    private final java.util.function.LongSupplier gcRuns;
    private final Runnable collect;

    public HeapReturner() {
        this(java.nio.file.Files.isReadable(STATUS) ? HeapReturner::rssAnon
                : () -> ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted(), null, System::gc);
    }

    HeapReturner(java.util.function.LongSupplier footprint, java.util.function.LongSupplier gcRuns, Runnable collect) {
        this.footprint = footprint;
        this.gcRuns = gcRuns != null ? gcRuns : this::gcCount;
        this.collect = collect;
        settled = footprint.getAsLong();
        thread = new Thread(this::run, "cajon-heap-return");
        thread.setDaemon(true);
    }

    public HeapReturner start() {
        thread.start();
        return this;
    }

    /**
     * Whether to ask for a collection: no GC for {@code quietTicks} looks and the watched memory
     * more than {@link #SLACK_MIB} MiB over where it last settled.
     */
    static boolean due(long now, long settled, int quietTicks) {
        return quietTicks >= QUIET_TICKS && now - settled > SLACK_MIB << 20;
    }

    private long gcCount() {
        long n = 0;
        for (GarbageCollectorMXBean b : gcs) {
            n += Math.max(0, b.getCollectionCount());
        }
        return n;
    }

    private static final java.nio.file.Path STATUS = java.nio.file.Path.of("/proc/self/status");

    /** RssAnon of /proc/self/status in bytes (the committed heap if it cannot be read). */
    private static long rssAnon() {
        try {
            for (String line : java.nio.file.Files.readAllLines(STATUS)) {
                if (line.startsWith("RssAnon:")) {
                    return Long.parseLong(line.substring(8).trim().split("\\s+")[0]) * 1024;
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // fall through
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
    }

    /** One look; returns whether it asked for a collection. */
    boolean tick() {
        long now = footprint.getAsLong();
        long n = gcRuns.getAsLong();
        if (n != lastGcs) {
            lastGcs = n;
            quiet = 0;
            settled = Math.min(settled, now); // a GC that shrank the heap settles it lower
            return false;
        }
        quiet++;
        if (!due(now, settled, quiet)) {
            return false;
        }
        collect.run();
        settled = footprint.getAsLong();
        lastGcs = gcRuns.getAsLong();
        quiet = 0;
        return true;
    }

    private void run() {
        while (running) {
            try {
                Thread.sleep(1000);
                tick();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                return; // a JVM without these beans: nothing to do
            }
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
