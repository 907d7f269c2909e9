package dev.cajon.server.hardening;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import dev.cajon.storage.durability.DiskSpace;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A data directory short of disk (the free space is injected, see {@link DiskSpace}): the
 * commands that add data are refused with -MISCONF, everything else goes on, and writes come
 * back when the space does. Without the floor a sparse map's page written on a full file system
 * is a SIGBUS inside Chronicle.
 */
@Timeout(120)
class DiskLowTest {
    @TempDir
    Path dir;

    @Test
    void writesThatAddDataAreRefusedWhileTheDiskIsUnderTheFloor() throws Exception {
        try (CajonServer server = CajonServer.start(ServerConfig.defaults().withPort(0).withDir(dir.resolve("data"))
                .withExpiryWarmup(false));
             Jedis j = new Jedis("127.0.0.1", server.port())) {
            AtomicLong free = new AtomicLong(10L << 30);
            DiskSpace disk = server.store().durability().disk();
            disk.usableSpace(free::get);
            assertEquals("OK", j.set("kept", "v"));
            j.hset("h", "f", "1");
            j.rpush("l", "a", "b");
            j.set("doomed", "x");

            free.set(DiskSpace.DEFAULT_MIN_FREE - 1);
            disk.usableSpace(free::get); // read anew now rather than within the cache's 250 ms
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.set("new", "v"));
            assertTrue(e.getMessage().startsWith("MISCONF ") && e.getMessage().contains("min-free-disk"), e.getMessage());
            assertThrows(JedisDataException.class, () -> j.hset("h", "g", "2"));
            assertThrows(JedisDataException.class, () -> j.rpush("l", "c"));
            assertThrows(JedisDataException.class, () -> j.incr("counter"));

            // reads, deletes and what frees or shrinks go on
            assertEquals("v", j.get("kept"));
            assertEquals("1", j.hget("h", "f"));
            assertEquals("a", j.lpop("l"));
            assertThrows(JedisDataException.class, () -> j.hincrBy("h", "f", 1), "denyoom in Redis too");
            assertEquals(1L, j.hdel("h", "f"));
            assertEquals(1L, j.del("doomed"));
            assertEquals(1L, j.expire("kept", 1000));
            assertEquals("PONG", j.ping());

            // a transaction with a refused command is discarded whole, as under maxmemory
            Transaction t = j.multi();
            t.set("tx", "v");
            t.get("kept");
            JedisDataException aborted = assertThrows(JedisDataException.class, t::exec);
            assertTrue(aborted.getMessage().startsWith("EXECABORT"), aborted.getMessage());
            assertEquals(Boolean.FALSE, j.exists("tx"));

            free.set(10L << 30);
            disk.usableSpace(free::get);
            assertEquals("OK", j.set("new", "v"));
            assertEquals("v", j.get("new"));
            assertEquals(3L, j.rpush("l", "c", "d"));
        }
    }

    @Test
    void configSetMovesTheFloor() throws Exception {
        try (CajonServer server = CajonServer.start(ServerConfig.defaults().withPort(0).withDir(dir.resolve("data"))
                .withExpiryWarmup(false));
             Jedis j = new Jedis("127.0.0.1", server.port())) {
            DiskSpace disk = server.store().durability().disk();
            disk.usableSpace(() -> 100L << 20); // 100 MiB free
            assertEquals(String.valueOf(DiskSpace.DEFAULT_MIN_FREE), j.configGet("min-free-disk").get("min-free-disk"));
            assertEquals("OK", j.set("a", "1"));
            assertEquals("OK", j.configSet("min-free-disk", "200mb"));
            assertEquals(String.valueOf(200L << 20), j.configGet("min-free-disk").get("min-free-disk"));
            disk.usableSpace(() -> 100L << 20);
            assertThrows(JedisDataException.class, () -> j.set("b", "1"));
            assertEquals("OK", j.configSet("min-free-disk", "0"));
            assertEquals("OK", j.set("b", "1"));
            JedisDataException bad = assertThrows(JedisDataException.class, () -> j.configSet("min-free-disk", "lots"));
            assertTrue(bad.getMessage().contains("min-free-disk"), bad.getMessage());
        }
    }
}
