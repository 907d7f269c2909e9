package dev.cajon.bench.jmh;

import dev.cajon.protocol.Argv;
import dev.cajon.protocol.RequestDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Request decoding: bytes to {@link Argv} through the real {@link RequestDecoder} in an
 * {@link EmbeddedChannel}, the way a socket read reaches it.
 *
 * <p>One invocation feeds one read of {@value #COMMANDS} pipelined commands (SET and GET
 * alternating, 16-byte keys, values of {@code valueSize} bytes) and the score is per command.
 * The read buffer comes from the default allocator and is fed again on every invocation (see
 * {@link BenchSupport#rewind}), so what {@code -prof gc} reports per op is the decoder's own
 * allocation per command: the codec's frame objects, the {@code byte[][]}, one {@code byte[]} per
 * argument and the {@code Argv}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RespDecodeBenchmark {
    static final int COMMANDS = 64;

    @Param({"16", "1024"})
    int valueSize;

    private EmbeddedChannel channel;
    private ByteBuf read;
    private CountingSink sink;

    /** The end of the pipeline: counts commands and drops them (nothing queues up in the channel). */
    static final class CountingSink extends ChannelInboundHandlerAdapter {
        long commands;
        long argBytes;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof Argv)) {
                ReferenceCountUtil.release(msg);
                throw new IllegalStateException("decoder produced " + msg + " instead of a command");
            }
            Argv a = (Argv) msg;
            commands++;
            argBytes += a.arg(a.argc() - 1).length;
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        sink = new CountingSink();
        channel = new EmbeddedChannel(new RequestDecoder(), sink);
        byte[] value = BenchSupport.value(valueSize, 1);
        read = ByteBufAllocator.DEFAULT.directBuffer(COMMANDS * (valueSize + 64));
        for (int i = 0; i < COMMANDS; i++) {
            byte[] key = BenchSupport.key(i >> 1);
            if ((i & 1) == 0) {
                BenchSupport.writeCommand(read, BenchSupport.ascii("SET"), key, value);
            } else {
                BenchSupport.writeCommand(read, BenchSupport.ascii("GET"), key);
            }
        }
        decodePipelined();
        if (sink.commands != COMMANDS) {
            throw new IllegalStateException("decoded " + sink.commands + " commands, expected " + COMMANDS);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        channel.finishAndReleaseAll();
        read.release();
    }

    @Benchmark
    @OperationsPerInvocation(COMMANDS)
    public long decodePipelined() {
        channel.pipeline().fireChannelRead(BenchSupport.rewind(read));
        channel.pipeline().fireChannelReadComplete();
        return sink.commands;
    }
}
