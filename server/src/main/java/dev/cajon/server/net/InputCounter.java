package dev.cajon.server.net;

import dev.cajon.server.ServerStats;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/** Counts bytes received (INFO total_net_input_bytes). Shared by all connections. */
@ChannelHandler.Sharable
public final class InputCounter extends ChannelInboundHandlerAdapter {
    private final ServerStats stats;

    public InputCounter(ServerStats stats) {
        this.stats = stats;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf) {
            stats.netInputBytes.add(((ByteBuf) msg).readableBytes());
        }
        ctx.fireChannelRead(msg);
    }
}
