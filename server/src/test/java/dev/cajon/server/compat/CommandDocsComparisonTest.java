package dev.cajon.server.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cajon.server.ServerContext;
import dev.cajon.server.command.CommandDocs;
import dev.cajon.server.command.CommandSpec;
import dev.cajon.server.command.CommandTable;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * COMMAND DOCS against Redis, byte for byte, for every command and subcommand Cajon registers:
 * redis-cli 7 builds its command-line hints and {@code help <command>} from these replies.
 *
 * <p>Two differences are by design. A container (CLIENT, COMMAND) lists only the subcommands
 * Cajon serves, and Redis lists its subcommands in hash order, which changes from run to run
 * (the hash seed is random), so a container's "subcommands" map is compared after keeping only
 * the subcommands both servers have and sorting them by name; everything else in the entry stays
 * byte-exact, and each subcommand is also compared on its own. And a command newer than the
 * Redis under test (CLIENT SETINFO is 7.2) cannot be compared: Redis must not know it, and its
 * "since" must be newer than Redis's version. Cajon's own commands (APP) are not compared either:
 * Redis must not know them.
 */
class CommandDocsComparisonTest extends ComparisonTestBase {
    private static final CommandTable TABLE = ServerContext.standardTable();

    /** The registered containers, and every other command and subcommand, lower case. */
    private final Set<String> containers = new TreeSet<>();
    private final List<String> plain = new ArrayList<>();

    /** Cajon's own commands, which no Redis has, with their subcommands. */
    private static final Set<String> CAJON_OWN = Set.of("app");
    private final List<String> own = new ArrayList<>();

    /** The subset of {@link #plain} that the Redis under test knows. */
    private final List<String> knownToRedis = new ArrayList<>();
    private String redisVersion;

    @BeforeAll
    void findWhatRedisKnows() throws IOException {
        for (CommandSpec s : TABLE.all()) {
            if (CAJON_OWN.contains(s.name())) {
                own.add(s.name());
                s.subcommands().forEach(sub -> own.add(sub.name()));
                continue;
            }
            if (s.isContainer()) {
                containers.add(s.name());
            } else {
                plain.add(s.name());
            }
            for (CommandSpec sub : s.subcommands()) {
                plain.add(sub.name());
            }
        }
        try (RespClient redis = RespClient.connect(redisPort())) {
            String info = new String(redis.call("INFO", "server").payload(), StandardCharsets.UTF_8);
            for (String line : info.split("\r\n")) {
                if (line.startsWith("redis_version:")) {
                    redisVersion = line.substring("redis_version:".length());
                }
            }
            for (String name : plain) {
                if (!redis.call("COMMAND", "DOCS", name).elements().isEmpty()) {
                    knownToRedis.add(name);
                }
            }
        }
    }

    // ---------------------------------------------------------------- COMMAND DOCS <name>

    @BothProtocols
    void everyCommandAndSubcommandMatchesRedis() throws Exception {
        Scenario s = scenario("COMMAND DOCS <every command and subcommand>");
        for (String name : knownToRedis) {
            s.cmd("COMMAND", "DOCS", name);
        }
        for (String name : containers) {
            s.check(container, "COMMAND", "DOCS", name);
        }
        s.run();
    }

    /** Cajon's own commands: documented, and unknown to Redis (a Redis that had them would be compared). */
    @Test
    void cajonsOwnCommandsAreDocumentedAndUnknownToRedis() throws Exception {
        assertTrue(!own.isEmpty());
        try (RespClient redis = RespClient.connect(redisPort())) {
            for (String name : own) {
                assertNotNull(CommandDocs.standard().get(name), name);
                assertTrue(redis.call("COMMAND", "DOCS", name).elements().isEmpty(), name + " is known to Redis");
            }
        }
    }

    /** Commands newer than the Redis under test: documented from their own Redis version (no server involved). */
    @Test
    void commandsRedisDoesNotKnowAreNewerThanIt() {
        for (String name : plain) {
            if (knownToRedis.contains(name)) {
                continue;
            }
            CommandDocs.Doc d = CommandDocs.standard().get(name);
            assertNotNull(d, name);
            assertTrue(compareVersions(d.string("since"), redisVersion) > 0,
                    name + " is unknown to Redis " + redisVersion + " but documented since " + d.string("since"));
        }
    }

    @BothProtocols
    void severalNamesUnknownNamesAndCase() throws Exception {
        scenario("COMMAND DOCS name forms")
                .cmd("COMMAND", "DOCS", "get", "set", "nosuchcommand", "GET", "client|id", "Client|GetName")
                .cmd("COMMAND", "DOCS", "nosuchcommand")
                .cmd("COMMAND", "DOCS", "client|nosuch", "get|x", "|", "client|id|x", "command|docs")
                .cmd("command", "docs", "SET")
                .check(container, "COMMAND", "DOCS", "COMMAND")
                .run();
    }

    /** COMMAND DOCS without names: one entry per registered command, each as Redis's. */
    @BothProtocols
    void everyEntryOfTheFullListMatchesRedis() throws Exception {
        Map<String, Reply> redis;
        Map<String, Reply> cajon;
        RespClient[] both = connectBoth();
        try (RespClient r = both[0]; RespClient c = both[1]) {
            redis = pairs(r.call("COMMAND", "DOCS"));
            cajon = pairs(c.call("COMMAND", "DOCS"));
        }
        assertEquals(new TreeSet<>(TABLE.all().stream().map(CommandSpec::name).toList()), new TreeSet<>(cajon.keySet()),
                protocol.label() + " COMMAND DOCS names");
        StringBuilder diffs = new StringBuilder();
        cajon.forEach((name, doc) -> {
            Reply want = redis.get(name);
            if (CAJON_OWN.contains(name)) {
                return; // Cajon's own (see cajonsOwnCommandsAreDocumentedAndUnknownToRedis)
            }
            if (want == null) {
                diffs.append(name).append(": Redis has no entry\n");
            } else if (!Arrays.equals(normalize(want), normalize(doc))) {
                diffs.append(name).append("\n    redis: ").append(Reply.show(normalize(want)))
                        .append("\n    cajon: ").append(Reply.show(normalize(doc))).append('\n');
            }
        });
        assertEquals("", diffs.toString(), protocol.label() + " COMMAND DOCS entries differ");
    }

    // ---------------------------------------------------------------- redis-cli's hints

    /**
     * What redis-cli 7 shows for {@code help <command>} (the same text its interactive hints are
     * made of, built from COMMAND DOCS): identical for Redis and Cajon. In the RESP3 run redis-cli
     * starts with {@code -3}, so it reads the docs as RESP3 maps.
     */
    @BothProtocols
    void redisCliHelpMatchesRedis(@TempDir Path tmp) throws Exception {
        Path cli = RedisServerExtension.findOnPath("redis-cli");
        Assumptions.assumeTrue(cli != null, "redis-cli is not on the PATH");
        StringBuilder script = new StringBuilder();
        for (String name : knownToRedis) {
            script.append("help ").append(name.replace('|', ' ')).append('\n');
        }
        Path in = Files.writeString(tmp.resolve("help.txt"), script);
        boolean resp3 = protocol == Protocol.RESP3;
        String redis = runCli("redis", cli, redisPort(), resp3, in, tmp.resolve("redis.out"));
        String cajon = runCli("cajon", cli, cajonPort(), resp3, in, tmp.resolve("cajon.out"));
        assertTrue(redis.contains("KEEPTTL"), "redis-cli printed SET's arguments: " + redis);
        if (!redis.equals(cajon)) {
            List<String> r = redis.lines().toList();
            List<String> c = cajon.lines().toList();
            for (int i = 0; i < Math.max(r.size(), c.size()); i++) {
                String rl = i < r.size() ? r.get(i) : "(none)";
                String cl = i < c.size() ? c.get(i) : "(none)";
                if (!rl.equals(cl)) {
                    fail(protocol.label() + " redis-cli help differs at line " + (i + 1) + ":\n    redis: " + rl + "\n    cajon: " + cl);
                }
            }
        }
    }

    private static String runCli(String server, Path cli, int port, boolean resp3, Path in, Path out) throws Exception {
        String label = (resp3 ? Protocol.RESP3 : Protocol.RESP2).label() + " redis-cli" + (resp3 ? " -3" : "")
                + " against " + server;
        List<String> argv = new ArrayList<>(List.of(cli.toString(), "-h", "127.0.0.1", "-p", Integer.toString(port)));
        if (resp3) {
            argv.add("-3");
        }
        Process p = new ProcessBuilder(argv)
                .redirectInput(in.toFile()).redirectOutput(out.toFile()).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                fail(label + " did not finish within 30 s");
            }
        } finally {
            p.destroyForcibly();
        }
        assertEquals(0, p.exitValue(), () -> label + " failed: " + readQuietly(out));
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    private static String readQuietly(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }

    // ---------------------------------------------------------------- containers

    /**
     * A COMMAND DOCS reply with one container entry: byte-identical after both sides' entries are
     * {@link #normalize normalized}.
     */
    private final Check container = (redis, cajon) -> {
        if (!redis.isAggregate() || redis.type() != cajon.type()
                || redis.elements().size() != 2 || cajon.elements().size() != 2) {
            return Check.EXACT.compare(redis, cajon);
        }
        byte[] r = concat(redis.element(0).raw(), normalize(redis.element(1)));
        byte[] c = concat(cajon.element(0).raw(), normalize(cajon.element(1)));
        return Arrays.equals(r, c) ? null
                : "normalized subcommands differ:\n      redis: " + Reply.show(r) + "\n      cajon: " + Reply.show(c);
    };

    /**
     * An entry re-encoded with its "subcommands" map (if any) reduced to the subcommands that
     * both Cajon and the Redis under test have, sorted by name; every other field as it came.
     */
    private byte[] normalize(Reply doc) {
        if (!doc.isAggregate() || doc.isNull()) {
            return doc.raw();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        header(out, doc.type(), doc.elements().size());
        List<Reply> f = doc.elements();
        for (int i = 0; i + 1 < f.size(); i += 2) {
            out.writeBytes(f.get(i).raw());
            if (!text(f.get(i)).equals("subcommands")) {
                out.writeBytes(f.get(i + 1).raw());
                continue;
            }
            Reply subsReply = f.get(i + 1);
            List<Reply> subs = subsReply.elements();
            List<Integer> kept = new ArrayList<>();
            for (int k = 0; k + 1 < subs.size(); k += 2) {
                if (knownToRedis.contains(text(subs.get(k)))) {
                    kept.add(k);
                }
            }
            kept.sort(Comparator.comparing(k -> text(subs.get(k))));
            header(out, subsReply.type(), kept.size() * 2);
            for (int k : kept) {
                out.writeBytes(subs.get(k).raw());
                out.writeBytes(normalize(subs.get(k + 1)));
            }
        }
        return out.toByteArray();
    }

    /** A flat RESP2 map or a RESP3 map as name to value, in reply order. */
    private static Map<String, Reply> pairs(Reply flat) {
        assertTrue((flat.isArray() || flat.type() == '%') && flat.elements().size() % 2 == 0,
                () -> "not a map: " + flat);
        Map<String, Reply> m = new LinkedHashMap<>();
        for (int i = 0; i < flat.elements().size(); i += 2) {
            m.put(new String(flat.element(i).payload(), StandardCharsets.UTF_8), flat.element(i + 1));
        }
        return m;
    }

    private static String text(Reply r) {
        return r.payload() == null ? "" : new String(r.payload(), StandardCharsets.UTF_8);
    }

    /** The header of an aggregate of type {@code type} holding {@code n} elements (n / 2 pairs for a map). */
    private static void header(ByteArrayOutputStream out, char type, int n) {
        int count = type == '%' ? n / 2 : n;
        out.writeBytes((type + Integer.toString(count) + "\r\n").getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** -1, 0 or 1 as dotted version {@code a} is older than, equal to or newer than {@code b}. */
    static int compareVersions(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int d = Integer.compare(i < x.length ? Integer.parseInt(x[i]) : 0, i < y.length ? Integer.parseInt(y[i]) : 0);
            if (d != 0) {
                return d;
            }
        }
        return 0;
    }
}
