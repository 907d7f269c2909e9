package dev.cajon.server.limits;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
}
