package dev.cajon.bot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.bot.kv.Kv;
import dev.cajon.bot.kv.KvException;
import dev.cajon.bot.kv.SetOptions;
import dev.cajon.bot.kv.SetReply;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InboxTest {
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
    void aRedeliveredWebhookIsHandledOnceAndItsReplySentOnce() {
        AtomicInteger runs = new AtomicInteger();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (BotAdapter bot = fx.builder("a").meterRegistry(meters).handler((m, ctx) -> {
            runs.incrementAndGet();
            ctx.send("ok: " + m.payload());
        }).build()) {
            InboundMessage m = new InboundMessage("+5491100", "wamid.in.1", "2 leches");
            assertEquals(HandleResult.Status.DONE, bot.handle(m).status());
            assertEquals(HandleResult.Status.DUPLICATE, bot.handle(m).status());
            assertEquals(1, runs.get());
            assertEquals(1, fx.provider.count("ok: 2 leches"));
            assertEquals("DONE", bot.inbound(m.id()).state());
            OutboundRecord sent = bot.outbound(m.id() + ":1");
            assertEquals("SENT", sent.state());
            assertEquals(fx.provider.calls().get(0).pid(), sent.providerMessageId());
            BotMetrics mx = bot.metrics();
            assertEquals(1, mx.inboundJournaled());
            assertEquals(1, mx.inboundDuplicates());
            assertEquals(1, mx.outboxJournaled());
            assertEquals(1.0, meters.get("cajon.bot.inboundDuplicates").tag("instance", "a").functionCounter().count());
        }
    }

    @Test
    void twoMessagesOfOneChatAtOnceBothReachTheCart() throws Exception {
        try (BotAdapter bot = fx.builder("a").handler((m, ctx) -> {
            String cart = ctx.state() == null ? "" : ctx.state();
            Thread.yield(); // widen the read-modify-write window
            ctx.setState(cart + m.payload() + ";");
        }).build()) {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<HandleResult>> fs = new ArrayList<>();
                for (int i = 0; i < 12; i++) {
                    InboundMessage m = new InboundMessage("chat-1", "m" + i, "item" + i);
                    fs.add(pool.submit(() -> bot.handle(m)));
                }
                for (Future<HandleResult> f : fs) {
                    assertEquals(HandleResult.Status.DONE, f.get(30, TimeUnit.SECONDS).status());
                }
            } finally {
                pool.shutdownNow();
            }
            String cart = fx.kv.get("bot:{c:chat-1}:state");
            for (int i = 0; i < 12; i++) {
                assertTrue(cart.contains("item" + i + ";"), "lost item" + i + " in " + cart);
            }
            assertEquals(12, cart.split(";").length);
        }
    }

    @Test
    void aFailingHandlerIsRetriedWithBackoffThenDeadThenReplayed() {
        AtomicInteger fail = new AtomicInteger(100);
        List<BotEvent> events = new CopyOnWriteArrayList<>();
        try (BotAdapter bot = fx.builder("a").inboundRetries(2).events(events::add).handler((m, ctx) -> {
            if (fail.getAndDecrement() > 0) {
                throw new IllegalStateException("boom");
            }
            ctx.send("handled " + m.messageId());
        }).build()) {
            InboundMessage m = new InboundMessage("c", "m1", "x");
            assertEquals(HandleResult.Status.RETRYING, bot.handle(m).status());
            assertEquals(1, bot.failedInbound(10).size());
            bot.sweep();
            assertEquals("RETRY", bot.inbound(m.id()).state(), "not due before its backoff");
            for (int i = 0; i < 10 && !bot.inbound(m.id()).state().equals("DEAD"); i++) {
                fx.advance(Duration.ofSeconds(70));
                bot.sweep();
            }
            assertEquals("DEAD", bot.inbound(m.id()).state());
            assertEquals(3, bot.inbound(m.id()).attempts());
            assertEquals(List.of(m.id()), bot.deadInbound(10).stream().map(InboundRecord::id).toList());
            assertEquals(1, bot.metrics().inboundDead());
            assertTrue(events.stream().anyMatch(ev -> ev.type() == BotEvent.Type.INBOUND_DEAD));
            fail.set(0);
            assertEquals(HandleResult.Status.DONE, bot.replayInbound(m.id()).status());
            assertEquals(1, bot.metrics().inboundReplayed());
            assertEquals(List.of(), bot.deadInbound(10));
            assertEquals(1, fx.provider.count("handled m1"));
        }
    }

    @Test
    void aMessageIsJournaledBeforeTheHandlerRuns() {
        List<String> seenState = new ArrayList<>();
        try (BotAdapter bot = fx.builder("a").handler((m, ctx) ->
                seenState.add(fx.kv.get("bot:{c:c}:in:" + m.messageId()) != null ? "journaled" : "missing")).build()) {
            bot.handle(new InboundMessage("c", "m1", "x"));
        }
        assertEquals(List.of("journaled"), seenState);
    }

    @Test
    void doneRecordsAreKeptForTheRetentionThroughTtls() {
        try (BotAdapter bot = fx.builder("a").handler((m, ctx) -> ctx.send("r")).build()) {
            InboundMessage m = new InboundMessage("c", "m1", "x");
            bot.handle(m);
            long week = Duration.ofDays(7).toMillis();
            long in = fx.store.keyspace("bot", 0).deadline("bot:{c:c}:in:m1".getBytes(StandardCharsets.UTF_8));
            long out = fx.store.keyspace("bot", 0).deadline("bot:{o:c/m1:1}:out".getBytes(StandardCharsets.UTF_8));
            assertEquals(fx.clock.nowMillis() + week, in);
            assertEquals(fx.clock.nowMillis() + week, out);
            fx.advance(Duration.ofDays(7).plusSeconds(1));
            assertEquals(null, bot.inbound(m.id()));
        }
    }

    /** A backend whose every call fails, like a store that is down. */
    static final class DownKv implements Kv {
        public String get(String key) {
            throw new KvException("down");
        }

        public SetReply set(String key, String value, SetOptions options) {
            throw new KvException("down");
        }

        public Long incr(String key) {
            throw new KvException("down");
        }

        public boolean pexpire(String key, long millis) {
            throw new KvException("down");
        }

        public boolean del(String key) {
            throw new KvException("down");
        }

        public List<Object> pipeline(List<dev.cajon.bot.kv.Op> ops) {
            throw new KvException("down");
        }

        public Tx watch(List<String> keys) {
            throw new KvException("down");
        }

        public Tx watch(List<String> keys, List<dev.cajon.bot.kv.Op> before) {
            throw new KvException("down");
        }

        public void close() {
        }
    }

    @Test
    void failClosedRefusesAMessageItCannotJournalAndFailOpenHandlesIt() {
        AtomicInteger runs = new AtomicInteger();
        BotAdapter.Builder b = BotAdapter.builder().backend(new DownKv()).provider(fx.provider)
                .backgroundSweeper(false).handler((m, ctx) -> {
                    runs.incrementAndGet();
                    ctx.send("hi");
                });
        InboundMessage m = new InboundMessage("c", "m1", "x");
        try (BotAdapter closed = b.build()) {
            assertThrows(JournalException.class, () -> closed.handle(m));
            assertEquals(0, runs.get());
        }
        try (BotAdapter open = b.failOpen(true).build()) {
            assertEquals(HandleResult.Status.FAIL_OPEN, open.handle(m).status());
            assertEquals(1, runs.get());
            assertEquals(1, fx.provider.count("hi"));
        }
    }
}
