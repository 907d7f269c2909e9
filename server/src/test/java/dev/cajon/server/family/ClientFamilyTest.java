package dev.cajon.server.family;

import static dev.cajon.server.testkit.RespAssertions.assertError;
import static dev.cajon.server.testkit.RespAssertions.assertOk;
import static dev.cajon.server.testkit.RespAssertions.assertReply;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.ServerContext;
import dev.cajon.server.command.CommandSpec;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.session.ClientPause;
import dev.cajon.server.testkit.Client;
import dev.cajon.server.testkit.FamilyTestBase;
import dev.cajon.server.testkit.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The CLIENT subcommands in-process: KILL (its filters, replies and errors), PAUSE and UNPAUSE
 * (the rules of {@link ClientPause}, on the manual clock), REPLY, NO-EVICT, NO-TOUCH, TRACKING,
 * GETREDIR, TRACKINGINFO, the CLIENT LIST line and HELP. What a pause or REPLY OFF does to a
 * real connection is in {@code ClientCommandsComparisonTest}, over sockets, against Redis.
 */
class ClientFamilyTest extends FamilyTestBase {

    private static Map<String, String> fields(String line) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String kv : line.trim().split(" ")) {
            int eq = kv.indexOf('=');
            assertTrue(eq > 0, () -> "not key=value: '" + kv + "' in " + line);
            m.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return m;
    }

    private Map<String, String> info(Client c) {
        return fields(c.run("client", "info").asString());
    }

    private List<Long> listedIds() {
        List<Long> ids = new ArrayList<>();
        for (String line : run("client", "list").asString().split("\n")) {
            ids.add(Long.parseLong(fields(line).get("id")));
        }
        return ids;
    }

    private CommandSpec spec(String name) {
        CommandTable t = server.context().table();
        int bar = name.indexOf('|');
        if (bar < 0) {
            return t.get(name);
        }
        return CommandTable.lookupSub(t.get(name.substring(0, bar)),
                name.substring(bar + 1).getBytes(StandardCharsets.US_ASCII));
    }

    // ------------------------------------------------------------------ the move

    @Test
    void clientIsRegisteredOnceWithEverySubcommand() {
        CommandSpec container = ServerContext.standardTable().get("client");
        assertNotNull(container);
        List<String> subs = container.subcommands().stream().map(CommandSpec::shortName).sorted().toList();
        assertEquals(List.of("getname", "getredir", "help", "id", "info", "kill", "list", "no-evict", "no-touch",
                "pause", "reply", "setinfo", "setname", "tracking", "trackinginfo", "unblock", "unpause"), subs);
        assertReply(run("client", "id"), client.id());
    }

    // ------------------------------------------------------------------ KILL

    @Test
    void killOldFormByAddress() {
        Client other = server.client();
        AtomicInteger closes = new AtomicInteger();
        other.session().onKill(closes::incrementAndGet);
        String addr = other.session().addr();
        assertOk(run("client", "kill", addr));
        assertTrue(other.session().killed());
        assertEquals(1, closes.get(), "the connection was asked to close once");
        assertEquals(List.of(client.id()), listedIds(), "a killed client leaves CLIENT LIST at once");
        assertError(run("client", "kill", addr), "ERR No such client");
        assertEquals(1, closes.get());
        assertError(run("client", "kill", "1.2.3.4:5"), "ERR No such client");
        assertError(run("client", "kill", "id"), "ERR No such client"); // argc 3 is always the old form
    }

    @Test
    void killOldFormCanKillItselfAfterItsReply() {
        assertOk(run("client", "kill", client.session().addr()));
        assertTrue(client.session().shouldClose(), "closed after the reply");
        assertFalse(client.session().killed(), "not killed from outside: the reply still goes out");
    }

    @Test
    void killNewFormFiltersAllMatch() {
        Client b = server.client();
        Client c = server.client();
        assertReply(run("client", "kill", "id", b.id(), "addr", "1.1.1.1:1"), 0);
        assertReply(run("client", "kill", "id", 999_999), 0);
        assertReply(run("client", "kill", "id", Long.MAX_VALUE), 0);
        assertFalse(b.session().killed());
        assertReply(run("client", "kill", "laddr", c.session().laddr(), "id", c.id(), "user", "default",
                "type", "normal", "skipme", "yes"), 1);
        assertTrue(c.session().killed());
        assertReply(run("client", "kill", "addr", b.session().addr(), "ID", b.id()), 1);
        assertTrue(b.session().killed());
        // SKIPME defaults to yes: this client survives every filter that matches it
        assertReply(run("client", "kill", "id", client.id()), 0);
        assertReply(run("client", "kill", "user", "default"), 0);
        assertFalse(client.session().shouldClose());
    }

    @Test
    void killEveryoneElseByLocalAddress() {
        Client b = server.client();
        Client c = server.client();
        assertReply(run("client", "kill", "laddr", client.session().laddr()), 2);
        assertTrue(b.session().killed() && c.session().killed());
        assertFalse(client.session().killed());
        assertEquals(List.of(client.id()), listedIds());
    }

    @Test
    void killSkipmeNoKillsThisClientAfterTheReply() {
        Client other = server.client();
        assertReply(run("client", "kill", "skipme", "no", "type", "NORMAL"), 2);
        assertTrue(other.session().killed());
        assertTrue(client.session().shouldClose());
        assertFalse(client.session().killed());
    }

    @Test
    void killTypesCajonHasNoneOf() {
        server.client();
        for (String t : List.of("master", "replica", "slave", "pubsub", "PubSub")) {
            assertReply(run("client", "kill", "type", t), 0, t);
        }
    }

    @Test
    void killOnlySeesClientsOfTheSameAppButTheAdminSeesAll() {
        Client app = server.client();
        app.session().app("some-app");
        Client elsewhere = server.client();
        elsewhere.session().app("other-app");
        assertError(app.run("client", "kill", elsewhere.session().addr()), "ERR No such client");
        assertReply(app.run("client", "kill", "id", elsewhere.id()), 0);
        assertReply(app.run("client", "kill", "laddr", elsewhere.session().laddr()), 0);
        assertFalse(elsewhere.session().killed());
        // the admin (default) reaches every app's connections, as Redis's admin does
        assertReply(run("client", "kill", "id", elsewhere.id()), 1);
        assertTrue(elsewhere.session().killed());
    }

    @Test
    void killErrors() {
        assertError(run("client", "kill"), "ERR wrong number of arguments for 'client|kill' command");
        for (String bad : List.of("abc", "0", "-5", "9223372036854775808", "1.5", "")) {
            assertError(run("client", "kill", "id", bad), "ERR client-id should be greater than 0");
        }
        assertError(run("client", "kill", "type", "bogus"), "ERR Unknown client type 'bogus'");
        assertError(run("client", "kill", "user", "nobody"), "ERR No such user 'nobody'");
        assertError(run("client", "kill", "user", "DEFAULT"), "ERR No such user 'DEFAULT'");
        assertError(run("client", "kill", "skipme", "maybe"), "ERR syntax error");
        assertError(run("client", "kill", "bogus", "x"), "ERR syntax error");
        assertError(run("client", "kill", "id", "1", "bogus"), "ERR syntax error");
        assertError(run("client", "kill", "id", "1", "skipme"), "ERR syntax error");
        assertError(run("client", "kill", "maxage", "1"), "ERR syntax error");
        // options are checked as they are read: the first bad one answers
        assertError(run("client", "kill", "type", "bogus", "id", "0"), "ERR Unknown client type 'bogus'");
        assertError(run("client", "kill", "id", "0", "type", "bogus"), "ERR client-id should be greater than 0");
    }

    @Test
    void aKilledClientLeavesTheRegistryAtOnce() {
        Client other = server.client();
        assertEquals(2, server.context().clients().size());
        assertReply(run("client", "kill", "id", other.id()), 1);
        assertTrue(other.session().killed());
        // the connection closes later, on its own event loop (ClientCommandsComparisonTest sees
        // the socket close); CLIENT LIST and INFO's connected_clients do not wait for that
        assertEquals(1, server.context().clients().size());
        assertEquals("1", infoField(run("info", "clients"), "connected_clients"));
        assertReply(run("client", "kill", "id", other.id()), 0);
    }

    // ------------------------------------------------------------------ PAUSE, UNPAUSE

    private ClientPause pause() {
        return server.context().clientPause();
    }

    @Test
    void pauseAllPostponesEveryCommandUntilItsEnd() {
        assertOk(run("client", "pause", "1000"));
        assertEquals(ClientPause.Mode.ALL, pause().mode());
        assertEquals(now() + 1000, pause().endMillis());
        for (String name : List.of("get", "set", "ping", "client|unpause", "client|pause", "quit", "info")) {
            assertTrue(pause().wouldPostpone(spec(name)), name);
        }
        advance(1000);
        assertTrue(pause().wouldPostpone(spec("get")), "the end millisecond is still paused");
        advance(1);
        assertEquals(ClientPause.Mode.OFF, pause().mode());
        assertFalse(pause().wouldPostpone(spec("set")));
    }

    @Test
    void pauseWritePostponesWriteAndMayReplicateCommandsOnly() {
        assertOk(run("client", "pause", "500", "WRITE"));
        assertEquals(ClientPause.Mode.WRITE, pause().mode());
        for (String name : List.of("set", "incr", "del", "expire", "flushall", "mset", "append")) {
            assertTrue(pause().wouldPostpone(spec(name)), name);
        }
        for (String name : List.of("get", "ping", "ttl", "info", "client|unpause", "client|list", "mget")) {
            assertFalse(pause().wouldPostpone(spec(name)), name);
        }
    }

    @Test
    void aSecondPauseKeepsTheStricterModeAndTheLaterEnd() {
        long t0 = now();
        assertOk(run("client", "pause", "1500", "write"));
        assertOk(run("client", "pause", "300", "all"));
        assertEquals(ClientPause.Mode.ALL, pause().mode());
        assertEquals(t0 + 1500, pause().endMillis());
        assertOk(run("client", "pause", "100", "write"));
        assertEquals(ClientPause.Mode.ALL, pause().mode(), "WRITE after ALL stays ALL");
        advance(1501);
        assertEquals(ClientPause.Mode.OFF, pause().mode());
        // once over, a new pause starts afresh
        assertOk(run("client", "pause", "100", "write"));
        assertEquals(ClientPause.Mode.WRITE, pause().mode());
        assertEquals(now() + 100, pause().endMillis());
    }

    @Test
    void pausesThatEndBeforeTheyStart() {
        assertOk(run("client", "pause", "0"));
        assertEquals(ClientPause.Mode.OFF, pause().mode());
        // now + LLONG_MAX wraps negative, as in C: Redis 7.0.15 says OK and pauses nothing
        assertOk(run("client", "pause", Long.toString(Long.MAX_VALUE), "write"));
        assertEquals(ClientPause.Mode.OFF, pause().mode());
        assertFalse(pause().mayBeActive());
    }

    @Test
    void unpauseEndsThePauseAndResumesEveryWaiter() {
        assertOk(run("client", "pause", "10000", "write"));
        AtomicInteger resumed = new AtomicInteger();
        ClientPause.Waiter w1 = resumed::incrementAndGet;
        ClientPause.Waiter w2 = resumed::incrementAndGet;
        assertFalse(pause().postpone(spec("get"), w1), "reads go on");
        assertTrue(pause().postpone(spec("set"), w1));
        assertTrue(pause().postpone(spec("incr"), w2));
        assertEquals(2, pause().waiting());
        assertEquals(2, server.context().blockedClients());
        assertOk(run("client", "unpause"));
        assertEquals(2, resumed.get());
        assertEquals(0, pause().waiting());
        assertFalse(pause().postpone(spec("set"), w1));
        assertOk(run("client", "unpause")); // nothing paused: still OK
    }

    @Test
    void waitersOfAPauseThatRanOutAreResumedByTheNextCheck() {
        assertOk(run("client", "pause", "50", "all"));
        AtomicInteger resumed = new AtomicInteger();
        assertTrue(pause().postpone(spec("ping"), resumed::incrementAndGet));
        advance(51);
        assertFalse(pause().postpone(spec("ping"), () -> { }));
        assertEquals(1, resumed.get());
        assertEquals(0, pause().waiting());
    }

    @Test
    void aWaiterWhoseConnectionClosedLeaves() {
        assertOk(run("client", "pause", "1000", "all"));
        ClientPause.Waiter w = () -> { throw new AssertionError("a closed connection is not resumed"); };
        assertTrue(pause().postpone(spec("ping"), w));
        pause().leave(w);
        assertEquals(0, pause().waiting());
        pause().unpause();
    }

    @Test
    void pauseErrors() {
        assertError(run("client", "pause", "abc"), "ERR timeout is not an integer or out of range");
        assertError(run("client", "pause", "1.5"), "ERR timeout is not an integer or out of range");
        assertError(run("client", "pause", ""), "ERR timeout is not an integer or out of range");
        assertError(run("client", "pause", " 100"), "ERR timeout is not an integer or out of range");
        assertError(run("client", "pause", "9223372036854775808"), "ERR timeout is not an integer or out of range");
        assertError(run("client", "pause", "-1"), "ERR timeout is negative");
        assertError(run("client", "pause", "100", "bogus"), "ERR CLIENT PAUSE mode must be WRITE or ALL");
        // the mode is checked before the timeout
        assertError(run("client", "pause", "abc", "bogus"), "ERR CLIENT PAUSE mode must be WRITE or ALL");
        assertError(run("client", "pause", "100", "write", "x"),
                "ERR unknown subcommand or wrong number of arguments for 'pause'. Try CLIENT HELP.");
        assertError(run("CLIENT", "PAUSE", "100", "write", "x"),
                "ERR unknown subcommand or wrong number of arguments for 'PAUSE'. Try CLIENT HELP.");
        assertError(run("client", "pause"), "ERR wrong number of arguments for 'client|pause' command");
        assertError(run("client", "unpause", "x"), "ERR wrong number of arguments for 'client|unpause' command");
        assertEquals(ClientPause.Mode.OFF, pause().mode(), "no failed PAUSE paused anything");
    }

    @Test
    void aPostponedClientShowsFlagB() {
        Client other = server.client();
        other.session().postponed(true);
        assertEquals("b", info(other).get("flags"));
        other.session().postponed(false);
        assertEquals("N", info(other).get("flags"));
    }

    // ------------------------------------------------------------------ REPLY

    @Test
    void replyOffUntilOnWhoseOkIsSent() {
        assertEquals(0, client.runRaw("client", "reply", "off").length, "OFF itself has no reply");
        assertTrue(client.session().repliesSuppressed());
        client.session().replyCommandDone();
        assertTrue(client.session().repliesSuppressed(), "still off after the next command");
        client.runRaw("client", "reply", "skip");
        client.session().replyCommandDone();
        assertTrue(client.session().repliesSuppressed());
        assertOk(run("client", "reply", "on"));
        assertFalse(client.session().repliesSuppressed(), "ON's own +OK goes out");
        client.session().replyCommandDone();
        assertFalse(client.session().repliesSuppressed());
    }

    @Test
    void replySkipDropsTheNextReplyOnly() {
        assertEquals(0, client.runRaw("client", "reply", "skip").length);
        assertFalse(client.session().repliesSuppressed(), "the SKIP command itself");
        client.session().replyCommandDone();
        assertTrue(client.session().repliesSuppressed(), "the command after SKIP");
        client.session().replyCommandDone();
        assertFalse(client.session().repliesSuppressed(), "and only that one");
    }

    @Test
    void replyErrors() {
        assertError(run("client", "reply", "bogus"), "ERR syntax error");
        assertError(run("client", "reply"), "ERR wrong number of arguments for 'client|reply' command");
        assertError(run("client", "reply", "on", "x"), "ERR wrong number of arguments for 'client|reply' command");
        assertFalse(client.session().repliesSuppressed());
    }

    // ------------------------------------------------------------------ NO-EVICT, NO-TOUCH

    @Test
    void noEvictAndNoTouchAreRecordedAndShownInFlags() {
        assertEquals("N", info(client).get("flags"));
        assertOk(run("client", "no-evict", "on"));
        assertEquals("e", info(client).get("flags"));
        assertOk(run("client", "NO-TOUCH", "ON"));
        assertTrue(client.session().noTouch());
        assertEquals("eT", info(client).get("flags"));
        assertOk(run("client", "no-evict", "OFF"));
        assertEquals("T", info(client).get("flags"));
        assertOk(run("client", "no-touch", "off"));
        assertFalse(client.session().noTouch());
        assertEquals("N", info(client).get("flags"));
        for (String sub : List.of("no-evict", "no-touch")) {
            assertError(run("client", sub, "maybe"), "ERR syntax error");
            assertError(run("client", sub), "ERR wrong number of arguments for 'client|" + sub + "' command");
        }
    }

    // ------------------------------------------------------------------ TRACKING

    @Test
    void trackingOffIsOkAndOnIsRefused() {
        assertOk(run("client", "tracking", "off"));
        assertOk(run("client", "tracking", "OFF", "bcast", "prefix", "a", "optin", "noloop", "optout"));
        assertError(run("client", "tracking", "on"),
                "ERR client-side caching is not supported: CLIENT TRACKING ON is not available");
        assertError(run("client", "tracking", "on", "bcast"),
                "ERR client-side caching is not supported: CLIENT TRACKING ON is not available");
        assertReply(run("client", "getredir"), -1);
    }

    @Test
    void trackingOptionsAreParsedAsRedisParsesThem() {
        Client other = server.client();
        assertOk(run("client", "tracking", "off", "redirect", other.id()));
        assertError(run("client", "tracking", "off", "bogus"), "ERR syntax error");
        assertError(run("client", "tracking", "maybe"), "ERR syntax error");
        assertError(run("client", "tracking", "off", "redirect"), "ERR syntax error");
        assertError(run("client", "tracking", "off", "prefix"), "ERR syntax error");
        assertError(run("client", "tracking", "off", "redirect", "abc"), "ERR value is not an integer or out of range");
        assertError(run("client", "tracking", "off", "redirect", "999"),
                "ERR The client ID you want redirect to does not exist");
        assertError(run("client", "tracking", "off", "redirect", other.id(), "redirect", other.id()),
                "ERR A client can only redirect to a single other client");
        // the options are read before ON or OFF is looked at
        assertError(run("client", "tracking", "maybe", "bogus"), "ERR syntax error");
        assertError(run("client", "tracking", "on", "redirect", "999"),
                "ERR The client ID you want redirect to does not exist");
        assertError(run("client", "tracking"), "ERR wrong number of arguments for 'client|tracking' command");
    }

    @Test
    void getredirAndTrackinginfo() {
        assertReply(run("client", "getredir"), -1);
        assertEquals("*6\r\n$5\r\nflags\r\n*1\r\n$3\r\noff\r\n$8\r\nredirect\r\n:-1\r\n$8\r\nprefixes\r\n*0\r\n",
                new String(client.runRaw("client", "trackinginfo"), StandardCharsets.ISO_8859_1));
        assertError(run("client", "getredir", "x"), "ERR wrong number of arguments for 'client|getredir' command");
    }

    // ------------------------------------------------------------------ LIST, INFO

    @Test
    void theListLineHasRedisFieldsInRedisOrder() {
        List<String> keys = List.copyOf(info(client).keySet());
        assertEquals(List.of("id", "addr", "laddr", "fd", "name", "age", "idle", "flags", "db", "sub", "psub",
                "ssub", "multi", "qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbs", "rbp", "obl", "oll", "omem",
                "tot-mem", "events", "cmd", "user", "redir", "resp", "lib-name", "lib-ver", "app"), keys);
        Map<String, String> f = info(client);
        assertEquals("-1", f.get("multi"));
        assertEquals("-1", f.get("redir"));
        assertEquals("client|info", f.get("cmd"));
    }

    @Test
    void listWithTypes() {
        server.client();
        assertEquals(2, run("client", "list", "type", "NORMAL").asString().split("\n").length);
        for (String t : List.of("master", "replica", "slave", "pubsub")) {
            assertReply(run("client", "list", "type", t), "");
        }
        assertError(run("client", "list", "type", "bogus"), "ERR Unknown client type 'bogus'");
        assertError(run("client", "list", "id", "0"), "ERR Invalid client ID");
        assertError(run("client", "list", "type"), "ERR syntax error");
    }

    // ------------------------------------------------------------------ HELP

    /** HELP names every subcommand there is, and none that is not. */
    @Test
    void helpListsExactlyWhatExists() {
        List<Reply> lines = run("client", "help").asArray();
        assertTrue(lines.get(0).asString().startsWith("CLIENT <subcommand>"));
        List<String> named = new ArrayList<>();
        for (Reply l : lines.subList(1, lines.size())) {
            assertTrue(l instanceof Reply.Simple, l.toString());
            String s = l.asString();
            if (!s.startsWith(" ")) {
                String word = s.split(" ")[0].toLowerCase(Locale.ROOT);
                if (!named.contains(word)) {
                    named.add(word);
                }
            }
        }
        List<String> registered = server.context().table().get("client").subcommands().stream()
                .map(CommandSpec::shortName).sorted().toList();
        assertEquals(registered, named.stream().sorted().toList());
        assertEquals(lines.size(), run("client", "HELP").asArray().size());
    }
}
