package io.netty.buffer;

import io.netty.util.ResourceLeakDetector;

/**
 * Test-only access to the leak detector that tracks every {@link ByteBuf} ({@code AbstractByteBuf.leakDetector}
 * is package-private). It lives in Netty's package for that reason only, like the main code's
 * {@code RedisDecoderBridge}.
 */
public final class ByteBufLeakHook {
    private ByteBufLeakHook() {
    }

    /** Routes every leak that the ByteBuf leak detector reports to {@code listener}. */
    public static void install(ResourceLeakDetector.LeakListener listener) {
        AbstractByteBuf.leakDetector.setLeakListener(listener);
    }
}
