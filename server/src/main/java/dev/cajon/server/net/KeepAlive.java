package dev.cajon.server.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioChannelOption;
import jdk.net.ExtendedSocketOptions;

/**
 * Redis's anetKeepAlive for {@code tcp-keepalive}: keepalive probes after {@code seconds} of
 * silence, then every third of that, and the peer is dead after 3 unanswered; 0 turns it off.
 */
final class KeepAlive {
    private KeepAlive() {
    }

    static void apply(Channel ch, int seconds) {
        ch.config().setOption(ChannelOption.SO_KEEPALIVE, seconds > 0);
        if (seconds <= 0) {
            return;
        }
        int interval = Math.max(1, seconds / 3);
        if (ch instanceof EpollSocketChannel) {
            ch.config().setOption(EpollChannelOption.TCP_KEEPIDLE, seconds);
            ch.config().setOption(EpollChannelOption.TCP_KEEPINTVL, interval);
            ch.config().setOption(EpollChannelOption.TCP_KEEPCNT, 3);
        } else {
            ch.config().setOption(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPIDLE), seconds);
            ch.config().setOption(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPINTERVAL), interval);
            ch.config().setOption(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPCOUNT), 3);
        }
    }
}
