package dev.cajon.bot.kv;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The contract against a 3-master Redis Cluster of Debian's redis-server, started once for this
 * class on loopback ports and removed afterwards (skipped without redis-server).
 */
class RedisClusterKvTest extends KvContract {
    private RedisProcesses cluster;
    private Kv kv;
    private JedisCluster probe;

    @BeforeAll
    void start() throws Exception {
        cluster = RedisProcesses.cluster(3);
        Assumptions.assumeTrue(cluster != null, "redis-server or redis-cli is not on the PATH: skipped");
        Set<HostAndPort> nodes = new HashSet<>();
        for (int p : cluster.ports()) {
            nodes.add(new HostAndPort("127.0.0.1", p));
        }
        kv = JedisKv.cluster(nodes, null, null);
        probe = new JedisCluster(nodes, JedisKv.config(null, null));
    }

    @AfterAll
    void stop() throws Exception {
        if (probe != null) {
            probe.close();
            kv.close();
        }
        if (cluster != null) {
            cluster.close();
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

    @Test
    void theTestsTagsReallySpreadOverTheMasters() {
        Set<HostAndPort> owners = new HashSet<>();
        for (int i = 0; i < 64; i++) {
            try (Connection c = probe.getConnectionFromSlot(JedisClusterCRC16.getSlot(key(tag(), "x")))) {
                owners.add(c.getHostAndPort());
            }
        }
        assertTrue(owners.size() == 3, "tags landed on " + owners);
    }

    @Test
    void aTransactionOverTwoSlotsIsRefusedBeforeAnythingIsSent() {
        String a = key("one", "a");
        String b = key("two", "b");
        assertTrue(JedisClusterCRC16.getSlot(a) != JedisClusterCRC16.getSlot(b));
        assertThrows(KvException.class, () -> kv.watch(List.of(a, b)).close());
        try (Kv.Tx tx = kv.watch(List.of(a))) {
            assertThrows(KvException.class, () -> tx.exec(List.of(new Op.Set(b, "x", 0))));
        }
    }
}
