package dev.cajon.server.matrix;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import dev.cajon.server.compat.RedisServerExtension;
import dev.cajon.server.compat.RedisServerExtension.RedisProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The client matrix of issue 11: five clients (Jedis, Lettuce, node-redis, ioredis, redis-py) run
 * the same small app scenario (set and get with a TTL, a pipeline, a transaction, WATCH without
 * and with a conflict, a SCAN over 300 keys, all 256 byte values, an error reply, an error inside
 * EXEC, and a hash, a list, a set and a sorted set through the client's own methods) against a
 * real redis-server and against Cajon, each in its default mode and with RESP2 and
 * RESP3 forced where the client has the option.
 *
 * <p>Against redis-server every step must hold: that proves the scenario itself. Against Cajon
 * every step must hold too, and must observe what the same client observed against redis-server
 * (the reply shapes the client turned into values, and in the default mode the protocol it ended
 * up on: a client that falls back to RESP2 against Cajon but not against Redis takes another path).
 *
 * <p>The Java clients run in this JVM. The others are scripts under {@code clients/}: a client that
 * is not installed is skipped, and the skip says how to install it ({@code bin/install-test-clients},
 * {@code CAJON_NODE_MODULES}, {@code CAJON_PYTHON}; see {@link ExternalClients}).
 */
@ExtendWith(RedisServerExtension.class)
class ClientMatrixTest {
    @TempDir
    static Path dir;
    static CajonServer cajon;
    static int redisPort;
    static String redisVersion;

    /** Each run against redis-server is made once and shared by the two tests of its row. */
    private static final Map<String, ClientRun> ON_REDIS = new ConcurrentHashMap<>();

    @BeforeAll
    static void start(RedisProcess redis) throws Exception {
        redisPort = redis.port();
        redisVersion = redis.version();
        cajon = CajonServer.start(ServerConfig.defaults().withPort(0).withDir(dir));
    }

    @AfterAll
    static void stop() {
        if (cajon != null) {
            cajon.close();
        }
    }

    static Stream<Arguments> runs() {
        List<Arguments> out = new ArrayList<>();
        for (String client : List.of("jedis", "lettuce", "node-redis", "ioredis", "redis-py")) {
            for (String protocol : List.of("default", "2", "3")) {
                out.add(Arguments.of(client, protocol));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}, protocol {1}, against redis-server")
    @MethodSource("runs")
    void passesAgainstRedis(String client, String protocol) throws Exception {
        ClientRun r = onRedis(client, protocol);
        assertTrue(r.passed(), () -> client + " (protocol " + protocol + ") against redis-server " + redisVersion
                + " (the scenario itself is wrong):" + r.failures());
    }

    @ParameterizedTest(name = "{0}, protocol {1}, against Cajon as against redis-server")
    @MethodSource("runs")
    void passesAgainstCajonAsAgainstRedis(String client, String protocol) throws Exception {
        ClientRun redis = onRedis(client, protocol);
        ClientRun c = run(client, protocol, "cajon", cajon.port());
        List<Executable> checks = new ArrayList<>();
        checks.add(() -> assertTrue(c.passed(), () -> client + " (protocol " + protocol + ") against Cajon:"
                + c.failures()));
        Map<String, ClientRun.Step> theirs = redis.byName();
        for (ClientRun.Step mine : c.steps()) {
            ClientRun.Step ref = theirs.get(mine.name());
            if (mine.ok() && ref != null && ref.ok()) {
                checks.add(() -> assertEquals(ref.observed(), mine.observed(), () -> client + " (protocol "
                        + protocol + "), step " + mine.name() + ": Cajon's replies reach the client differently"
                        + " (expected: redis-server " + redisVersion + ", actual: Cajon)"));
            }
        }
        assertAll(checks);
    }

    private static ClientRun onRedis(String client, String protocol) throws Exception {
        String key = client + "/" + protocol;
        ClientRun r = ON_REDIS.get(key);
        if (r == null) {
            r = run(client, protocol, "redis-server", redisPort);
            ON_REDIS.put(key, r);
        }
        return r;
    }

    /**
     * One run of the scenario; skips (an assumption that says why) when the client is not there.
     * With {@code CAJON_MATRIX_TRACE_DIR} set, the run goes through {@code clients/trace/resp-trace.py}
     * and its commands and replies are written to {@code DIR/<server>/<client>-<protocol>.log}.
     */
    private static ClientRun run(String client, String protocol, String server, int port) throws Exception {
        Path traces = ExternalClients.traceDir();
        if (traces == null) {
            return runDirect(client, protocol, server, port);
        }
        try (ExternalClients.TraceProxy proxy = ExternalClients.startTrace(port,
                traces.resolve(server).resolve(client + "-" + protocol + ".log"))) {
            return runDirect(client, protocol, server, proxy.port());
        }
    }

    private static ClientRun runDirect(String client, String protocol, String server, int port) throws Exception {
        String prefix = "matrix:" + client + ":" + protocol + ":";
        switch (client) {
            case "jedis" -> {
                try (JedisMatrixClient j = new JedisMatrixClient(port, protocol)) {
                    return ClientRun.parse(server, JavaScenario.run(j, client, JedisMatrixClient.version(), protocol,
                            prefix), null);
                }
            }
            case "lettuce" -> {
                try (LettuceMatrixClient l = new LettuceMatrixClient(port, protocol)) {
                    return ClientRun.parse(server, JavaScenario.run(l, client, LettuceMatrixClient.version(),
                            protocol, prefix), null);
                }
            }
            case "node-redis", "ioredis" -> {
                Assumptions.assumeTrue(ExternalClients.node() != null,
                        () -> ExternalClients.whyNoNode() + ": the " + client + " runs are skipped");
                String module = client.equals("node-redis") ? "redis" : "ioredis";
                Path modules = ExternalClients.nodeModules();
                Assumptions.assumeTrue(Files.isRegularFile(modules.resolve(module).resolve("package.json")),
                        () -> client + " (npm package '" + module + "') is not installed in " + modules
                                + ": run bin/install-test-clients, or set CAJON_NODE_MODULES to a node_modules"
                                + " folder that has it");
                return notSkipped(client, ExternalClients.runNode(server, client, port, protocol));
            }
            case "redis-py" -> {
                Path python = ExternalClients.python();
                Assumptions.assumeTrue(Files.isExecutable(python), () -> python + " does not exist (set CAJON_PYTHON"
                        + " to a Python with redis-py): the redis-py runs are skipped");
                return notSkipped(client, ExternalClients.runPython(server, port, protocol));
            }
            default -> throw new IllegalArgumentException(client);
        }
    }

    private static ClientRun notSkipped(String client, ClientRun r) {
        Assumptions.assumeTrue(r.notRun() == null, () -> client + " not run: " + r.notRun()
                + (client.equals("redis-py") && r.notRun().contains("not installed")
                        ? " (run bin/install-test-clients, which installs Debian's python3-redis, or set CAJON_PYTHON)"
                        : ""));
        return r;
    }
}
