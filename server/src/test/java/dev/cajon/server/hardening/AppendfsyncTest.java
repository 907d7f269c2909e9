package dev.cajon.server.hardening;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import dev.cajon.server.config.ConfigFile;
import dev.cajon.storage.durability.FileSync;
import dev.cajon.storage.durability.FsyncPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

/**
 * appendfsync on a real server over TCP, with the system calls counted: under {@code always}
 * every acknowledged write has had its map file synced by the time its reply arrives, and a
 * pipelined batch shares one sync; under {@code no} nothing is synced; CONFIG SET changes the
 * policy of a running server and CONFIG REWRITE keeps it.
 */
@Timeout(120)
class AppendfsyncTest {
    @TempDir
    Path dir;

    /** Counts the syncs of map files (the real calls are made too). */
    static final class MapSyncs implements FileSync {
        final AtomicInteger maps = new AtomicInteger();
        final AtomicInteger all = new AtomicInteger();

        @Override
        public void force(Path file) throws IOException {
            all.incrementAndGet();
            if (file.getFileName().toString().endsWith(".cmap")) {
                maps.incrementAndGet();
            }
            FileSync.SYSTEM.force(file);
        }

        @Override
        public void forceDirectory(Path d) throws IOException {
            all.incrementAndGet();
            FileSync.SYSTEM.forceDirectory(d);
        }
    }

    private CajonServer start(FsyncPolicy p, Path configFile) throws InterruptedException {
        return CajonServer.start(ServerConfig.defaults().withPort(0).withDir(dir.resolve("data")).withExpiryWarmup(false)
                .withAppendfsync(p).withConfigFile(configFile));
    }

    @Test
    void alwaysSyncsEachAcknowledgedWriteBeforeItsReply() throws Exception {
        try (CajonServer server = start(FsyncPolicy.ALWAYS, null);
             Jedis j = new Jedis("127.0.0.1", server.port())) {
            MapSyncs syncs = new MapSyncs();
            server.store().durability().fileSync(syncs);
            for (int i = 1; i <= 50; i++) {
                assertEquals("OK", j.set("k" + i, "v" + i));
                // the 1-second pass could account for one of them, never for fifty within a few ms
                assertTrue(syncs.maps.get() >= i, "after reply " + i + ": " + syncs.maps.get() + " map syncs");
            }
            int before = syncs.maps.get();
            assertEquals(Long.valueOf(50), Long.valueOf(j.incrBy("k50-counter", 50)));
            assertTrue(syncs.maps.get() > before, "INCRBY synced too");

            before = syncs.maps.get();
            j.get("k1");
            assertEquals(before, syncs.maps.get(), "a read-only batch with nothing dirty syncs nothing");

            before = syncs.maps.get();
            Pipeline p = j.pipelined();
            for (int i = 0; i < 16; i++) {
                p.set("p" + i, "v");
            }
            p.sync();
            int pipelined = syncs.maps.get() - before;
            assertTrue(pipelined >= 1 && pipelined < 16,
                    "16 pipelined SETs in one batch share a sync (group commit): " + pipelined + " syncs");
            String info = j.info("persistence");
            assertTrue(info.contains("fsync_policy:always"), info);
            assertTrue(info.contains("fsyncs_total:"), info);
        }
    }

    @Test
    void noSyncsNothing() throws Exception {
        try (CajonServer server = start(FsyncPolicy.NO, null);
             Jedis j = new Jedis("127.0.0.1", server.port())) {
            MapSyncs syncs = new MapSyncs();
            server.store().durability().fileSync(syncs);
            for (int i = 0; i < 50; i++) {
                j.set("k" + i, "v");
            }
            j.mset("a", "1", "b", "2");
            j.set("big".getBytes(StandardCharsets.UTF_8), new byte[20_000]);
            j.del("a");
            assertEquals(0, syncs.all.get());
            assertEquals(0, server.store().durability().syncs());
            String info = j.info("persistence");
            assertTrue(info.contains("fsync_policy:no\r\n") && info.contains("fsyncs_total:0\r\n"), info);
        }
    }

    @Test
    void configSetChangesThePolicyOfARunningServer() throws Exception {
        try (CajonServer server = start(FsyncPolicy.EVERYSEC, null);
             Jedis j = new Jedis("127.0.0.1", server.port())) {
            assertEquals("everysec", j.configGet("appendfsync").get("appendfsync"));
            MapSyncs syncs = new MapSyncs();
            server.store().durability().fileSync(syncs);
            assertEquals("OK", j.configSet("appendfsync", "always"));
            assertEquals(FsyncPolicy.ALWAYS, server.store().durability().policy());
            for (int i = 1; i <= 20; i++) {
                j.set("k" + i, "v");
            }
            assertTrue(syncs.maps.get() >= 20, "always from the next write on: " + syncs.maps.get());
            assertEquals("OK", j.configSet("appendfsync", "no"));
            assertEquals("no", j.configGet("appendfsync").get("appendfsync"));
            assertEquals(FsyncPolicy.NO, server.store().durability().policy());
        }
    }

    @Test
    void configRewriteKeepsTheLivePolicyAndTheComments() throws Exception {
        Path conf = dir.resolve("cajon.conf");
        Files.write(conf, List.of("# durability", "appendfsync everysec", "timeout 0"), StandardCharsets.UTF_8);
        try (CajonServer server = start(FsyncPolicy.EVERYSEC, conf);
             Jedis j = new Jedis("127.0.0.1", server.port())) {
            assertEquals("OK", j.configSet("appendfsync", "always"));
            assertEquals("OK", j.configRewrite());
        }
        List<String> lines = Files.readAllLines(conf, StandardCharsets.UTF_8);
        assertEquals(List.of("# durability", "appendfsync always", "timeout 0"), lines.subList(0, 3),
                "the line replaced in place, the comment kept: " + lines);
        assertEquals("always", ConfigFile.read(conf).get("appendfsync"));
    }

    @Test
    void configRewriteAppendsAPolicyTheFileLacked() throws Exception {
        Path conf = dir.resolve("cajon.conf");
        Files.write(conf, List.of("timeout 0"), StandardCharsets.UTF_8);
        try (CajonServer server = start(FsyncPolicy.EVERYSEC, conf);
             Jedis j = new Jedis("127.0.0.1", server.port())) {
            assertEquals("OK", j.configSet("appendfsync", "no"));
            assertEquals("OK", j.configRewrite());
        }
        assertEquals("no", ConfigFile.read(conf).get("appendfsync"));
    }
}
