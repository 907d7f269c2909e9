package dev.cajon.server.family;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.ServerContext;
import dev.cajon.server.command.CommandFlag;
import dev.cajon.server.command.CommandSpec;
import dev.cajon.server.command.CommandTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every row of the command table carries the metadata COMMAND, COMMAND DOCS and the dispatcher
 * read (in the spirit of Garnet's command-info coverage test), and the README's list of
 * supported commands matches what is registered.
 */
class CommandCoverageTest {
    private static final Set<String> REDIS_GROUPS = Set.of("generic", "string", "list", "set", "sorted-set", "hash",
            "pubsub", "transactions", "connection", "server", "scripting", "hyperloglog", "cluster", "sentinel",
            "geo", "stream", "bitmap", "module");
    private static final Pattern VERSION = Pattern.compile("\\d+\\.\\d+\\.\\d+");

    private static final CommandTable TABLE = ServerContext.standardTable();

    /** Every spec, subcommands included. */
    private static List<CommandSpec> everySpec() {
        List<CommandSpec> out = new ArrayList<>();
        for (CommandSpec s : TABLE.all()) {
            out.add(s);
            out.addAll(s.subcommands());
        }
        return out;
    }

    @TestFactory
    Stream<DynamicTest> everySpecHasItsMetadata() {
        return everySpec().stream().map(s -> DynamicTest.dynamicTest(s.name(), () -> {
            assertEquals(s.name().toLowerCase(Locale.ROOT), s.name());
            assertTrue(s.name().matches("[a-z][a-z0-9_-]*(\\|[a-z][a-z0-9_-]*)?"), "name " + s.name());
            assertNotNull(s.summary(), "summary");
            assertFalse(s.summary().isBlank(), "summary");
            assertNotNull(s.group(), "group");
            assertTrue(REDIS_GROUPS.contains(s.group()), "group '" + s.group() + "' is one of Redis's");
            assertNotNull(s.since(), "since");
            assertTrue(VERSION.matcher(s.since()).matches(), "since '" + s.since() + "'");
            assertNotEquals(0, s.arity(), "arity");
            assertNotNull(s.flags(), "flags");
            assertFalse(s.has(CommandFlag.WRITE) && s.has(CommandFlag.READONLY), "write and readonly");
            if (!s.isContainer()) {
                assertNotNull(s.handler(), "handler");
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> keyPositionsAreConsistentWithArity() {
        return everySpec().stream().map(s -> DynamicTest.dynamicTest(s.name(), () -> {
            if (s.firstKey() == 0) {
                assertEquals(0, s.lastKey(), "no keys: lastKey 0");
                assertEquals(0, s.step(), "no keys: step 0");
                return;
            }
            assertTrue(s.firstKey() > 0, "firstKey");
            assertTrue(s.step() > 0, "step");
            int minArgc = Math.abs(s.arity());
            assertTrue(s.firstKey() < minArgc, "the first key is within the minimum argc");
            if (s.lastKey() > 0) {
                assertTrue(s.lastKey() >= s.firstKey(), "lastKey >= firstKey");
                assertTrue(s.lastKey() < minArgc, "the last key is within the minimum argc");
            } else {
                assertTrue(s.arity() < 0, "a lastKey counted from the end needs a variadic arity");
            }
        }));
    }

    @Test
    void subcommandsAreNamedAfterTheirParentAndShareItsGroup() {
        for (CommandSpec parent : TABLE.all()) {
            for (CommandSpec sub : parent.subcommands()) {
                assertTrue(sub.name().startsWith(parent.name() + "|"), sub.name());
                assertTrue(sub.arity() >= 2 || sub.arity() <= -2, sub.name() + ": arity counts 'parent sub'");
                assertEquals(parent.group(), sub.group(), sub.name() + " is in its parent's group");
                assertTrue(CommandTable.lookupSub(parent, sub.shortName().getBytes(StandardCharsets.US_ASCII)) == sub);
            }
            if (parent.isContainer()) {
                // Redis's metadata: CLIENT needs a subcommand (-2); bare COMMAND lists every command (-1)
                assertTrue(parent.arity() <= -2 || parent.arity() == -1 && parent.handler() != null,
                        parent.name() + ": a container needs a subcommand argument unless it has a bare form");
            }
        }
    }

    @Test
    void everyCommandIsFoundByItsNameInAnyCase() {
        for (CommandSpec s : TABLE.all()) {
            assertEquals(s, TABLE.lookup(s.name().getBytes(StandardCharsets.US_ASCII)));
            assertEquals(s, TABLE.lookup(s.name().toUpperCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII)));
        }
        assertEquals(null, TABLE.lookup("nosuch".getBytes(StandardCharsets.US_ASCII)));
    }

    // ------------------------------------------------------------------ README

    /** The project's README.md, found by walking up from the working directory. */
    private static Path readme() {
        Path d = Path.of("").toAbsolutePath();
        while (d != null) {
            Path r = d.resolve("README.md");
            if (Files.isRegularFile(r) && Files.isDirectory(d.resolve("server"))) {
                return r;
            }
            d = d.getParent();
        }
        return null;
    }

    /**
     * The command names in the README's "What works" section: upper-case words after each
     * bullet's "Topic:", parenthesised remarks removed; "CLIENT SETNAME/GETNAME" names the
     * subcommands client|setname and client|getname.
     */
    static Set<String> readmeCommands(String readme) {
        int start = readme.indexOf("## What works");
        Assumptions.assumeTrue(start >= 0, "README has no 'What works' section");
        int end = readme.indexOf("\n## ", start + 1);
        String section = readme.substring(start, end < 0 ? readme.length() : end);
        Set<String> out = new TreeSet<>();
        StringBuilder bullets = new StringBuilder();
        for (String line : section.split("\n")) {
            String t = line.strip();
            if (t.startsWith("- ")) {
                bullets.append('\n').append(t.substring(2));
            } else if (!t.isEmpty() && bullets.length() > 0) {
                bullets.append(' ').append(t); // a bullet continued on the next line
            }
        }
        Pattern token = Pattern.compile("^([A-Z][A-Z_]+)(?: ([A-Z][A-Z-]*(?:/[A-Z][A-Z-]*)*))?$");
        for (String bullet : bullets.toString().split("\n")) {
            int colon = bullet.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String body = bullet.substring(colon + 1).replaceAll("\\([^)]*\\)", "");
            for (String piece : body.split("[,.]")) {
                Matcher m = token.matcher(piece.strip());
                if (!m.matches()) {
                    continue;
                }
                String cmd = m.group(1).toLowerCase(Locale.ROOT);
                if (m.group(2) == null) {
                    out.add(cmd);
                } else {
                    for (String sub : m.group(2).split("/")) {
                        out.add(cmd + "|" + sub.toLowerCase(Locale.ROOT));
                    }
                }
            }
        }
        return out;
    }

    @Test
    void readmeParserReadsBulletsAndSubcommands() {
        String md = "# X\n\n## What works\n\n- Strings: GET, SET (EX, PX), MGET. Values up to 1 GB.\n"
                + "- Connection: PING, CLIENT SETNAME/GETNAME, COMMAND\n  COUNT/INFO, TIME.\n\n## Not supported\n- Lists: LPUSH.\n";
        assertEquals(Set.of("get", "set", "mget", "ping", "client|setname", "client|getname",
                "command|count", "command|info", "time"), readmeCommands(md));
    }

    @Test
    void everyCommandTheReadmeListsIsRegistered() throws IOException {
        Path readme = readme();
        Assumptions.assumeTrue(readme != null, "no README.md");
        Set<String> listed = readmeCommands(Files.readString(readme));
        assertTrue(listed.size() >= 40, "the README list was parsed: " + listed);
        Set<String> missing = new TreeSet<>();
        for (String name : listed) {
            if (lookup(name) == null) {
                missing.add(name);
            }
        }
        assertEquals(Set.of(), missing, "listed in README.md's 'What works' but not registered");
    }

    @Test
    void everyRegisteredCommandIsListedInTheReadme() throws IOException {
        Path readme = readme();
        Assumptions.assumeTrue(readme != null, "no README.md");
        Set<String> listed = readmeCommands(Files.readString(readme));
        Set<String> unlisted = new TreeSet<>();
        for (CommandSpec s : TABLE.all()) {
            // a container counts as listed when its subcommands are ("CLIENT SETNAME/GETNAME")
            boolean viaSubcommand = s.subcommands().stream().anyMatch(sub -> listed.contains(sub.name()));
            if (!listed.contains(s.name()) && !viaSubcommand) {
                unlisted.add(s.name());
            }
        }
        assertEquals(Set.of(), unlisted, "registered but not in README.md's 'What works'");
    }

    private static CommandSpec lookup(String name) {
        int bar = name.indexOf('|');
        if (bar < 0) {
            return TABLE.get(name);
        }
        CommandSpec parent = TABLE.get(name.substring(0, bar));
        return parent == null ? null
                : CommandTable.lookupSub(parent, name.substring(bar + 1).getBytes(StandardCharsets.US_ASCII));
    }
}
