package dev.cajon.bench.bot;

import dev.cajon.bot.BotAdapter;
import dev.cajon.bot.HandleResult;
import dev.cajon.bot.InboundMessage;
import dev.cajon.bot.kv.EmbeddedKv;
import dev.cajon.bot.kv.JedisKv;
import dev.cajon.bot.kv.Kv;
import dev.cajon.bench.harness.CommandTemplate;
import dev.cajon.bench.harness.MachineInfo;
import dev.cajon.bench.harness.ServerProcess;
import dev.cajon.storage.Clock;
import dev.cajon.storage.FileTrees;
import dev.cajon.storage.Store;
import java.awt.Color;
import java.io.OutputStream;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

/**
 * Messages per second through the bot adapter's full path (journal, lease, handler, outbox,
 * sent, done: one reply per message), on four stores side by side: Cajon embedded, a Cajon
 * server over loopback RESP (bin/cajon-server, its own process), a redis-server (its own
 * process, no persistence) and the same steps on SQLite in WAL mode. One client thread; rounds alternate between the
 * stores so that the machine's noise falls on all of them alike. Prints a Markdown table
 * (p50 and p99 per message, messages per second) and writes a chart.
 *
 * <p>Usage: {@code BotPathBenchmark [rounds] [messagesPerRound] [chart.png]}.
 */
public final class BotPathBenchmark {
    interface Path1 extends AutoCloseable {
        boolean handle(String chat, String mid) throws Exception;
    }

    private static final String[] NAMES = {"Cajon embedded", "Cajon server (RESP)", "redis-server (RESP)", "SQLite WAL"};

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int perRound = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
        Path chart = args.length > 2 ? Path.of(args[2]) : Path.of("docs/bench-bot-path.png");
        Path tmp = Files.createTempDirectory("cajon-bench-bot");
        Path home = Path.of("").toAbsolutePath();
        // the servers' fsync policy, the same on both: "no" (the default) matches SQLite's
        // synchronous=NORMAL (no fsync per commit) and a Redis without AOF; "everysec" runs Cajon's
        // default against Redis's AOF everysec
        String fsync = args.length > 3 ? args[3] : "no";
        if (!fsync.equals("no") && !fsync.equals("everysec") && !fsync.equals("always")) {
            throw new IllegalArgumentException("fsync policy: no, everysec or always, not " + fsync);
        }
        System.out.println("servers' fsync policy: " + fsync);
        ServerProcess cajon = new ServerProcess("cajon", new CommandTemplate(
                "{home}/bin/cajon-server --bind 127.0.0.1 --port {port} --dir {dir} --appendfsync " + fsync),
                tmp.resolve("server"), tmp.resolve("cajon.log"), home);
        ServerProcess redis = new ServerProcess("redis", new CommandTemplate(
                "redis-server --bind 127.0.0.1 --port {port} --save \"\" --dir {dir} "
                        + (fsync.equals("no") ? "--appendonly no" : "--appendonly yes --appendfsync " + fsync)),
                tmp.resolve("redis"), tmp.resolve("redis.log"), home);
        List<Path1> paths = new ArrayList<>();
        try (Store store = Store.open(tmp.resolve("embedded"), Clock.SYSTEM); cajon; redis) {
            paths.add(adapter(new EmbeddedKv(store, "bench", 0)));
            cajon.start(Duration.ofSeconds(60));
            paths.add(adapter(JedisKv.remote("127.0.0.1", cajon.port())));
            redis.start(Duration.ofSeconds(30));
            paths.add(adapter(JedisKv.remote("127.0.0.1", redis.port())));
            SqlitePath sqlite = new SqlitePath(tmp.resolve("bot.sqlite"));
            paths.add(new Path1() {
                public boolean handle(String chat, String mid) throws Exception {
                    return sqlite.handle(chat, mid, "2 leches;", System.currentTimeMillis());
                }

                public void close() throws Exception {
                    sqlite.close();
                }
            });
            Histogram[] h = new Histogram[paths.size()];
            long[] nanos = new long[paths.size()];
            for (int i = 0; i < h.length; i++) {
                h[i] = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            }
            // round -1 warms every store up, unrecorded: a whole round, so that the JVMs (the
            // Cajon server's above all: about 12,000 commands per round) have compiled their hot
            // paths before anything counts, as a server that has been up for a while has
            for (int round = -1; round < rounds; round++) {
                for (int p = 0; p < paths.size(); p++) {
                    int n = perRound;
                    long start = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        long t0 = System.nanoTime();
                        if (!paths.get(p).handle("chat" + (i % 100), "r" + round + "m" + i)) {
                            throw new IllegalStateException(NAMES[p] + " refused message " + i);
                        }
                        if (round >= 0) {
                            h[p].recordValue(Math.min(System.nanoTime() - t0, h[p].getHighestTrackableValue()));
                        }
                    }
                    if (round >= 0) {
                        nanos[p] += System.nanoTime() - start;
                    }
                }
            }
            report(h, nanos, rounds * (long) perRound, rounds, perRound, chart);
            for (Path1 p : paths) {
                p.close();
            }
        } finally {
            FileTrees.delete(tmp);
        }
    }

    /** The benchmark's bot: the chat's state grows (its last 64 chars kept), one reply per message. */
    static BotAdapter bot(Kv kv, String instanceId) {
        return BotAdapter.builder().backend(kv).instanceId(instanceId).provider((chat, text) -> "pid")
                .backgroundSweeper(false).handler((m, ctx) -> {
                    String s = ctx.state() == null ? "" : ctx.state();
                    String next = s + m.payload();
                    ctx.setState(next.substring(Math.max(0, next.length() - 64)));
                    ctx.send("reply to " + m.messageId());
                }).build();
    }

    private static Path1 adapter(Kv kv) {
        BotAdapter bot = bot(kv, "bench");
        return new Path1() {
            public boolean handle(String chat, String mid) {
                return bot.handle(new InboundMessage(chat, mid, "2 leches;")).status() == HandleResult.Status.DONE;
            }

            public void close() {
                bot.close();
                kv.close();
            }
        };
    }

    private static void report(Histogram[] h, long[] nanos, long messages, int rounds, int perRound, Path chart)
            throws Exception {
        System.out.printf("%d rounds x %d messages per store, alternating; %s, %s cores, load %s%n%n",
                rounds, perRound, MachineInfo.cpuModel(), MachineInfo.nproc(), MachineInfo.loadAverage());
        System.out.println("| store | messages/s | p50 per message | p99 per message | vs SQLite WAL |");
        System.out.println("|---|---:|---:|---:|---:|");
        double[] rate = new double[h.length];
        for (int p = 0; p < h.length; p++) {
            rate[p] = messages / (nanos[p] / 1e9);
        }
        Map<String, List<Double>> series = new LinkedHashMap<>();
        series.put("p50 (µs)", new ArrayList<>());
        series.put("p99 (µs)", new ArrayList<>());
        for (int p = 0; p < h.length; p++) {
            double p50 = h[p].getValueAtPercentile(50) / 1e3;
            double p99 = h[p].getValueAtPercentile(99) / 1e3;
            series.get("p50 (µs)").add(p50);
            series.get("p99 (µs)").add(p99);
            System.out.printf("| %s | %,.0f | %,.0f µs | %,.0f µs | %.2fx |%n", NAMES[p], rate[p], p50, p99,
                    rate[p] / rate[h.length - 1]);
        }
        System.setProperty("java.awt.headless", "true");
        CategoryChart rates = new CategoryChartBuilder().width(560).height(400)
                .title("Bot adapter full path: messages per second").yAxisTitle("messages/s").build();
        rates.addSeries("messages/s", List.of(NAMES), java.util.Arrays.stream(rate).boxed().toList());
        CategoryChart lat = new CategoryChartBuilder().width(560).height(400)
                .title("Latency per message").yAxisTitle("µs").build();
        for (Map.Entry<String, List<Double>> s : series.entrySet()) {
            lat.addSeries(s.getKey(), List.of(NAMES), s.getValue());
        }
        for (CategoryChart c : List.of(rates, lat)) {
            c.getStyler().setChartBackgroundColor(Color.WHITE);
            c.getStyler().setYAxisMin(0.0);
            c.getStyler().setXAxisLabelRotation(15);
        }
        Files.createDirectories(chart.toAbsolutePath().getParent());
        try (OutputStream out = Files.newOutputStream(chart)) {
            BitmapEncoder.saveBitmap(List.of(rates, lat), 1, 2, out, BitmapEncoder.BitmapFormat.PNG);
        }
        System.out.println("\nchart: " + chart);
    }
}
