package dev.cajon.server.compat;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import dev.cajon.server.compat.RedisServerExtension.RedisProcess;
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

    @BeforeAll
    void startServers(RedisProcess redisProcess, @TempDir Path dataDir) throws Exception {
        redis = redisProcess;
        // no expiry warm-up beside real-time TTL comparisons: its CPU would only add noise
        cajon = CajonServer.start(ServerConfig.defaults().withPort(0).withDir(dataDir).withExpiryWarmup(false));
    }

    @AfterAll
    void stopCajon() {
        if (cajon != null) {
            cajon.close();
            cajon = null;
        }
    }

    /** A new scenario against this class's two servers. */
    Scenario scenario(String name) {
        return new Scenario(name, redis.version(), redis.port(), cajon.port());
    }

    int redisPort() {
        return redis.port();
    }

    int cajonPort() {
        return cajon.port();
    }

    /** The current Unix time in seconds, for absolute expire times. */
    static long nowSeconds() {
        return System.currentTimeMillis() / 1000;
    }
}
