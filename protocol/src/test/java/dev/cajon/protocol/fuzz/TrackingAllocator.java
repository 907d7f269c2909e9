package dev.cajon.protocol.fuzz;

import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * An allocator that remembers every buffer it hands out, so a run can prove all were released.
 * Each buffer is also handed to Netty's leak detector ({@code toLeakAwareBuffer}); plain
 * {@code AbstractByteBufAllocator} subclasses are not tracked unless they do that themselves.
 * Not thread-safe: one per channel, used on its event loop.
 */
public class TrackingAllocator extends AbstractByteBufAllocator {
    private final List<ByteBuf> allocated = new ArrayList<>();

    public TrackingAllocator() {
        super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        ByteBuf b = new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
        allocated.add(b);
        return toLeakAwareBuffer(b);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return newHeapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    public int count() {
        return allocated.size();
    }

    public void assertAllReleased(String what) {
        for (int i = 0; i < allocated.size(); i++) {
            ByteBuf b = allocated.get(i);
            if (b.refCnt() != 0) {
                fail(what + ": buffer #" + i + " of " + allocated.size() + " not released (refCnt "
                        + b.refCnt() + ", capacity " + b.capacity() + ")");
            }
        }
    }
}
