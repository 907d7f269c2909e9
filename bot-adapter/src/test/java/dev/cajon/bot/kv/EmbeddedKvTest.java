package dev.cajon.bot.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.Keyspace;
import dev.cajon.storage.ManualClock;
import dev.cajon.storage.Store;
import dev.cajon.storage.durability.DiskSpace;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The contract on Cajon's storage in this JVM, in an app of its own. */
class EmbeddedKvTest extends KvContract {
    private final ManualClock clock = new ManualClock(1_700_000_000_000L);
    private Store store;
    private Kv kv;

    @BeforeAll
    void open(@TempDir Path dir) {
        store = Store.open(dir, clock);
        kv = new EmbeddedKv(store, "bot", 0);
    }

    @AfterAll
    void close() {
        kv.close();
        store.close();
    }

    @Override
    Kv kv() {
        return kv;
    }

    /** The server's min-free-disk rule, embedded: writes that add data fail, reads and deletes go on. */
    @Test
    void writesThatAddDataFailWhileTheDiskIsUnderItsFloor() {
        DiskSpace disk = store.durability().disk();
        kv.set("disk:a", "1", SetOptions.PLAIN);
        kv.set("disk:b", "1", SetOptions.PLAIN);
        disk.usableSpace(() -> 0);
        try {
            KvException e = assertThrows(KvException.class, () -> kv.set("disk:c", "1", SetOptions.PLAIN));
            assertTrue(e.getMessage().startsWith("MISCONF"), e.getMessage());
            assertThrows(KvException.class, () -> kv.incr("disk:n"));
            assertThrows(KvException.class, () -> kv.pipeline(List.of(new Op.Del("disk:b"), new Op.Incr("disk:n"))));
            assertEquals("1", kv.get("disk:a"));
            assertTrue(kv.del("disk:a"));
            assertEquals(List.of(true), kv.pipeline(List.of(new Op.Del("disk:b"))));
        } finally {
            disk.usableSpace(() -> Long.MAX_VALUE);
        }
        assertTrue(kv.set("disk:c", "1", SetOptions.PLAIN).applied());
    }

    @Override
    long pttl(String key) {
        Keyspace ks = store.keyspace("bot", 0);
        long d = ks.deadline(key.getBytes(StandardCharsets.UTF_8));
        return d < 0 ? d : d - clock.nowMillis();
    }
}
