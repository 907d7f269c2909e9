package dev.cajon.bot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OutboxTest {
    @TempDir
    Path dir;
    EmbeddedFixture fx;

    @BeforeEach
    void open() {
        fx = new EmbeddedFixture(dir);
    }

    @AfterEach
    void close() {
        fx.close();
    }

    @Test
    void aKeyAlreadySentReturnsTheStoredIdWithoutCallingTheProvider() {
        try (BotAdapter bot = fx.builder("a").build()) {
            SendResult first = bot.send("c", "hello", "order-42-confirmation");
            SendResult again = bot.send("c", "hello", "order-42-confirmation");
            assertEquals(SendResult.Status.SENT, first.status());
            assertEquals(SendResult.Status.DEDUPED, again.status());
            assertEquals(first.providerMessageId(), again.providerMessageId());
            assertEquals(1, fx.provider.calls().size());
            assertEquals(1, bot.metrics().outboxDeduped());
        }
    }

    @Test
    void keysAreExplicitThenInboundAndPositionThenRandom() {
        try (BotAdapter bot = fx.builder("a").handler((m, ctx) -> {
            ctx.send("one");
            ctx.send("two", "explicit-key");
            ctx.send("three");
        }).build()) {
            bot.handle(new InboundMessage("c", "m9", "x"));
            assertEquals("SENT", bot.outbound("c/m9:1").state());
            assertEquals("SENT", bot.outbound("explicit-key").state());
            assertEquals("three", bot.outbound("c/m9:2").content());
            SendResult r1 = bot.send("c", "x", null);
            SendResult r2 = bot.send("c", "x", null);
            assertNotEquals(r1.key(), r2.key());
            assertEquals(2, fx.provider.count("x"));
        }
    }

    /**
     * A null key while handling is no explicit key: the position key, also when the handler calls
     * the adapter's own send (on its thread) instead of its context's, and so a re-run handler
     * after a failure finds its first sends recorded and does not repeat them.
     */
    @Test
    void aNullKeyWhileHandlingIsThePositionKey() {
        BotAdapter[] self = new BotAdapter[1];
        int[] runs = {0};
        try (BotAdapter bot = fx.builder("a").handler((m, ctx) -> {
            ctx.send("one", null);
            self[0].send("other-chat", "two", null);
            if (runs[0]++ == 0) {
                throw new IllegalStateException("fails once, after its sends");
            }
        }).build()) {
            self[0] = bot;
            bot.handle(new InboundMessage("c", "m7", "x"));
            assertEquals("one", bot.outbound("c/m7:1").content());
            assertEquals("two", bot.outbound("c/m7:2").content());
            assertEquals("other-chat", bot.outbound("c/m7:2").chat());
            fx.advance(java.time.Duration.ofSeconds(2)); // the retry's backoff
            bot.sweep();
            assertEquals("DONE", bot.inbound(new InboundId("c", "m7")).state());
            assertEquals(2, runs[0]);
            assertEquals(1, fx.provider.count("one"), "the re-run found its send recorded");
            assertEquals(1, fx.provider.count("two"));
        }
    }

    @Test
    void failuresBackOffExponentiallyWithJitterThenGoDeadThenRetrySendSendsIt() {
        List<BotEvent> events = new CopyOnWriteArrayList<>();
        fx.provider.failNext(100);
        try (BotAdapter bot = fx.builder("a").events(events::add).build()) {
            assertEquals(SendResult.Status.PENDING, bot.send("c", "hi", "k").status());
            long[] waits = new long[6];
            long last = fx.clock.nowMillis();
            for (int i = 0; i < 400 && !bot.outbound("k").state().equals("DEAD"); i++) {
                int before = bot.outbound("k").attempts();
                fx.advance(Duration.ofMillis(250));
                bot.sweep();
                int after = bot.outbound("k").attempts();
                if (after > before) {
                    waits[before] = fx.clock.nowMillis() - last;
                    last = fx.clock.nowMillis();
                }
            }
            assertEquals("DEAD", bot.outbound("k").state());
            assertEquals(6, bot.outbound("k").attempts(), "1 call and 5 retries");
            // retry n waits between half and all of min(60 s, 1 s * 2^(n-1)), and at most 1 s more (sweeps)
            for (int n = 1; n <= 5; n++) {
                long step = Math.min(60_000, 1_000L << (n - 1));
                assertTrue(waits[n] >= step / 2 && waits[n] <= step + 1_000, "retry " + n + " waited " + waits[n]);
            }
            assertEquals(5, bot.metrics().outboxRetried());
            assertEquals(1, bot.metrics().outboxDead());
            assertEquals(List.of("k"), bot.deadOutbound(10).stream().map(OutboundRecord::key).toList());
            assertTrue(events.stream().anyMatch(e -> e.type() == BotEvent.Type.OUTBOUND_DEAD && e.ref().equals("k")));
            fx.provider.failNext(0);
            assertEquals(SendResult.Status.SENT, bot.retrySend("k").status());
            assertEquals(List.of(), bot.deadOutbound(10));
            assertEquals(1, fx.provider.count("hi"));
        }
    }

    @Test
    void aDeferredSendGoesOutWithinOneSecondOfNotBeforeAndOnlyOnce() {
        try (BotAdapter bot = fx.builder("a").build()) {
            Instant at = Instant.ofEpochMilli(fx.clock.nowMillis() + 10_300);
            assertEquals(SendResult.Status.PENDING, bot.enqueue("c", "reminder", "rem-1", at).status());
            assertEquals(SendResult.Status.PENDING, bot.enqueue("c", "reminder", "rem-1", at).status());
            assertEquals(1, bot.metrics().outboxDeferred());
            long sentAt = -1;
            for (int i = 0; i < 200 && sentAt < 0; i++) {
                fx.advance(Duration.ofMillis(100));
                bot.sweep();
                if (fx.provider.count("reminder") > 0) {
                    sentAt = fx.clock.nowMillis();
                }
            }
            assertTrue(sentAt >= at.toEpochMilli() && sentAt <= at.toEpochMilli() + 1_000,
                    "sent " + (sentAt - at.toEpochMilli()) + " ms after notBefore");
            fx.advance(Duration.ofMinutes(5));
            bot.sweep();
            assertEquals(1, fx.provider.count("reminder"));
        }
    }

    @Test
    void aPayloadOverTheLimitBypassesTheOutboxAndIsCounted() {
        List<BotEvent> events = new CopyOnWriteArrayList<>();
        try (BotAdapter bot = fx.builder("a").maxPayloadBytes(16).events(events::add).build()) {
            SendResult r = bot.send("c", "x".repeat(17), "big");
            assertEquals(SendResult.Status.BYPASSED, r.status());
            assertEquals(null, bot.outbound("big"));
            assertEquals(1, bot.metrics().outboxBypassed());
            assertEquals(SendResult.Status.SENT, bot.send("c", "x".repeat(16), "small").status());
            assertEquals(BotEvent.Type.OUTBOUND_BYPASSED, events.get(0).type());
            // a deferred send must be recorded to be sent later: over the limit it is refused
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> bot.enqueue("c",
                    "x".repeat(17), "big-later", java.time.Instant.ofEpochMilli(fx.clock.nowMillis() + 5_000)));
            assertEquals(null, bot.outbound("big-later"));
            assertEquals(1, bot.metrics().outboxBypassed());
        }
    }

    @Test
    void aSweepNeverTakesTheSendThisInstanceIsMakingNow() throws Exception {
        java.util.concurrent.CountDownLatch calling = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (BotAdapter bot = fx.builder("a").provider((chat, text) -> {
            calling.countDown();
            release.await(30, TimeUnit.SECONDS);
            return "pid-1";
        }).build()) {
            java.util.concurrent.CompletableFuture<SendResult> r =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> bot.send("c", "slow", "k"));
            assertTrue(calling.await(10, TimeUnit.SECONDS));
            bot.recover();
            bot.sweep();
            fx.advance(Duration.ofSeconds(30)); // within the lease
            bot.sweep();
            assertEquals("CALLING", bot.outbound("k").state());
            release.countDown();
            assertEquals(SendResult.Status.SENT, r.get(10, TimeUnit.SECONDS).status());
            assertEquals(0, bot.metrics().outboxAmbiguous());
        }
    }

    @Test
    void discardEndsASendThatWasNotSent() {
        fx.provider.failNext(1);
        try (BotAdapter bot = fx.builder("a").build()) {
            bot.send("c", "x", "k");
            assertEquals(List.of("k"), bot.failedOutbound(10).stream().map(OutboundRecord::key).toList());
            assertTrue(bot.discard("k"));
            fx.advance(Duration.ofMinutes(2));
            bot.sweep();
            assertEquals("DISCARDED", bot.outbound("k").state());
            assertEquals(0, fx.provider.calls().size());
            assertEquals(List.of(), bot.failedOutbound(10));
        }
    }
}
