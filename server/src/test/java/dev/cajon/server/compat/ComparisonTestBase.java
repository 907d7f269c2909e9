package dev.cajon.server.compat;

import static org.junit.jupiter.api.Assertions.fail;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import dev.cajon.server.compat.RedisServerExtension.RedisProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of the comparison tests (testing layer 3): each test class gets its own redis-server
 * ({@link RedisServerExtension}) and its own in-process Cajon on a free port with a temporary data
 * directory; each test builds {@link Scenario}s that run against both and compare the replies.
 *
 * <p>A test annotated {@link BothProtocols} (instead of {@code @Test}) runs twice, once per
 * {@link Protocol}, and its scenarios run in that protocol; a plain {@code @Test} runs in RESP2.
 *
 * <p>One test instance per class, so the two servers are instance state (safe even if classes
 * ever run in parallel).
 */
@ExtendWith(RedisServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class ComparisonTestBase {
    /** Redis's LLONG_MAX and LLONG_MIN, as arguments. */
    static final String LLONG_MAX = Long.toString(Long.MAX_VALUE);
    static final String LLONG_MIN = Long.toString(Long.MIN_VALUE);

    private RedisProcess redis;
    private CajonServer cajon;

    /**
     * {@code -Dcompat.redisVsRedis=true}: a second redis-server stands in for Cajon, to check the
     * scenarios themselves. Every comparison must then pass, except Cajon-only steps and tests of
     * Cajon's own command table.
     */
    static final boolean REDIS_VS_REDIS = Boolean.getBoolean("compat.redisVsRedis");

    private RedisProcess standIn;

    /** The protocol of the running test: set by {@link BothProtocols} around each invocation. */
    Protocol protocol = Protocol.RESP2;

    @BeforeAll
    void startServers(RedisProcess redisProcess, @TempDir Path dataDir) throws Exception {
        redis = redisProcess;
        if (REDIS_VS_REDIS) {
            standIn = RedisServerExtension.start(RedisServerExtension.findOnPath("redis-server"));
            return;
        }
        // no expiry warm-up beside real-time TTL comparisons: its CPU would only add noise
        // two event loops whatever the machine (the default leaves a core free, one loop on 2 cores), so
        // that connections of one test meet across loops as they do on a bigger machine
        cajon = CajonServer.start(ServerConfig.defaults().withPort(0).withDir(dataDir).withExpiryWarmup(false)
                .withIoThreads(2));
    }

    @AfterAll
    void stopCajon() throws IOException {
        if (standIn != null) {
            standIn.close();
            standIn = null;
        }
        if (cajon != null) {
            cajon.close();
            cajon = null;
        }
    }

    /** A new scenario against this class's two servers, in the running test's protocol. */
    Scenario scenario(String name) {
        return new Scenario(name, redis.version(), redis.port(), cajonPort(), protocol);
    }

    /**
     * One connection to each server, both in the running test's protocol (HELLO 3 first in
     * RESP3), for tests that read replies themselves. Index 0 is Redis, 1 is Cajon. Fails the
     * test readably if Cajon does not switch to RESP3.
     */
    RespClient[] connectBoth() throws IOException {
        RespClient r = RespClient.connect(redis.port());
        RespClient c = null;
        try {
            c = RespClient.connect(cajonPort());
            if (protocol == Protocol.RESP3) {
                Scenario.hello3(r, c);
            }
            return new RespClient[] {r, c};
        } catch (Scenario.HandshakeFailed e) {
            r.close();
            c.close();
            return fail(protocol.label() + " Cajon did not switch to RESP3 as Redis " + redis.version() + " does: "
                    + e.getMessage());
        } catch (IOException | RuntimeException e) {
            r.close();
            if (c != null) {
                c.close();
            }
            throw e;
        }
    }

    int redisPort() {
        return redis.port();
    }

    int cajonPort() {
        return standIn != null ? standIn.port() : cajon.port();
    }

    /** The current Unix time in seconds, for absolute expire times. */
    static long nowSeconds() {
        return System.currentTimeMillis() / 1000;
    }
}
