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
import dev.cajon.server.session.Accounts;
import dev.cajon.server.session.ClientSession;

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
     * AUTH [username] password. With the password alone the user is default, which is an error
     * while default has no password (Redis's old requirepass behaviour). Success binds the
     * connection to the user's app; a wrong pair, or a user that is off, answers WRONGPASS and
     * leaves the connection as it was.
     */
    static void auth(Ctx c) {
        if (c.argc() > 3) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        Accounts accounts = c.server().accounts();
        byte[] user = DEFAULT_USER;
        byte[] password = c.arg(1);
        if (c.argc() == 2) {
            if (accounts.defaultNopass()) {
                throw new CommandError(RedisErrors.AUTH_NO_PASSWORD);
            }
        } else {
            user = c.arg(1);
            password = c.arg(2);
        }
        if (!accounts.login(c.session(), user, password)) {
            throw new CommandError(RedisErrors.WRONGPASS);
        }
        c.ok();
    }

    private static final byte[] DEFAULT_USER = Accounts.DEFAULT_USER.getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /**
     * HELLO [protover [AUTH username password] [SETNAME clientname]]. Options take effect in order,
     * as in Redis 7.0: AUTH authenticates and SETNAME names the client as soon as each is read, so
     * an error in a later option leaves the earlier ones applied (even a SETNAME before NOAUTH).
     * A connection still not authenticated after the options gets NOAUTH. The protocol switches
     * last, so HELLO's own reply is already in the new protocol (a map in RESP3, a flat array in
     * RESP2).
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
                if (!c.server().accounts().login(c.session(), c.arg(j + 1), c.arg(j + 2))) {
                    throw new CommandError(RedisErrors.WRONGPASS);
                }
                j += 2;
            } else if (ArgCursor.is(c.arg(j), "setname") && more >= 1) {
                c.session().name(validName(c.arg(j + 1), RedisErrors.CLIENT_NAME_SPACES));
                j++;
            } else {
                throw new CommandError(RedisErrors.helloOption(c.arg(j)));
            }
        }
        if (!c.session().authenticated()) {
            throw new CommandError(RedisErrors.HELLO_NOAUTH);
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

    /**
     * RESET: the connection as it was when it connected, as Redis's clearClientConnectionState:
     * no transaction and no watches, RESP2, db 0, no name, replies on, the NO-EVICT and NO-TOUCH
     * flags off, and the default user: authenticated only when default needs no password, as
     * Redis's clientSetDefaultAuth (RESET is no_auth, so it must never log anyone in).
     */
    static void reset(Ctx c) {
        ClientSession s = c.session();
        s.transaction().reset();
        c.protocol(RespProtocol.RESP2);
        s.db(0);
        s.name("");
        s.replyOn();
        s.noEvict(false);
        s.noTouch(false);
        c.server().accounts().reset(s);
        c.simple("RESET");
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
        t.register(cmd("reset", 1, "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "connection", "6.2.0", "Reset the connection", ConnectionFamily::reset));
        t.register(cmd("hello", -1, "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "connection", "6.0.0", "Handshake with Redis", ConnectionFamily::hello));
    }
}
