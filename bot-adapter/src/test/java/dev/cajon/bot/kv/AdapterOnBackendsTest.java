package dev.cajon.bot.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.bot.BotAdapter;
import dev.cajon.bot.FakeProvider;
import dev.cajon.bot.HandleResult;
import dev.cajon.bot.InboundMessage;
import dev.cajon.bot.SendResult;
import dev.cajon.bot.crash.CrashKit;
import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import dev.cajon.storage.ManualClock;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/**
 * The whole adapter, not just the port, over RESP: a Cajon server, a real redis-server and a
 * 3-master Redis Cluster (where every transaction must stay in one slot).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class AdapterOnBackendsTest {
    private static final AtomicInteger NS = new AtomicInteger();

    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    abstract static class Scenarios {
        abstract Kv kv();

        final ManualClock clock = new ManualClock(1_767_225_600_000L);
        final FakeProvider provider = new FakeProvider();

        BotAdapter.Builder bot(String ns) {
            return BotAdapter.builder().backend(kv()).namespace(ns).instanceId("bot-1").clock(clock)
                    .provider(provider).backgroundSweeper(false)
                    .handler((m, ctx) -> {
                        ctx.setState((ctx.state() == null ? "" : ctx.state()) + m.payload() + ";");
                        ctx.send(ctx.id() + " ok");
                    });
        }

        @Test
        void dedupeStateDeferredAndAnAmbiguousCrashOverRemoteKeys() {
            String ns = "e2e" + NS.incrementAndGet();
            try (BotAdapter bot = bot(ns).build()) {
                for (String chat : new String[] {"+54911", "+54922", "{odd}chat"}) {
                    assertEquals(HandleResult.Status.DONE, bot.handle(new InboundMessage(chat, "m1", "2 leches")).status());
                    assertEquals(HandleResult.Status.DONE, bot.handle(new InboundMessage(chat, "m2", "1 arroz")).status());
                    assertEquals(HandleResult.Status.DUPLICATE, bot.handle(new InboundMessage(chat, "m1", "2 leches")).status());
                    assertEquals("2 leches;1 arroz;", bot.chatState(chat));
                    assertEquals(1, provider.count(chat + "/m1 ok"));
                }
                bot.enqueue("+54911", "reminder " + ns, "rem-" + ns, Instant.ofEpochMilli(clock.nowMillis() + 3_000));
                clock.advance(3_600);
                bot.sweep();
                assertEquals(1, provider.count("reminder " + ns));
            }
            CrashKit kit = CrashKit.wrap(kv()).crashAfter("provider.send");
            try (BotAdapter first = bot(ns).backend(kit).build()) {
                assertThrows(CrashKit.SimulatedCrash.class, () -> first.handle(new InboundMessage("+54933", "m1", "pan")));
            }
            try (BotAdapter second = bot(ns).build()) {
                assertEquals("AMBIGUOUS", second.outbound("+54933/m1:1").state());
                assertEquals("DONE", second.inbound(new dev.cajon.bot.InboundId("+54933", "m1")).state());
            }
            assertEquals(1, provider.count("+54933/m1 ok"));
        }
    }

    @Nested
    class OnCajonServer extends Scenarios {
        CajonServer server;
        Kv kv;

        @BeforeAll
        void start(@TempDir Path dir) throws Exception {
            server = CajonServer.start(ServerConfig.defaults().withPort(0).withBind("127.0.0.1").withDir(dir)
                    .withExpiryWarmup(false));
            kv = JedisKv.remote("127.0.0.1", server.port());
        }

        @AfterAll
        void stop() {
            kv.close();
            server.close();
        }

        Kv kv() {
            return kv;
        }
    }

    @Nested
    class OnRedisServer extends Scenarios {
        RedisProcesses redis;
        Kv kv;

        @BeforeAll
        void start() throws Exception {
            redis = RedisProcesses.standalone();
            Assumptions.assumeTrue(redis != null, "redis-server or redis-cli is not on the PATH: skipped");
            kv = JedisKv.remote("127.0.0.1", redis.port());
        }

        @AfterAll
        void stop() throws Exception {
            if (redis != null) {
                kv.close();
                redis.close();
            }
        }

        /**
         * The connection a send keeps (its WATCH) through the provider call is closed by the
         * server meanwhile (as an idle timeout would): markSent still records the send, fenced,
         * through a fresh connection, and nothing is reported stale.
         */
        @Test
        void aSendWhoseWatchConnectionDiesDuringTheProviderCallIsStillRecordedSent() {
            String ns = "killed" + NS.incrementAndGet();
            try (Jedis probe = new Jedis("127.0.0.1", redis.port());
                 BotAdapter bot = bot(ns).provider((chat, text) -> {
                     int killed = 0;
                     for (String line : probe.clientList().split("\n")) {
                         if (line.contains(" cmd=get ")) { // the GET right after the send's WATCH
                             String id = line.substring(3, line.indexOf(' '));
                             probe.sendCommand(Protocol.Command.CLIENT, "KILL", "ID", id);
                             killed++;
                         }
                     }
                     assertEquals(1, killed, "one connection's last command is the GET after the send's WATCH");
                     return provider.send(chat, text);
                 }).build()) {
                SendResult r = bot.send("+54944", "hola " + ns, "k-" + ns);
                assertEquals(SendResult.Status.SENT, r.status());
                assertEquals("SENT", bot.outbound("k-" + ns).state());
                assertEquals(r.providerMessageId(), bot.outbound("k-" + ns).providerMessageId());
                assertEquals(0, bot.metrics().staleLeases());
                assertEquals(1, provider.count("hola " + ns));
            }
        }

        Kv kv() {
            return kv;
        }
    }

    @Nested
    class OnRedisCluster extends Scenarios {
        RedisProcesses cluster;
        Kv kv;

        @BeforeAll
        void start() throws Exception {
            cluster = RedisProcesses.cluster(3);
            Assumptions.assumeTrue(cluster != null, "redis-server or redis-cli is not on the PATH: skipped");
            Set<HostAndPort> nodes = new HashSet<>();
            cluster.ports().forEach(p -> nodes.add(new HostAndPort("127.0.0.1", p)));
            kv = JedisKv.cluster(nodes, null, null);
        }

        @AfterAll
        void stop() throws Exception {
            if (cluster != null) {
                kv.close();
                cluster.close();
            }
        }

        Kv kv() {
            return kv;
        }
    }
}
