package dev.cajon.bot.kv;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/** The contract over RESP against a Cajon server started in this JVM on a free port. */
class CajonServerKvTest extends KvContract {
    private CajonServer server;
    private Kv kv;
    private Jedis probe;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        server = CajonServer.start(ServerConfig.defaults().withPort(0).withBind("127.0.0.1").withDir(dir)
                .withExpiryWarmup(false));
        kv = JedisKv.remote("127.0.0.1", server.port());
        probe = new Jedis(new redis.clients.jedis.HostAndPort("127.0.0.1", server.port()), JedisKv.config(null, null));
    }

    @AfterAll
    void stop() {
        probe.close();
        kv.close();
        server.close();
    }

    @Override
    Kv kv() {
        return kv;
    }

    @Override
    long pttl(String key) {
        return probe.pttl(key);
    }
}
