package dev.cajon.bot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.bot.kv.CountingKv;
import dev.cajon.bot.kv.EmbeddedKv;
import dev.cajon.storage.ManualClock;
import dev.cajon.storage.Store;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cost of each operation in round trips (the figures in docs/BOT-ADAPTER.md are printed
 * here), and the rule that no sweep costs in proportion to the records kept: a sweep after
 * 5 done messages costs exactly what it costs after 300.
 */
class CostTest {
    @TempDir
    Path dir;

    private long sweepCostAfter(int doneMessages, Path d) {
        ManualClock clock = new ManualClock(1_767_225_600_000L);
        try (Store store = Store.open(d, clock)) {
            CountingKv kv = new CountingKv(new EmbeddedKv(store, "bot", 0));
            try (BotAdapter bot = BotAdapter.builder().backend(kv).clock(clock).provider(new FakeProvider())
                    .backgroundSweeper(false).handler((m, ctx) -> ctx.send("ok")).build()) {
                for (int i = 0; i < doneMessages; i++) {
                    bot.handle(new InboundMessage("c" + (i % 7), "m" + i, "x"));
                }
                clock.advance(61_000);
                // the lease checks of every message come due now, and the claims log (2 entries per
                // message, at most 256 per sweep) is walked: that is due work, done once
                for (int i = 0; i < 5; i++) {
                    bot.sweep();
                }
                clock.advance(10_000);
                kv.reset();
                bot.sweep();
                return kv.roundTrips();
            }
        }
    }

    @Test
    void aSweepCostsTheTimeElapsedNotTheRecordsKept() {
        long few = sweepCostAfter(5, dir.resolve("few"));
        long many = sweepCostAfter(300, dir.resolve("many"));
        assertEquals(few, many, "sweep round trips after 5 vs 300 done messages");
        assertTrue(few > 0);
        System.out.println("sweep of 10 s with nothing due (20 buckets): " + few + " round trips");
    }

    private long measure(CountingKv kv, Runnable r) {
        kv.reset();
        r.run();
        return kv.roundTrips();
    }

    @Test
    void roundTripsPerOperation() {
        ManualClock clock = new ManualClock(1_767_225_600_000L);
        try (Store store = Store.open(dir, clock)) {
            CountingKv kv = new CountingKv(new EmbeddedKv(store, "bot", 0));
            int[] sends = {1};
            IntConsumer setSends = n -> sends[0] = n;
            FakeProvider provider = new FakeProvider();
            try (BotAdapter bot = BotAdapter.builder().backend(kv).clock(clock).provider(provider)
                    .backgroundSweeper(false).handler((m, ctx) -> {
                        for (int i = 0; i < sends[0]; i++) {
                            ctx.send("r" + i);
                        }
                    }).build()) {
                // a bucket's first slot takes its index by INCR, in a round trip of its own
                setSends.accept(0);
                long first = measure(kv, () -> bot.handle(new InboundMessage("w", "first", "x")));
                // a busy bucket: the wheel's indexes come in blocks, one INCRBY for many slots
                setSends.accept(1);
                long busy = measure(kv, () -> {
                    for (int i = 0; i < 200; i++) {
                        bot.handle(new InboundMessage("w", "busy" + i, "x"));
                    }
                });
                int sentBefore = provider.calls().size();
                setSends.accept(0);
                long none = measure(kv, () -> bot.handle(new InboundMessage("c", "m0", "x")));
                setSends.accept(1);
                long one = measure(kv, () -> bot.handle(new InboundMessage("c", "m1", "x")));
                setSends.accept(2);
                long two = measure(kv, () -> bot.handle(new InboundMessage("c", "m2", "x")));
                long dup = measure(kv, () -> bot.handle(new InboundMessage("c", "m2", "x")));
                long sendAlone = measure(kv, () -> bot.send("c", "hello", "k1"));
                long deduped = measure(kv, () -> bot.send("c", "hello", "k1"));
                long enqueue = measure(kv, () -> bot.enqueue("c", "later", "k2", Instant.ofEpochMilli(clock.nowMillis() + 5_000)));
                clock.advance(Duration.ofSeconds(6).toMillis());
                long sweepDeferred = measure(kv, bot::sweep);
                System.out.printf("first message of a bucket: %d%n200 messages with a send each, in one bucket: %d%n",
                        first, busy);
                System.out.printf("handle, no send: %d%nhandle, 1 send: %d%nhandle, 2 sends: %d%n"
                        + "duplicate delivery: %d%nsend outside a handler: %d%nsend of a key already sent: %d%n"
                        + "enqueue: %d%nsweep of 6 s (12 buckets) with the deferred send due: %d%n",
                        none, one, two, dup, sendAlone, deduped, enqueue, sweepDeferred);
                assertEquals(two - one, one - none, "each send costs the same");
                // the table in docs/BOT-ADAPTER.md: a change of the hot path must change it too
                assertEquals(4, first, "handle, no send, the first slot of its bucket");
                // 400 slots after the first: blocks of 1, 2, 4, ... 64 and then 64 each, 12 INCRBYs
                assertTrue(busy <= 200 * 6 + 12, "200 messages with a send each: " + busy);
                assertEquals(3, none, "handle, no send");
                assertEquals(3, one - none, "each send inside the handler");
                assertEquals(2, dup, "duplicate delivery");
                assertEquals(3, sendAlone, "send outside a handler");
                assertEquals(3, deduped, "send of a key already sent");
                assertEquals(3, enqueue, "enqueue");
                assertEquals(5, provider.calls().size() - sentBefore, "m1: 1, m2: 2, k1 once, the deferred k2 once");
                assertEquals(1, provider.count("later"));
            }
        }
    }
}
