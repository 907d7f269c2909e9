package dev.cajon.bot.demo;

import dev.cajon.bot.AmbiguousPolicy;
import dev.cajon.bot.BotAdapter;
import dev.cajon.bot.HandleResult;
import dev.cajon.bot.InboundId;
import dev.cajon.bot.InboundMessage;
import dev.cajon.bot.Provider;
import dev.cajon.bot.crash.CrashKit;
import dev.cajon.bot.kv.CountingKv;
import dev.cajon.bot.kv.EmbeddedKv;
import dev.cajon.bot.kv.JedisKv;
import dev.cajon.bot.kv.Kv;
import dev.cajon.bot.kv.SetOptions;
import dev.cajon.storage.FileTrees;
import dev.cajon.storage.ManualClock;
import dev.cajon.storage.Store;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The minimarket bot of bin/cajon-bot-demo: one session (the cart) per phone with a 2-day
 * sliding TTL, a seen mark per message kept 1 day (the inbound records), orders kept 30 days. It
 * plays the scenarios on a fake provider and a manual clock, embedded or against a
 * server ({@code --remote host:port}), and prints what happened.
 */
public final class MinimarketDemo {
    private final Kv kv;
    private final CountingKv counted;
    private final ManualClock clock;
    private final Map<String, AtomicInteger> sent = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();
    private final String ns;
    private volatile CountDownLatch freeze;
    private volatile CountDownLatch frozen;

    private MinimarketDemo(Kv kv, String ns, ManualClock clock) {
        this.clock = clock;
        this.counted = new CountingKv(kv);
        this.kv = counted;
        this.ns = ns;
    }

    private final Provider provider = (chat, text) -> {
        sent.computeIfAbsent(text, t -> new AtomicInteger()).incrementAndGet();
        String pid = "wamid.out." + ids.incrementAndGet();
        System.out.println("      provider -> " + chat + ": \"" + text + "\" (" + pid + ")");
        return pid;
    };

    /** The bot's own logic: a cart in the chat's state; "confirmar" stores the order for 30 days. */
    private BotAdapter bot(Kv backend, String instanceId) {
        return BotAdapter.builder().backend(backend).namespace(ns).instanceId(instanceId).clock(clock)
                .provider(provider).backgroundSweeper(false)
                .retention(Duration.ofDays(1))       // the seen mark of each message
                .chatStateTtl(Duration.ofDays(2))    // the session, sliding
                .ambiguousPolicy(AmbiguousPolicy.HOLD)
                .handler((m, ctx) -> {
                    String cart = ctx.state() == null ? "" : ctx.state();
                    String text = m.payload().trim();
                    if (text.equals("hola")) {
                        ctx.send("Hola! Que te llevas hoy?");
                    } else if (text.equals("confirmar")) {
                        // the order id is the message's: a re-run of this handler writes it once (NX)
                        kv.set(ns + ":{order:" + m.id() + "}", cart, SetOptions.nx(Duration.ofDays(30).toMillis()));
                        ctx.send("Pedido confirmado: " + cart);
                        cart = "";
                    } else {
                        CountDownLatch f = freeze;
                        if (f != null && instanceId.equals("frozen")) {
                            frozen.countDown();
                            f.await(30, TimeUnit.SECONDS); // a GC pause longer than the lease
                        }
                        cart = cart + (cart.isEmpty() ? "" : ", ") + text;
                        ctx.send("Agregado " + text + ". Carrito: " + cart);
                    }
                    ctx.setState(cart);
                }).build();
    }

    private int sends(String text) {
        AtomicInteger n = sent.get(text);
        return n == null ? 0 : n.get();
    }

    private void run() throws Exception {
        try (BotAdapter bot = bot(kv, "minimarket-1")) {
            System.out.println("1. \"2 leches\" and \"1 arroz\" from the same chat at the same instant");
            CompletableFuture<HandleResult> a = CompletableFuture.supplyAsync(
                    () -> bot.handle(new InboundMessage("+5491111", "wamid.a", "2 leches")));
            CompletableFuture<HandleResult> b = CompletableFuture.supplyAsync(
                    () -> bot.handle(new InboundMessage("+5491111", "wamid.b", "1 arroz")));
            System.out.println("   results: " + a.get().status() + ", " + b.get().status());
            System.out.println("   cart: " + bot.chatState("+5491111") + "   (both items: no lost update)");

            System.out.println("2. a redelivered webhook");
            InboundMessage m = new InboundMessage("+5492222", "wamid.c", "3 yerbas");
            System.out.println("   first delivery:  " + bot.handle(m).status());
            System.out.println("   second delivery: " + bot.handle(m).status());
            System.out.println("   replies sent: " + sends("Agregado 3 yerbas. Carrito: 3 yerbas")
                    + ", inboundDuplicates=" + bot.metrics().inboundDuplicates());
        }

        System.out.println("3. a crash between the provider call and the record");
        CrashKit kit = CrashKit.wrap(kv).crashAfter("provider.send");
        InboundMessage crashMsg = new InboundMessage("+5493333", "wamid.d", "1 pan");
        try (BotAdapter first = bot(kit, "minimarket-1")) {
            first.handle(crashMsg);
        } catch (CrashKit.SimulatedCrash expected) {
            System.out.println("   the process died " + kit.crashedAt());
        }
        try (BotAdapter restarted = bot(kv, "minimarket-1")) {
            String key = crashMsg.id() + ":1";
            System.out.println("   after the restart the send is " + restarted.outbound(key).state()
                    + ", outboxAmbiguous=" + restarted.metrics().outboxAmbiguous()
                    + ", times sent: " + sends("Agregado 1 pan. Carrito: 1 pan") + " (no double send)");
            System.out.println("   the message is " + restarted.inbound(crashMsg.id()).state()
                    + "; an operator lists " + restarted.ambiguousOutbound(10).size()
                    + " ambiguous send(s) to retrySend or discard");
        }

        System.out.println("4. a frozen worker whose stale commit is rejected");
        freeze = new CountDownLatch(1);
        frozen = new CountDownLatch(1);
        InboundMessage slow = new InboundMessage("+5494444", "wamid.e", "2 fideos");
        try (BotAdapter frozenBot = bot(kv, "frozen"); BotAdapter replica = bot(kv, "minimarket-2")) {
            CompletableFuture<HandleResult> stuck = CompletableFuture.supplyAsync(() -> frozenBot.handle(slow));
            frozen.await(10, TimeUnit.SECONDS);
            clock.advance(Duration.ofSeconds(61).toMillis());
            replica.sweep();
            System.out.println("   61 s later the replica took the chat over: " + replica.inbound(slow.id()).state());
            freeze.countDown();
            freeze = null;
            System.out.println("   the frozen worker wakes up and commits: " + stuck.get().status()
                    + ", staleLeases=" + frozenBot.metrics().staleLeases()
                    + ", reply sent " + sends("Agregado 2 fideos. Carrito: 2 fideos") + " time(s)");
        }

        System.out.println("5. KV operations for a complete 5-message order");
        try (BotAdapter bot = bot(kv, "minimarket-1")) {
            String[] order = {"hola", "2 leches", "1 arroz", "1 pan", "confirmar"};
            counted.reset();
            for (int i = 0; i < order.length; i++) {
                bot.handle(new InboundMessage("+5495555", "wamid.o" + i, order[i]));
            }
            long cmds = counted.commands();
            long rts = counted.roundTrips();
            System.out.println("   " + cmds + " commands in " + rts + " round trips ("
                    + String.format(java.util.Locale.ROOT, "%.1f", (double) rts / order.length)
                    + " per message with its reply); order stored: "
                    + kv.get(ns + ":{order:" + new InboundId("+5495555", "wamid.o4") + "}"));
        }
    }

    public static void main(String[] args) throws Exception {
        String remote = args.length == 2 && args[0].equals("--remote") ? args[1] : null;
        String ns = "minimarket" + Long.toString(System.nanoTime(), 36);
        if (remote == null) {
            System.out.println("== embedded: Cajon storage in this JVM ==");
            Path dir = Files.createTempDirectory("cajon-bot-demo");
            ManualClock clock = new ManualClock(1_767_225_600_000L);
            try (Store store = Store.open(dir, clock)) {
                new MinimarketDemo(new EmbeddedKv(store, "minimarket", 0), ns, clock).run();
            } finally {
                FileTrees.delete(dir);
            }
        } else {
            System.out.println("== remote: a Cajon server at " + remote + " ==");
            String[] hp = remote.split(":");
            try (Kv kv = JedisKv.remote(hp[0], Integer.parseInt(hp[1]))) {
                new MinimarketDemo(kv, ns, new ManualClock(1_767_225_600_000L)).run();
            }
        }
    }
}
