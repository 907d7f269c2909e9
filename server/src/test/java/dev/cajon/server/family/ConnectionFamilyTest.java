package dev.cajon.server.family;

import static dev.cajon.server.testkit.RespAssertions.assertArray;
import static dev.cajon.server.testkit.RespAssertions.assertError;
import static dev.cajon.server.testkit.RespAssertions.assertNil;
import static dev.cajon.server.testkit.RespAssertions.assertOk;
import static dev.cajon.server.testkit.RespAssertions.assertReply;
import static dev.cajon.server.testkit.RespAssertions.assertSimple;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.Version;
import dev.cajon.server.testkit.Client;
import dev.cajon.server.testkit.FamilyTestBase;
import dev.cajon.server.testkit.Reply;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * PING, ECHO, QUIT, SELECT, AUTH, HELLO and the CLIENT subcommands; also the dispatcher's generic
 * checks in Redis's order: unknown command, unknown subcommand, arity, then authentication.
 */
class ConnectionFamilyTest extends FamilyTestBase {

    @Test
    void ping() {
        assertSimple(run("ping"), "PONG");
        assertEquals("+PONG\r\n", client.lastRawString());
        assertReply(run("ping", "hello world"), "hello world");
        assertEquals("$11\r\nhello world\r\n", client.lastRawString());
        assertError(run("ping", "a", "b"), "ERR wrong number of arguments for 'ping' command");
    }

    @Test
    void echo() {
        byte[] bin = {0, '\r', '\n', (byte) 0xff};
        assertEquals(new Reply.Bulk(bin), run("echo", bin));
        assertError(run("echo"), "ERR wrong number of arguments for 'echo' command");
        assertError(run("echo", "a", "b"), "ERR wrong number of arguments for 'echo' command");
    }

    @Test
    void quitRepliesOkThenCloses() {
        assertFalse(client.session().shouldClose());
        assertOk(run("quit"));
        assertTrue(client.session().shouldClose());
    }

    // ------------------------------------------------------------------ AUTH

    @Test
    void authWithoutAConfiguredPassword() {
        assertError(run("auth", "secret"), "ERR AUTH <password> called without any password configured for the "
                + "default user. Are you sure your configuration is correct?");
        assertOk(run("auth", "default", "anything"));
        assertError(run("auth", "bob", "pw"), "WRONGPASS invalid username-password pair or user is disabled.");
        assertError(run("auth", "a", "b", "c"), "ERR syntax error");
        assertError(run("auth"), "ERR wrong number of arguments for 'auth' command");
    }

    // ------------------------------------------------------------------ HELLO

    private static Map<String, Reply> asMap(Reply r) {
        List<Reply> items = r.asArray();
        assertEquals(0, items.size() % 2, "a RESP2 map is a flat array of pairs");
        Map<String, Reply> m = new LinkedHashMap<>();
        for (int i = 0; i < items.size(); i += 2) {
            m.put(items.get(i).asString(), items.get(i + 1));
        }
        return m;
    }

    @Test
    void helloReplyShape() {
        for (Object[] cmd : List.of(new Object[] {"hello"}, new Object[] {"hello", "2"})) {
            Reply r = run(cmd);
            Map<String, Reply> m = asMap(r);
            assertEquals(List.of("server", "version", "proto", "id", "mode", "role", "modules"),
                    List.copyOf(m.keySet()));
            assertEquals(new Reply.Bulk("redis".getBytes()), m.get("server"));
            assertReply(m.get("version"), Version.REDIS_COMPAT);
            assertReply(m.get("proto"), 2);
            assertReply(m.get("id"), client.id());
            assertReply(m.get("mode"), "standalone");
            assertReply(m.get("role"), "master");
            assertEquals(List.of(), m.get("modules").asArray());
        }
        assertReply(run("client", "id"), client.id());
    }

    @Test
    void helloProtocolVersions() {
        assertError(run("hello", "1"), "NOPROTO unsupported protocol version");
        assertError(run("hello", "4"), "NOPROTO unsupported protocol version");
        assertError(run("hello", "three"), "ERR Protocol version is not an integer or out of range");
        assertError(run("hello", "2", "bogus"), "ERR Syntax error in HELLO option 'bogus'");
        assertError(run("hello", "2", "auth", "default"), "ERR Syntax error in HELLO option 'auth'");
        assertError(run("hello", "2", "setname"), "ERR Syntax error in HELLO option 'setname'");
    }

    @Test
    void helloWithSetnameAndAuth() {
        Reply r = run("hello", "2", "auth", "default", "pw", "setname", "bot-1");
        assertReply(asMap(r).get("proto"), 2);
        assertReply(run("client", "getname"), "bot-1");
        assertError(run("hello", "2", "auth", "bob", "pw"),
                "WRONGPASS invalid username-password pair or user is disabled.");
        assertError(run("hello", "2", "setname", "a b"),
                "ERR Client names cannot contain spaces, newlines or special characters.");
        assertReply(run("client", "getname"), "bot-1");
    }

    // ------------------------------------------------------------------ CLIENT

    @Test
    void clientSetnameAndGetname() {
        assertNil(run("client", "getname"));
        assertOk(run("client", "setname", "worker-7"));
        assertReply(run("client", "getname"), "worker-7");
        assertOk(run("CLIENT", "SETNAME", ""));
        assertNil(run("client", "getname"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"a b", "a\nb", "tab\there", "caf\u00e9", "\u0001"})
    void clientSetnameRejectsSpacesAndSpecialCharacters(String name) {
        assertError(run("client", "setname", name),
                "ERR Client names cannot contain spaces, newlines or special characters.");
        assertNil(run("client", "getname"));
    }

    @Test
    void clientIdIsUniquePerConnection() {
        Client other = server.client();
        long a = run("client", "id").asInt();
        long b = other.run("client", "id").asInt();
        assertNotEquals(a, b);
        assertEquals(a, client.id());
        assertEquals(b, other.id());
        assertTrue(a > 0 && b > 0);
    }

    @Test
    void clientSetinfo() {
        assertOk(run("client", "setinfo", "lib-name", "jedis"));
        assertOk(run("client", "setinfo", "LIB-VER", "5.2.0"));
        String info = run("client", "info").asString();
        assertTrue(info.contains(" lib-name=jedis "), info);
        assertTrue(info.contains(" lib-ver=5.2.0"), info);
        assertError(run("client", "setinfo", "lib-name", "a b"),
                "ERR lib-name cannot contain spaces, newlines or special characters.");
        assertError(run("client", "setinfo", "colour", "blue"), "ERR Unrecognized option 'colour'");
        assertError(run("client", "setinfo", "lib-name"),
                "ERR wrong number of arguments for 'client|setinfo' command");
    }

    @Test
    void clientInfoDescribesThisConnection() {
        run("client", "setname", "me");
        run("select", "3");
        String info = run("client", "info").asString();
        assertTrue(info.endsWith("\n"), info);
        assertEquals(1, info.split("\n").length, info);
        Map<String, String> f = fields(info.trim());
        assertEquals(String.valueOf(client.id()), f.get("id"));
        assertEquals("me", f.get("name"));
        assertEquals("3", f.get("db"));
        assertEquals("client|info", f.get("cmd"));
        assertEquals("default", f.get("user"));
        assertEquals("2", f.get("resp"));
    }

    @Test
    void clientListShowsEveryConnectionWithAgeAndIdle() {
        Client idle = server.client();
        idle.run("client", "setname", "idler");
        advance(5_000);
        run("ping");
        advance(2_000);
        String list = run("client", "list").asString();
        String[] lines = list.split("\n");
        assertEquals(2, lines.length, list);
        assertTrue(list.endsWith("\n"));
        Map<String, String> me = fields(lines[0]);
        Map<String, String> other = fields(lines[1]);
        assertEquals(String.valueOf(client.id()), me.get("id"));
        assertEquals(String.valueOf(idle.id()), other.get("id"));
        assertEquals("idler", other.get("name"));
        assertEquals("7", other.get("age"));
        assertEquals("7", other.get("idle"));
        assertEquals("client|setname", other.get("cmd"));
        assertEquals("7", me.get("age"));
        assertEquals("0", me.get("idle"));
        idle.close();
        assertEquals(1, run("client", "list").asString().split("\n").length);
    }

    @Test
    void clientListFilters() {
        Client other = server.client();
        String byId = run("client", "list", "id", other.id()).asString();
        assertEquals(1, byId.split("\n").length, byId);
        assertEquals(String.valueOf(other.id()), fields(byId.trim()).get("id"));
        String both = run("client", "list", "id", client.id(), other.id(), "999999").asString();
        assertEquals(2, both.split("\n").length, both);
        assertEquals(2, run("client", "list", "type", "normal").asString().split("\n").length);
        assertError(run("client", "list", "type", "bogus"), "ERR Unknown client type 'bogus'");
        assertError(run("client", "list", "id", "abc"), "ERR Invalid client ID");
        assertError(run("client", "list", "bogus"), "ERR syntax error");
    }

    private static Map<String, String> fields(String line) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String kv : line.split(" ")) {
            int eq = kv.indexOf('=');
            assertTrue(eq > 0, () -> "not key=value: '" + kv + "' in " + line);
            m.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return m;
    }

    @Test
    void clientHelp() {
        List<Reply> lines = run("client", "help").asArray();
        assertTrue(lines.size() > 5);
        assertTrue(lines.get(0).asString().startsWith("CLIENT <subcommand>"));
        lines.forEach(l -> assertTrue(l instanceof Reply.Simple, l.toString()));
    }

    // ------------------------------------------------------------------ generic checks, in Redis's order

    @Test
    void unknownCommand() {
        assertError(run("nosuch"), "ERR unknown command 'nosuch', with args beginning with: ");
        assertError(run("nosuch", "a", "b c"), "ERR unknown command 'nosuch', with args beginning with: 'a' 'b c' ");
        assertError(run("NoSuch", "x"), "ERR unknown command 'NoSuch', with args beginning with: 'x' ");
    }

    @Test
    void unknownCommandTruncatesLongArguments() {
        String longArg = "x".repeat(300);
        String msg = run("nosuch", longArg, "y").errorMessage();
        assertEquals("ERR unknown command 'nosuch', with args beginning with: '" + "x".repeat(128) + "' ", msg);
        String longName = "n".repeat(40);
        assertError(run(longName), "ERR unknown command '" + longName + "', with args beginning with: ");
    }

    @Test
    void errorRepliesNeverCarryTheClientsNewlines() {
        // Redis maps \r and \n in error texts to spaces (rejectCommandFormat, addReplyErrorFormat);
        // a raw CRLF inside an error line would end it early and desynchronise the client
        assertError(run("nosuch", "a\r\nb"), "ERR unknown command 'nosuch', with args beginning with: 'a  b' ");
        assertError(run("no\r\nsuch"), "ERR unknown command 'no  such', with args beginning with: ");
        assertError(run("client", "x\r\n+OK"), "ERR unknown subcommand 'x  +OK'. Try CLIENT HELP.");
        run("set", "k", "v");
        assertError(run("expire", "k", "10", "a\nb"), "ERR Unsupported option a b");
        assertError(run("hello", "2", "x\r\ny"), "ERR Syntax error in HELLO option 'x  y'");
    }

    @Test
    void unknownCommandEchoesTheRawBytes() {
        // Redis formats the name with %.128s: the bytes go back as they came, not re-encoded
        client.run(new byte[] {'x', (byte) 0xff}, new byte[] {(byte) 0xc3});
        byte[] expected = ("-ERR unknown command 'x\u00ff', with args beginning with: '\u00c3' \r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        assertArrayEquals(expected, client.lastRaw(), client.lastRawString());
    }

    @Test
    void unknownSubcommand() {
        assertError(run("client", "bogus"), "ERR unknown subcommand 'bogus'. Try CLIENT HELP.");
        assertError(run("client", "bogus", "x", "y"), "ERR unknown subcommand 'bogus'. Try CLIENT HELP.");
        assertError(run("command", "bogus"), "ERR unknown subcommand 'bogus'. Try COMMAND HELP.");
        assertError(run("Client", "Bogus"), "ERR unknown subcommand 'Bogus'. Try CLIENT HELP.");
    }

    @Test
    void arityErrorsComeBeforeAnythingElse() {
        assertError(run("get"), "ERR wrong number of arguments for 'get' command");
        assertError(run("GET"), "ERR wrong number of arguments for 'get' command");
        assertError(run("get", "a", "b"), "ERR wrong number of arguments for 'get' command");
        assertError(run("set", "k"), "ERR wrong number of arguments for 'set' command");
        assertError(run("client"), "ERR wrong number of arguments for 'client' command");
        assertError(run("client", "setname"), "ERR wrong number of arguments for 'client|setname' command");
        assertError(run("CLIENT", "SETNAME"), "ERR wrong number of arguments for 'client|setname' command");
        assertError(run("client", "getname", "x"), "ERR wrong number of arguments for 'client|getname' command");
        assertError(run("client", "id", "x"), "ERR wrong number of arguments for 'client|id' command");
        assertError(run("command", "count", "x"), "ERR wrong number of arguments for 'command|count' command");
        assertError(run("select"), "ERR wrong number of arguments for 'select' command");
        // arity is checked before the arguments are looked at
        assertError(run("select", "x", "y"), "ERR wrong number of arguments for 'select' command");
        assertError(run("expire", "k"), "ERR wrong number of arguments for 'expire' command");
        assertError(run("getrange", "k", "x"), "ERR wrong number of arguments for 'getrange' command");
    }

    @Test
    void authenticationIsCheckedAfterArity() {
        client.session().authenticated(false);
        assertError(run("nosuch"), "ERR unknown command 'nosuch', with args beginning with: ");
        assertError(run("get"), "ERR wrong number of arguments for 'get' command");
        assertError(run("get", "k"), "NOAUTH Authentication required.");
        assertError(run("client", "id"), "NOAUTH Authentication required.");
        // no_auth commands still run
        assertOk(run("auth", "default", "pw"));
        assertOk(run("quit"));
    }

    @Test
    void everyErrorIsCountedInInfoStats() {
        long before = Long.parseLong(infoField(run("info", "stats"), "total_error_replies"));
        run("nosuch");
        run("get");
        run("incr", "x");
        run("set", "x", "a");
        run("incr", "x");
        long after = Long.parseLong(infoField(run("info", "stats"), "total_error_replies"));
        assertEquals(before + 3, after);
    }

    @Test
    void repliesAreExactlyOnePerCommand() {
        // the testkit's parser fails on a second reply; run a few of every shape through it
        for (Object[] cmd : List.of(new Object[] {"ping"}, new Object[] {"client", "list"},
                new Object[] {"command"}, new Object[] {"command", "docs"}, new Object[] {"info"},
                new Object[] {"mget", "a", "b"}, new Object[] {"time"})) {
            Reply r = run(cmd);
            assertFalse(r.isError(), () -> Arrays.toString(cmd) + " -> " + r);
        }
    }
}
