package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.cmd;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.protocol.Resp;
import dev.cajon.protocol.RespProtocol;
import dev.cajon.server.ServerContext;
import dev.cajon.server.Version;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;

/** Connection commands: PING, ECHO, QUIT, SELECT, HELLO and AUTH (CLIENT is {@link ClientFamily}). */
public final class ConnectionFamily {
    private ConnectionFamily() {
    }

    static void ping(Ctx c) {
        if (c.argc() > 2) {
            throw new CommandError(RedisErrors.wrongArity("ping"));
        }
        if (c.argc() == 1) {
            c.raw(Resp.PONG);
        } else {
            c.bulk(c.arg(1));
        }
    }

    static void echo(Ctx c) {
        c.bulk(c.arg(1));
    }

    static void quit(Ctx c) {
        c.ok();
        c.session().closeAfterReply();
    }

    static void select(Ctx c) {
        int db = ArgCursor.parseInt(c.arg(1));
        if (db < 0 || db >= ServerContext.DATABASES) {
            throw new CommandError(RedisErrors.DB_INDEX_OUT_OF_RANGE);
        }
        c.session().db(db);
        c.ok();
    }

    /**
     * AUTH. Until apps land, the only user is "default" with no password, which is what a Redis
     * without requirepass answers.
     */
    static void auth(Ctx c) {
        if (c.argc() > 3) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        if (c.argc() == 2) {
            throw new CommandError(RedisErrors.AUTH_NO_PASSWORD);
        }
        if (isDefaultUser(c.arg(1))) {
            c.session().authenticated(true);
            c.ok(); // the default user has no password: any password is accepted ("nopass")
            return;
        }
        throw new CommandError(RedisErrors.WRONGPASS);
    }

    /** The only user until apps land: "default", without a password (any password works). */
    private static boolean isDefaultUser(byte[] user) {
        return java.util.Arrays.equals(user, DEFAULT_USER);
    }

    private static final byte[] DEFAULT_USER = "default".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /**
     * HELLO [protover [AUTH username password] [SETNAME clientname]]. Options take effect in order,
     * as in Redis: AUTH authenticates and SETNAME names the client as soon as each is read, so an
     * error in a later option leaves the earlier ones applied. The protocol switches last, so
     * HELLO's own reply is already in the new protocol (a map in RESP3, a flat array in RESP2).
     */
    static void hello(Ctx c) {
        RespProtocol proto = c.protocol();
        if (c.argc() >= 2) {
            long ver = ArgCursor.parseLong(c.arg(1), RedisErrors.PROTOCOL_VERSION);
            proto = RespProtocol.of(ver);
            if (proto == null) {
                throw new CommandError(RedisErrors.NOPROTO);
            }
        }
        for (int j = 2; j < c.argc(); j++) {
            int more = c.argc() - 1 - j;
            if (ArgCursor.is(c.arg(j), "auth") && more >= 2) {
                if (!isDefaultUser(c.arg(j + 1))) {
                    throw new CommandError(RedisErrors.WRONGPASS);
                }
                c.session().authenticated(true);
                j += 2;
            } else if (ArgCursor.is(c.arg(j), "setname") && more >= 1) {
                c.session().name(validName(c.arg(j + 1), RedisErrors.CLIENT_NAME_SPACES));
                j++;
            } else {
                throw new CommandError(RedisErrors.helloOption(c.arg(j)));
            }
        }
        c.protocol(proto);
        c.mapHeader(7);
        c.bulk("server");
        c.bulk("redis");
        c.bulk("version");
        c.bulk(Version.REDIS_COMPAT);
        c.bulk("proto");
        c.integer(proto.version());
        c.bulk("id");
        c.integer(c.session().id());
        c.bulk("mode");
        c.bulk("standalone");
        c.bulk("role");
        c.bulk("master");
        c.bulk("modules");
        c.arrayHeader(0);
    }

    /** Client names and library fields: printable ASCII without spaces, as Redis requires. */
    static String validName(byte[] b, String error) {
        for (byte x : b) {
            if (x < '!' || x > '~') {
                throw new CommandError(error);
            }
        }
        return new String(b, java.nio.charset.StandardCharsets.US_ASCII);
    }

    public static void register(CommandTable t) {
        t.register(cmd("ping", -1, "fast", 0, 0, 0, "connection", "1.0.0", "Ping the server", ConnectionFamily::ping));
        t.register(cmd("echo", 2, "loading stale fast", 0, 0, 0, "connection", "1.0.0", "Echo the given string", ConnectionFamily::echo));
        t.register(cmd("quit", -1, "allow_busy noscript loading stale fast no_auth", 0, 0, 0, "connection", "1.0.0", "Close the connection", ConnectionFamily::quit));
        t.register(cmd("select", 2, "loading stale fast", 0, 0, 0, "connection", "1.0.0", "Change the selected database for the current connection", ConnectionFamily::select));
        t.register(cmd("auth", -2, "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "connection", "1.0.0", "Authenticate to the server", ConnectionFamily::auth));
        t.register(cmd("hello", -1, "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "connection", "6.0.0", "Handshake with Redis", ConnectionFamily::hello));
    }
}
