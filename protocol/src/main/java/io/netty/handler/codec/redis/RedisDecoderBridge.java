package io.netty.handler.codec.redis;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.util.List;

/**
 * Lets Cajon's {@code RequestDecoder} drive netty-codec-redis's {@link RedisDecoder} directly.
 *
 * <p>{@code RedisDecoder} is final and its {@code decode} is protected; this class lives in the
 * codec's package only to call it. Cajon uses the codec for RESP multibulk framing and does inline
 * commands itself, because the codec requires CRLF and does not split quoted arguments.
 */
public final class RedisDecoderBridge {
    private RedisDecoderBridge() {
    }

    /** Runs one decode pass of {@code decoder} over {@code in}, appending frames to {@code out}. */
    public static void decode(RedisDecoder decoder, ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
            throws Exception {
        decoder.decode(ctx, in, out);
    }
}
