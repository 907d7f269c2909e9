package dev.cajon.server.limits;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
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
 * <p>Here a daemon thread looks once a second at the committed heap and the GC count. When no GC
 * has run for {@value #QUIET_TICKS} looks (the burst is over) and the heap has grown by more than
 * {@value #SLACK_MIB} MiB since it last settled, it asks for a collection ({@code System.gc()},
 * which the launcher's {@code -XX:+ExplicitGCInvokesConcurrent} makes a concurrent cycle, with
 * G1's short pauses, not a full stop). After it the committed size is the new settled one, so a
 * heap that could not shrink is not asked again, and an idle server is never asked at all.
 */
public final class HeapReturner implements AutoCloseable {
    static final int QUIET_TICKS = 2;
    static final long SLACK_MIB = 16;

    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final List<GarbageCollectorMXBean> gcs = ManagementFactory.getGarbageCollectorMXBeans();
    private final Thread thread;
    private volatile boolean running = true;
    private long settled;
    private long lastGcs = -1;
    private int quiet;

    public HeapReturner() {
        settled = memory.getHeapMemoryUsage().getCommitted();
        thread = new Thread(this::run, "cajon-heap-return");
        thread.setDaemon(true);
    }

    public HeapReturner start() {
        thread.start();
        return this;
    }

    /**
     * Whether to ask for a collection: no GC for {@code quietTicks} looks and the heap committed
     * more than {@link #SLACK_MIB} MiB over where it last settled.
     */
    static boolean due(long committed, long settled, int quietTicks) {
        return quietTicks >= QUIET_TICKS && committed - settled > SLACK_MIB << 20;
    }

    private long gcCount() {
        long n = 0;
        for (GarbageCollectorMXBean b : gcs) {
            n += Math.max(0, b.getCollectionCount());
        }
        return n;
    }

    /** One look; returns whether it asked for a collection. */
    boolean tick() {
        long committed = memory.getHeapMemoryUsage().getCommitted();
        long n = gcCount();
        if (n != lastGcs) {
            lastGcs = n;
            quiet = 0;
            settled = Math.min(settled, committed); // a GC that shrank the heap settles it lower
            return false;
        }
        quiet++;
        if (!due(committed, settled, quiet)) {
            return false;
        }
        System.gc();
        settled = memory.getHeapMemoryUsage().getCommitted();
        lastGcs = gcCount();
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
