package dev.cajon.bot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FencingTest {
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

    /** A worker frozen past its lease (a GC pause) comes back and tries to commit. */
    @Test
    void aFrozenWorkersCommitIsRejectedAndCountedAndTheNewerStateStays() throws Exception {
        CountDownLatch frozen = new CountDownLatch(1);
        CountDownLatch thaw = new CountDownLatch(1);
        AtomicLong frozenFence = new AtomicLong();
        AtomicLong takeoverFence = new AtomicLong();
        try (BotAdapter a = fx.builder("replica-a").handler((m, ctx) -> {
                    frozenFence.set(ctx.fence());
                    frozen.countDown();
                    thaw.await(30, TimeUnit.SECONDS);
                    ctx.setState("cart from the frozen worker");
                    ctx.send("stale reply");
                }).build();
             BotAdapter b = fx.builder("replica-b").handler((m, ctx) -> {
                 takeoverFence.set(ctx.fence());
                 ctx.setState("cart from replica b");
                 ctx.send("stale reply");
             }).build()) {
            InboundMessage m = new InboundMessage("c", "m1", "1 arroz");
            CompletableFuture<HandleResult> first = CompletableFuture.supplyAsync(() -> a.handle(m));
            assertTrue(frozen.await(10, TimeUnit.SECONDS));
            fx.advance(Duration.ofSeconds(61)); // the lease runs out while a is frozen
            b.sweep();
            assertEquals("DONE", b.inbound(m.id()).state());
            assertTrue(takeoverFence.get() > frozenFence.get(), takeoverFence + " after " + frozenFence);
            thaw.countDown();
            assertEquals(HandleResult.Status.STALE, first.get(10, TimeUnit.SECONDS).status());
            assertEquals(1, a.metrics().staleLeases());
            assertEquals("cart from replica b", fx.kv.get("bot:{c:c}:state"));
            assertEquals(1, fx.provider.count("stale reply"), "both used key c/m1:1: sent once");
        }
    }

    /**
     * A provider call frozen past its lease: another replica finds the send CALLING and expired,
     * holds it as ambiguous; the frozen sender's markSent (EXEC on the WATCH it kept since its
     * claim) must be rejected, counted, and leave the ambiguous record as it is.
     */
    @Test
    void aSendFrozenInTheProviderPastItsLeaseCannotMarkItSent() throws Exception {
        CountDownLatch calling = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (BotAdapter a = fx.builder("replica-a").provider((chat, text) -> {
                    calling.countDown();
                    release.await(30, TimeUnit.SECONDS);
                    return "pid-late";
                }).build();
             BotAdapter b = fx.builder("replica-b").build()) {
            CompletableFuture<SendResult> r = CompletableFuture.supplyAsync(() -> a.send("c", "slow", "k"));
            assertTrue(calling.await(10, TimeUnit.SECONDS));
            assertEquals("CALLING", b.outbound("k").state());
            fx.advance(Duration.ofSeconds(61)); // the send's lease runs out while the provider hangs
            b.sweep();
            assertEquals("AMBIGUOUS", b.outbound("k").state());
            release.countDown();
            r.get(10, TimeUnit.SECONDS);
            assertEquals(1, a.metrics().staleLeases(), "the late markSent was rejected");
            assertEquals("AMBIGUOUS", b.outbound("k").state(), "and wrote nothing");
            assertEquals(null, b.outbound("k").providerMessageId());
            assertEquals(1, b.metrics().outboxAmbiguous());
        }
    }

    @Test
    void otherChatsGoOnWhileOneChatIsBusy() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (BotAdapter a = fx.builder("a").handler((m, ctx) -> {
            if (m.chat().equals("slow")) {
                inside.countDown();
                release.await(30, TimeUnit.SECONDS);
            }
            ctx.send("done " + m.id());
        }).build()) {
            CompletableFuture<HandleResult> slow = CompletableFuture.supplyAsync(
                    () -> a.handle(new InboundMessage("slow", "m1", "x")));
            assertTrue(inside.await(10, TimeUnit.SECONDS));
            assertEquals(HandleResult.Status.DONE, a.handle(new InboundMessage("fast", "m1", "x")).status());
            assertEquals(1, fx.provider.count("done fast/m1"));
            release.countDown();
            assertEquals(HandleResult.Status.DONE, slow.get(10, TimeUnit.SECONDS).status());
        }
    }

    @Test
    void fencingTokensOfAChatStrictlyIncrease() {
        java.util.List<Long> fences = new java.util.ArrayList<>();
        try (BotAdapter a = fx.builder("a").handler((m, ctx) -> fences.add(ctx.fence())).build()) {
            for (int i = 0; i < 5; i++) {
                a.handle(new InboundMessage("c", "m" + i, "x"));
            }
        }
        try (BotAdapter b = fx.builder("b").handler((m, ctx) -> fences.add(ctx.fence())).build()) {
            b.handle(new InboundMessage("c", "m9", "x"));
        }
        for (int i = 1; i < fences.size(); i++) {
            assertTrue(fences.get(i) > fences.get(i - 1), fences.toString());
        }
    }

    @Test
    void aChatHeldByAnotherReplicaIsQueuedAndHandledWhenFree() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (BotAdapter a = fx.builder("a").handler((m, ctx) -> {
                    inside.countDown();
                    release.await(30, TimeUnit.SECONDS);
                    ctx.setState((ctx.state() == null ? "" : ctx.state()) + m.payload());
                }).build();
             BotAdapter b = fx.builder("b").handler((m, ctx) ->
                     ctx.setState((ctx.state() == null ? "" : ctx.state()) + m.payload())).build()) {
            CompletableFuture<HandleResult> first = CompletableFuture.supplyAsync(
                    () -> a.handle(new InboundMessage("c", "m1", "2 leches;")));
            assertTrue(inside.await(10, TimeUnit.SECONDS));
            assertEquals(HandleResult.Status.QUEUED, b.handle(new InboundMessage("c", "m2", "1 arroz;")).status());
            release.countDown();
            assertEquals(HandleResult.Status.DONE, first.get(10, TimeUnit.SECONDS).status());
            fx.advance(Duration.ofSeconds(1));
            b.sweep();
            assertEquals("DONE", b.inbound(new InboundId("c", "m2")).state());
            assertEquals("2 leches;1 arroz;", fx.kv.get("bot:{c:c}:state"));
        }
    }
}
