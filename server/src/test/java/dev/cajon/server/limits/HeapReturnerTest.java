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

    /**
     * A burst that makes the heap resident without growing it (what RssAnon shows and the
     * committed heap does not): asked once it goes quiet, and not again while nothing changes.
     */
    @Test
    void aBurstIsGivenBackOnceAndAnIdleServerNeverAsked() {
        AtomicLong resident = new AtomicLong(80 * MIB);
        AtomicLong gcs = new AtomicLong();
        AtomicInteger asked = new AtomicInteger();
        HeapReturner r = new HeapReturner(resident::get, gcs::get, () -> {
            asked.incrementAndGet();
            resident.set(90 * MIB); // the concurrent cycle gave most of it back
        });
        for (int i = 0; i < 10; i++) {
            assertFalse(r.tick(), "idle: never asked");
        }
        // the burst: GCs run and the resident heap grows by 120 MiB
        for (int i = 0; i < 5; i++) {
            gcs.incrementAndGet();
            resident.addAndGet(24 * MIB);
            assertFalse(r.tick(), "busy: not asked while GCs run");
        }
        assertFalse(r.tick(), "one quiet look");
        assertTrue(r.tick(), "two quiet looks after the burst");
        assertEquals(1, asked.get());
        for (int i = 0; i < 100; i++) {
            assertFalse(r.tick(), "settled where the collection left it");
        }
        assertEquals(1, asked.get());
    }
}
