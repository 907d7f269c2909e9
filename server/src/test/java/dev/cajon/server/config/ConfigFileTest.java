package dev.cajon.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The syntax of a --config file (redis.conf's) and its errors, with line numbers. */
class ConfigFileTest {
    @Test
    void readsQuotesCommentsCaseAndUnits() throws Exception {
        Map<String, String> v = ConfigFile.parse(List.of(
                "# Cajon test file",
                "",
                "   PORT 7000   ",
                "bind '127.0.0.1'",
                "requirepass \"p a\\\"ss\\x41\"",
                "  # an indented comment",
                "proto-max-bulk-len 2mb",
                "client-query-buffer-limit 1gb",
                "client-output-buffer-limit normal 1mb 512kb 10",
                "Protected-Mode NO",
                "app-max-bytes 1g",
                "app-max-keys 5000",
                "maxclients 100",
                "maxclients 200",
                "timeout 0",
                "dir /tmp/cajon-data"));
        assertEquals("7000", v.get("port"));
        assertEquals("127.0.0.1", v.get("bind"));
        assertEquals("p a\"ssA", v.get("requirepass"));
        assertEquals(Long.toString(2L << 20), v.get("proto-max-bulk-len"));
        assertEquals(Long.toString(1L << 30), v.get("client-query-buffer-limit"));
        assertEquals("normal 1048576 524288 10", v.get("client-output-buffer-limit"));
        assertEquals("no", v.get("protected-mode"));
        assertEquals("1000000000", v.get("app-max-bytes"));
        assertEquals("5000", v.get("app-max-keys"));
        assertEquals("200", v.get("maxclients"), "the last line of a name wins");
        assertEquals("/tmp/cajon-data", v.get("dir"));
        assertFalse(v.containsKey("tcp-keepalive"), "only what the file says");
    }

    @Test
    void anOutputLimitLineChangesOnlyTheClassesItNames() throws Exception {
        // redis.conf's own shape: one line per class; the replica and pubsub lines must not put
        // the normal class back to its default
        Map<String, String> v = ConfigFile.parse(List.of(
                "client-output-buffer-limit normal 0 0 0",
                "client-output-buffer-limit replica 256mb 64mb 60",
                "client-output-buffer-limit pubsub 32mb 8mb 60"));
        assertEquals("normal 0 0 0", v.get("client-output-buffer-limit"));
        v = ConfigFile.parse(List.of(
                "client-output-buffer-limit normal 0 0 0",
                "client-output-buffer-limit normal 1mb 0 0 pubsub 32mb 8mb 60"));
        assertEquals("normal 1048576 0 0", v.get("client-output-buffer-limit"), "a later normal class wins");
    }

    @Test
    void appendfsyncTakesRedisWordsInAnyCase() throws Exception {
        assertEquals("always", ConfigFile.parse(List.of("appendfsync ALWAYS")).get("appendfsync"));
        assertEquals("everysec", ConfigFile.parse(List.of("appendfsync everysec")).get("appendfsync"));
        assertEquals("no", ConfigFile.parse(List.of("# off", "appendfsync No")).get("appendfsync"));
        ConfigFile.Error e = assertThrows(ConfigFile.Error.class,
                () -> ConfigFile.parse(List.of("port 7000", "appendfsync sometimes")));
        assertEquals(2, e.line);
        assertEquals("argument(s) must be one of the following: everysec, always, no", e.reason);
    }

    @Test
    void minFreeDiskIsAMemoryValue() throws Exception {
        assertEquals(String.valueOf(1L << 30), ConfigFile.parse(List.of("min-free-disk 1gb")).get("min-free-disk"));
        assertEquals("0", ConfigFile.parse(List.of("min-free-disk 0")).get("min-free-disk"));
        assertEquals("argument must be a memory value", error("min-free-disk lots").reason);
    }

    @Test
    void splitsArgumentsAsRedisDoes() {
        assertEquals(List.of("a", "b c", "d'e"), ConfigFile.split("a \"b c\" 'd\\'e'"));
        assertEquals(List.of("x\ny\t"), ConfigFile.split("\"x\\ny\\t\""));
        assertEquals(List.of(""), ConfigFile.split("\"\""));
        assertEquals(null, ConfigFile.split("\"abc"), "unterminated");
        assertEquals(null, ConfigFile.split("\"abc\"def"), "a closing quote must end the argument");
        assertEquals(null, ConfigFile.split("'abc"));
    }

    private static ConfigFile.Error error(String... lines) {
        return assertThrows(ConfigFile.Error.class, () -> ConfigFile.parse(List.of(lines)));
    }

    @Test
    void aBadLineNamesItsNumberAndReason() {
        ConfigFile.Error e = error("# ok", "port 7000", "maxclients abc");
        assertEquals(3, e.line);
        assertEquals("maxclients abc", e.text);
        assertEquals("argument couldn't be parsed into an integer", e.reason);
        assertEquals("\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 3\n"
                + ">>> 'maxclients abc'\nargument couldn't be parsed into an integer\n", e.fatal());

        assertEquals("Bad directive or wrong number of arguments", error("", "foo bar").reason);
        assertEquals(2, error("", "foo bar").line);
        assertEquals("wrong number of arguments", error("port").reason);
        assertEquals("wrong number of arguments", error("port 1 2").reason);
        assertTrue(error("bind 127.0.0.1 ::1").reason.contains("one address"));
        assertEquals("argument must be between 0 and 65535 inclusive", error("port 99999").reason);
        assertEquals("Unbalanced quotes in configuration line", error("bind \"127.0.0.1").reason);
        assertEquals("argument must be 'yes' or 'no'", error("protected-mode maybe").reason);
        assertEquals("argument must be a memory value", error("proto-max-bulk-len lots").reason);
        assertEquals("Wrong number of arguments in buffer limit configuration.",
                error("client-output-buffer-limit normal 1mb").reason);
        assertEquals("port   99999", error("  port   99999  ").text, "shown trimmed, as redis-server does");
        assertTrue(error("include /etc/other.conf").reason.contains("include is not supported"));
    }

    /** The example cajon.conf of docs/OPERATIONS.md is a file Cajon starts with. */
    @Test
    void theDocumentedExampleParses() throws Exception {
        Path docs = Path.of("").toAbsolutePath();
        while (docs != null && !java.nio.file.Files.isRegularFile(docs.resolve("docs/OPERATIONS.md"))) {
            docs = docs.getParent();
        }
        assertTrue(docs != null, "docs/OPERATIONS.md above the working directory");
        String text = java.nio.file.Files.readString(docs.resolve("docs/OPERATIONS.md"));
        int start = text.indexOf("```\n# /etc/cajon/cajon.conf\n");
        assertTrue(start >= 0, "the example in OPERATIONS.md");
        String block = text.substring(start + 4, text.indexOf("```", start + 4));
        Map<String, String> v = ConfigFile.parse(List.of(block.split("\n")));
        assertEquals("change me", v.get("requirepass"));
        assertEquals("normal 67108864 16777216 60", v.get("client-output-buffer-limit"));
        assertEquals("everysec", v.get("appendfsync"));
        assertEquals(String.valueOf(64L << 20), v.get("min-free-disk"));
        assertEquals(18, v.size());
    }

    @Test
    void readsAFile(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("cajon.conf");
        java.nio.file.Files.writeString(f, "port 7001\r\ntimeout 30\r\n");
        assertEquals(Map.of("port", "7001", "timeout", "30"), ConfigFile.read(f));
    }
}
