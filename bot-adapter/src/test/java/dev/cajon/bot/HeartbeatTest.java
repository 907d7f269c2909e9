package dev.cajon.bot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.bot.store.Fields;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A handler that runs longer than its lease keeps it: the heartbeat (every lease / 3, on a real
 * timer) pushes the deadline on, so a replica does not take the chat over and the handler's
 * commit is accepted. The lease here is 300 ms so the heartbeat comes quickly; the deadline is
 * computed with the manual clock, which the test moves.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HeartbeatTest {
    @TempDir
    Path dir;

    @Test
    void aLongHandlerKeepsItsLeaseThroughHeartbeats() throws Exception {
        try (EmbeddedFixture fx = new EmbeddedFixture(dir)) {
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            try (BotAdapter a = fx.builder("a").lease(Duration.ofMillis(300)).handler((m, ctx) -> {
                        inside.countDown();
                        release.await(30, TimeUnit.SECONDS);
                        ctx.setState("from a");
                    }).build();
                 BotAdapter b = fx.builder("b").lease(Duration.ofMillis(300)).handler((m, ctx) ->
                         ctx.setState("from b")).build()) {
                InboundMessage m = new InboundMessage("c", "m1", "x");
                CompletableFuture<HandleResult> run = CompletableFuture.supplyAsync(() -> a.handle(m));
                assertTrue(inside.await(10, TimeUnit.SECONDS));
                for (int round = 0; round < 4; round++) { // 4 x 200 ms: well past the first 300 ms
                    fx.advance(Duration.ofMillis(200));
                    long want = fx.clock.nowMillis() + 300;
                    awaitDeadline(() -> until(fx), want, "the heartbeat moved the deadline on");
                    b.sweep();
                    assertEquals("LEASED", b.inbound(m.id()).state(), "b must not take a live lease over");
                }
                release.countDown();
                assertEquals(HandleResult.Status.DONE, run.get(10, TimeUnit.SECONDS).status());
                assertEquals("from a", a.chatState("c"));
                assertEquals(0, a.metrics().staleLeases());
            }
        }
    }

    /**
     * A provider call that outlasts the send's lease keeps the send's claim: without the
     * heartbeat a replica's sweep would take the CALLING record for a crash and mark it
     * ambiguous (and under RESEND send it a second time).
     */
    @Test
    void aLongProviderCallKeepsItsSendsLease() throws Exception {
        try (EmbeddedFixture fx = new EmbeddedFixture(dir)) {
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            int[] calls = {0};
            Provider slow = (chat, content) -> {
                calls[0]++;
                inside.countDown();
                release.await(30, TimeUnit.SECONDS);
                return "pid-" + calls[0];
            };
            try (BotAdapter a = fx.builder("a").lease(Duration.ofMillis(300)).provider(slow).build();
                 BotAdapter b = fx.builder("b").lease(Duration.ofMillis(300))
                         .ambiguousPolicy(AmbiguousPolicy.RESEND).build()) {
                CompletableFuture<SendResult> run = CompletableFuture.supplyAsync(() -> a.send("c", "slow", "k1"));
                assertTrue(inside.await(10, TimeUnit.SECONDS));
                for (int round = 0; round < 4; round++) {
                    fx.advance(Duration.ofMillis(200));
                    long want = fx.clock.nowMillis() + 300;
                    awaitDeadline(() -> sendUntil(fx), want, "the heartbeat moved the send's deadline on");
                    b.sweep();
                    assertEquals("CALLING", b.outbound("k1").state(), "b must not take a live call for a crash");
                }
                release.countDown();
                SendResult r = run.get(10, TimeUnit.SECONDS);
                assertEquals(SendResult.Status.SENT, r.status());
                assertEquals("SENT", a.outbound("k1").state());
                assertEquals(1, calls[0], "sent once");
                assertEquals(0, a.metrics().outboxAmbiguous() + b.metrics().outboxAmbiguous());
                assertEquals(0, a.metrics().staleLeases());
            }
        }
    }

    /** Waits (bounded) for the heartbeat thread to move a deadline to {@code want}; not a wait for a TTL. */
    private static void awaitDeadline(java.util.function.LongSupplier deadline, long want, String what)
            throws InterruptedException {
        long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (deadline.getAsLong() < want && System.nanoTime() < bound) {
            Thread.sleep(10);
        }
        assertEquals(want, deadline.getAsLong(), what);
    }

    private static long sendUntil(EmbeddedFixture fx) {
        return Fields.decode(fx.kv.get("bot:{o:k1}:out")).getLong("until", 0);
    }

    private static long until(EmbeddedFixture fx) {
        return Fields.decode(fx.kv.get("bot:{c:c}:lease")).getLong("until", 0);
    }
}
