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

    /**
     * A transaction's MULTI, writes and EXEC reach the server as one read, so WATCH+GET and EXEC
     * are two round trips (Jedis's own Transaction sends EXEC only after reading the QUEUED
     * replies: three). Counted by redis-server itself ({@code total_reads_processed}).
     */
    @org.junit.jupiter.api.Test
    void aTransactionIsOneRoundTripOnTheWire() {
        int n = 50;
        long before = readsProcessed();
        for (int i = 0; i < n; i++) {
            try (Kv.Tx tx = kv.watch(java.util.List.of("{rt}:a"))) {
                tx.exec(java.util.List.of(new Op.Set("{rt}:a", "v" + i, 0), new Op.Set("{rt}:b", "w" + i, 0)));
            }
        }
        long reads = readsProcessed() - before - 1; // the INFO of the first reading
        org.junit.jupiter.api.Assertions.assertTrue(reads <= 2L * n + 2,
                n + " WATCH+GET then MULTI/SET/SET/EXEC took " + reads + " reads on the server, not " + 2 * n);
        org.junit.jupiter.api.Assertions.assertEquals("v" + (n - 1), probe.get("{rt}:a"));
        org.junit.jupiter.api.Assertions.assertEquals("w" + (n - 1), probe.get("{rt}:b"));
    }

    @org.junit.jupiter.api.Test
    void execThenWatchIsOneRoundTripOnTheWire() {
        int n = 50;
        long before = readsProcessed();
        for (int i = 0; i < n; i++) {
            Kv.Chained c;
            try (Kv.Tx tx = kv.watch(java.util.List.of("{rt2}:a"))) {
                c = tx.execThenWatch(java.util.List.of(new Op.Set("{rt2}:a", "v" + i, 0)),
                        java.util.List.of("{rt2}:a", "{rt2}:b"));
            }
            try (Kv.Tx held = c.next()) {
                held.exec(java.util.List.of(new Op.Set("{rt2}:b", "w" + i, 0)));
            }
        }
        long reads = readsProcessed() - before - 1;
        org.junit.jupiter.api.Assertions.assertTrue(reads <= 3L * n + 2,
                n + " WATCH+GET, EXEC+WATCH+GETs, EXEC took " + reads + " reads on the server, not " + 3 * n);
        org.junit.jupiter.api.Assertions.assertEquals("w" + (n - 1), probe.get("{rt2}:b"));
    }

    private long readsProcessed() {
        for (String line : probe.info("stats").split("\r?\n")) {
            if (line.startsWith("total_reads_processed:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        throw new AssertionError("no total_reads_processed in INFO stats");
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
