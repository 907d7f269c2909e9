package dev.cajon.bench.jmh;

import dev.cajon.protocol.RequestDecoder;
import dev.cajon.server.ServerConfig;
import dev.cajon.server.ServerContext;
import dev.cajon.server.net.ConnectionHandler;
import dev.cajon.server.net.InputCounter;
import dev.cajon.storage.Clock;
import dev.cajon.storage.Store;
import dev.cajon.storage.expiry.ExpiryWheel;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One command through the server's real pipeline, minus the socket: an {@link EmbeddedChannel}
 * holding {@link InputCounter}, {@link RequestDecoder} and {@link ConnectionHandler} (as
 * {@code CajonServer} builds it) over an in-process {@link ServerContext}.
 *
 * <p>Per invocation: one read carrying one request (PING, or GET/SET/INCR on 1024 keys in
 * rotation, 16-byte keys, 32-byte values), read-complete (which writes and flushes the reply
 * batch), pending tasks run, the reply taken off the channel and released. The request buffers
 * are built once and fed again ({@link BenchSupport#rewind}); the reply buffer comes from the
 * channel's allocator as in production. {@code pingRoundTrip} is the floor of the pipeline.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class EndToEndBenchmark {
    static final int KEYS = 1024;
    static final int VALUE_SIZE = 32;

    private Path dir;
    private Store store;
    private EmbeddedChannel channel;
    private ChannelPipeline pipeline;
    private ByteBuf ping;
    private ByteBuf[] gets;
    private ByteBuf[] sets;
    private ByteBuf[] incrs;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        dir = BenchSupport.tempDir("e2e");
        ExpiryWheel wheel = new ExpiryWheel(Clock.SYSTEM);
        store = Store.open(dir, Clock.SYSTEM, wheel);
        ServerConfig config = ServerConfig.defaults().withDir(dir).withPort(0).withActiveExpiry(false);
        ServerContext server = new ServerContext(config, store, wheel);
        // handlers given to the constructor see channelActive, which opens the client session
        channel = new EmbeddedChannel(new InputCounter(server.stats()), new RequestDecoder(),
                new ConnectionHandler(server));
        pipeline = channel.pipeline();

        ping = BenchSupport.command(BenchSupport.ascii("PING"));
        gets = new ByteBuf[KEYS];
        sets = new ByteBuf[KEYS];
        incrs = new ByteBuf[KEYS];
        for (int i = 0; i < KEYS; i++) {
            byte[] key = BenchSupport.key(i);
            gets[i] = BenchSupport.command(BenchSupport.ascii("GET"), key);
            sets[i] = BenchSupport.command(BenchSupport.ascii("SET"), key, BenchSupport.value(VALUE_SIZE, i));
            incrs[i] = BenchSupport.command(BenchSupport.ascii("INCR"), BenchSupport.counterKey(i));
        }
        // load every key, checking that each benchmark measures the reply it should
        for (int i = 0; i < KEYS; i++) {
            expect("SET", sets[i], "+OK\r\n");
            expect("INCR", incrs[i], ":1\r\n");
            expect("GET", gets[i], "$" + VALUE_SIZE + "\r\n");
        }
        expect("PING", ping, "+PONG\r\n");
    }

    private void expect(String what, ByteBuf request, String reply) {
        ByteBuf r = roundTrip(request);
        try {
            BenchSupport.expectReply(what, r, reply);
        } finally {
            r.release();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        channel.finishAndReleaseAll();
        store.close();
        ping.release();
        for (int i = 0; i < KEYS; i++) {
            gets[i].release();
            sets[i].release();
            incrs[i].release();
        }
        BenchSupport.deleteTree(dir);
    }

    /** Feeds one read, completes it, and returns the flushed reply (the caller releases it). */
    private ByteBuf roundTrip(ByteBuf request) {
        pipeline.fireChannelRead(BenchSupport.rewind(request));
        pipeline.fireChannelReadComplete();
        channel.runPendingTasks();
        ByteBuf reply = channel.readOutbound();
        if (reply == null) {
            throw new IllegalStateException("no reply flushed");
        }
        return reply;
    }

    private int roundTripAndRelease(ByteBuf request) {
        ByteBuf reply = roundTrip(request);
        int n = reply.readableBytes();
        reply.release();
        return n;
    }

    private int nextKey() {
        int i = next;
        next = (i + 1) & (KEYS - 1);
        return i;
    }

    @Benchmark
    public int pingRoundTrip() {
        return roundTripAndRelease(ping);
    }

    @Benchmark
    public int getRoundTrip() {
        return roundTripAndRelease(gets[nextKey()]);
    }

    @Benchmark
    public int setRoundTrip() {
        return roundTripAndRelease(sets[nextKey()]);
    }

    @Benchmark
    public int incrRoundTrip() {
        return roundTripAndRelease(incrs[nextKey()]);
    }
}
