package dev.cajon.bench.jmh;

import dev.cajon.storage.Keyspace;
import dev.cajon.storage.ManualClock;
import dev.cajon.storage.SetCondition;
import dev.cajon.storage.Store;
import dev.cajon.storage.expiry.ExpiryWheel;
import java.nio.file.Path;
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
 * The expiry wheel, per key, over a {@link ManualClock} window of {@code windowMs}: deadlines of
 * {@value #KEYS} keys are spread over the window (in a scrambled order), then the clock jumps past
 * the window's end and {@link ExpiryWheel#advance} fires them. A window of 100 ms keeps every
 * record on level 0; 60 s files them on levels 1 and 2, so advancing also cascades.
 *
 * <ul>
 *   <li>{@code fileDeadlines}: {@link ExpiryWheel#file} of every key's deadline into an empty wheel
 *       (a fresh wheel per invocation, so slot arrays grow as they do after a slot fires).</li>
 *   <li>{@code fileAndAdvance}: the same filing, then advance over the window; the keys are not
 *       in the keyspace, so each fired record is a stale one: one map miss under its stripe lock. Minus
 *       {@code fileDeadlines}, this is the price of advancing.</li>
 *   <li>{@code expireAndReclaim}: the whole life of a volatile key: SET with a deadline (the
 *       keyspace files it in the wheel), then advance, which deletes every key from the map.</li>
 * </ul>
 * Every invocation leaves the wheel and the keyspace empty, so there is no per-invocation setup to
 * distort the allocation figures.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ExpiryWheelBenchmark {
    static final int KEYS = 10_000;

    @Param({"100", "60000"})
    long windowMs;

    private ManualClock clock;
    private Path dir;
    private Store store;
    private ExpiryWheel wheel;
    private Keyspace keyspace;
    private byte[][] keys;
    /** Key i's deadline, relative to the start of the window: in [1, windowMs]. */
    private long[] offsets;
    private byte[] value;

    @Setup(Level.Trial)
    public void setUp() {
        clock = new ManualClock(1_750_000_000_000L);
        wheel = new ExpiryWheel(clock);
        dir = BenchSupport.tempDir("expiry");
        store = Store.open(dir, clock, wheel);
        keyspace = store.keyspace(Store.DEFAULT_APP, 0);
        keys = BenchSupport.keys(KEYS);
        offsets = new long[KEYS];
        for (int i = 0; i < KEYS; i++) {
            long slot = (i * 7919L) % KEYS; // a permutation of 0..KEYS-1
            offsets[i] = 1 + slot * windowMs / KEYS;
        }
        value = BenchSupport.value(16, 5);
        int reclaimed = expireAndReclaim();
        int stale = fileAndAdvance();
        if (reclaimed != KEYS || keyspace.size() != 0 || stale != 0 || wheel.scheduled() != 0) {
            throw new IllegalStateException("the wheel did not fire every record of the window: reclaimed "
                    + reclaimed + " of " + KEYS + ", " + keyspace.size() + " keys left, " + stale
                    + " reclaimed without a key, " + wheel.scheduled() + " records left");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        store.close();
        BenchSupport.deleteTree(dir);
    }

    @Benchmark
    @OperationsPerInvocation(KEYS)
    public ExpiryWheel fileDeadlines() {
        ExpiryWheel w = new ExpiryWheel(clock);
        long now = clock.nowMillis();
        for (int i = 0; i < KEYS; i++) {
            w.file(keyspace, keys[i], now + offsets[i]);
        }
        return w;
    }

    @Benchmark
    @OperationsPerInvocation(KEYS)
    public int fileAndAdvance() {
        long now = clock.nowMillis();
        for (int i = 0; i < KEYS; i++) {
            wheel.file(keyspace, keys[i], now + offsets[i]);
        }
        clock.advance(windowMs + 1); // a key lives through its deadline millisecond
        return wheel.advance();
    }

    @Benchmark
    @OperationsPerInvocation(KEYS)
    public int expireAndReclaim() {
        long now = clock.nowMillis();
        for (int i = 0; i < KEYS; i++) {
            keyspace.set(keys[i], value, SetCondition.ALWAYS, now + offsets[i], false);
        }
        clock.advance(windowMs + 1); // a key lives through its deadline millisecond
        return wheel.advance();
    }
}
