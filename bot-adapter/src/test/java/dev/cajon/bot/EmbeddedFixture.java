package dev.cajon.bot;

import dev.cajon.bot.kv.EmbeddedKv;
import dev.cajon.bot.kv.Kv;
import dev.cajon.storage.ManualClock;
import dev.cajon.storage.Store;
import java.nio.file.Path;
import java.time.Duration;

/** An embedded store on a manual clock, and adapters on it with the background sweeper off. */
final class EmbeddedFixture implements AutoCloseable {
    final ManualClock clock = new ManualClock(1_767_225_600_000L); // 2026-01-01
    final Store store;
    final Kv kv;
    final FakeProvider provider = new FakeProvider();

    EmbeddedFixture(Path dir) {
        store = Store.open(dir, clock);
        kv = new EmbeddedKv(store, "bot", 0);
    }

    BotAdapter.Builder builder(String instanceId) {
        return BotAdapter.builder().backend(kv).instanceId(instanceId).clock(clock).provider(provider)
                .backgroundSweeper(false).random(new java.util.SplittableRandom(7));
    }

    void advance(Duration d) {
        clock.advance(d.toMillis());
    }

    @Override
    public void close() {
        store.close();
    }
}
