package dev.cajon.protocol;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Proves the leak nets used by the other tests of this module would fail on a real leak. */
class LeakCheckTest {

    @Test
    void detectorIsParanoidAndReportsADroppedBuffer() {
        LeakCheck.init();
        assertTrue(ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.PARANOID);
        dropWithoutRelease();
        List<String> reports = LeakCheck.collectReports(50);
        assertFalse(reports.isEmpty(), "the leak detector did not report a dropped buffer");
        assertTrue(reports.get(0).contains("dropWithoutRelease"), reports.get(0));
    }

    private static void dropWithoutRelease() {
        ByteBuf b = new DecoderHarness.TrackingAllocator().heapBuffer(16);
        b.writeInt(42);
    }

    @Test
    void trackingAllocatorNamesAnUnreleasedBuffer() {
        DecoderHarness.TrackingAllocator alloc = new DecoderHarness.TrackingAllocator();
        ByteBuf b = alloc.heapBuffer(8);
        assertThrows(AssertionError.class, () -> alloc.assertAllReleased("test"));
        b.release();
        alloc.assertAllReleased("test");
    }
}
