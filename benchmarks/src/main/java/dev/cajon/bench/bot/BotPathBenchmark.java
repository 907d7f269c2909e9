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
 * <p>Usage: {@code BotPathBenchmark [rounds] [messagesPerRound] [chart.png] [fsync] [warmupRounds]
 * [workers]}.
 *
 * <p>Workers (1 by default) are client threads that handle messages at once, as a webhook server's
 * threads do, each with chats of its own (100 each, so that every chat sees the same traffic as
 * with one worker); on SQLite each has its own connection to the one file. The rate is the
 * round's messages over its wall time.
 *
 * <p>The warm-up rounds (4 by default, alternating like the counted ones, unrecorded) are there
 * for the Cajon server's JIT. A fresh server spent, in server CPU per message over consecutive
 * 2,500-message batches of this path: 3,048, 1,828, 456, 368 µs (redis-server: 280-360 µs from
 * the first). One warm-up round of 1,500 messages, as before 2026-12-02, left about 8 s of
 * compilation to run inside the counted rounds, on the 2 cores that the client and the server
 * share, and the Cajon server was measured at 0.67-0.77x SQLite for it. A server that has been up
 * for a while is what a bot talks to; the first seconds after a start are reported apart
 * ({@code docs/BENCHMARKS.md}).
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
        int warmupRounds = args.length > 4 ? Integer.parseInt(args[4]) : 4;
        int workers = args.length > 5 ? Integer.parseInt(args[5]) : 1;
        System.out.println("servers' fsync policy: " + fsync + "; warm-up rounds: " + warmupRounds
                + "; workers: " + workers + "; Cajon server options: "
                + System.getenv().getOrDefault("BOT_BENCH_CAJON_ARGS", "(default)"));
        ServerProcess cajon = new ServerProcess("cajon", new CommandTemplate(
                "{home}/bin/cajon-server --bind 127.0.0.1 --port {port} --dir {dir} --appendfsync " + fsync
                        // more server options for an experiment (e.g. --io-threads 1), printed with the table
                        + " " + System.getenv().getOrDefault("BOT_BENCH_CAJON_ARGS", "")),
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
            // one connection per worker thread, all on one file
            List<SqlitePath> sqlites = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                sqlites.add(new SqlitePath(tmp.resolve("bot.sqlite")));
            }
            ThreadLocal<SqlitePath> mine = new ThreadLocal<>();
            java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
            paths.add(new Path1() {
                public boolean handle(String chat, String mid) throws Exception {
                    SqlitePath sqlite = mine.get();
                    if (sqlite == null) {
                        sqlite = sqlites.get(next.getAndIncrement());
                        mine.set(sqlite);
                    }
                    return sqlite.handle(chat, mid, "2 leches;", System.currentTimeMillis());
                }

                public void close() throws Exception {
                    for (SqlitePath s : sqlites) {
                        s.close();
                    }
                }
            });
            Histogram[] h = new Histogram[paths.size()];
            long[] nanos = new long[paths.size()];
            for (int i = 0; i < h.length; i++) {
                h[i] = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            }
            // the negative rounds warm every store up, unrecorded, so that the JVMs (the Cajon
            // server's above all: see the class comment) have compiled their hot paths before
            // anything counts, as a server that has been up for a while has
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(workers);
            try {
                for (int round = -warmupRounds; round < rounds; round++) {
                    for (int p = 0; p < paths.size(); p++) {
                        long start = System.nanoTime();
                        List<java.util.concurrent.Future<Histogram>> parts = new ArrayList<>();
                        for (int w = 0; w < workers; w++) {
                            parts.add(pool.submit(work(paths.get(p), NAMES[p], w, perRound / workers, round)));
                        }
                        for (java.util.concurrent.Future<Histogram> f : parts) {
                            Histogram part = f.get();
                            if (round >= 0) {
                                h[p].add(part);
                            }
                        }
                        if (round >= 0) {
                            nanos[p] += System.nanoTime() - start;
                        }
                    }
                }
            } finally {
                pool.shutdownNow();
            }
            report(h, nanos, rounds * (long) (perRound / workers * workers), rounds, perRound, workers, chart);
            for (Path1 p : paths) {
                p.close();
            }
        } finally {
            FileTrees.delete(tmp);
        }
    }

    /** One worker's share of a round: its own 100 chats, its latencies. */
    private static java.util.concurrent.Callable<Histogram> work(Path1 path, String name, int worker, int n, int round) {
        return () -> {
            Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                if (!path.handle("chat" + (worker * 100 + i % 100), "r" + round + "w" + worker + "m" + i)) {
                    throw new IllegalStateException(name + " refused message " + i + " of worker " + worker);
                }
                h.recordValue(Math.min(System.nanoTime() - t0, h.getHighestTrackableValue()));
            }
            return h;
        };
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

    private static void report(Histogram[] h, long[] nanos, long messages, int rounds, int perRound, int workers,
            Path chart) throws Exception {
        System.out.printf("%d rounds x %d messages per store, alternating, %d worker(s); %s, %s cores, load %s%n%n",
                rounds, perRound, workers, MachineInfo.cpuModel(), MachineInfo.nproc(), MachineInfo.loadAverage());
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
                .title("Bot adapter full path: messages per second, " + workers + " worker(s)").yAxisTitle("messages/s").build();
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
