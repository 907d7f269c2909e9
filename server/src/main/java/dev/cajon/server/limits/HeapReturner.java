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
 *
 * <p>The same quiet moment after a burst also trims the C heap ({@code malloc_trim}, through
 * the {@code System.trim_native_heap} diagnostic command). What a burst leaves there is mostly
 * the JIT's: C2 compiles in arenas it frees afterwards, and glibc keeps the freed pages of its
 * per-thread arenas resident. After a 1M-field HSET load a 33 MB arena held 33.6 MB resident,
 * 2.6 MB after a trim. A trim costs about a millisecond on this thread and runs once per
 * burst, when neither a GC nor a JIT compilation ran for {@value #QUIET_TICKS} looks (the JIT
 * frees an arena when a compilation ends, which can be after the last GC of a burst); never while
 * idle (nothing ran: nothing to trim). A JVM or C library without the command answers that it is not available, and nothing
 * else happens.
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
    /** A GC ran since the last trim: the burst may have left the C heap grown. */
    private boolean busy;
    private long lastCompile;
    /** Looks since the last GC or JIT compilation. */
    private int calm;
    private final java.util.function.LongSupplier gcCount;
    private final java.util.function.LongSupplier compileMillis;
    private final Runnable trim;

    public HeapReturner() {
        this(null, null, HeapReturner::trimNativeHeap);
    }

    /**
     * With another GC count, JIT time and trim (tests; a null count is the JVM's collections,
     * a null time its total compilation time).
     */
    HeapReturner(java.util.function.LongSupplier gcCount, java.util.function.LongSupplier compileMillis,
                 Runnable trim) {
        this.gcCount = gcCount != null ? gcCount : this::gcCount;
        java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        this.compileMillis = compileMillis != null ? compileMillis
                : jit != null && jit.isCompilationTimeMonitoringSupported() ? jit::getTotalCompilationTime : () -> 0L;
        this.trim = trim;
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
        long n = gcCount.getAsLong();
        long c = compileMillis.getAsLong();
        boolean learning = lastGcs < 0; // the first look only learns the counts
        // the trim waits for the JIT too: it frees its arenas when a compilation ends
        if (c != lastCompile) {
            busy |= !learning;
            lastCompile = c;
            calm = 0;
        } else {
            calm++;
        }
        if (n != lastGcs) {
            busy |= !learning;
            lastGcs = n;
            quiet = 0;
            calm = 0;
            settled = Math.min(settled, committed); // a GC that shrank the heap settles it lower
            return false;
        }
        quiet++;
        boolean asked = due(committed, settled, quiet);
        if (asked) {
            System.gc();
            settled = memory.getHeapMemoryUsage().getCommitted();
            lastGcs = gcCount.getAsLong();
            quiet = 0;
        }
        if (busy && calm >= QUIET_TICKS && (asked || quiet >= QUIET_TICKS)) {
            busy = false;
            trim.run();
        }
        return asked;
    }

    /** Whether a burst has gone by that was not trimmed yet (tests). */
    boolean busy() {
        return busy;
    }

    /** {@code jcmd PID System.trim_native_heap}, from inside; quiet if this JVM has no such command. */
    static void trimNativeHeap() {
        try {
            ManagementFactory.getPlatformMBeanServer().invoke(
                    new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"),
                    "systemTrimNativeHeap", new Object[0], new String[0]);
        } catch (javax.management.JMException | RuntimeException e) {
            // an older JVM, or not glibc: nothing to trim with
        }
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
