package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.Version;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * {@code bin/cajon-server} as an operator runs it: the ready line, option errors, SIGTERM, and
 * {@code exec} (the PID you get is the JVM's, so signals reach the server directly).
 *
 * <p>Needs a packaged {@code server/target/cajon-server.jar}; skipped without one. The launcher
 * rebuilds the jar when any source is newer, and a build inside a test is slow and would run
 * Maven outside the shared lock. So when the jar is stale (it always is right after editing a
 * test) the test runs a byte-identical copy of the script from a shadow root whose
 * {@code server/target} links to the real jar, libraries and flags, and which has no sources to
 * be newer than the jar. The script, its option handling and its {@code exec} are the same.
 */
class LauncherSystemTest {
    @RegisterExtension
    static final ServerProcesses servers = new ServerProcesses();

    @TempDir
    static Path shadow;

    static Path launcher;

    @BeforeAll
    static void locateLauncher() throws IOException {
        Path root = CajonProcess.repoRoot();
        Path target = root.resolve("server/target");
        Path jar = target.resolve("cajon-server.jar");
        Assumptions.assumeTrue(Files.isRegularFile(jar),
                "launcher test skipped: " + jar + " is missing (run `mvn package` first)");
        Assumptions.assumeTrue(Files.isRegularFile(target.resolve("jvm.flags")) && Files.isDirectory(target.resolve("lib")),
                "launcher test skipped: server/target/jvm.flags or server/target/lib is missing (run `mvn package` first)");
        Optional<Path> newer = newerSource(root, Files.getLastModifiedTime(jar));
        if (newer.isEmpty()) {
            launcher = root.resolve("bin/cajon-server");
            System.out.println("launcher test: running " + launcher + " (jar is up to date)");
        } else {
            Files.createDirectories(shadow.resolve("bin"));
            Files.createDirectories(shadow.resolve("server/target"));
            launcher = shadow.resolve("bin/cajon-server");
            Files.copy(root.resolve("bin/cajon-server"), launcher);
            launcher.toFile().setExecutable(true);
            for (String name : List.of("cajon-server.jar", "jvm.flags", "lib")) {
                Files.createSymbolicLink(shadow.resolve("server/target").resolve(name), target.resolve(name));
            }
            System.out.println("launcher test: " + newer.get() + " is newer than the jar, so running a copy of "
                    + "bin/cajon-server from " + shadow + " to keep the launcher from rebuilding");
        }
    }

    /** Removes the links before JUnit cleans the shadow root, so no cleanup can ever reach the real target/. */
    @AfterAll
    static void unlinkShadow() throws IOException {
        for (String name : List.of("cajon-server.jar", "jvm.flags", "lib")) {
            Files.deleteIfExists(shadow.resolve("server/target").resolve(name));
        }
    }

    /** Same rule as the launcher's needs_build: a .java, .xml or .flags file outside target/, newer than the jar. */
    private static Optional<Path> newerSource(Path root, FileTime jarTime) throws IOException {
        if (Files.getLastModifiedTime(root.resolve("pom.xml")).compareTo(jarTime) > 0) {
            return Optional.of(root.resolve("pom.xml"));
        }
        for (String module : List.of("protocol", "storage", "server")) {
            try (Stream<Path> files = Files.walk(root.resolve(module))) {
                Optional<Path> hit = files
                        .filter(p -> !p.toString().contains("/target/") && !p.endsWith("target"))
                        .filter(Files::isRegularFile)
                        .filter(p -> {
                            String n = p.getFileName().toString();
                            return n.endsWith(".java") || n.endsWith(".xml") || n.endsWith(".flags");
                        })
                        .filter(p -> {
                            try {
                                return Files.getLastModifiedTime(p).compareTo(jarTime) > 0;
                            } catch (IOException e) {
                                return false;
                            }
                        })
                        .findFirst();
                if (hit.isPresent()) {
                    return hit;
                }
            }
        }
        return Optional.empty();
    }

    @Test
    void readyLineExecAndCleanSigterm(@TempDir Path tmp) throws IOException {
        Path dir = tmp.resolve("data");
        int port = CajonProcess.freePort();
        CajonProcess p = servers.launch("launcher", List.of(launcher.toString(),
                "--bind", CajonProcess.LOOPBACK, "--port", Integer.toString(port), "--dir", dir.toString()), port, dir);
        String ready = p.awaitReady();

        assertTrue(ready.contains(":" + port), "ready line names the port: " + ready);
        assertTrue(ready.contains(dir.toAbsolutePath().normalize().toString()), "ready line names the data dir: " + ready);
        assertTrue(ready.contains(Version.CAJON), "ready line names the version " + Version.CAJON + ": " + ready);
        assertTrue(ready.contains("no recovery"), "a fresh directory needs no recovery: " + ready);
        assertFalse(p.output().contains("building the server jar"), "the launcher must not have rebuilt:\n" + p.output());

        // exec: the process we started is the JVM itself, not a bash waiting for it
        byte[] cmdline = Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline"));
        String argv0 = new String(cmdline, StandardCharsets.UTF_8).split("\0")[0];
        assertTrue(argv0.endsWith("java"), "PID " + p.pid() + " should be the JVM, argv[0] is " + argv0);
        assertTrue(new String(cmdline, StandardCharsets.UTF_8).contains("cajon-server.jar"), "the JVM runs the jar");
        assertEquals(0, ProcessHandle.of(p.pid()).orElseThrow().children().count(), "no child processes");

        try (Jedis j = p.jedis()) {
            assertEquals("PONG", j.ping());
            assertEquals("OK", j.set("k", "v"));
        }
        assertTrue(Files.exists(dir.resolve("cajon.running")), "a running server marks its data dir");

        p.stopCleanly();
        assertFalse(Files.exists(dir.resolve("cajon.running")), "SIGTERM must remove cajon.running");
    }

    @Test
    void unknownOptionExitsNonZeroWithUsage(@TempDir Path tmp) {
        CajonProcess p = servers.launch("launcher-bogus", List.of(launcher.toString(), "--bogus"), -1, tmp.resolve("data"));
        int rc = p.awaitExit(Duration.ofSeconds(60));
        String out = p.output();
        assertNotEquals(0, rc, "--bogus must fail; output:\n" + out);
        assertTrue(out.contains("--bogus"), "the error names the option; output:\n" + out);
        assertTrue(out.contains("Usage: cajon-server"), "a usage message follows; output:\n" + out);
        assertTrue(out.contains("--port") && out.contains("--dir") && out.contains("--bind"), "usage lists the options; output:\n" + out);
        assertFalse(out.contains(CajonProcess.READY), "must not start; output:\n" + out);
        assertFalse(Files.exists(tmp.resolve("data")), "must not create a data dir");
    }
}
