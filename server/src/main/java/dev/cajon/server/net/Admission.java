package dev.cajon.server.net;

import dev.cajon.server.ServerContext;
import dev.cajon.server.limits.NetLimits;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a new connection may stay, in the order of Redis's acceptCommonHandler and
 * clientAcceptHandler: {@code maxclients} first, then protected mode. Each refusal is Redis's
 * reply, written raw, after which the connection is closed.
 */
final class Admission {
    private static final Logger log = LoggerFactory.getLogger(Admission.class);

    static final String MAX_CLIENTS = "-ERR max number of clients reached\r\n";
    /** Redis 7.0's text, byte for byte (networking.c, clientAcceptHandler). */
    static final String DENIED = "-DENIED Redis is running in protected mode because protected "
            + "mode is enabled and no password is set for the default user. "
            + "In this mode connections are only accepted from the loopback interface. "
            + "If you want to connect from external computers to Redis you "
            + "may adopt one of the following solutions: "
            + "1) Just disable protected mode sending the command "
            + "'CONFIG SET protected-mode no' from the loopback interface "
            + "by connecting to Redis from the same host the server is "
            + "running, however MAKE SURE Redis is not publicly accessible "
            + "from internet if you do so. Use CONFIG REWRITE to make this "
            + "change permanent. "
            + "2) Alternatively you can just disable the protected mode by "
            + "editing the Redis configuration file, and setting the protected "
            + "mode option to 'no', and then restarting the server. "
            + "3) If you started the server manually just for testing, restart "
            + "it with the '--protected-mode no' option. "
            + "4) Setup a an authentication password for the default user. "
            + "NOTE: You only need to do one of the above things in order for "
            + "the server to start accepting connections from the outside.\r\n";

    private Admission() {
    }

    /**
     * Null when the connection may stay (it is then counted against maxclients), else the reply
     * to write before closing it.
     */
    static String refusal(ServerContext server, SocketAddress remote) {
        NetLimits limits = server.netLimits();
        if (!limits.tryConnect()) {
            log.debug("refused {}: max number of clients reached", remote);
            return MAX_CLIENTS;
        }
        if (limits.protectedMode() && server.accounts().defaultNopass() && !isLoopback(remote)) {
            limits.disconnected();
            log.warn("refused {}: protected mode (no password for the default user, and not from loopback)", remote);
            return DENIED;
        }
        return null;
    }

    /** Redis's connIsLocal: a loopback address (127/8 or ::1, also IPv4-mapped). */
    static boolean isLoopback(SocketAddress remote) {
        if (!(remote instanceof InetSocketAddress)) {
            return true; // a Unix socket or an in-process channel
        }
        InetAddress a = ((InetSocketAddress) remote).getAddress();
        return a == null || a.isLoopbackAddress();
    }
}
