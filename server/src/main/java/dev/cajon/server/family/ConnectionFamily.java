package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.cmd;
import static dev.cajon.server.command.Specs.container;
import static dev.cajon.server.command.Specs.sub;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.protocol.Resp;
import dev.cajon.protocol.RespProtocol;
import dev.cajon.server.ServerContext;
import dev.cajon.server.Version;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.session.ClientSession;
import java.util.List;

/** Connection commands: PING, ECHO, QUIT, SELECT, HELLO, AUTH and CLIENT. */
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
    private static String validName(byte[] b, String error) {
        for (byte x : b) {
            if (x < '!' || x > '~') {
                throw new CommandError(error);
            }
        }
        return new String(b, java.nio.charset.StandardCharsets.US_ASCII);
    }

    static void clientSetname(Ctx c) {
        c.session().name(validName(c.arg(2), RedisErrors.CLIENT_NAME_SPACES));
        c.ok();
    }

    static void clientGetname(Ctx c) {
        String n = c.session().name();
        if (n.isEmpty()) {
            c.nullBulk();
        } else {
            c.bulk(n);
        }
    }

    static void clientId(Ctx c) {
        c.integer(c.session().id());
    }

    /** CLIENT SETINFO LIB-NAME|LIB-VER value (Redis 7.2 semantics; clients send it on connect). */
    static void clientSetinfo(Ctx c) {
        byte[] attr = c.arg(2);
        if (ArgCursor.is(attr, "lib-name")) {
            c.session().libName(validName(c.arg(3), RedisErrors.LIB_NAME_SPACES));
        } else if (ArgCursor.is(attr, "lib-ver")) {
            c.session().libVersion(validName(c.arg(3), RedisErrors.LIB_VER_SPACES));
        } else {
            throw new CommandError(RedisErrors.unrecognizedOption(c.arg(2)));
        }
        c.ok();
    }

    static String describe(ClientSession s, long now) {
        return "id=" + s.id() + " addr=" + s.addr() + " laddr=" + s.laddr() + " fd=-1 name=" + s.name()
                + " age=" + (now - s.createdMillis()) / 1000 + " idle=" + (now - s.lastInteractionMillis()) / 1000
                + " flags=" + (s.transaction().inMulti() ? "x" : "N") + " db=" + s.db() + " sub=0 psub=0 ssub=0 multi="
                + s.transaction().multiCount() + " qbuf=0 qbuf-free=0 argv-mem=0"
                + " multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=" + s.lastCommand()
                + " user=default redir=-1 resp=" + s.protocol().version() + " lib-name=" + s.libName() + " lib-ver=" + s.libVersion()
                + " app=" + s.app();
    }

    static void clientInfo(Ctx c) {
        c.verbatim(describe(c.session(), c.server().clock().nowMillis()) + "\n");
    }

    /** CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id [id ...]]. */
    static void clientList(Ctx c) {
        java.util.Set<Long> ids = null;
        boolean normalOnly = true;
        int j = 2;
        if (c.argc() == 4 && ArgCursor.is(c.arg(2), "type")) {
            String type = c.argv().str(3).toLowerCase(java.util.Locale.ROOT);
            switch (type) {
                case "normal":
                    break;
                case "master":
                case "replica":
                case "slave":
                case "pubsub":
                    normalOnly = false;
                    ids = java.util.Set.of(); // Cajon has no such clients
                    break;
                default:
                    throw new CommandError(RedisErrors.unknownClientType(c.arg(3)));
            }
            j = 4;
        } else if (c.argc() >= 4 && ArgCursor.is(c.arg(2), "id")) {
            ids = new java.util.HashSet<>();
            for (j = 3; j < c.argc(); j++) {
                long id;
                try {
                    id = ArgCursor.parseLong(c.arg(j));
                } catch (CommandError e) {
                    throw new CommandError(RedisErrors.INVALID_CLIENT_ID);
                }
                if (id <= 0) {
                    throw new CommandError(RedisErrors.INVALID_CLIENT_ID);
                }
                ids.add(id);
            }
        }
        if (j < c.argc() || c.argc() == 3) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        long now = c.server().clock().nowMillis();
        StringBuilder sb = new StringBuilder();
        java.util.Set<Long> only = ids;
        c.server().clients().stream()
                .filter(s -> s.app().equals(c.session().app()))
                .filter(s -> only == null || only.contains(s.id()))
                .sorted((a, b) -> Long.compare(a.id(), b.id()))
                .forEach(s -> sb.append(describe(s, now)).append('\n'));
        c.verbatim(sb.toString());
    }

    static void clientHelp(Ctx c) {
        List<String> lines = List.of(
                "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "GETNAME",
                "    Return the name of the current connection.",
                "ID",
                "    Return the ID of the current connection.",
                "INFO",
                "    Return information about the current client connection.",
                "LIST",
                "    Return information about client connections.",
                "SETINFO <option> <value>",
                "    Set client meta attr. Options are: LIB-NAME, LIB-VER.",
                "SETNAME <name>",
                "    Assign the name <name> to the current connection.",
                "HELP",
                "    Print this help.");
        c.helpLines(lines);
    }

    public static void register(CommandTable t) {
        t.register(cmd("ping", -1, "fast", 0, 0, 0, "connection", "1.0.0", "Ping the server", ConnectionFamily::ping));
        t.register(cmd("echo", 2, "loading stale fast", 0, 0, 0, "connection", "1.0.0", "Echo the given string", ConnectionFamily::echo));
        t.register(cmd("quit", -1, "allow_busy noscript loading stale fast no_auth", 0, 0, 0, "connection", "1.0.0", "Close the connection", ConnectionFamily::quit));
        t.register(cmd("select", 2, "loading stale fast", 0, 0, 0, "connection", "1.0.0", "Change the selected database for the current connection", ConnectionFamily::select));
        t.register(cmd("auth", -2, "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "connection", "1.0.0", "Authenticate to the server", ConnectionFamily::auth));
        t.register(cmd("hello", -1, "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "connection", "6.0.0", "Handshake with Redis", ConnectionFamily::hello));
        t.register(container("client", -2, "", "connection", "2.4.0", "A container for client connection commands", null, List.of(
                sub("client", "setname", 3, "noscript loading stale", "2.6.9", "Set the current connection name", ConnectionFamily::clientSetname),
                sub("client", "getname", 2, "noscript loading stale", "2.6.9", "Get the current connection name", ConnectionFamily::clientGetname),
                sub("client", "id", 2, "noscript loading stale", "5.0.0", "Returns the client ID for the current connection", ConnectionFamily::clientId),
                sub("client", "setinfo", 4, "noscript loading stale", "7.2.0", "Sets information specific to the client or connection.", ConnectionFamily::clientSetinfo),
                sub("client", "info", 2, "noscript loading stale", "6.2.0", "Returns information about the current client connection.", ConnectionFamily::clientInfo),
                sub("client", "list", -2, "admin noscript loading stale", "2.4.0", "Get the list of client connections", ConnectionFamily::clientList),
                sub("client", "help", 2, "loading stale", "5.0.0", "Show helpful text about the different subcommands", ConnectionFamily::clientHelp))));
    }
}
