package dev.cajon.bot.kv;

import dev.cajon.storage.Keyspace;
import dev.cajon.storage.ManualClock;
import dev.cajon.storage.Store;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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

    @Override
    long pttl(String key) {
        Keyspace ks = store.keyspace("bot", 0);
        long d = ks.deadline(key.getBytes(StandardCharsets.UTF_8));
        return d < 0 ? d : d - clock.nowMillis();
    }
}
