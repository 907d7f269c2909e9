package dev.cajon.server.hardening;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Protected mode, tried from a real non-loopback address: the test creates a network namespace
 * joined to this one by a veth pair (10.213.N.1 here, 10.213.N.2 there), binds Cajon and
 * redis-server to 10.213.N.1, and connects from inside the namespace. Skipped, with the reason,
 * where namespaces cannot be created (not root, or no CAP_SYS_ADMIN).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class ProtectedModeTest {
    private final String ns = "cajon-pm-" + ProcessHandle.current().pid();
    private final String vethHost = "cjpm" + (ProcessHandle.current().pid() % 100_000) + "a";
    private final String vethNs = "cjpm" + (ProcessHandle.current().pid() % 100_000) + "b";
    private final int subnet = (int) (ProcessHandle.current().pid() % 250) + 1;
    private final String hostIp = "10.213." + subnet + ".1";
    private boolean created;
    @TempDir
    Path dir;

    private static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + String.join(" ", cmd));
        }
        String s = new String(out, StandardCharsets.ISO_8859_1);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + s);
        }
        return s;
    }

    @BeforeAll
    void network() throws Exception {
        try {
            run("ip", "netns", "add", ns);
        } catch (IOException e) {
            Assumptions.abort("cannot create a network namespace here (" + e.getMessage().trim()
                    + "): protected mode is not tried from a non-loopback address");
        }
        created = true;
        run("ip", "link", "add", vethHost, "type", "veth", "peer", "name", vethNs);
        run("ip", "link", "set", vethNs, "netns", ns);
        run("ip", "addr", "add", hostIp + "/30", "dev", vethHost);
        run("ip", "link", "set", vethHost, "up");
        run("ip", "netns", "exec", ns, "ip", "addr", "add", "10.213." + subnet + ".2/30", "dev", vethNs);
        run("ip", "netns", "exec", ns, "ip", "link", "set", vethNs, "up");
        run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up");
    }

    @AfterAll
    void cleanUp() throws Exception {
        if (created) {
            try {
                run("ip", "link", "del", vethHost);
            } catch (IOException e) {
                // gone with the namespace already
            }
            run("ip", "netns", "del", ns);
        }
    }

    /** From inside the namespace: connect to hostIp:port, send PING, return all bytes until closed (5 s at most). */
    private String pingFromNamespace(int port) throws Exception {
        Process p = new ProcessBuilder("ip", "netns", "exec", ns, "timeout", "5", "bash", "-c",
                "exec 3<>/dev/tcp/" + hostIp + "/" + port + " && printf 'PING\\r\\n' >&3 && cat <&3")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = p.getInputStream().readAllBytes();
        p.waitFor(10, TimeUnit.SECONDS);
        // timeout's 124: the server kept the connection open
        return new String(out, StandardCharsets.ISO_8859_1) + (p.exitValue() == 124 ? "...OPEN" : "");
    }

    private CajonServer cajon(ServerConfig c) throws Exception {
        return CajonServer.start(c.withBind(hostIp).withPort(0).withDir(Files.createTempDirectory(dir, "c"))
                .withExpiryWarmup(false));
    }

    @Test
    void withoutAPasswordANonLoopbackClientGetsRedissDeniedTextAndIsClosed() throws Exception {
        List<String> replies = new ArrayList<>();
        try (RedisProc redis = RedisProc.start("--bind", hostIp, "--protected-mode", "yes")) {
            replies.add(pingFromNamespace(redis.port));
        }
        try (CajonServer c = cajon(ServerConfig.defaults())) {
            replies.add(pingFromNamespace(c.port()));
        }
        assertTrue(replies.get(0).startsWith("-DENIED Redis is running in protected mode"), replies.get(0));
        assertTrue(replies.get(0).endsWith("accepting connections from the outside.\r\n"), "closed after it: " + replies.get(0));
        assertEquals(replies.get(0), replies.get(1), "Cajon against Redis");
    }

    @Test
    void protectedModeNoOrAPasswordLetsTheClientIn() throws Exception {
        try (CajonServer c = cajon(ServerConfig.defaults())) {
            c.context().netLimits().protectedMode(false);
            assertEquals("+PONG\r\n...OPEN", pingFromNamespace(c.port()));
        }
        try (CajonServer c = cajon(ServerConfig.defaults().withRequirepass("secret"))) {
            assertEquals("-NOAUTH Authentication required.\r\n...OPEN", pingFromNamespace(c.port()));
        }
    }
}
