package dev.cajon.bench.jmh;

import dev.cajon.protocol.Argv;
import dev.cajon.server.ServerConfig;
import dev.cajon.server.ServerContext;
import dev.cajon.server.command.CommandSpec;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.command.Dispatcher;
import dev.cajon.server.command.ReplyOutput;
import dev.cajon.server.metrics.ServerMetrics;
import dev.cajon.storage.Clock;
import dev.cajon.storage.Store;
import dev.cajon.storage.expiry.ExpiryWheel;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The server's command path without Netty: {@link CommandTable#lookup} alone, then
 * {@link Dispatcher#dispatch} of PING, GET, SET and INCR against an in-process
 * {@link ServerContext} on a throw-away data directory, replies going to a reused heap buffer
 * that is cleared before each command.
 *
 * <p>The commands are pre-decoded {@link Argv}s (16-byte keys, 32-byte values, 1024 keys in
 * rotation), so the score is lookup + generic checks + handler + storage + reply encoding, and
 * the allocation per op is everything the server does per command after decoding.
 *
 * <p>{@code metrics}: {@code off} is a server started without {@code --metrics-port};
 * {@code on} has its metrics attached, so every command also records its app's counter and its
 * command's latency histogram (nothing scrapes them here).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DispatchBenchmark {
    static final int KEYS = 1024;
    static final int VALUE_SIZE = 32;

    /** Real command names in the case mixes clients send, plus one unknown name. */
    private static final String[] NAMES = {
        "GET", "get", "Set", "sEt", "INCR", "incrby", "Expire", "PTTL",
        "mget", "DEL", "exists", "PING", "hello", "CLIENT", "nosuchcmd", "ttl",
    };

    /** Collects replies in one heap buffer; the benchmark clears it before every command. */
    static final class HeapReplyOutput implements ReplyOutput {
        final ByteBuf buf = Unpooled.buffer(4096);

        @Override
        public ByteBuf buffer() {
            return buf;
        }

        @Override
        public void streamFile(FileChannel file, long position, long length) {
            throw new UnsupportedOperationException("no blob values in this benchmark");
        }
    }

    @Param({"off", "on"})
    public String metrics;

    private Path dir;
    private Store store;
    private ServerMetrics serverMetrics;
    private CommandTable table;
    private Dispatcher dispatcher;
    private Ctx ctx;
    private HeapReplyOutput reply;
    private byte[][] names;
    private Argv ping;
    private Argv[] gets;
    private Argv[] sets;
    private Argv[] incrs;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        names = new byte[NAMES.length][];
        for (int i = 0; i < NAMES.length; i++) {
            names[i] = BenchSupport.ascii(NAMES[i]);
        }
        dir = BenchSupport.tempDir("dispatch");
        ExpiryWheel wheel = new ExpiryWheel(Clock.SYSTEM);
        store = Store.open(dir, Clock.SYSTEM, wheel);
        ServerConfig config = ServerConfig.defaults().withDir(dir).withPort(0).withActiveExpiry(false);
        ServerContext server = new ServerContext(config, store, wheel);
        serverMetrics = metrics.equals("on") ? ServerMetrics.attach(server) : null;
        table = server.table();
        dispatcher = server.dispatcher();
        reply = new HeapReplyOutput();
        ctx = new Ctx(server, server.newSession("127.0.0.1:50000", "127.0.0.1:6379"), reply);

        ping = Argv.of("PING");
        gets = new Argv[KEYS];
        sets = new Argv[KEYS];
        incrs = new Argv[KEYS];
        byte[] get = BenchSupport.ascii("GET");
        byte[] set = BenchSupport.ascii("SET");
        byte[] incr = BenchSupport.ascii("INCR");
        for (int i = 0; i < KEYS; i++) {
            byte[] key = BenchSupport.key(i);
            gets[i] = new Argv(new byte[][] {get, key}, false);
            sets[i] = new Argv(new byte[][] {set, key, BenchSupport.value(VALUE_SIZE, i)}, false);
            incrs[i] = new Argv(new byte[][] {incr, BenchSupport.counterKey(i)}, false);
        }
        // load every key, then check each benchmark measures the reply it should
        for (int i = 0; i < KEYS; i++) {
            next = i;
            dispatchSet();
            BenchSupport.expectReply("SET", reply.buf, "+OK\r\n");
            next = i;
            dispatchIncr();
            BenchSupport.expectReply("INCR", reply.buf, ":1\r\n");
            next = i;
            dispatchGet();
            BenchSupport.expectReply("GET", reply.buf, "$" + VALUE_SIZE + "\r\n");
        }
        dispatchPing();
        BenchSupport.expectReply("PING", reply.buf, "+PONG\r\n");
        if (table.lookup(BenchSupport.ascii("iNcRbY")) == null || table.lookup(BenchSupport.ascii("nosuchcmd")) != null) {
            throw new IllegalStateException("command table lookup is not case-insensitive");
        }
        next = 0;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (serverMetrics != null) {
            serverMetrics.close();
        }
        store.close();
        reply.buf.release();
        BenchSupport.deleteTree(dir);
    }

    private int nextKey() {
        int i = next;
        next = (i + 1) & (KEYS - 1);
        return i;
    }

    /** One lookup of a name from {@link #NAMES}, in rotation. */
    @Benchmark
    public CommandSpec lookupMixedCase() {
        int i = next;
        next = (i + 1) & (NAMES.length - 1);
        return table.lookup(names[i]);
    }

    /** PING: the floor of dispatch (lookup, checks, session bookkeeping, a shared reply). */
    @Benchmark
    public int dispatchPing() {
        reply.buf.clear();
        dispatcher.dispatch(ctx, ping);
        return reply.buf.writerIndex();
    }

    @Benchmark
    public int dispatchGet() {
        reply.buf.clear();
        dispatcher.dispatch(ctx, gets[nextKey()]);
        return reply.buf.writerIndex();
    }

    @Benchmark
    public int dispatchSet() {
        reply.buf.clear();
        dispatcher.dispatch(ctx, sets[nextKey()]);
        return reply.buf.writerIndex();
    }

    @Benchmark
    public int dispatchIncr() {
        reply.buf.clear();
        dispatcher.dispatch(ctx, incrs[nextKey()]);
        return reply.buf.writerIndex();
    }
}
