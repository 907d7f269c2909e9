package dev.cajon.bot.kv;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import redis.clients.jedis.Jedis;

/** The contract against a real redis-server on a free loopback port (skipped without one). */
class RedisServerKvTest extends KvContract {
    private RedisProcesses redis;
    private Kv kv;
    private Jedis probe;

    @BeforeAll
    void start() throws Exception {
        redis = RedisProcesses.standalone();
        Assumptions.assumeTrue(redis != null, "redis-server or redis-cli is not on the PATH: skipped");
        kv = JedisKv.remote("127.0.0.1", redis.port());
        probe = new Jedis(new redis.clients.jedis.HostAndPort("127.0.0.1", redis.port()), JedisKv.config(null, null));
    }

    @AfterAll
    void stop() throws Exception {
        if (probe != null) {
            probe.close();
            kv.close();
        }
        if (redis != null) {
            redis.close();
        }
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
