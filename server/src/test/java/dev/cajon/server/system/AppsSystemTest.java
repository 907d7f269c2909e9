package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Apps end to end, as a platform's apps meet them: a real server process started with
 * {@code --requirepass}, the admin creating apps with ACL SETUSER, and each app connecting the
 * way its client library does (Jedis with a user and password, with RESP3's HELLO AUTH, with a
 * {@code redis://user:pass@host:port/0} URL, and redis-cli {@code --user --pass}). Checks that
 * two apps never see each other's keys through any keyspace-wide command, that admin commands
 * answer NOPERM, that ACL DELUSER closes an app's connections and deletes its data, and that apps
 * survive a clean restart and a {@code kill -9}. Nothing the server logs may hold a password.
 */
class AppsSystemTest {
    @RegisterExtension
    static final ServerProcesses servers = new ServerProcesses();

    static final String ADMIN_PW = "adm1n-Pa55";
    static final Path REDIS_CLI = Path.of("/usr/bin/redis-cli");
    static final String NOPERM_CONFIG_SET = "NOPERM this user has no permissions to run the 'config|set' command";

    @TempDir
    Path tmp;

    private CajonProcess start(String name, Path dir, String... args) {
        return servers.start(name, dir, args);
    }

    private CajonProcess startProtected(String name, Path dir) {
        return start(name, dir, "--requirepass", ADMIN_PW);
    }

    private static DefaultJedisClientConfig.Builder config() {
        return DefaultJedisClientConfig.builder().connectionTimeoutMillis(5_000).socketTimeoutMillis(30_000);
    }

    private static Jedis admin(CajonProcess p) {
        Jedis j = p.jedis();
        assertEquals("OK", j.auth(ADMIN_PW));
        return j;
    }

    /** An app's connection the common way: AUTH user password (RESP2). */
    private static Jedis asApp(CajonProcess p, String app, String pw) {
        return new Jedis(CajonProcess.LOOPBACK, p.port(), config().user(app).password(pw).autoNegotiateProtocol(false).build());
    }

    private static Set<String> scanAll(Jedis j) {
        Set<String> out = new HashSet<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        for (int round = 0; round < 1_000; round++) {
            ScanResult<String> r = j.scan(cursor, new ScanParams().count(100));
            out.addAll(r.getResult());
            cursor = r.getCursor();
            if (r.isCompleteIteration()) {
                return out;
            }
        }
        throw new AssertionError("SCAN did not finish in 1,000 rounds");
    }

    private static String keyspaceLines(Jedis j) {
        StringBuilder sb = new StringBuilder();
        for (String line : j.info("keyspace").split("\r\n")) {
            if (line.startsWith("db")) {
                sb.append(line, 0, line.indexOf(",expires")).append(';');
            }
        }
        return sb.toString();
    }

    // ------------------------------------------------------------------ isolation, through Jedis

    @Test
    void twoAppsNeverSeeEachOthersKeys() throws Exception {
        CajonProcess server = startProtected("apps", tmp.resolve("data"));
        try (Jedis nobody = server.jedis()) {
            JedisDataException e = assertThrows(JedisDataException.class, () -> nobody.get("k"));
            assertEquals("NOAUTH Authentication required.", e.getMessage());
            e = assertThrows(JedisDataException.class, () -> nobody.auth("wrong"));
            assertEquals("WRONGPASS invalid username-password pair or user is disabled.", e.getMessage());
        }
        try (Jedis admin = admin(server)) {
            assertEquals("OK", admin.aclSetUser("shop", "on", ">shop-pw", "~*", "+@all"));
            assertEquals("OK", admin.aclSetUser("blog", "on", ">blog-pw"));
            assertEquals(List.of("blog", "default", "shop"), admin.aclUsers());
            assertEquals("OK", admin.set("admin-key", "admin's"));
        }
        // shop through AUTH user pass; blog through a URL, and through HELLO 3 AUTH
        try (Jedis shop = asApp(server, "shop", "shop-pw");
             Jedis blog = new Jedis(URI.create("redis://blog:blog-pw@" + CajonProcess.LOOPBACK + ":" + server.port() + "/0"));
             Jedis blog3 = new Jedis(CajonProcess.LOOPBACK, server.port(),
                     config().user("blog").password("blog-pw").protocol(RedisProtocol.RESP3).build())) {
            assertEquals("shop", shop.aclWhoAmI());
            assertEquals("blog", blog.aclWhoAmI());
            assertEquals("blog", blog3.aclWhoAmI());
            for (int i = 0; i < 30; i++) {
                shop.set("cart:" + i, "v" + i);
            }
            blog.set("post:1", "hello");
            shop.set("session", "shop's");
            blog.set("session", "blog's");
            assertEquals("shop's", shop.get("session"), "the same key name in two apps is two keys");
            assertEquals("blog's", blog3.get("session"));
            assertNull(shop.get("admin-key"));
            assertNull(shop.get("post:1"));

            assertEquals(31, shop.keys("*").size());
            assertEquals(Set.of("post:1", "session"), new HashSet<>(blog.keys("*")));
            assertEquals(31, scanAll(shop).size());
            assertEquals(Set.of("post:1", "session"), scanAll(blog));
            assertEquals(31L, shop.dbSize());
            assertEquals(2L, blog.dbSize());
            for (int i = 0; i < 20; i++) {
                String k = blog.randomKey();
                assertTrue(k.equals("post:1") || k.equals("session"), k);
            }
            assertEquals(2L, shop.exists("cart:0", "post:1", "session"));
            assertEquals(2L, blog.exists("cart:0", "post:1", "session"));
            assertTrue(blog.copy("post:1", "post:1", 3, false), "COPY ... DB into the app's own db 3");
            blog.select(3);
            assertEquals("hello", blog.get("post:1"));
            blog.select(0);
            assertEquals("db0:keys=31;", keyspaceLines(shop));
            assertEquals("db0:keys=2;db3:keys=1;", keyspaceLines(blog));
            try (Jedis admin = admin(server)) {
                assertEquals("db0:keys=1;", keyspaceLines(admin));
                admin.select(3);
                assertNull(admin.get("post:1"), "the copy went to blog's db 3, not the admin's");
            }

            // admin commands answer NOPERM to an app
            JedisDataException e = assertThrows(JedisDataException.class, () -> shop.configSet("maxmemory", "1"));
            assertEquals(NOPERM_CONFIG_SET, e.getMessage());
            e = assertThrows(JedisDataException.class, () -> shop.aclSetUser("shop", "on", ">x"));
            assertEquals("NOPERM this user has no permissions to run the 'acl|setuser' command", e.getMessage());
            e = assertThrows(JedisDataException.class, () -> blog.aclList());
            assertEquals("NOPERM this user has no permissions to run the 'acl|list' command", e.getMessage());
            e = assertThrows(JedisDataException.class, () -> shop.shutdown());
            assertEquals("NOPERM this user has no permissions to run the 'shutdown' command", e.getMessage());
            assertTrue(server.isAlive());
            String clients = shop.clientList();
            assertEquals(1, clients.lines().count(), "CLIENT LIST shows the app its own connections only:\n" + clients);

            // FLUSHDB and FLUSHALL empty the caller's drawer only
            assertEquals("OK", blog.flushDB());
            assertEquals(0L, blog.dbSize());
            assertEquals(31L, shop.dbSize());
            assertEquals("OK", shop.flushAll());
            assertEquals(0L, shop.dbSize());
            blog.select(3);
            assertEquals(1L, blog.dbSize(), "shop's FLUSHALL left blog's db 3 alone");
            try (Jedis admin = admin(server)) {
                assertEquals("admin's", admin.get("admin-key"));
            }
        }
        assertNoPasswordLogged(server, "shop-pw", "blog-pw");
    }

    // ------------------------------------------------------------------ Lettuce

    @Test
    void lettuceConnectsAsAnAppWithRespThreeAndWithAUrl() {
        CajonProcess server = startProtected("apps-lettuce", tmp.resolve("data"));
        try (Jedis admin = admin(server)) {
            admin.aclSetUser("shop", "on", ">shop-pw");
            admin.set("k", "admin's");
        }
        io.lettuce.core.RedisClient resp3 = io.lettuce.core.RedisClient.create(io.lettuce.core.RedisURI.builder()
                .withHost(CajonProcess.LOOPBACK).withPort(server.port()).withAuthentication("shop", "shop-pw".toCharArray())
                .withTimeout(java.time.Duration.ofSeconds(10)).build());
        io.lettuce.core.RedisClient url = io.lettuce.core.RedisClient.create(
                "redis://shop:shop-pw@" + CajonProcess.LOOPBACK + ":" + server.port() + "/0");
        url.setOptions(io.lettuce.core.ClientOptions.builder()
                .protocolVersion(io.lettuce.core.protocol.ProtocolVersion.RESP2).build());
        io.lettuce.core.RedisClient wrong = io.lettuce.core.RedisClient.create(
                "redis://shop:nope@" + CajonProcess.LOOPBACK + ":" + server.port() + "/0");
        try (var c3 = resp3.connect(); var c2 = url.connect()) {
            assertEquals("shop", c3.sync().aclWhoami());
            assertEquals("shop", c2.sync().aclWhoami());
            assertNull(c3.sync().get("k"));
            assertEquals("OK", c3.sync().set("k", "shop's"));
            assertEquals("shop's", c2.sync().get("k"));
            io.lettuce.core.RedisCommandExecutionException e = assertThrows(
                    io.lettuce.core.RedisCommandExecutionException.class, () -> c3.sync().configSet("maxmemory", "1"));
            assertEquals(NOPERM_CONFIG_SET, e.getMessage());
            io.lettuce.core.RedisConnectionException refused = assertThrows(
                    io.lettuce.core.RedisConnectionException.class, wrong::connect);
            assertTrue(String.valueOf(refused.getCause()).contains("WRONGPASS"), String.valueOf(refused.getCause()));
        } finally {
            resp3.shutdown();
            url.shutdown();
            wrong.shutdown();
        }
        try (Jedis admin = admin(server)) {
            assertEquals("admin's", admin.get("k"));
        }
    }

    // ------------------------------------------------------------------ redis-cli

    record Cli(int exitCode, String stdout, String stderr) {
    }

    private Cli cli(CajonProcess p, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(REDIS_CLI.toString(), "-h", CajonProcess.LOOPBACK,
                "-p", Integer.toString(p.port())));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(tmp, "out", ".txt");
        Path err = Files.createTempFile(tmp, "err", ".txt");
        Process proc = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            if (!proc.waitFor(30, TimeUnit.SECONDS)) {
                throw new AssertionError("redis-cli did not finish within 30 s: " + cmd);
            }
        } finally {
            proc.destroyForcibly();
        }
        return new Cli(proc.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void redisCliWithUserAndPass() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(REDIS_CLI), "redis-cli is not installed");
        CajonProcess server = startProtected("apps-cli", tmp.resolve("data"));
        try (Jedis admin = admin(server)) {
            admin.aclSetUser("a", "on", ">pass-of-a");
            admin.aclSetUser("b", "on", ">pass-of-b");
        }
        String[] a = {"--user", "a", "--pass", "pass-of-a", "--no-auth-warning"};
        String[] b = {"--user", "b", "--pass", "pass-of-b", "--no-auth-warning"};
        assertEquals("OK\n", cli(server, cat(a, "SET", "k", "a's")).stdout());
        assertEquals("OK\n", cli(server, cat(b, "SET", "k", "b's")).stdout());
        assertEquals("OK\n", cli(server, cat(b, "SET", "only-b", "1")).stdout());
        assertEquals("a's\n", cli(server, cat(a, "GET", "k")).stdout());
        assertEquals("b's\n", cli(server, cat(b, "GET", "k")).stdout());
        assertEquals("k\n", cli(server, cat(a, "KEYS", "*")).stdout());
        assertEquals("1\n", cli(server, cat(a, "DBSIZE")).stdout());
        assertEquals("2\n", cli(server, cat(b, "DBSIZE")).stdout());
        assertEquals("a\n", cli(server, cat(a, "ACL", "WHOAMI")).stdout());
        assertEquals(NOPERM_CONFIG_SET + "\n\n", cli(server, cat(a, "CONFIG", "SET", "maxmemory", "1")).stdout());
        // the URL form, and the admin with -a
        assertEquals("b's\n", cli(server, "-u", "redis://b:pass-of-b@" + CajonProcess.LOOPBACK + ":" + server.port() + "/0",
                "--no-auth-warning", "GET", "k").stdout());
        assertEquals("default\n", cli(server, "-a", ADMIN_PW, "--no-auth-warning", "ACL", "WHOAMI").stdout());
        // wrong password and no password, as redis-cli shows them for a real Redis
        Cli wrong = cli(server, "--user", "a", "--pass", "nope", "--no-auth-warning", "GET", "k");
        assertTrue(wrong.stderr().contains("AUTH failed: WRONGPASS invalid username-password pair or user is disabled."),
                wrong.stderr());
        assertEquals("NOAUTH Authentication required.\n\n", wrong.stdout());
        assertEquals("NOAUTH Authentication required.\n\n", cli(server, "GET", "k").stdout());
        assertNoPasswordLogged(server, "pass-of-a", "pass-of-b");
    }

    private static String[] cat(String[] a, String... b) {
        String[] out = new String[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    // ------------------------------------------------------------------ DELUSER

    @Test
    void deluserClosesTheAppsConnectionsAndDeletesItsData() {
        Path dir = tmp.resolve("data");
        CajonProcess server = startProtected("apps-deluser", dir);
        try (Jedis admin = admin(server)) {
            admin.aclSetUser("shop", "on", ">pw");
            admin.aclSetUser("blog", "on", ">pw");
            try (Jedis shop = asApp(server, "shop", "pw"); Jedis shop2 = asApp(server, "shop", "pw");
                 Jedis blog = asApp(server, "blog", "pw")) {
                shop.set("k", "v");
                shop.select(5);
                shop.set("k", "v");
                blog.set("k", "blog's");
                assertTrue(Files.isDirectory(dir.resolve("shop").resolve("db5")));

                assertEquals(1L, admin.aclDelUser("shop", "nosuch"));
                assertThrows(JedisConnectionException.class, shop::ping, "the app's connections are closed");
                assertThrows(JedisConnectionException.class, shop2::ping);
                assertEquals("blog's", blog.get("k"), "other apps are untouched");
                assertFalse(Files.exists(dir.resolve("shop")), "the app's data is deleted");
                assertEquals(List.of("blog", "default"), admin.aclUsers());
                JedisDataException e = assertThrows(JedisDataException.class, () -> admin.aclDelUser("default"));
                assertEquals("ERR The 'default' user cannot be removed", e.getMessage());
            }
            JedisDataException e = assertThrows(JedisDataException.class, () -> asApp(server, "shop", "pw").ping());
            assertEquals("WRONGPASS invalid username-password pair or user is disabled.", e.getMessage());
            // the same name again: a new, empty app
            admin.aclSetUser("shop", "on", ">new");
            try (Jedis shop = asApp(server, "shop", "new")) {
                assertEquals(0L, shop.dbSize());
                shop.select(5);
                assertEquals(0L, shop.dbSize());
            }
        }
    }

    // ------------------------------------------------------------------ persistence

    @Test
    void appsSurviveACleanRestartAndAKillMinus9() {
        Path dir = tmp.resolve("data");
        CajonProcess server = startProtected("apps-persist-1", dir);
        try (Jedis admin = admin(server)) {
            admin.aclSetUser("shop", "on", ">shop-pw");
            admin.aclSetUser("blog", "on", ">blog-pw");
            admin.aclSetUser("idle", "off", ">idle-pw");
        }
        try (Jedis shop = asApp(server, "shop", "shop-pw"); Jedis blog = asApp(server, "blog", "blog-pw")) {
            shop.set("k", "shop's");
            blog.set("k", "blog's");
        }
        server.stopCleanly();

        server = startProtected("apps-persist-2", dir);
        try (Jedis admin = admin(server)) {
            assertEquals(List.of("blog", "default", "idle", "shop"), admin.aclUsers());
            assertTrue(admin.aclList().contains("user idle off #<redacted> ~* &* +@all -@admin +client|kill"
                    + " +client|list +client|no-evict"), admin.aclList().toString());
        }
        try (Jedis shop = asApp(server, "shop", "shop-pw")) {
            assertEquals("shop's", shop.get("k"));
        }
        CajonProcess s2 = server;
        assertThrows(JedisDataException.class, () -> asApp(s2, "idle", "idle-pw").ping(), "an app that is off stays off");
        assertThrows(JedisDataException.class, () -> asApp(s2, "shop", "blog-pw").ping());

        // changes made just before a kill -9: each was on disk when acknowledged
        try (Jedis admin = admin(server)) {
            admin.aclSetUser("fresh", "on", ">fresh-pw");
            admin.aclSetUser("shop", "resetpass", ">shop-pw-2");
            assertEquals(1L, admin.aclDelUser("blog"));
        }
        try (Jedis fresh = asApp(server, "fresh", "fresh-pw")) {
            fresh.set("k", "fresh's");
        }
        server.sigkill();
        assertTrue(Files.exists(dir.resolve("cajon.running")), "a killed server leaves its marker");

        server = startProtected("apps-persist-3", dir);
        assertTrue(server.readyLine().contains("after recovery"), server.readyLine());
        try (Jedis admin = admin(server)) {
            assertEquals(List.of("default", "fresh", "idle", "shop"), admin.aclUsers());
        }
        try (Jedis fresh = asApp(server, "fresh", "fresh-pw"); Jedis shop = asApp(server, "shop", "shop-pw-2")) {
            assertEquals("fresh's", fresh.get("k"));
            assertEquals("shop's", shop.get("k"));
        }
        CajonProcess s3 = server;
        JedisDataException e = assertThrows(JedisDataException.class, () -> asApp(s3, "shop", "shop-pw").ping());
        assertEquals("WRONGPASS invalid username-password pair or user is disabled.", e.getMessage());
        assertThrows(JedisDataException.class, () -> asApp(s3, "blog", "blog-pw").ping());
        assertFalse(Files.exists(dir.resolve("blog")), "a deleted app's data stays deleted");
        server.stopCleanly();

        // without --requirepass the admin needs no password, as in Redis; the apps still need theirs
        server = start("apps-persist-4", dir);
        try (Jedis admin = server.jedis()) {
            assertEquals("default", admin.aclWhoAmI());
            assertEquals(List.of("default", "fresh", "idle", "shop"), admin.aclUsers());
        }
        CajonProcess s4 = server;
        assertThrows(JedisDataException.class, () -> asApp(s4, "shop", "wrong").ping());
        try (Jedis shop = asApp(server, "shop", "shop-pw-2")) {
            assertEquals("shop's", shop.get("k"));
        }
        assertNoPasswordLogged(server, "shop-pw", "blog-pw", "idle-pw", "fresh-pw", ADMIN_PW);
    }

    /** What the server printed holds none of the passwords (nor does its command line count: we passed it). */
    private static void assertNoPasswordLogged(CajonProcess server, String... passwords) {
        String out = server.output();
        for (String pw : passwords) {
            assertFalse(out.contains(pw), "the server's output contains a password:\n" + out);
        }
    }
}
