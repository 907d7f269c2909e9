package dev.cajon.bench.jmh;

import dev.cajon.storage.Clock;
import dev.cajon.storage.CounterResult;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.OpStatus;
import dev.cajon.storage.SetCondition;
import dev.cajon.storage.SetResult;
import dev.cajon.storage.Store;
import dev.cajon.storage.StringValue;
import dev.cajon.storage.chronicle.ValueHeader;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The storage API the command families call, with no server around it: {@link Keyspace#get},
 * {@link Keyspace#set} (overwriting, no TTL) and {@link Keyspace#incrBy} over a keyspace of
 * {@value #KEYS} keys (16-byte keys; string values of {@code valueSize} bytes, counters in a
 * second keyspace), on one thread and on two threads sharing the keyspace.
 *
 * <p>Each thread walks all keys in a fixed stride, so reads touch the whole map rather than a
 * cached corner of it. The {@code _2threads} scores are per operation of one thread; on a 2-core
 * machine shared with other work they say more about contention than about throughput.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StorageBenchmark {
    static final int KEYS = 100_000;
    /** Prime and coprime with {@link #KEYS}: the walk visits every key once per lap. */
    private static final int STRIDE = 7919;

    /** A keyspace of string values, loaded before the trial. */
    @State(Scope.Benchmark)
    public static class Strings {
        @Param({"32", "1024"})
        int valueSize;

        Path dir;
        Store store;
        Keyspace keyspace;
        byte[][] keys;
        byte[] value;

        @Setup(Level.Trial)
        public void setUp() {
            dir = BenchSupport.tempDir("storage");
            store = Store.open(dir, Clock.SYSTEM);
            keyspace = store.keyspace(Store.DEFAULT_APP, 0);
            keys = BenchSupport.keys(KEYS);
            value = BenchSupport.value(valueSize, 7);
            for (byte[] k : keys) {
                keyspace.set(k, value, SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
            }
            StringValue v = keyspace.get(keys[KEYS / 2]);
            if (v == null || v.length() != valueSize || keyspace.size() != KEYS) {
                throw new IllegalStateException("keyspace not loaded as expected");
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            store.close();
            BenchSupport.deleteTree(dir);
        }
    }

    /** A keyspace of counters (INCR targets), loaded before the trial. */
    @State(Scope.Benchmark)
    public static class Counters {
        Path dir;
        Store store;
        Keyspace keyspace;
        byte[][] keys;

        @Setup(Level.Trial)
        public void setUp() {
            dir = BenchSupport.tempDir("counters");
            store = Store.open(dir, Clock.SYSTEM);
            keyspace = store.keyspace(Store.DEFAULT_APP, 0);
            keys = new byte[KEYS][];
            for (int i = 0; i < KEYS; i++) {
                keys[i] = BenchSupport.counterKey(i);
                if (keyspace.incrBy(keys[i], 1).status() != OpStatus.OK) {
                    throw new IllegalStateException("INCR failed while loading");
                }
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            store.close();
            BenchSupport.deleteTree(dir);
        }
    }

    /** Each thread's position in its walk over the keys; threads start far apart. */
    @State(Scope.Thread)
    public static class Cursor {
        int next;

        @Setup(Level.Trial)
        public void setUp(ThreadParams thread) {
            next = (int) ((long) thread.getThreadIndex() * (KEYS / 2 + 17) % KEYS);
        }

        int next() {
            int i = next + STRIDE;
            if (i >= KEYS) {
                i -= KEYS;
            }
            next = i;
            return i;
        }
    }

    @Benchmark
    public StringValue get(Strings s, Cursor c) {
        return s.keyspace.get(s.keys[c.next()]);
    }

    @Benchmark
    public SetResult set(Strings s, Cursor c) {
        return s.keyspace.set(s.keys[c.next()], s.value, SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
    }

    @Benchmark
    public CounterResult incrBy(Counters s, Cursor c) {
        return s.keyspace.incrBy(s.keys[c.next()], 1);
    }

    @Benchmark
    @Threads(2)
    public StringValue get_2threads(Strings s, Cursor c) {
        return s.keyspace.get(s.keys[c.next()]);
    }

    @Benchmark
    @Threads(2)
    public SetResult set_2threads(Strings s, Cursor c) {
        return s.keyspace.set(s.keys[c.next()], s.value, SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
    }

    @Benchmark
    @Threads(2)
    public CounterResult incrBy_2threads(Counters s, Cursor c) {
        return s.keyspace.incrBy(s.keys[c.next()], 1);
    }
}
