package dev.cajon.server.family;

import static dev.cajon.server.testkit.RespAssertions.assertError;
import static dev.cajon.server.testkit.RespAssertions.assertOk;
import static dev.cajon.server.testkit.RespAssertions.assertReply;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.apps.Quotas;
import dev.cajon.server.testkit.Client;
import dev.cajon.server.testkit.FamilyTestBase;
import dev.cajon.server.testkit.Reply;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An app's key and byte quota: writes refused at the limit, reads and deletes served, usage going down. */
class AppQuotaTest extends FamilyTestBase {
    static final String OOM = "OOM command not allowed when used memory > 'maxmemory'.";

    /** A connection of app {@code name}, created with ACL SETUSER and logged in with AUTH. */
    private Client app(String name) {
        if (server.context().accounts().user(name) == null) {
            assertOk(run("acl", "setuser", name, "on", ">pw-" + name));
        }
        Client c = server.client();
        assertOk(c.run("auth", name, "pw-" + name));
        return c;
    }

    private static Map<String, Reply> info(Client c, String app) {
        c.run("hello", "3");
        Map<String, Reply> m = c.run("app", "info", app).asMap();
        c.run("hello", "2");
        return m;
    }

    @Test
    void writesAreRefusedAtTheKeyLimitAndReadsAndDeletesGoOn() {
        Client shop = app("shop");
        assertOk(run("app", "quota", "shop", "maxkeys", "3"));
        for (int i = 0; i < 3; i++) {
            assertOk(shop.run("set", "k" + i, "v"));
        }
        assertError(shop.run("set", "k3", "v"), OOM);
        assertError(shop.run("incr", "k9"), OOM);
        assertError(shop.run("append", "k0", "more"), OOM);
        // reads, deletes and TTL changes that free space are served
        assertReply(shop.run("get", "k0"), "v");
        assertReply(shop.run("dbsize"), 3);
        assertReply(shop.run("del", "k0"), 1);
        assertOk(shop.run("set", "k3", "v"));
        // a second db counts too: the quota is the app's, over all its dbs
        shop.run("select", "1");
        assertError(shop.run("set", "other", "v"), OOM);
        // another app and the admin are not limited by shop's quota
        Client blog = app("blog");
        for (int i = 0; i < 5; i++) {
            assertOk(blog.run("set", "k" + i, "v"));
        }
        assertOk(run("set", "admin-key", "v"));
        assertEquals(4, server.context().quotas().rejected("shop"), "SET, INCR, APPEND and the SET in db 1");
        assertEquals(0, server.context().quotas().rejected("blog"));
    }

    @Test
    void theByteLimitCountsValuesAndGoesDownWithExpiry() {
        Client shop = app("shop");
        assertOk(run("app", "quota", "shop", "maxbytes", "1000"));
        assertOk(shop.run("set", "session", "x".repeat(975), "px", "100"));
        assertOk(shop.run("set", "small", "y")); // crosses the limit: still served, as with maxmemory
        assertError(shop.run("set", "more", "z"), OOM);
        advance(101);
        assertEquals(0, shop.run("exists", "session").asInt()); // expired: its bytes are given back
        assertOk(shop.run("set", "more", "z"));
        Map<String, Reply> m = info(server.client(), "shop");
        assertReply(m.get("keys"), 2);
        assertTrue(m.get("bytes").asInt() < 100, "bytes after expiry: " + m.get("bytes"));
        assertReply(m.get("max-bytes"), 1000);
        assertReply(m.get("rejected-writes"), 1);
    }

    @Test
    void aTransactionWithAWriteIsRefusedWholeAtTheLimit() {
        Client shop = app("shop");
        assertOk(run("app", "quota", "shop", "maxkeys", "1"));
        assertOk(shop.run("set", "a", "1"));
        assertOk(shop.run("multi"));
        assertError(shop.run("set", "b", "1"), OOM); // refused while queueing: the transaction fails
        assertError(shop.run("exec"), "EXECABORT Transaction discarded because of previous errors.");
        // queued before the limit was reached, refused at EXEC
        assertOk(run("app", "quota", "shop", "maxkeys", "5"));
        assertOk(shop.run("multi"));
        shop.run("set", "b", "1");
        assertOk(run("app", "quota", "shop", "maxkeys", "1"));
        assertError(shop.run("exec"), "EXECABORT Transaction discarded because of: " + OOM);
        assertReply(shop.run("exists", "b"), 0);
        // a read-only transaction goes through
        shop.run("multi");
        shop.run("get", "a");
        assertEquals(List.of(new Reply.Bulk("1".getBytes())), shop.run("exec").asArray());
    }

    @Test
    void defaultsApplyToAppsWithoutTheirOwnAndNotToTheAdmin() {
        server.context().quotas().defaults(new Quotas.Limits(2, 0));
        Client shop = app("shop");
        shop.run("set", "a", "1");
        shop.run("set", "b", "1");
        assertError(shop.run("set", "c", "1"), OOM);
        assertOk(run("app", "quota", "shop", "maxkeys", "10"));
        assertOk(shop.run("set", "c", "1"));
        assertOk(run("app", "quota", "shop", "default"));
        assertError(shop.run("set", "d", "1"), OOM);
        for (int i = 0; i < 5; i++) {
            assertOk(run("set", "admin" + i, "v"));
        }
        assertError(run("app", "quota", "shop", "maxkeys", "-1"), "ERR value is not an integer or out of range");
        assertError(run("app", "quota", "shop", "bogus", "1"), "ERR syntax error");
    }

    @Test
    void infoMemoryShowsAnAppItsOwnDataAndQuota() {
        Client shop = app("shop");
        assertOk(run("app", "quota", "shop", "maxbytes", "5000"));
        shop.run("set", "k", "x".repeat(1000));
        Reply info = shop.run("info", "memory");
        long used = Long.parseLong(infoField(info, "used_memory"));
        assertTrue(used >= 1000 && used < 1100, "the app's own bytes: " + used);
        assertEquals("5000", infoField(info, "maxmemory"));
        assertTrue(Long.parseLong(infoField(run("info", "memory"), "used_memory")) > 100_000,
                "the admin sees the process");
    }

    @Test
    void aQuotaIsSavedWithTheAppAndGoesWithIt() {
        app("shop");
        assertOk(run("app", "quota", "shop", "maxkeys", "7", "maxbytes", "9000"));
        assertError(run("app", "quota", "nobody", "maxkeys", "1"), "ERR no such app 'nobody'");
        server.close();
        server = dev.cajon.server.testkit.InProcessServer.open(dir);
        client = server.client();
        Map<String, Reply> m = info(client, "shop");
        assertReply(m.get("max-keys"), 7);
        assertReply(m.get("max-bytes"), 9000);
        assertReply(m.get("quota"), "own");
        // ACL DELUSER drops it: an app of the same name starts from the defaults
        assertReply(run("acl", "deluser", "shop"), 1);
        app("shop");
        assertReply(info(client, "shop").get("quota"), "default");
    }

    @Test
    void anAppSeesOnlyItsOwnUsage() {
        Client shop = app("shop");
        app("blog");
        assertError(shop.run("app", "info", "blog"), "NOPERM this user has no permissions to run the 'app|info' command");
        assertReply(info(shop, "shop").get("app"), "shop");
    }
}
