package dev.cajon.server.family;

import static dev.cajon.server.testkit.RespAssertions.assertArray;
import static dev.cajon.server.testkit.RespAssertions.assertError;
import static dev.cajon.server.testkit.RespAssertions.assertNil;
import static dev.cajon.server.testkit.RespAssertions.assertOk;
import static dev.cajon.server.testkit.RespAssertions.assertReply;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.testkit.Client;
import dev.cajon.server.testkit.FamilyTestBase;
import dev.cajon.server.testkit.InProcessServer;
import dev.cajon.server.testkit.Reply;
import dev.cajon.storage.namespace.AppRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Apps as ACL users, in-process: ACL SETUSER, AUTH and HELLO AUTH into an app's own drawer of keys,
 * the isolation of every keyspace-wide command, NOPERM on what reaches beyond the drawer, ACL
 * DELUSER, the replies of LIST, USERS, GETUSER and WHOAMI, and the apps surviving a restart.
 */
class AclFamilyTest extends FamilyTestBase {
    private static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";

    /** Creates app {@code name} with password {@code pw} (as the admin) and returns a client logged in to it. */
    private Client app(String name, String pw) {
        assertOk(run("acl", "setuser", name, "on", ">" + pw, "~*", "+@all"));
        Client c = server.client();
        assertOk(c.run("auth", name, pw));
        return c;
    }

    private static Set<String> strings(Reply r) {
        Set<String> s = new TreeSet<>();
        r.asArray().forEach(x -> s.add(x.asString()));
        return s;
    }

    // ------------------------------------------------------------------ the default user

    @Test
    void withoutRequirepassEveryConnectionIsTheAdminWithoutAPassword() {
        assertReply(run("acl", "whoami"), "default");
        assertArray(run("acl", "users"), "default");
        assertArray(run("acl", "list"), "user default on nopass ~* &* +@all");
        assertError(run("auth", "secret"), RedisErrors.AUTH_NO_PASSWORD);
        assertOk(run("auth", "default", "anything"));
        assertError(run("auth", "nobody", "pw"), WRONGPASS);
    }

    @Test
    void aPasswordOnDefaultMakesNewConnectionsAuthenticate() {
        assertOk(run("acl", "setuser", "default", "resetpass", ">adminpw"));
        Client fresh = server.client();
        assertError(fresh.run("get", "k"), "NOAUTH Authentication required.");
        assertError(fresh.run("acl", "whoami"), "NOAUTH Authentication required.");
        assertError(fresh.run("hello", "3"), RedisErrors.HELLO_NOAUTH);
        assertError(fresh.run("hello"), RedisErrors.HELLO_NOAUTH);
        assertError(fresh.run("hello", "3", "auth", "default", "wrong"), WRONGPASS);
        assertError(fresh.run("auth", "wrong"), WRONGPASS);
        assertError(fresh.run("get", "k"), "NOAUTH Authentication required.");
        // HELLO AUTH authenticates and switches protocol in one go
        Reply hello = fresh.run("hello", "3", "auth", "default", "adminpw");
        assertTrue(hello instanceof Reply.Map, "RESP3 map: " + hello);
        assertReply(fresh.run("acl", "whoami"), "default");
        Client other = server.client();
        assertOk(other.run("auth", "adminpw"));
        assertNil(other.run("get", "k"));
        // the connection that was open before keeps its authentication, as in Redis
        assertReply(run("acl", "whoami"), "default");
    }

    @Test
    void configSetRequirepassLocksNewConnectionsAndAnEmptyOneUnlocksThem() {
        assertOk(run("config", "set", "requirepass", "adminpw"));
        assertEquals(List.of("requirepass", "adminpw"), run("config", "get", "requirepass").asArray().stream()
                .map(Reply::asString).toList());
        Client fresh = server.client();
        assertError(fresh.run("get", "k"), "NOAUTH Authentication required.");
        assertError(fresh.run("auth", "wrong"), WRONGPASS);
        assertOk(fresh.run("auth", "adminpw"));
        assertNil(fresh.run("get", "k"));
        assertArray(run("acl", "users"), "default");
        // back to no password: a new connection is the admin at once, AUTH with a password is an error
        assertOk(run("config", "set", "requirepass", ""));
        Client open = server.client();
        assertNil(open.run("get", "k"));
        assertError(open.run("auth", "adminpw"), RedisErrors.AUTH_NO_PASSWORD);
    }

    @Test
    void resetGoesBackToTheDefaultUserAndNeverLogsAnyoneIn() {
        Client shop = app("shop", "pw");
        assertOk(shop.run("set", "k", "shop's"));
        assertReply(shop.run("reset"), "RESET");
        assertReply(shop.run("acl", "whoami"), "default");
        assertNil(shop.run("get", "k")); // back in the admin's drawer
        assertArray(shop.run("acl", "users"), "default", "shop"); // an admin again: ACL USERS is allowed

        assertOk(run("acl", "setuser", "default", "resetpass", ">adminpw"));
        Client anon = server.client();
        assertReply(anon.run("reset"), "RESET"); // RESET is no_auth...
        assertError(anon.run("get", "k"), "NOAUTH Authentication required."); // ...and logs nobody in
        assertOk(shop.run("auth", "shop", "pw"));
        assertReply(shop.run("reset"), "RESET");
        assertError(shop.run("get", "k"), "NOAUTH Authentication required.");
        assertOk(shop.run("auth", "adminpw"));
        assertReply(shop.run("acl", "whoami"), "default");
    }

    // ------------------------------------------------------------------ apps: auth and isolation

    @Test
    void anAppAuthenticatesIntoItsOwnDrawer() {
        Client shop = app("shop", "s3cret");
        assertReply(shop.run("acl", "whoami"), "shop");
        assertOk(shop.run("set", "k", "shop's"));
        assertOk(run("set", "k", "admin's"));
        assertReply(shop.run("get", "k"), "shop's");
        assertReply(run("get", "k"), "admin's");
        assertTrue(Files.isDirectory(dir.resolve("shop").resolve("db0")), "the app's data lives in <dir>/shop/");

        Client bad = server.client();
        assertError(bad.run("auth", "shop", "wrong"), WRONGPASS);
        assertError(bad.run("auth", "Shop", "s3cret"), WRONGPASS); // user names are case-sensitive
        assertReply(bad.run("acl", "whoami"), "default"); // a failed AUTH leaves the connection as it was
        assertReply(bad.run("get", "k"), "admin's");
        assertError(bad.run("hello", "2", "auth", "shop", "wrong"), WRONGPASS);
        assertTrue(bad.run("hello", "2", "auth", "shop", "s3cret") instanceof Reply.Array);
        assertReply(bad.run("get", "k"), "shop's");
        // AUTH again as the admin: back in the default drawer, same db
        assertOk(bad.run("select", "0"));
        assertOk(bad.run("auth", "default", "x"));
        assertReply(bad.run("get", "k"), "admin's");
    }

    @Test
    void everyKeyspaceWideCommandSeesOnlyTheAppsKeys() {
        Client a = app("a", "pa");
        Client b = app("b", "pb");
        for (int i = 0; i < 5; i++) {
            assertOk(a.run("set", "a" + i, "v"));
        }
        assertOk(b.run("set", "b0", "v"));
        assertOk(b.run("set", "same", "b's"));
        assertOk(a.run("set", "same", "a's"));
        assertOk(b.run("select", "2"));
        assertOk(b.run("set", "in-db2", "v"));
        assertOk(b.run("select", "0"));

        assertEquals(Set.of("a0", "a1", "a2", "a3", "a4", "same"), strings(a.run("keys", "*")));
        assertEquals(Set.of("b0", "same"), strings(b.run("keys", "*")));
        assertReply(a.run("dbsize"), 6);
        assertReply(b.run("dbsize"), 2);
        assertReply(run("dbsize"), 0);
        Reply scan = a.run("scan", "0", "count", "1000");
        assertEquals(Set.of("a0", "a1", "a2", "a3", "a4", "same"), strings(scan.asArray().get(1)));
        for (int i = 0; i < 20; i++) {
            String k = b.run("randomkey").asString();
            assertTrue(k.equals("b0") || k.equals("same"), k);
        }
        assertReply(a.run("exists", "a0", "b0", "same"), 2);
        assertReply(b.run("exists", "a0", "b0", "same"), 2);
        assertReply(a.run("get", "same"), "a's");
        assertReply(b.run("get", "same"), "b's");
        // COPY ... DB stays in the app: it lands in a's db 1, not the admin's
        assertReply(a.run("copy", "a0", "copied", "db", "1"), 1);
        assertOk(a.run("select", "1"));
        assertReply(a.run("get", "copied"), "v");
        assertOk(a.run("select", "0"));
        assertOk(run("select", "1"));
        assertNil(run("get", "copied"));
        assertOk(run("select", "0"));
        String infoA = a.run("info", "keyspace").asString();
        assertTrue(infoA.contains("db0:keys=6,") && infoA.contains("db1:keys=1,") && !infoA.contains("db2:"), infoA);
        String infoB = b.run("info", "keyspace").asString();
        assertTrue(infoB.contains("db0:keys=2,") && infoB.contains("db2:keys=1,") && !infoB.contains("db1:"), infoB);

        assertOk(b.run("flushdb"));
        assertReply(b.run("dbsize"), 0);
        assertReply(a.run("dbsize"), 6, "FLUSHDB of b leaves a alone");
        assertOk(a.run("flushall"));
        assertReply(a.run("dbsize"), 0);
        assertOk(b.run("select", "2"));
        assertReply(b.run("dbsize"), 1, "FLUSHALL of a leaves b's other dbs alone");
    }

    @Test
    void clientListAndKillOnlyReachTheAppsOwnConnections() {
        Client a = app("a", "pa");
        Client a2 = server.client();
        assertOk(a2.run("auth", "a", "pa"));
        Client b = app("b", "pb");
        String list = a.run("client", "list").asString();
        assertEquals(2, list.lines().count(), list);
        assertTrue(list.contains("id=" + a.id() + " ") && list.contains("id=" + a2.id() + " "), list);
        assertFalse(list.contains("id=" + b.id() + " "), list);
        // another app's connections are not found, by id or by address
        assertReply(a.run("client", "kill", "id", Long.toString(b.id())), 0);
        assertError(a.run("client", "kill", b.session().addr()), RedisErrors.NO_SUCH_CLIENT);
        assertFalse(b.session().killed());
        assertReply(a.run("client", "kill", "id", Long.toString(a2.id())), 1);
        assertTrue(a2.session().killed());
    }

    @Test
    void adminCommandsAnswerNopermToAnApp() {
        Client shop = app("shop", "pw");
        String[][] denied = {
                {"config", "set", "maxmemory", "1"}, {"config", "get", "maxmemory"}, {"config", "resetstat"},
                {"config", "rewrite"}, {"shutdown"}, {"client", "pause", "10"}, {"client", "unpause"},
                {"acl", "setuser", "shop", "on"}, {"acl", "setuser", "other", "on"}, {"acl", "getuser", "shop"},
                {"acl", "list"}, {"acl", "users"}, {"acl", "deluser", "shop"}, {"acl", "save"},
                {"acl", "dryrun", "shop", "get", "k"}};
        for (String[] cmd : denied) {
            String full = cmd[0] + (cmd.length > 1 && (cmd[0].equals("config") || cmd[0].equals("client")
                    || cmd[0].equals("acl")) ? "|" + cmd[1] : "");
            assertError(shop.run((Object[]) cmd), "NOPERM this user has no permissions to run the '" + full + "' command");
        }
        assertReply(shop.run("acl", "whoami"), "shop");
        assertEquals(21, shop.run("acl", "cat").asArray().size());
        assertEquals(64, shop.run("acl", "genpass").asString().length());
        assertTrue(shop.run("acl", "help").asArray().size() > 10);
        assertTrue(shop.run("client", "list").asString().contains("id=" + shop.id() + " "));
        assertOk(shop.run("client", "no-evict", "on"));
        // nothing changed on the server
        assertEquals(2, run("acl", "users").asArray().size());
        // inside MULTI a refused command aborts the transaction, as any refused command does
        assertOk(shop.run("multi"));
        assertReply(shop.run("set", "k", "v"), "QUEUED");
        assertError(shop.run("config", "set", "maxmemory", "1"),
                "NOPERM this user has no permissions to run the 'config|set' command");
        assertError(shop.run("shutdown"), RedisErrors.NOT_IN_MULTI); // Redis checks no_multi first
        assertError(shop.run("exec"), RedisErrors.EXECABORT);
        assertNil(shop.run("get", "k"));
        // the admin runs them all
        assertReply(run("acl", "dryrun", "shop", "config", "set", "a", "b"),
                "This user has no permissions to run the 'config|set' command");
        assertOk(run("acl", "dryrun", "shop", "client", "list"));
        assertOk(run("acl", "dryrun", "default", "config", "set", "a", "b"));
        assertError(run("acl", "dryrun", "nosuch", "get", "k"), "ERR User 'nosuch' not found");
        assertError(run("acl", "dryrun", "shop", "nosuchcmd"), "ERR Command 'nosuchcmd' not found");
        assertError(run("acl", "dryrun", "shop", "get"), "ERR wrong number of arguments for 'get' command");
    }

    // ------------------------------------------------------------------ LIST, GETUSER: shapes, and no secrets

    @Test
    void getuserHasRedisShapeInBothProtocols() {
        assertOk(run("acl", "setuser", "shop", "on", ">pw1", ">pw2"));
        String commands = "+@all -@admin +client|kill +client|list +client|no-evict";
        run("acl", "getuser", "shop");
        assertEquals("*12\r\n$5\r\nflags\r\n*1\r\n$2\r\non\r\n$9\r\npasswords\r\n*2\r\n"
                + "$10\r\n<redacted>\r\n$10\r\n<redacted>\r\n$8\r\ncommands\r\n$" + commands.length() + "\r\n"
                + commands + "\r\n$4\r\nkeys\r\n$2\r\n~*\r\n$8\r\nchannels\r\n$2\r\n&*\r\n"
                + "$9\r\nselectors\r\n*0\r\n", client.lastRawString());
        run("acl", "getuser", "nosuch");
        assertEquals("$-1\r\n", client.lastRawString());
        run("hello", "3");
        run("acl", "getuser", "default");
        assertEquals("%6\r\n$5\r\nflags\r\n~2\r\n$2\r\non\r\n$6\r\nnopass\r\n$9\r\npasswords\r\n*0\r\n"
                + "$8\r\ncommands\r\n$5\r\n+@all\r\n$4\r\nkeys\r\n$2\r\n~*\r\n$8\r\nchannels\r\n$2\r\n&*\r\n"
                + "$9\r\nselectors\r\n*0\r\n", client.lastRawString());
        run("acl", "getuser", "nosuch");
        assertEquals("_\r\n", client.lastRawString());
        assertOk(run("acl", "setuser", "off1"));
        assertArray(run("acl", "list"), "user default on nopass ~* &* +@all",
                "user off1 off ~* &* " + commands,
                "user shop on #<redacted> #<redacted> ~* &* " + commands);
        assertArray(run("acl", "users"), "default", "off1", "shop");
    }

    @Test
    void noReplyAndNoFileEverHoldsAPasswordOrItsFastHash() throws Exception {
        String pw = "correct-horse-battery";
        String sha = HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(pw.getBytes(StandardCharsets.UTF_8)));
        assertOk(run("acl", "setuser", "shop", "on", ">" + pw));
        assertOk(run("acl", "setuser", "hashed", "on", "#" + sha));
        Client viaHash = server.client();
        assertOk(viaHash.run("auth", "hashed", pw)); // a #<sha256> rule sets the password whose hash it is
        StringBuilder everything = new StringBuilder();
        for (Object[] cmd : new Object[][] {{"acl", "list"}, {"acl", "getuser", "shop"}, {"acl", "getuser", "hashed"},
                {"acl", "users"}, {"client", "list"}, {"info"}}) {
            run(cmd);
            everything.append(client.lastRawString());
        }
        // refused password rules are quoted redacted (Redis quotes them whole)
        for (Object[] cmd : new Object[][] {{"acl", "setuser", "shop", "<" + pw + "-typo"},
                {"acl", "setuser", "hashed", "!" + sha.substring(1) + "0"}, {"acl", "setuser", "shop", "#" + sha + "0"}}) {
            assertTrue(run(cmd).isError("ERR"), java.util.Arrays.toString(cmd));
            everything.append(client.lastRawString());
        }
        String replies = everything.toString();
        assertFalse(replies.contains(pw), replies);
        assertFalse(replies.contains(sha), replies);
        byte[] file = Files.readAllBytes(dir.resolve(AppRegistry.FILE));
        String raw = new String(file, StandardCharsets.ISO_8859_1);
        assertFalse(raw.contains(pw), "the registry holds no password");
        assertFalse(raw.contains(sha), "nor its SHA-256 as text");
        assertFalse(raw.contains(new String(HexFormat.of().parseHex(sha), StandardCharsets.ISO_8859_1)),
                "nor its SHA-256 as bytes");
    }

    // ------------------------------------------------------------------ SETUSER's rules

    @Test
    void setuserRulesChangePasswordsAndStateAndOnlyThose() {
        assertOk(run("acl", "setuser", "u", "ON", "NoPass"));
        Client c = server.client();
        assertOk(c.run("auth", "u", "anything")); // nopass takes any password
        assertOk(run("acl", "setuser", "u", ">one", ">two", ">one")); // >pw clears nopass; a repeat is one password
        assertEquals(2, run("acl", "getuser", "u").asArray().get(3).asArray().size());
        assertError(c.run("auth", "u", "anything"), WRONGPASS);
        assertOk(c.run("auth", "u", "one"));
        assertOk(c.run("auth", "u", "two"));
        assertOk(run("acl", "setuser", "u", "<one"));
        assertError(c.run("auth", "u", "one"), WRONGPASS);
        assertOk(c.run("auth", "u", "two"));
        assertError(run("acl", "setuser", "u", "<one"),
                "ERR Error in ACL SETUSER modifier '<<redacted>': The password you are trying to remove from the user "
                        + "does not exist"); // Redis quotes '<one': Cajon never sends a password back
        assertOk(run("acl", "setuser", "u", "off"));
        assertError(c.run("auth", "u", "two"), WRONGPASS);
        assertOk(run("acl", "setuser", "u", "on", "resetpass"));
        assertError(c.run("auth", "u", "two"), WRONGPASS);
        assertOk(run("acl", "setuser", "u", ">three", "reset"));
        assertArray(run("acl", "getuser", "u").asArray().get(1), "off");
        // accepted and ignored: they would only narrow access in Redis, and an app sees only its drawer anyway
        assertOk(run("acl", "setuser", "u", "on", ">p", "~cache:*", "%R~x", "%RW~y", "~*", "allkeys", "resetkeys",
                "&ch", "&*", "allchannels", "resetchannels", "+@all", "-@admin", "+get", "-set", "+client|list",
                "allcommands", "nocommands", "sanitize-payload", "skip-sanitize-payload", "(~foo", "+get)", "(+set)",
                "clearselectors"));
        assertError(run("acl", "setuser", "u", "~*", "~narrower"), RedisErrors.aclRule(
                "~narrower".getBytes(StandardCharsets.US_ASCII), RedisErrors.ACL_RULE_KEY_AFTER_ALLKEYS));
        assertOk(c.run("auth", "u", "p"));
        assertOk(c.run("set", "k", "v")); // -set was ignored: the app's own keys are all its own
    }

    @Test
    void aRefusedRuleChangesNothing() {
        assertOk(run("acl", "setuser", "u", "on", ">pw"));
        assertError(run("acl", "setuser", "u", "off", "bogus"),
                "ERR Error in ACL SETUSER modifier 'bogus': Syntax error");
        assertError(run("acl", "setuser", "v", "on", ">pw", "bogus"),
                "ERR Error in ACL SETUSER modifier 'bogus': Syntax error");
        assertArray(run("acl", "users"), "default", "u");
        assertFalse(Files.exists(dir.resolve("v")));
        Client c = server.client();
        assertOk(c.run("auth", "u", "pw")); // u is still on
        assertError(run("acl", "setuser", "u", "+@nosuch"),
                "ERR Error in ACL SETUSER modifier '+@nosuch': Unknown command or category name in ACL");
        assertError(run("acl", "setuser", "u", "+|"),
                "ERR Error in ACL SETUSER modifier '+|': Unknown command or category name in ACL");
        assertError(run("acl", "setuser", "u", "%X~foo"), "ERR Error in ACL SETUSER modifier '%X~foo': Syntax error");
        assertError(run("acl", "setuser", "u", "#abc"), "ERR Error in ACL SETUSER modifier '#<redacted>': The password hash "
                + "must be exactly 64 characters and contain only lowercase hexadecimal characters");
        assertError(run("acl", "setuser", "u", "on", "(~foo", "+get"),
                "ERR Unmatched parenthesis in acl selector starting at '(~foo'.");
        assertError(run("acl", "setuser", "bad name", "on"), "ERR Usernames can't contain spaces or null characters");
        for (String bad : new String[] {"a/b", "..", ".dropped", "", "-x", "caf\u00e9", "a.b"}) {
            assertError(run("acl", "setuser", bad, "on"), RedisErrors.ACL_APP_NAME);
        }
        assertError(run("acl", "setuser", "U", "on"), RedisErrors.aclAppNameCase("u"));
        assertError(run("acl", "setuser"), "ERR wrong number of arguments for 'acl|setuser' command");
        assertOk(c.run("auth", "u", "pw"));
    }

    // ------------------------------------------------------------------ DELUSER

    @Test
    void deluserClosesTheAppsConnectionsAndDeletesItsData() {
        Client shop = app("shop", "pw");
        Client shop2 = server.client();
        assertOk(shop2.run("auth", "shop", "pw"));
        Client other = app("other", "pw");
        assertOk(shop.run("set", "k", "v"));
        assertOk(shop.run("select", "3"));
        assertOk(shop.run("set", "k", "v"));
        assertOk(other.run("set", "k", "other's"));
        assertTrue(Files.isDirectory(dir.resolve("shop").resolve("db3")));

        assertError(run("acl", "deluser", "shop", "default"), RedisErrors.ACL_DEFAULT_UNDELETABLE);
        assertFalse(shop.session().killed(), "a refused DELUSER deletes nothing");
        assertReply(run("acl", "deluser", "shop", "nosuch", "shop"), 1);

        assertTrue(shop.session().killed(), "the app's connections are closed");
        assertTrue(shop2.session().killed());
        assertFalse(other.session().killed());
        assertFalse(client.session().killed());
        assertFalse(Files.exists(dir.resolve("shop")), "its data is gone");
        assertArray(run("acl", "users"), "default", "other");
        assertError(server.client().run("auth", "shop", "pw"), WRONGPASS);
        assertReply(other.run("get", "k"), "other's");
        assertReply(run("acl", "deluser", "shop"), 0);

        // a new app of the same name starts with an empty drawer
        Client again = app("shop", "new");
        assertFalse(again.run("info", "keyspace").asString().contains("db3:"), "no trace of the old drawer");
        assertOk(again.run("flushall")); // walks the app's keyspaces: none of them a closed old one
        assertReply(again.run("dbsize"), 0);
        assertOk(again.run("select", "3"));
        assertReply(again.run("dbsize"), 0);
        assertOk(again.run("set", "k", "new"));
        assertTrue(again.run("info", "keyspace").asString().contains("db3:keys=1,"));
    }

    // ------------------------------------------------------------------ persistence

    @Test
    void appsAndTheirDataSurviveARestart() {
        Client shop = app("shop", "pw");
        assertOk(shop.run("set", "k", "shop's"));
        assertOk(run("acl", "setuser", "gone", "on", ">x"));
        assertOk(run("acl", "setuser", "default", "resetpass", ">not-persisted"));
        assertReply(run("acl", "deluser", "gone"), 1);
        server.close();

        server = InProcessServer.open(dir);
        client = server.client();
        assertReply(client.run("acl", "whoami"), "default"); // default's password comes from the config at each start
        assertArray(client.run("acl", "users"), "default", "shop");
        Client again = server.client();
        assertError(again.run("auth", "shop", "wrong"), WRONGPASS);
        assertOk(again.run("auth", "shop", "pw"));
        assertReply(again.run("get", "k"), "shop's");
        assertError(server.client().run("auth", "gone", "x"), WRONGPASS);
    }

    // ------------------------------------------------------------------ the cache of password checks

    @Test
    void aRepeatedAuthIsFastAndAChangedPasswordIsNeverAnsweredFromMemory() {
        assertOk(run("acl", "setuser", "pool", "on", ">pw"));
        Client c = server.client();
        assertOk(c.run("auth", "pool", "pw"));
        long t0 = System.nanoTime();
        for (int i = 0; i < 100; i++) {
            assertOk(server.client().run("auth", "pool", "pw"));
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        // 100 PBKDF2 checks of 75,000 iterations take well over a second on any machine we run on
        assertTrue(ms < 1_000, "100 repeated AUTHs took " + ms + " ms: the check was not remembered");
        assertError(c.run("auth", "pool", "wrong"), WRONGPASS);
        assertError(c.run("auth", "pool", "wrong"), WRONGPASS);
        assertOk(run("acl", "setuser", "pool", "resetpass", ">new"));
        assertError(c.run("auth", "pool", "pw"), WRONGPASS);
        assertOk(c.run("auth", "pool", "new"));
        assertOk(run("acl", "setuser", "pool", "off"));
        assertError(c.run("auth", "pool", "new"), WRONGPASS);
        assertOk(run("acl", "setuser", "pool", "on"));
        assertOk(c.run("auth", "pool", "new"));
        assertReply(run("acl", "deluser", "pool"), 1);
        assertError(server.client().run("auth", "pool", "new"), WRONGPASS);
    }
}
