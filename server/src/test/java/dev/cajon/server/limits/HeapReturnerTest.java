package dev.cajon.server.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When the heap returner asks for a collection: after a burst has gone quiet, never while idle. */
class HeapReturnerTest {
    private static final long MIB = 1 << 20;

    @Test
    void asksOnlyWhenQuietAfterTheHeapGrew() {
        // grown by 100 MiB since it settled: asked once two looks saw no GC
        assertFalse(HeapReturner.due(164 * MIB, 64 * MIB, 0), "a GC just ran: still busy");
        assertFalse(HeapReturner.due(164 * MIB, 64 * MIB, 1), "one quiet look is not enough");
        assertTrue(HeapReturner.due(164 * MIB, 64 * MIB, 2));
        // an idle server whose heap is where it settled is never asked, however long it idles
        assertFalse(HeapReturner.due(64 * MIB, 64 * MIB, 1_000));
        assertFalse(HeapReturner.due(78 * MIB, 64 * MIB, 1_000), "within the slack");
    }

    @Test
    void trimsTheNativeHeapOnceAfterEachBurstAndNeverWhileIdle() {
        AtomicInteger trims = new AtomicInteger();
        AtomicLong gcs = new AtomicLong(7);
        AtomicLong jit = new AtomicLong(500);
        HeapReturner r = new HeapReturner(gcs::get, jit::get, trims::incrementAndGet);
        for (int i = 0; i < 10; i++) {
            r.tick();
        }
        assertEquals(0, trims.get(), "no GC ran: an idle server is not trimmed");
        gcs.addAndGet(3); // a burst
        r.tick();
        assertTrue(r.busy(), "a GC ran since the last trim");
        r.tick();
        assertEquals(0, trims.get(), "one quiet look is not enough");
        for (int i = 0; i < 10; i++) {
            r.tick();
        }
        assertEquals(1, trims.get(), "trimmed once the burst went quiet, and only once");
        gcs.incrementAndGet(); // the next burst
        for (int i = 0; i < 10; i++) {
            r.tick();
        }
        assertEquals(2, trims.get());
        // the JIT still compiling after the burst's last GC: the trim waits for it to stop
        gcs.incrementAndGet();
        r.tick();
        for (int i = 0; i < 5; i++) {
            jit.addAndGet(40);
            r.tick();
        }
        assertEquals(2, trims.get(), "not while the JIT is compiling");
        for (int i = 0; i < 5; i++) {
            r.tick();
        }
        assertEquals(3, trims.get());
        // compilations alone (no GC) are a burst too: C2's arenas
        for (int i = 0; i < 3; i++) {
            jit.addAndGet(40);
            r.tick();
        }
        for (int i = 0; i < 5; i++) {
            r.tick();
        }
        assertEquals(4, trims.get());
    }
}
