package dev.cajon.bot.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.bot.AmbiguousPolicy;
import dev.cajon.bot.BotAdapter;
import dev.cajon.bot.BotEvent;
import dev.cajon.bot.FakeProvider;
import dev.cajon.bot.InboundMessage;
import dev.cajon.bot.kv.EmbeddedKv;
import dev.cajon.bot.kv.Kv;
import dev.cajon.storage.ManualClock;
import dev.cajon.storage.Store;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * How to test a bot against crashes with the {@link CrashKit} (docs/BOT-ADAPTER.md shows this
 * file): crash the first instance at a named step, start a second one on the same store, and
 * check what it recovered. Copy it and put your own handler in.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CrashRecoveryExampleTest {
    @TempDir
    Path dir;
    ManualClock clock = new ManualClock(1_767_225_600_000L);
    Store store;
    Kv kv;
    FakeProvider provider = new FakeProvider();
    List<BotEvent> events = new CopyOnWriteArrayList<>();

    @BeforeEach
    void open() {
        store = Store.open(dir, clock);
        kv = new EmbeddedKv(store, "bot", 0);
    }

    @AfterEach
    void close() {
        store.close();
    }

    BotAdapter bot(Kv backend, String instanceId, AmbiguousPolicy policy) {
        return BotAdapter.builder().backend(backend).instanceId(instanceId).clock(clock).provider(provider)
                .ambiguousPolicy(policy).events(events::add).backgroundSweeper(false)
                .handler((m, ctx) -> ctx.send("Tu pedido: " + m.payload())).build();
    }

    @Test
    void aCrashBetweenTheProviderCallAndTheRecordIsAmbiguousAndNotSentTwice() {
        CrashKit kit = CrashKit.wrap(kv).crashAfter("provider.send");
        InboundMessage m = new InboundMessage("+5491100", "wamid.1", "2 leches");
        try (BotAdapter first = bot(kit, "bot-1", AmbiguousPolicy.HOLD)) {
            assertThrows(CrashKit.SimulatedCrash.class, () -> first.handle(m));
        }
        assertEquals("after provider.send", kit.crashedAt());
        assertEquals(1, provider.count("Tu pedido: 2 leches"));

        // the same instanceId restarts: it takes its records back at once, no lease to wait for
        try (BotAdapter second = bot(kv, "bot-1", AmbiguousPolicy.HOLD)) {
            assertEquals("AMBIGUOUS", second.outbound("+5491100/wamid.1:1").state());
            assertEquals("DONE", second.inbound(m.id()).state(), "the message was handled again, its send held");
            assertEquals(1, second.metrics().outboxAmbiguous());
            assertEquals(1, second.ambiguousOutbound(10).size());
            assertTrue(events.stream().anyMatch(e -> e.type() == BotEvent.Type.OUTBOUND_AMBIGUOUS));
        }
        assertEquals(1, provider.count("Tu pedido: 2 leches"), "no double send");
    }

    @Test
    void withTheResendPolicyTheAmbiguousSendGoesAgainAndIsMarked() {
        CrashKit kit = CrashKit.wrap(kv).crashAfter("provider.send");
        InboundMessage m = new InboundMessage("c", "m1", "1 arroz");
        try (BotAdapter first = bot(kit, "bot-1", AmbiguousPolicy.RESEND)) {
            assertThrows(CrashKit.SimulatedCrash.class, () -> first.handle(m));
        }
        try (BotAdapter second = bot(kv, "bot-1", AmbiguousPolicy.RESEND)) {
            assertEquals("SENT", second.outbound("c/m1:1").state());
            assertTrue(second.outbound("c/m1:1").ambiguous());
        }
        assertEquals(2, provider.count("Tu pedido: 1 arroz"));
    }

    @Test
    void anotherReplicaTakesOverOnceTheLeaseHasRunOut() {
        CrashKit kit = CrashKit.wrap(kv).crashAfter("inbox.claim");
        InboundMessage m = new InboundMessage("c", "m1", "pan");
        try (BotAdapter first = bot(kit, "bot-1", AmbiguousPolicy.HOLD)) {
            assertThrows(CrashKit.SimulatedCrash.class, () -> first.handle(m));
        }
        try (BotAdapter replica = bot(kv, "bot-2", AmbiguousPolicy.HOLD)) {
            replica.sweep();
            assertEquals("LEASED", replica.inbound(m.id()).state(), "bot-1's lease still runs");
            clock.advance(Duration.ofSeconds(61).toMillis());
            replica.sweep();
            assertEquals("DONE", replica.inbound(m.id()).state());
        }
        assertEquals(1, provider.count("Tu pedido: pan"));
    }

    @Test
    void everyStepCanBeCrashedAndARestartFinishesTheMessage() {
        for (String step : CrashKit.STEPS) {
            for (boolean after : new boolean[] {false, true}) {
                if (step.endsWith("markFailed")) {
                    continue; // only reached when something fails: the property tests cover it
                }
                String mid = step + (after ? "-after" : "-before");
                CrashKit kit = CrashKit.wrap(kv).crashAt(step, after, 1);
                InboundMessage m = new InboundMessage("chat-" + mid, mid, mid);
                try (BotAdapter first = bot(kit, "bot-" + mid, AmbiguousPolicy.HOLD)) {
                    assertThrows(CrashKit.SimulatedCrash.class, () -> first.handle(m), mid);
                }
                try (BotAdapter second = bot(kv, "bot-" + mid, AmbiguousPolicy.HOLD)) {
                    second.handle(m); // the webhook redelivers what was never acknowledged
                    for (int i = 0; i < 5; i++) {
                        clock.advance(Duration.ofSeconds(61).toMillis());
                        second.sweep();
                    }
                    assertEquals("DONE", second.inbound(m.id()).state(), mid);
                    String sendState = second.outbound("chat-" + mid + "/" + mid + ":1").state();
                    assertTrue(sendState.equals("SENT") || sendState.equals("AMBIGUOUS"), mid + ": " + sendState);
                }
                assertTrue(provider.count("Tu pedido: " + mid) <= 1, mid);
            }
        }
    }
}
