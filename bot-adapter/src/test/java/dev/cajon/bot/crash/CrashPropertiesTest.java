package dev.cajon.bot.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.bot.BotAdapter;
import dev.cajon.bot.FakeProvider;
import dev.cajon.bot.HandleResult;
import dev.cajon.bot.InboundId;
import dev.cajon.bot.InboundMessage;
import dev.cajon.bot.InboundRecord;
import dev.cajon.bot.OutboundRecord;
import dev.cajon.bot.kv.EmbeddedKv;
import dev.cajon.bot.kv.JedisKv;
import dev.cajon.bot.kv.Kv;
import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import dev.cajon.storage.FileTrees;
import dev.cajon.storage.ManualClock;
import dev.cajon.storage.Store;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Property tests over random crash points, on the embedded store and on a Cajon server: a first
 * instance crashes at a random step (the n-th time it gets there), the same instanceId starts
 * again on the same store, the webhook redelivers what was not acknowledged, and the clock runs
 * until nothing is due. Then:
 * <ol>
 *   <li>every admitted message ends done or dead;</li>
 *   <li>no idempotency key reaches the provider twice unless it was recorded as ambiguous;</li>
 *   <li>no stale owner's commit is accepted: each chat's state holds exactly its done messages,
 *       each once;</li>
 *   <li>nothing acknowledged is lost: every acknowledged message is done or dead, every done
 *       message's sends are recorded, and every SENT record names a real provider call.</li>
 * </ol>
 */
class CrashPropertiesTest {
    private static CajonServer server;
    private static Path serverDir;
    private static final AtomicInteger RUNS = new AtomicInteger();

    record Crash(String step, boolean after, int nth) {
    }

    record Delivery(int chat, int message) {
    }

    record Scenario(List<Delivery> deliveries, int providerFailures, boolean handlerFailsOnce, int sends,
                    dev.cajon.bot.AmbiguousPolicy policy) {
    }

    @Provide
    Arbitrary<Crash> crashes() {
        // the steps around the provider call, where ambiguity is born, three times as often
        List<net.jqwik.api.Tuple.Tuple2<Integer, String>> weighted = new ArrayList<>();
        for (String step : CrashKit.STEPS) {
            int w = step.equals("provider.send") || step.equals("outbox.markSent") || step.equals("outbox.markCalling")
                    ? 3 : 1;
            weighted.add(net.jqwik.api.Tuple.of(w, step));
        }
        return Combinators.combine(Arbitraries.frequency(weighted), Arbitraries.of(false, true),
                Arbitraries.integers().between(1, 3)).as(Crash::new);
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        Arbitrary<Delivery> d = Combinators.combine(Arbitraries.integers().between(0, 1),
                Arbitraries.integers().between(0, 3)).as(Delivery::new);
        return Combinators.combine(d.list().ofMinSize(1).ofMaxSize(7), Arbitraries.integers().between(0, 2),
                Arbitraries.of(false, true), Arbitraries.integers().between(1, 2),
                Arbitraries.of(dev.cajon.bot.AmbiguousPolicy.class)).as(Scenario::new);
    }

    @Property(tries = 40)
    void embeddedStore(@ForAll("crashes") Crash crash, @ForAll("scenarios") Scenario s) throws Exception {
        Path dir = Files.createTempDirectory("cajon-bot-prop");
        ManualClock clock = new ManualClock(1_767_225_600_000L);
        try (Store store = Store.open(dir, clock)) {
            check(new EmbeddedKv(store, "bot", 0), clock, "p", crash, s);
        } finally {
            FileTrees.delete(dir);
        }
    }

    @Property(tries = 15)
    void serverStore(@ForAll("crashes") Crash crash, @ForAll("scenarios") Scenario s) throws Exception {
        synchronized (CrashPropertiesTest.class) {
            if (server == null) {
                serverDir = Files.createTempDirectory("cajon-bot-prop-server");
                server = CajonServer.start(ServerConfig.defaults().withPort(0).withBind("127.0.0.1")
                        .withDir(serverDir).withExpiryWarmup(false));
            }
        }
        try (Kv kv = JedisKv.remote("127.0.0.1", server.port())) {
            check(kv, new ManualClock(1_767_225_600_000L), "p" + RUNS.incrementAndGet(), crash, s);
        }
    }

    @AfterContainer
    static void stopServer() {
        if (server != null) {
            server.close();
            server = null;
            FileTrees.delete(serverDir);
        }
    }

    private static String content(InboundId id, int n) {
        return "r:" + id + ":" + n;
    }

    private void check(Kv kv, ManualClock clock, String ns, Crash crash, Scenario s) {
        FakeProvider provider = new FakeProvider().failNext(s.providerFailures());
        Set<String> failedOnce = ConcurrentHashMap.newKeySet();
        BotAdapter.Builder b = BotAdapter.builder().namespace(ns).instanceId("bot-1").clock(clock)
                .provider(provider).backgroundSweeper(false).ambiguousPolicy(s.policy()).random(new java.util.SplittableRandom(1))
                .handler((m, ctx) -> {
                    if (s.handlerFailsOnce() && failedOnce.add(m.messageId())) {
                        throw new IllegalStateException("first try fails");
                    }
                    for (int n = 1; n <= s.sends(); n++) {
                        ctx.send(content(m.id(), n));
                    }
                    ctx.setState((ctx.state() == null ? "" : ctx.state()) + m.messageId() + ";");
                });
        List<InboundMessage> deliveries = new ArrayList<>();
        for (Delivery d : s.deliveries()) {
            deliveries.add(new InboundMessage("chat" + d.chat(), "m" + d.message(), "x"));
        }
        Set<InboundId> acked = new HashSet<>();
        int i = 0;
        CrashKit kit = CrashKit.wrap(kv).crashAt(crash.step(), crash.after(), crash.nth());
        try (BotAdapter first = b.backend(kit).build()) {
            for (; i < deliveries.size(); i++) {
                first.handle(deliveries.get(i));
                acked.add(deliveries.get(i).id());
            }
            for (int t = 0; t < 30; t++) { // no crash yet: it may still come in a retry
                clock.advance(Duration.ofSeconds(70).toMillis());
                first.sweep();
            }
        } catch (CrashKit.SimulatedCrash expected) {
            // the process died here
        }
        net.jqwik.api.statistics.Statistics.collect(kit.crashedAt() == null ? "no crash" : "crashed");
        net.jqwik.api.statistics.Statistics.label("crash point").collect(String.valueOf(kit.crashedAt()));
        try (BotAdapter second = b.backend(kv).build()) {
            for (int j = i; j < deliveries.size(); j++) {
                HandleResult r = second.handle(deliveries.get(j));
                assertTrue(r.status() != HandleResult.Status.STALE, r.toString());
                acked.add(deliveries.get(j).id());
            }
            for (int t = 0; t < 40; t++) {
                clock.advance(Duration.ofSeconds(70).toMillis());
                second.sweep();
            }
            verify(second, provider, deliveries, acked, s, crash);
        }
    }

    private void verify(BotAdapter bot, FakeProvider provider, List<InboundMessage> deliveries,
                        Set<InboundId> acked, Scenario s, Crash crash) {
        String where = crash + " " + s;
        Set<InboundId> ids = new LinkedHashSet<>();
        deliveries.forEach(m -> ids.add(m.id()));
        Map<String, Set<String>> doneByChat = new HashMap<>();
        for (InboundId id : ids) {
            InboundRecord r = bot.inbound(id);
            assertTrue(r != null && (r.state().equals("DONE") || r.state().equals("DEAD")),
                    id + " ended " + (r == null ? "missing" : r.state()) + " at " + where);
            if (r.state().equals("DONE")) {
                doneByChat.computeIfAbsent(id.chat(), c -> new HashSet<>()).add(id.messageId());
                for (int n = 1; n <= s.sends(); n++) {
                    OutboundRecord o = bot.outbound(id + ":" + n);
                    assertTrue(o != null, "done " + id + " has no record of send " + n + " at " + where);
                    if (o.state().equals("SENT")) {
                        String pid = o.providerMessageId();
                        assertTrue(provider.calls().stream().anyMatch(c -> c.pid().equals(pid)
                                && c.content().equals(o.content())), "SENT " + o + " was never called");
                    }
                }
            }
        }
        assertTrue(ids.containsAll(acked));
        for (FakeProvider.Call c : provider.calls()) {
            if (provider.count(c.content()) > 1) {
                String key = c.content().substring(2);
                assertTrue(bot.outbound(key).ambiguous(), key + " reached the provider "
                        + provider.count(c.content()) + " times without being ambiguous, at " + where);
            }
        }
        for (String chat : List.of("chat0", "chat1")) {
            String state = bot.chatState(chat);
            List<String> inState = state == null ? List.of() : List.of(state.split(";"));
            Set<String> done = doneByChat.getOrDefault(chat, Set.of());
            assertEquals(done, new HashSet<>(inState), "chat state vs done messages at " + where);
            assertEquals(inState.size(), new HashSet<>(inState).size(), "a message committed twice: " + state);
        }
    }
}
