package dev.cajon.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufLeakHook;
import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Netty's leak detector on PARANOID for the tests of this module, with every report captured so a
 * test can fail on it instead of only logging "LEAK:".
 *
 * <p>Two nets, because the leak detector alone is not deterministic:
 * <ol>
 *   <li>{@link DecoderHarness} checks, after each channel, that every buffer it or the decoder
 *       allocated has refCnt 0. That catches a leak at the case that caused it.</li>
 *   <li>This extension, after each test, runs the GC and makes the detector poll its reference queue
 *       (it does so on each new tracked allocation). Any "LEAK:" report fails the test. This also
 *       sees buffers the harness does not know about (codec slices, cumulations, ...).</li>
 * </ol>
 * {@code LeakCheckTest} proves that the second net actually catches a dropped buffer.
 */
public final class LeakCheck implements BeforeAllCallback, AfterEachCallback {
    private static final ConcurrentLinkedQueue<String> REPORTS = new ConcurrentLinkedQueue<>();

    static {
        // Every buffer is tracked (PARANOID) and a leak report names where it was created; only the
        // per-access records (a stack trace on every getByte/indexOf) are off, or the split-at-every-
        // byte tests take minutes. Must be set before AdvancedLeakAwareByteBuf is loaded.
        System.setProperty("io.netty.leakDetection.acquireAndReleaseOnly", "true");
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ByteBufLeakHook.install((resourceType, records) -> REPORTS.add(resourceType + " leak\n" + records));
    }

    /** Forces the class initializer: PARANOID level and the listener. */
    public static void init() {
        // the static block does the work
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        init();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        assertNoLeaksReported();
    }

    /** Runs the GC a few times and fails if the ByteBuf leak detector reported anything. */
    public static void assertNoLeaksReported() {
        List<String> leaks = collectReports(3);
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " ByteBuf leak(s) reported by Netty's detector; first:\n"
                    + leaks.get(0));
        }
    }

    /** GC, then one tracked allocation per round so the detector drains its reference queue. */
    static List<String> collectReports(int rounds) {
        for (int i = 0; i < rounds; i++) {
            System.gc();
            pokeDetector();
            if (!REPORTS.isEmpty()) {
                break;
            }
            try {
                Thread.sleep(5); // let the reference handler thread enqueue what the GC found
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            pokeDetector();
        }
        List<String> out = new ArrayList<>();
        String r;
        while ((r = REPORTS.poll()) != null) {
            out.add(r);
        }
        return out;
    }

    private static void pokeDetector() {
        ByteBuf b = new DecoderHarness.TrackingAllocator().heapBuffer(1);
        b.release();
    }
}
