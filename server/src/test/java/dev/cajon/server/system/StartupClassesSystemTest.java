package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * What a real server process loads on its way to the first PING. Neither Chronicle's POSIX layer
 * (built through jnr-ffi, which generates native stubs at start-up; Cajon never asks Chronicle to
 * msync) nor picocli is among it: each cost 0.1-0.2 s of a 0.8-1.0 s start.
 */
class StartupClassesSystemTest {
    @RegisterExtension
    static final ServerProcesses servers = new ServerProcesses();

    @Test
    void neitherJnrNorPicocliIsLoadedOnTheWayToTheFirstPing(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("data");
        Path log = tmp.resolve("classes.log");
        int port = CajonProcess.freePort();
        List<String> cmd = new ArrayList<>(CajonProcess.serverCommand(port, dir));
        cmd.add(1, "-Xlog:class+load=info:file=" + log);
        CajonProcess server = servers.launch("startup-classes", cmd, port, dir);
        server.awaitReady();
        try (Jedis j = server.jedis()) {
            assertEquals("OK", j.set("k", "v"));
            assertEquals("v", j.get("k"));
        }
        server.stopCleanly();

        List<String> loaded = Files.readAllLines(log);
        assertTrue(loaded.stream().anyMatch(l -> l.contains("net.openhft.chronicle.map.ChronicleMapBuilder ")),
                "the log lists Chronicle's classes (so it would list jnr's too)");
        List<String> jnr = loaded.stream()
                .filter(l -> l.contains(" jnr.ffi.") || l.contains("net.openhft.posix.internal.jnr."))
                .limit(5).collect(Collectors.toList());
        assertTrue(jnr.isEmpty(), "jnr classes loaded: " + jnr);
        // an ordinary start reads its options without picocli (Java 5 class files, which class-data
        // sharing cannot archive); --help and mistakes still go through it
        List<String> picocli = loaded.stream().filter(l -> l.contains(" picocli.")).limit(5).collect(Collectors.toList());
        assertTrue(picocli.isEmpty(), "picocli classes loaded: " + picocli);
    }
}
