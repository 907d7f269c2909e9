package dev.cajon.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.ServerContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The COMMAND DOCS data ({@code command-docs.json}, see {@link CommandDocs}) without a Redis to
 * compare with: it documents exactly the registered commands, agrees with the command table, and
 * is encoded the way Redis's {@code addReplyCommandDocs} encodes it. The byte-for-byte comparison
 * with a real redis-server is {@code CommandDocsComparisonTest}.
 */
class CommandDocsTest {
    private static final CommandTable TABLE = ServerContext.standardTable();
    private static final Set<String> ARG_TYPES = Set.of("key", "string", "integer", "double", "pattern",
            "unix-time", "pure-token", "oneof", "block");

    private static String resp(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void documentsExactlyTheRegisteredCommandsAndSubcommands() {
        Set<String> registered = new TreeSet<>();
        for (CommandSpec s : TABLE.all()) {
            registered.add(s.name());
            s.subcommands().forEach(sub -> registered.add(sub.name()));
        }
        assertEquals(registered, new TreeSet<>(CommandDocs.standard().names()),
                "command-docs.json must cover exactly what is registered: run bin/gen-command-docs");
    }

    /**
     * Where the command table's summary, since or group differ from the docs, by (reviewed)
     * intent: name and field to the table's value. COMMAND DOCS sends the docs' value.
     */
    /** Table metadata that deliberately differs from the docs resource (none today). */
    private static final Map<String, String> KNOWN_TABLE_DIFFERENCES = Map.of();

    /** The table's summary, since and group come from the same Redis metadata as the docs. */
    @Test
    void docsAgreeWithTheCommandTable() {
        StringBuilder diffs = new StringBuilder();
        for (CommandSpec s : TABLE.all()) {
            List<CommandSpec> rows = new ArrayList<>(List.of(s));
            rows.addAll(s.subcommands());
            for (CommandSpec r : rows) {
                CommandDocs.Doc d = CommandDocs.standard().get(r.name());
                assertNotNull(d, r.name());
                for (String[] f : new String[][] {{"summary", r.summary()}, {"since", r.since()}, {"group", r.group()}}) {
                    if (!f[1].equals(d.string(f[0]))
                            && !f[1].equals(KNOWN_TABLE_DIFFERENCES.get(r.name() + " " + f[0]))) {
                        diffs.append(r.name()).append(' ').append(f[0]).append(": table '").append(f[1])
                                .append("', docs '").append(d.string(f[0])).append("'\n");
                    }
                }
            }
        }
        assertEquals("", diffs.toString());
    }

    @Test
    void everyEntryHasRedissFieldsAndWellFormedArguments() {
        for (String name : CommandDocs.standard().names()) {
            Map<String, Object> f = CommandDocs.standard().get(name).fields();
            List<String> keys = List.copyOf(f.keySet());
            assertEquals(List.of("summary", "since", "group"), keys.subList(0, 3), name + ": Redis's first fields");
            assertFalse(f.containsKey("subcommands"), name + ": COMMAND DOCS builds subcommands itself");
            if (f.get("arguments") instanceof List<?> args) {
                args.forEach(a -> checkArgument(name, a));
            }
        }
    }

    private static void checkArgument(String command, Object arg) {
        assertTrue(arg instanceof Map<?, ?>, command + ": argument " + arg);
        Map<?, ?> m = (Map<?, ?>) arg;
        assertEquals(List.of("name", "type"), List.copyOf(m.keySet()).subList(0, 2), command + ": " + m);
        assertTrue(ARG_TYPES.contains(m.get("type")), command + ": type of " + m);
        boolean nested = m.get("type").equals("oneof") || m.get("type").equals("block");
        assertEquals(nested, m.containsKey("arguments"), command + ": nested arguments of " + m);
        if (m.get("flags") instanceof List<?> flags) {
            assertTrue(Set.of("optional", "multiple", "multiple_token").containsAll(flags), command + ": " + flags);
        }
        if (nested) {
            ((List<?>) m.get("arguments")).forEach(a -> checkArgument(command, a));
        }
    }

    @Test
    void encodesAsRedisDoes() {
        CommandDocs docs = CommandDocs.parse("""
                {"x": {"summary": "S \\"q\\" \\u00e9", "since": "1.0.0", "group": "string",
                       "doc_flags": ["deprecated"],
                       "history": [["2.6.12", "Added `EX`."]],
                       "arguments": [{"name": "key", "type": "key", "key_spec_index": 0},
                                     {"name": "c", "type": "oneof", "flags": ["optional", "multiple"],
                                      "arguments": [{"name": "nx", "type": "pure-token", "token": "NX"}]}]}}
                """);
        CommandDocs.Doc d = docs.get("x");
        assertEquals(6, d.size());
        assertEquals("S \"q\" \u00e9", d.string("summary"));
        assertEquals("$7\r\nsummary\r\n$8\r\nS \"q\" \u00e9\r\n$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\nstring\r\n"
                + "$9\r\ndoc_flags\r\n*1\r\n+deprecated\r\n"
                + "$7\r\nhistory\r\n*1\r\n*2\r\n$6\r\n2.6.12\r\n$11\r\nAdded `EX`.\r\n"
                + "$9\r\narguments\r\n*2\r\n"
                + "*6\r\n$4\r\nname\r\n$3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$14\r\nkey_spec_index\r\n:0\r\n"
                + "*8\r\n$4\r\nname\r\n$1\r\nc\r\n$4\r\ntype\r\n$5\r\noneof\r\n$5\r\nflags\r\n*2\r\n+optional\r\n+multiple\r\n"
                + "$9\r\narguments\r\n*1\r\n*6\r\n$4\r\nname\r\n$2\r\nnx\r\n$4\r\ntype\r\n$10\r\npure-token\r\n"
                + "$5\r\ntoken\r\n$2\r\nNX\r\n", resp(d.resp2()));
    }

    @Test
    void rejectsWhatRedisDocsNeverContain() {
        for (String bad : List.of("", "[]", "{\"x\": 1}", "{\"x\": {\"a\": 1.5}}", "{\"x\": {\"a\": true}}",
                "{\"x\": {\"a\": \"b\"}", "{\"x\": {\"a\": \"b\", \"a\": \"c\"}}", "{\"x\": {}} x",
                "{\"x\": {\"a\": \"\\q\"}}")) {
            assertThrows(IllegalArgumentException.class, () -> CommandDocs.parse(bad), bad);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CommandDocs.parse("{\n\"x\": {\n\"a\": nope}}"));
        assertTrue(e.getMessage().contains("line 3"), e.getMessage());
    }
}
