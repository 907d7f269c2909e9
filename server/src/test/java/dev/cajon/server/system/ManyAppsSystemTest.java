package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Many apps on one server, a bounded count (the 1,000-app figures are in benchmarks/): every app
 * keeps its own keys and TTLs while the server keeps only a few keyspaces mapped, so its file
 * descriptors do not grow with the apps; across a kill -9 and a clean restart nothing is lost.
 */
class ManyAppsSystemTest {
    @RegisterExtension
    static final ServerProcesses servers = new ServerProcesses();

    static final int APPS = 48;
    static final int BUDGET = 6;

    @TempDir
    Path tmp;

    private CajonProcess start(String name, Path dir) {
        return servers.start(name, dir, "--max-open-keyspaces", Integer.toString(BUDGET), "--keyspace-idle", "0");
    }

    private static Jedis app(CajonProcess p, int a) {
        return new Jedis(CajonProcess.LOOPBACK, p.port(), DefaultJedisClientConfig.builder().user("app" + a)
                .password("pw-" + a).socketTimeoutMillis(30_000).build());
    }

    private static int descriptors(CajonProcess p) throws IOException {
        try (var fds = Files.list(Path.of("/proc", Long.toString(p.pid()), "fd"))) {
            return (int) fds.count();
        }
    }

    /** Descriptors of the process on files of apps' keyspaces. */
    private static int keyspaceDescriptors(CajonProcess p, Path dir) throws IOException {
        int n = 0;
        Path real = dir.toRealPath();
        try (var fds = Files.list(Path.of("/proc", Long.toString(p.pid()), "fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    Path target = Files.readSymbolicLink(fd);
                    if (target.startsWith(real) && target.getFileName().toString().endsWith(".cmap")) {
                        n++;
                    }
                } catch (IOException gone) {
                    // closed meanwhile
                }
            }
        }
        return n;
    }

    private static Set<String> scanAll(Jedis j) {
        Set<String> out = new HashSet<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> r = j.scan(cursor);
            out.addAll(r.getResult());
            cursor = r.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return out;
    }

    /** Each app's 10 keys, one of them with a TTL, as every app would see them. */
    private static void assertEveryAppIntact(CajonProcess server, String when) {
        for (int a = 0; a < APPS; a++) {
            try (Jedis j = app(server, a)) {
                assertEquals(10L, j.dbSize(), "app" + a + " " + when);
                assertEquals("app" + a + ":v3", j.get("k3"), when);
                assertEquals(10, scanAll(j).size(), when);
                long ttl = j.ttl("k0");
                assertTrue(ttl > 3_000 && ttl <= 3_600, "app" + a + "'s TTL " + when + ": " + ttl);
            }
        }
    }

    @Test
    void manyAppsKeepTheirKeysWhileOnlyABudgetOfKeyspacesIsMapped() throws Exception {
        Path dir = tmp.resolve("data");
        CajonProcess server = start("many-apps-1", dir);
        try (Jedis admin = server.jedis()) {
            for (int a = 0; a < APPS; a++) {
                admin.aclSetUser("app" + a, "on", ">pw-" + a);
            }
        }
        int fdsAfter = 0;
        for (int a = 0; a < APPS; a++) {
            try (Jedis j = app(server, a)) {
                j.setex("k0", 3_600, "app" + a + ":v0");
                for (int i = 1; i < 10; i++) {
                    j.set("k" + i, "app" + a + ":v" + i);
                }
                j.set("k1", "app" + a + ":v1"); // an overwrite: the write journal exists now
            }
            if (a == BUDGET * 2) {
                fdsAfter = descriptors(server);
            }
        }
        // the budget's sweep runs in the background as soon as one too many is mapped
        int mapped = Integer.MAX_VALUE;
        for (int i = 0; i < 200 && mapped > BUDGET + 1; i++) { // the default db counts too
            mapped = keyspaceDescriptors(server, dir);
            Thread.sleep(10);
        }
        assertTrue(mapped <= BUDGET + 1, mapped + " map files open for " + APPS + " apps");
        int fdsEnd = descriptors(server);
        assertTrue(fdsEnd <= fdsAfter + 3, "descriptors grew with the apps: " + fdsAfter + " after "
                + (BUDGET * 2 + 1) + " apps, " + fdsEnd + " after " + APPS);
        assertEveryAppIntact(server, "while running");
        try (Jedis j = app(server, 5)) {
            assertNull(j.get("app6:v3"), "isolation holds for released keyspaces");
        }

        server.sigkill();
        server = start("many-apps-2", dir);
        assertTrue(server.readyLine().contains("after recovery"), server.readyLine());
        assertEveryAppIntact(server, "after a kill -9");
        server.stopCleanly();

        server = start("many-apps-3", dir);
        assertTrue(keyspaceDescriptors(server, dir) <= 1, "a clean start maps no app");
        assertEveryAppIntact(server, "after a clean restart");
    }
}
