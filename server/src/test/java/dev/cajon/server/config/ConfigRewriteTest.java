package dev.cajon.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cajon.server.ServerConfig;
import dev.cajon.server.limits.NetLimits;
import dev.cajon.server.limits.NetSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CONFIG REWRITE's file: comments and unchanged lines kept, changed ones replaced in place, new ones at the end. */
class ConfigRewriteTest {
    private static final Map<String, String> DEFAULTS =
            ConfigRewrite.values(ServerConfig.defaults(), new NetLimits(NetSettings.defaults()));

    @Test
    void keepsCommentsReplacesChangedLinesAndAppendsNewOnes(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("cajon.conf");
        Files.write(f, List.of(
                "# Cajon config",
                "port 7000",
                "",
                "# idle clients",
                "timeout 10",
                "maxclients 100   ",
                "io-threads 2",
                "proto-max-bulk-len 2mb",
                "timeout 15"), StandardCharsets.UTF_8);
        ServerConfig cfg = ServerConfig.defaults().withPort(7000).withIoThreads(2).withRequirepass("a b\"c");
        NetLimits limits = new NetLimits(NetSettings.defaults().withTimeout(20).withMaxclients(100)
                .withProtoMaxBulkLen(2L << 20).withTcpKeepalive(60));
        Map<String, String> current = ConfigRewrite.values(cfg, limits);

        ConfigRewrite.rewrite(f, current, DEFAULTS);

        List<String> expected = List.of(
                "# Cajon config",
                "port 7000",
                "",
                "# idle clients",
                "timeout 20",
                "maxclients 100   ",
                "io-threads 2",
                "proto-max-bulk-len 2mb",
                ConfigRewrite.SIGNATURE,
                "requirepass \"a b\\\"c\"",
                "tcp-keepalive 60");
        assertEquals(expected, Files.readAllLines(f, StandardCharsets.UTF_8));
        // what was written reads back as the values in force
        Map<String, String> back = ConfigFile.read(f);
        assertEquals("20", back.get("timeout"));
        assertEquals("a b\"c", back.get("requirepass"));
        assertEquals("60", back.get("tcp-keepalive"));
        assertEquals(Long.toString(2L << 20), back.get("proto-max-bulk-len"));

        // a second rewrite of the same values changes nothing (one signature, no duplicates)
        ConfigRewrite.rewrite(f, current, DEFAULTS);
        assertEquals(expected, Files.readAllLines(f, StandardCharsets.UTF_8));
        // no temp file left next to it
        try (var s = Files.list(tmp)) {
            assertEquals(List.of(f), s.toList());
        }
    }

    @Test
    void theOutputLimitIsWrittenAsItsNormalClass(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("cajon.conf");
        Files.write(f, List.of("client-output-buffer-limit normal 64mb 16mb 60"), StandardCharsets.UTF_8);
        NetLimits limits = new NetLimits(NetSettings.defaults().withOutputLimit(1L << 20, 0, 0));
        ConfigRewrite.rewrite(f, ConfigRewrite.values(ServerConfig.defaults(), limits), DEFAULTS);
        assertEquals(List.of("client-output-buffer-limit normal 1048576 0 0"), Files.readAllLines(f, StandardCharsets.UTF_8));
        assertEquals("normal 1048576 0 0", ConfigFile.read(f).get("client-output-buffer-limit"));
    }
}
