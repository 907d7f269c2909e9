package dev.cajon.bench.harness;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Owns every child process the harness starts, and makes sure none outlives it.
 *
 * <p>All children are started through {@link #start}; a JVM shutdown hook kills whatever is still
 * registered, so servers die on normal exit, on an exception and on SIGINT/SIGTERM of the harness.
 * (Nothing can run on SIGKILL of the harness; see the limitations in docs/BENCHMARKS.md.)
 *
 * <p>Why whole process trees: {@code bin/cajon-server} may be a script that starts the JVM as its
 * child without {@code exec}. Signalling only the script would leave the JVM running, so we take a
 * snapshot of the descendants <em>before</em> signalling (once the parent dies they are re-parented
 * and can no longer be found), signal all of them, and escalate to SIGKILL after a grace period.
 */
public final class Reaper {

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    private static final Set<java.nio.file.Path> DOOMED = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            killAll();
            DOOMED.forEach(Harness::deleteTree);
        }, "harness-reaper"));
    }

    private Reaper() {
    }

    /** Deletes this tree when the JVM exits, after the servers writing into it are dead. */
    public static void deleteOnExit(java.nio.file.Path dir) {
        DOOMED.add(dir);
    }

    static Process start(ProcessBuilder pb) throws IOException {
        Process p = pb.start();
        LIVE.add(p);
        return p;
    }

    /**
     * Sends SIGTERM to the process and its descendants, waits up to {@code grace} for all of them,
     * then SIGKILLs the survivors. Returns the time until the process itself had exited.
     */
    static Duration stop(Process p, Duration grace) {
        long t0 = System.nanoTime();
        List<ProcessHandle> tree = tree(p.toHandle());
        for (ProcessHandle h : tree) {
            h.destroy();
        }
        long deadline = t0 + grace.toNanos();
        Duration exited = null;
        for (ProcessHandle h : tree) {
            long left = Math.max(0, deadline - System.nanoTime());
            try {
                h.onExit().get(left, TimeUnit.NANOSECONDS);
            } catch (Exception timeoutOrInterrupt) {
                h.destroyForcibly();
            }
            if (h.pid() == p.pid()) {
                exited = Duration.ofNanos(System.nanoTime() - t0);
            }
        }
        try {
            p.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LIVE.remove(p);
        return exited != null ? exited : Duration.ofNanos(System.nanoTime() - t0);
    }

    /**
     * SIGKILL ({@code kill -9}) of the process and its descendants at once, no SIGTERM first, so
     * nothing of the server's own shutdown runs. Returns what was killed ("pid command"), the
     * process itself first.
     */
    static List<String> kill9(Process p) {
        List<ProcessHandle> tree = tree(p.toHandle());
        List<String> killed = new ArrayList<>();
        for (ProcessHandle h : tree) {
            String cmd = h.info().command().orElse("?");
            if (h.destroyForcibly()) {
                killed.add(h.pid() + " " + cmd);
            }
        }
        for (ProcessHandle h : tree) {
            try {
                h.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception timeoutOrInterrupt) {
                // a SIGKILLed process that is not gone after 10 s is the kernel's business
            }
        }
        try {
            p.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LIVE.remove(p);
        return killed;
    }

    /** Kills everything still registered: used by the shutdown hook and after failures. */
    public static void killAll() {
        List<Process> all = new ArrayList<>(LIVE);
        List<ProcessHandle> handles = new ArrayList<>();
        for (Process p : all) {
            handles.addAll(tree(p.toHandle()));
        }
        handles.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (ProcessHandle h : handles) {
            long left = Math.max(0, deadline - System.nanoTime());
            try {
                h.onExit().get(left, TimeUnit.NANOSECONDS);
            } catch (Exception timeoutOrInterrupt) {
                h.destroyForcibly();
            }
        }
        LIVE.removeAll(all);
    }

    /** The process and all of its descendants, leaves last so a parent is signalled first. */
    static List<ProcessHandle> tree(ProcessHandle root) {
        List<ProcessHandle> out = new ArrayList<>();
        out.add(root);
        root.descendants().forEach(out::add);
        return out;
    }
}
