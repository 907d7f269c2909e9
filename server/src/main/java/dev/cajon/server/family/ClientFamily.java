package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.container;
import static dev.cajon.server.command.Specs.sub;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.protocol.Resp;
import dev.cajon.server.ServerContext;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.session.ClientPause;
import dev.cajon.server.session.ClientSession;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The CLIENT container command: names and ids (SETNAME, GETNAME, ID, SETINFO), what a client
 * looks like (INFO, LIST), acting on other clients (KILL, PAUSE, UNPAUSE) and on this one's
 * replies and flags (REPLY, NO-EVICT, NO-TOUCH, TRACKING OFF, GETREDIR, TRACKINGINFO).
 *
 * <p>Replies and error texts are Redis 7.0.15's (7.2's for SETINFO and NO-TOUCH, which 7.0 lacks).
 * A client only sees and acts on the clients of its own app: CLIENT LIST and CLIENT KILL filter
 * by app first, as every other command does with keys.
 *
 * <p>The handlers only change state. What the state does happens elsewhere: a PAUSE postpones
 * commands in the connection ({@code ConnectionHandler}, before dispatch), REPLY OFF and SKIP drop
 * replies there too, and a killed client is closed on its own event loop.
 */
public final class ClientFamily {
    private ClientFamily() {
    }

    static void setname(Ctx c) {
        c.session().name(ConnectionFamily.validName(c.arg(2), RedisErrors.CLIENT_NAME_SPACES));
        c.ok();
    }

    static void getname(Ctx c) {
        String n = c.session().name();
        if (n.isEmpty()) {
            c.nullBulk();
        } else {
            c.bulk(n);
        }
    }

    static void id(Ctx c) {
        c.integer(c.session().id());
    }

    /** CLIENT SETINFO LIB-NAME|LIB-VER value (Redis 7.2 semantics; clients send it on connect). */
    static void setinfo(Ctx c) {
        byte[] attr = c.arg(2);
        if (ArgCursor.is(attr, "lib-name")) {
            c.session().libName(ConnectionFamily.validName(c.arg(3), RedisErrors.LIB_NAME_SPACES));
        } else if (ArgCursor.is(attr, "lib-ver")) {
            c.session().libVersion(ConnectionFamily.validName(c.arg(3), RedisErrors.LIB_VER_SPACES));
        } else {
            throw new CommandError(RedisErrors.unrecognizedOption(c.arg(2)));
        }
        c.ok();
    }

    // ------------------------------------------------------------------ INFO, LIST

    /**
     * One line of CLIENT LIST / CLIENT INFO, with the fields Redis 7.0 prints in its order, then
     * 7.2's lib-name and lib-ver, then Cajon's app. qbuf is the input received and decoded that
     * waits to run (behind a blocked or paused command), omem the replies the socket has not taken
     * yet, tot-mem their sum, and events {@code rw} while replies are pending. What Cajon has no
     * notion of (file descriptors, buffer sizes Netty keeps, subscriptions) prints as Redis prints
     * an idle client's.
     */
    static String describe(ClientSession s, long now) {
        long qbuf = s.inputBytes();
        long omem = s.outputBytes();
        return "id=" + s.id() + " addr=" + s.addr() + " laddr=" + s.laddr() + " fd=-1 name=" + s.name()
                + " age=" + (now - s.createdMillis()) / 1000 + " idle=" + (now - s.lastInteractionMillis()) / 1000
                + " flags=" + flags(s) + " db=" + s.db()
                + " sub=0 psub=0 ssub=0 multi=" + s.transaction().multiCount() + " qbuf=" + qbuf + " qbuf-free=0 argv-mem=0"
                + " multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=" + omem + " tot-mem=" + (qbuf + omem)
                + " events=" + (omem > 0 ? "rw" : "r") + " cmd=" + s.lastCommand()
                + " user=" + s.app() + " redir=-1"
                + " resp=" + s.protocol().version()
                + " lib-name=" + s.libName() + " lib-ver=" + s.libVersion()
                + " app=" + s.app();
    }

    /**
     * The flags field, letters in Redis's order: x (in MULTI), b (blocked: postponed by CLIENT
     * PAUSE), d (a WATCHed key changed), e (NO-EVICT), T (NO-TOUCH); N when none is set.
     */
    static String flags(ClientSession s) {
        StringBuilder f = new StringBuilder(4);
        if (s.transaction().inMulti()) {
            f.append('x');
        }
        if (s.postponed()) {
            f.append('b');
        }
        if (s.transaction().dirtyCas()) {
            f.append('d');
        }
        if (s.noEvict()) {
            f.append('e');
        }
        if (s.noTouch()) {
            f.append('T');
        }
        return f.length() == 0 ? "N" : f.toString();
    }

    static void info(Ctx c) {
        c.verbatim(describe(c.session(), c.server().clock().nowMillis()) + "\n");
    }

    /** CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id [id ...]]. */
    static void list(Ctx c) {
        Set<Long> ids = null;
        int j = 2;
        if (c.argc() == 4 && ArgCursor.is(c.arg(2), "type")) {
            if (!isClientType(c.arg(3))) {
                throw new CommandError(RedisErrors.unknownClientType(c.arg(3)));
            }
            if (!ArgCursor.is(c.arg(3), "normal")) {
                ids = Set.of(); // Cajon has no replicas, masters or pub/sub clients
            }
            j = 4;
        } else if (c.argc() >= 4 && ArgCursor.is(c.arg(2), "id")) {
            ids = new HashSet<>();
            for (j = 3; j < c.argc(); j++) {
                long id = ArgCursor.parseLong(c.arg(j), RedisErrors.INVALID_CLIENT_ID);
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
        Set<Long> only = ids;
        c.server().clients().stream()
                .filter(s -> visible(c.session(), s))
                .filter(s -> only == null || only.contains(s.id()))
                .sorted((a, b) -> Long.compare(a.id(), b.id()))
                .forEach(s -> sb.append(describe(s, now)).append('\n'));
        c.verbatim(sb.toString());
    }

    /** Redis's getClientTypeByName: normal, master, replica, slave, pubsub (any case). */
    private static boolean isClientType(byte[] t) {
        return ArgCursor.is(t, "normal") || ArgCursor.is(t, "master") || ArgCursor.is(t, "replica")
                || ArgCursor.is(t, "slave") || ArgCursor.is(t, "pubsub");
    }

    // ------------------------------------------------------------------ KILL

    /**
     * CLIENT KILL addr:port (the old form: +OK or "No such client", and a client may kill itself)
     * or CLIENT KILL with filters ID, ADDR, LADDR, TYPE, USER, SKIPME yes|no, all of which must
     * match (the count of killed clients; SKIPME defaults to yes). Options are read in pairs and
     * checked as they are read, as in Redis. Another client is closed at once, on its own event
     * loop; this one only after its reply.
     */
    static void kill(Ctx c) {
        String addr = null;
        String laddr = null;
        String user = null;
        long id = 0;
        boolean normalOnly = false;
        boolean noneOfType = false;
        boolean skipme = true;
        if (c.argc() == 3) {
            addr = c.argv().str(2);
            skipme = false; // with the old form a client can kill itself
        } else {
            for (int i = 2; i < c.argc(); i += 2) {
                boolean more = i + 1 < c.argc();
                byte[] opt = c.arg(i);
                if (!more) {
                    throw new CommandError(RedisErrors.SYNTAX);
                }
                byte[] val = c.arg(i + 1);
                if (ArgCursor.is(opt, "id")) {
                    id = ArgCursor.parseLong(val, RedisErrors.CLIENT_ID_NOT_POSITIVE);
                    if (id < 1) {
                        throw new CommandError(RedisErrors.CLIENT_ID_NOT_POSITIVE);
                    }
                } else if (ArgCursor.is(opt, "type")) {
                    if (!isClientType(val)) {
                        throw new CommandError(RedisErrors.unknownClientType(val));
                    }
                    normalOnly = true;
                    noneOfType = !ArgCursor.is(val, "normal"); // no replicas, masters or pub/sub here
                } else if (ArgCursor.is(opt, "addr")) {
                    addr = c.argv().str(i + 1);
                } else if (ArgCursor.is(opt, "laddr")) {
                    laddr = c.argv().str(i + 1);
                } else if (ArgCursor.is(opt, "user")) {
                    // ACLGetUserByName is case-sensitive; every user is an app (default: the admin's)
                    user = c.argv().str(i + 1);
                    if (c.server().accounts().user(user) == null) {
                        throw new CommandError(RedisErrors.noSuchUser(val));
                    }
                } else if (ArgCursor.is(opt, "skipme")) {
                    if (ArgCursor.is(val, "yes")) {
                        skipme = true;
                    } else if (ArgCursor.is(val, "no")) {
                        skipme = false;
                    } else {
                        throw new CommandError(RedisErrors.SYNTAX);
                    }
                } else {
                    throw new CommandError(RedisErrors.SYNTAX);
                }
            }
        }
        ClientSession me = c.session();
        int killed = 0;
        boolean closeMe = false;
        if (!(normalOnly && noneOfType)) {
            for (ClientSession s : c.server().clients()) {
                if (!visible(me, s)
                        || user != null && !user.equals(s.app())
                        || addr != null && !addr.equals(s.addr())
                        || laddr != null && !laddr.equals(s.laddr())
                        || id != 0 && s.id() != id
                        || s == me && skipme) {
                    continue;
                }
                if (s == me) {
                    closeMe = true;
                    killed++;
                } else if (c.server().kill(s)) {
                    killed++;
                }
            }
        }
        if (c.argc() == 3) {
            if (killed == 0) {
                throw new CommandError(RedisErrors.NO_SUCH_CLIENT);
            }
            c.ok();
        } else {
            c.integer(killed);
        }
        if (closeMe) {
            me.closeAfterReply(); // after the reply was queued, as Redis's CLIENT_CLOSE_AFTER_REPLY
        }
    }

    /** An app sees (and kills) only its own connections; the admin sees every app's. */
    static boolean visible(ClientSession me, ClientSession other) {
        return me.app().equals(other.app()) || me.app().equals(dev.cajon.storage.Store.DEFAULT_APP);
    }

    // ------------------------------------------------------------------ PAUSE, UNPAUSE

    /**
     * CLIENT PAUSE timeout [WRITE|ALL]: the mode is checked before the timeout, as in Redis; the
     * timeout is milliseconds from now (0 pauses nothing; an end past LLONG_MAX wraps, as C's
     * does, and pauses nothing either).
     */
    static void pause(Ctx c) {
        if (c.argc() > 4) {
            throw new CommandError(RedisErrors.subcommandSyntax(c.arg(1), "client"));
        }
        ClientPause.Mode mode = ClientPause.Mode.ALL;
        if (c.argc() == 4) {
            if (ArgCursor.is(c.arg(3), "write")) {
                mode = ClientPause.Mode.WRITE;
            } else if (!ArgCursor.is(c.arg(3), "all")) {
                throw new CommandError(RedisErrors.PAUSE_MODE);
            }
        }
        long timeout = ArgCursor.parseLong(c.arg(2), RedisErrors.TIMEOUT_NOT_INTEGER);
        if (timeout < 0) {
            throw new CommandError(RedisErrors.TIMEOUT_NEGATIVE);
        }
        long end = timeout > 0 ? c.server().clock().nowMillis() + timeout : 0;
        c.server().clientPause().pause(mode, end);
        c.ok();
    }

    static void unpause(Ctx c) {
        c.server().clientPause().unpause();
        c.ok();
    }

    // ------------------------------------------------------------------ REPLY, NO-EVICT, NO-TOUCH

    /** CLIENT REPLY ON|OFF|SKIP. Only ON has a reply; the connection drops the others' replies. */
    static void reply(Ctx c) {
        byte[] v = c.arg(2);
        if (ArgCursor.is(v, "on")) {
            c.session().replyOn();
            c.ok();
        } else if (ArgCursor.is(v, "off")) {
            c.session().replyOff();
        } else if (ArgCursor.is(v, "skip")) {
            c.session().replySkip();
        } else {
            throw new CommandError(RedisErrors.SYNTAX);
        }
    }

    /** CLIENT NO-EVICT ON|OFF: Cajon never evicts a client, so this records the flag. */
    static void noEvict(Ctx c) {
        c.session().noEvict(onOff(c.arg(2)));
        c.ok();
    }

    /**
     * CLIENT NO-TOUCH ON|OFF (Redis 7.2): the client's commands leave the keys' access time
     * alone. Cajon keeps no LRU for keys, so recording the flag is all there is to do.
     */
    static void noTouch(Ctx c) {
        c.session().noTouch(onOff(c.arg(2)));
        c.ok();
    }

    private static boolean onOff(byte[] v) {
        if (ArgCursor.is(v, "on")) {
            return true;
        }
        if (ArgCursor.is(v, "off")) {
            return false;
        }
        throw new CommandError(RedisErrors.SYNTAX);
    }

    // ------------------------------------------------------------------ TRACKING

    /**
     * CLIENT TRACKING ON|OFF [REDIRECT id] [BCAST] [PREFIX p ...] [OPTIN] [OPTOUT] [NOLOOP]. The
     * options are parsed as Redis parses them, whichever of ON or OFF is asked for (a REDIRECT
     * must name a connected client); then OFF is +OK (tracking is never on) and ON is refused,
     * since Cajon has no client-side caching to offer.
     */
    static void tracking(Ctx c) {
        long redir = 0;
        for (int j = 3; j < c.argc(); j++) {
            boolean more = j + 1 < c.argc();
            byte[] o = c.arg(j);
            if (ArgCursor.is(o, "redirect") && more) {
                j++;
                if (redir != 0) {
                    throw new CommandError(RedisErrors.TRACKING_SINGLE_REDIRECT);
                }
                redir = ArgCursor.parseLong(c.arg(j));
                ClientSession target = c.server().client(redir);
                if (target == null || !target.app().equals(c.session().app())) {
                    throw new CommandError(RedisErrors.TRACKING_REDIRECT_MISSING);
                }
            } else if (ArgCursor.is(o, "prefix") && more) {
                j++;
            } else if (!(ArgCursor.is(o, "bcast") || ArgCursor.is(o, "optin") || ArgCursor.is(o, "optout")
                    || ArgCursor.is(o, "noloop"))) {
                throw new CommandError(RedisErrors.SYNTAX);
            }
        }
        if (ArgCursor.is(c.arg(2), "on")) {
            throw new CommandError(RedisErrors.TRACKING_UNSUPPORTED);
        }
        if (!ArgCursor.is(c.arg(2), "off")) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        c.ok();
    }

    /** CLIENT GETREDIR: -1, tracking is never on. */
    static void getredir(Ctx c) {
        c.integer(-1);
    }

    /** CLIENT TRACKINGINFO: flags [off], redirect -1, no prefixes (the RESP2 form of Redis's map). */
    static void trackinginfo(Ctx c) {
        c.mapHeader(3);
        c.bulk("flags");
        c.setHeader(1);
        c.bulk("off");
        c.bulk("redirect");
        c.integer(-1);
        c.bulk("prefixes");
        c.raw(Resp.EMPTY_ARRAY);
    }

    // ------------------------------------------------------------------ HELP

    /**
     * Redis 7.0.15's CLIENT HELP lines, in its order, for the subcommands Cajon has, with 7.2's
     * lines for SETINFO and NO-TOUCH where 7.2 puts them.
     */
    private static final List<String> HELP = List.of(
            "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "GETREDIR",
            "    Return the client ID we are redirecting to when tracking is enabled.",
            "GETNAME",
            "    Return the name of the current connection.",
            "ID",
            "    Return the ID of the current connection.",
            "INFO",
            "    Return information about the current client connection.",
            "KILL <ip:port>",
            "    Kill connection made from <ip:port>.",
            "KILL <option> <value> [<option> <value> [...]]",
            "    Kill connections. Options are:",
            "    * ADDR (<ip:port>|<unixsocket>:0)",
            "      Kill connections made from the specified address",
            "    * LADDR (<ip:port>|<unixsocket>:0)",
            "      Kill connections made to specified local address",
            "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
            "      Kill connections by type.",
            "    * USER <username>",
            "      Kill connections authenticated by <username>.",
            "    * SKIPME (YES|NO)",
            "      Skip killing current connection (default: yes).",
            "LIST [options ...]",
            "    Return information about client connections. Options:",
            "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
            "      Return clients of specified type.",
            "UNPAUSE",
            "    Stop the current client pause, resuming traffic.",
            "PAUSE <timeout> [WRITE|ALL]",
            "    Suspend all, or just write, clients for <timeout> milliseconds.",
            "REPLY (ON|OFF|SKIP)",
            "    Control the replies sent to the current connection.",
            "SETNAME <name>",
            "    Assign the name <name> to the current connection.",
            "SETINFO <option> <value>",
            "    Set client meta attr. Options are:",
            "    * LIB-NAME: the client lib name.",
            "    * LIB-VER: the client lib version.",
            "UNBLOCK <clientid> [TIMEOUT|ERROR]",
            "    Unblock the specified blocked client.",
            "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
            "         [OPTIN] [OPTOUT] [NOLOOP]",
            "    Control server assisted client side caching.",
            "TRACKINGINFO",
            "    Report tracking status for the current connection.",
            "NO-EVICT (ON|OFF)",
            "    Protect current client connection from eviction.",
            "NO-TOUCH (ON|OFF)",
            "    Will not touch LRU/LFU stats when this mode is on.",
            "HELP",
            "    Prints this help.");

    /**
     * CLIENT UNBLOCK id [TIMEOUT|ERROR]: a client blocked on keys (BLPOP ...) answers its
     * timeout's null, or the UNBLOCKED error, at once; 1 if it was blocked, else 0. The reason is
     * checked before the id, as Redis does.
     */
    static void unblock(Ctx c) {
        boolean error = false;
        if (c.argc() == 4) {
            if (ArgCursor.is(c.arg(3), "error")) {
                error = true;
            } else if (!ArgCursor.is(c.arg(3), "timeout")) {
                throw new CommandError(RedisErrors.UNBLOCK_REASON);
            }
        } else if (c.argc() != 3) {
            throw new CommandError(RedisErrors.subcommandSyntax(c.arg(1), "client"));
        }
        long id = ArgCursor.parseLong(c.arg(2));
        java.util.function.Consumer<Ctx> reply = error ? x -> x.error(RedisErrors.UNBLOCKED_BY_CLIENT) : null;
        c.bool(c.server().blocking().unblock(id, reply));
    }

    static void help(Ctx c) {
        c.helpLines(HELP);
    }

    /** Redis 7.0's metadata (7.2's for SETINFO and NO-TOUCH), one line per subcommand. */
    public static void register(CommandTable t) {
        String client = "client";
        t.register(container(client, -2, "", "connection", "2.4.0", "A container for client connection commands", null, List.of(
                sub(client, "setname", 3, "noscript loading stale", "2.6.9", "Set the current connection name", ClientFamily::setname),
                sub(client, "getname", 2, "noscript loading stale", "2.6.9", "Get the current connection name", ClientFamily::getname),
                sub(client, "id", 2, "noscript loading stale", "5.0.0", "Returns the client ID for the current connection", ClientFamily::id),
                sub(client, "setinfo", 4, "noscript loading stale", "7.2.0", "Sets information specific to the client or connection.", ClientFamily::setinfo),
                sub(client, "info", 2, "noscript loading stale", "6.2.0", "Returns information about the current client connection.", ClientFamily::info),
                sub(client, "list", -2, "admin noscript loading stale", "2.4.0", "Get the list of client connections", ClientFamily::list),
                sub(client, "kill", -3, "admin noscript loading stale", "2.4.0", "Kill the connection of a client", ClientFamily::kill),
                sub(client, "pause", -3, "admin noscript loading stale", "2.9.50", "Stop processing commands from clients for some time", ClientFamily::pause),
                sub(client, "unpause", 2, "admin noscript loading stale", "6.2.0", "Resume processing of clients that were paused", ClientFamily::unpause),
                sub(client, "reply", 3, "noscript loading stale", "3.2.0", "Instruct the server whether to reply to commands", ClientFamily::reply),
                sub(client, "no-evict", 3, "admin noscript loading stale", "7.0.0", "Set client eviction mode for the current connection", ClientFamily::noEvict),
                sub(client, "no-touch", 3, "noscript loading stale", "7.2.0", "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.", ClientFamily::noTouch),
                sub(client, "unblock", -3, "admin noscript loading stale", "5.0.0", "Unblock a client blocked in a blocking command from a different connection", ClientFamily::unblock),
                sub(client, "tracking", -3, "noscript loading stale", "6.0.0", "Enable or disable server assisted client side caching support", ClientFamily::tracking),
                sub(client, "getredir", 2, "noscript loading stale", "6.0.0", "Get tracking notifications redirection client ID if any", ClientFamily::getredir),
                sub(client, "trackinginfo", 2, "noscript loading stale", "6.2.0", "Return information about server assisted client side caching for the current connection", ClientFamily::trackinginfo),
                sub(client, "help", 2, "loading stale", "5.0.0", "Show helpful text about the different subcommands", ClientFamily::help))));
    }
}
