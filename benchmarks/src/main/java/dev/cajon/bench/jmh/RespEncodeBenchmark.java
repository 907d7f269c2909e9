package dev.cajon.bench.jmh;

import dev.cajon.protocol.Resp;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
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
 * Reply encoding with {@link Resp} into one reused direct buffer (cleared before each reply), as
 * a connection appends the replies of a read batch. Each of these should allocate nothing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RespEncodeBenchmark {
    private ByteBuf out;
    private byte[] value32;
    private byte[] value1k;

    @Setup(Level.Trial)
    public void setUp() {
        out = ByteBufAllocator.DEFAULT.directBuffer(4096);
        value32 = BenchSupport.value(32, 3);
        value1k = BenchSupport.value(1024, 3);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        out.release();
    }

    /** {@code +OK}: one copy of a pre-encoded reply. */
    @Benchmark
    public int ok() {
        out.clear();
        Resp.raw(out, Resp.OK);
        return out.writerIndex();
    }

    /** {@code :42}, from the table of shared small integers. */
    @Benchmark
    public int integerShared() {
        out.clear();
        Resp.integer(out, 42);
        return out.writerIndex();
    }

    /** {@code :1234567890123}, written digit by digit (INCR past 9999). */
    @Benchmark
    public int integerLarge() {
        out.clear();
        Resp.integer(out, 1_234_567_890_123L);
        return out.writerIndex();
    }

    /** {@code $32\r\n...}, a GET reply of a small value. */
    @Benchmark
    public int bulk32() {
        out.clear();
        Resp.bulk(out, value32, 0, value32.length);
        return out.writerIndex();
    }

    /** {@code $1024\r\n...}, a GET reply of a 1 KiB value. */
    @Benchmark
    public int bulk1k() {
        out.clear();
        Resp.bulk(out, value1k, 0, value1k.length);
        return out.writerIndex();
    }
}
