package dev.cajon.bench.bot;

import dev.cajon.bot.BotAdapter;
import dev.cajon.bot.HandleResult;
import dev.cajon.bot.InboundMessage;
import dev.cajon.bot.kv.JedisKv;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import redis.clients.jedis.Jedis;

/**
 * Where a remote bot-path message's time goes: runs the adapter's full path (as
 * {@link BotPathBenchmark}) against a server that is already running, then prints the latency per
 * message and the server's own INFO commandstats for the run, so a Cajon server and a
 * redis-server can be compared command by command. Not a benchmark of record.
 *
 * <p>Usage: {@code BotPathProbe host port messages [warmup]}.
 */
public final class BotPathProbe {
    private BotPathProbe() {
    }

    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        int n = Integer.parseInt(args[2]);
        int warm = args.length > 3 ? Integer.parseInt(args[3]) : n / 4;
        JedisKv kv = JedisKv.remote(host, port);
        BotAdapter bot = BotPathBenchmark.bot(kv, "probe");
        String run = Long.toString(System.nanoTime(), 36);
        for (int i = 0; i < warm; i++) {
            bot.handle(new InboundMessage("chat" + (i % 100), run + "w" + i, "2 leches;"));
        }
        try (Jedis admin = new Jedis(host, port)) {
            admin.configResetStat();
        }
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        // the slow messages (over 2 ms), by when they happened: a tail that clusters points at a
        // stall (GC, growth), one spread over the run at per-round-trip scheduling
        java.util.TreeMap<Long, Integer> slowByTenth = new java.util.TreeMap<>();
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            if (bot.handle(new InboundMessage("chat" + (i % 100), run + "m" + i, "2 leches;")).status()
                    != HandleResult.Status.DONE) {
                throw new IllegalStateException("refused " + i);
            }
            long took = System.nanoTime() - t0;
            h.recordValue(Math.min(took, h.getHighestTrackableValue()));
            if (took > 2_000_000) {
                slowByTenth.merge((t0 - start) / 100_000_000, 1, Integer::sum);
            }
        }
        double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("%,d messages, %,.0f/s, mean %,.0f µs, p50 %,.0f, p90 %,.0f, p99 %,.0f, p99.9 %,.0f, max %,.0f µs%n",
                n, n / secs, h.getMean() / 1e3, h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(90) / 1e3,
                h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3);
        System.out.println("messages over 2 ms, by tenth of a second of the run: " + slowByTenth);
        try (Jedis admin = new Jedis(host, port)) {
            long total = 0;
            StringBuilder sb = new StringBuilder();
            for (String line : admin.info("commandstats").split("\r\n")) {
                if (line.startsWith("cmdstat_")) {
                    sb.append(line).append('\n');
                    String u = line.replaceAll(".*,usec=(\\d+),.*", "$1");
                    total += Long.parseLong(u);
                }
            }
            System.out.print(sb);
            System.out.printf("server time per message: %.1f µs%n", total / (double) n);
        }
        bot.close();
        kv.close();
    }
}
