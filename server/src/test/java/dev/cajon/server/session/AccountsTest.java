package dev.cajon.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.testkit.Client;
import dev.cajon.server.testkit.InProcessServer;
import dev.cajon.server.testkit.Reply;
import dev.cajon.storage.Store;
import dev.cajon.storage.namespace.AppRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Accounts} beyond what the ACL commands show: --requirepass, the bounded cache of
 * password checks, and AUTH racing ACL DELUSER (no connection may be left working in a deleted app).
 */
class AccountsTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void requirepassProtectsTheDefaultUserWithoutEverBeingWritten() {
        try (Store store = Store.open(dir, new dev.cajon.storage.ManualClock(InProcessServer.T0))) {
            Accounts a = Accounts.open(store, "top-secret");
            ClientSession s = new ClientSession(1, "a:1", "b:2", 0);
            a.connected(s);
            assertFalse(s.authenticated(), "a new connection must authenticate");
            assertFalse(a.defaultNopass());
            assertFalse(a.login(s, b("default"), b("wrong")));
            assertFalse(s.authenticated());
            assertTrue(a.login(s, b("default"), b("top-secret")));
            assertTrue(s.authenticated());
            assertFalse(s.appUser(), "default is the admin");
            assertEquals(Store.DEFAULT_APP, s.app());
            a.setUser("shop", List.of(b("on"), b(">pw")));
            assertFalse(new String(AppRegistry.encode(AppRegistry.open(dir).all()), StandardCharsets.ISO_8859_1)
                    .contains("top-secret"));
            assertNull(AppRegistry.open(dir).get("default"), "default's password is never persisted");

            Accounts open = Accounts.open(store, null);
            ClientSession t = new ClientSession(2, "a:1", "b:2", 0);
            open.connected(t);
            assertTrue(t.authenticated(), "without requirepass a connection starts as default");
            assertTrue(open.login(t, b("shop"), b("pw")), "apps keep their passwords");
            assertTrue(t.appUser());
            assertEquals("shop", t.app());
        }
    }

    @Test
    void quotasAndSettingsAreSavedWithTheAppAndDefaultsToo() {
        try (Store store = Store.open(dir, new dev.cajon.storage.ManualClock(InProcessServer.T0))) {
            Accounts a = Accounts.open(store, "admin-pw");
            a.setUser("shop", List.of(b("on"), b(">pw")));
            assertEquals(-1, a.user("shop").maxKeys());
            a.updateApp("shop", u -> u.withQuotas(100, 1 << 20));
            a.updateApp("default", u -> u.withQuotas(5, -1));
            assertNull(a.updateApp("nosuch", u -> u));
            assertEquals(100, a.user("shop").maxKeys());

            Accounts again = Accounts.open(store, "admin-pw");
            assertEquals(100, again.user("shop").maxKeys());
            assertEquals(1 << 20, again.user("shop").maxBytes());
            assertEquals(5, again.user("default").maxKeys());
            ClientSession s = new ClientSession(1, "a:1", "b:2", 0);
            assertTrue(again.login(s, b("shop"), b("pw")), "an update keeps the password");
            assertTrue(again.login(s, b("default"), b("admin-pw")));
            assertTrue(AppRegistry.open(dir).get("default").passwords().isEmpty(), "default's password is not saved");
            Accounts open = Accounts.open(store, null);
            assertTrue(open.defaultNopass(), "without requirepass default has no password, whatever is saved");
            assertEquals(5, open.user("default").maxKeys());
        }
    }

    @Test
    void theCacheOfChecksIsBounded() {
        try (Store store = Store.open(dir, new dev.cajon.storage.ManualClock(InProcessServer.T0))) {
            Accounts a = Accounts.open(store, null);
            a.setUser("u", List.of(b("on"), b(">pw")));
            ClientSession s = new ClientSession(1, "a:1", "b:2", 0);
            assertTrue(a.login(s, b("u"), b("pw")));
            assertEquals(1, a.cachedChecks());
            for (int i = 0; i < AuthCache.FAILURES + 50; i++) {
                assertFalse(a.login(s, b("u"), b("wrong" + i)));
            }
            assertEquals(1 + AuthCache.FAILURES, a.cachedChecks(), "failures are bounded and do not evict successes");
            assertTrue(a.login(s, b("u"), b("pw")));
        }
    }

    @Test
    void noConnectionIsLeftInAnAppThatAuthRacedDeleteFor() throws Exception {
        try (InProcessServer server = InProcessServer.open(dir)) {
            Client admin = server.client();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                for (int round = 0; round < 10; round++) {
                    String app = "race" + round;
                    assertEquals("OK", admin.run("acl", "setuser", app, "on", ">pw").asString());
                    List<Client> clients = new ArrayList<>();
                    for (int i = 0; i < 4; i++) {
                        clients.add(server.client());
                    }
                    assertEquals("OK", clients.get(0).run("auth", app, "pw").asString()); // the slow check, once
                    CountDownLatch go = new CountDownLatch(1);
                    List<Future<?>> loops = new ArrayList<>();
                    for (Client c : clients) {
                        loops.add(pool.submit(() -> {
                            go.await();
                            for (int i = 0; i < 300; i++) {
                                Reply r = c.run("auth", app, "pw");
                                if (!(r instanceof Reply.Simple)) {
                                    break; // the app is gone
                                }
                            }
                            return null;
                        }));
                    }
                    go.countDown();
                    assertEquals(1, admin.run("acl", "deluser", app).asInt());
                    for (Future<?> f : loops) {
                        f.get(30, TimeUnit.SECONDS);
                    }
                    for (Client c : clients) {
                        assertFalse(c.session().app().equals(app) && !c.session().killed(),
                                "a connection still works in the deleted app " + app);
                    }
                    for (ClientSession s : server.context().clients()) {
                        assertFalse(s.app().equals(app), "a registered connection in the deleted app " + app);
                    }
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
