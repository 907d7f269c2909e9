package dev.cajon.bench.jmh;

import dev.cajon.storage.Clock;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.Store;
import dev.cajon.storage.ZSetOps;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
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
 * The collection commands at the storage API the server families call (issue 15's throughput
 * target), on one thread: HSET of a new field into a hash loaded with {@value #ENTRIES} fields,
 * LPUSH + LPOP on a list of {@value #ENTRIES} values, SADD of a new member, ZADD of a new member
 * into a zset of {@value #ENTRIES} members, ZADD + ZPOPMIN (a pair, so the zset keeps its size)
 * and the read-only walks: LRANGE 0 99, ZRANGE 0 99, and HGETALL and SMEMBERS of the whole
 * {@value #ENTRIES} entries.
 *
 * <p>The HSET, SADD and ZADD benchmarks add a new entry per call, so those collections grow
 * during the run (to a few hundred thousand entries in a short run); the others keep their size.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class CollectionBenchmark {
    static final int ENTRIES = 10_000;
    private static final ZSetOps.AddOptions NONE = ZSetOps.AddOptions.NONE;

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** One keyspace with a hash, a list, a set and a zset of {@value #ENTRIES} entries each. */
    @State(Scope.Benchmark)
    public static class Collections {
        Path dir;
        Store store;
        Keyspace ks;
        final byte[] hash = bytes("bench:hash");
        final byte[] list = bytes("bench:list");
        final byte[] set = bytes("bench:set");
        final byte[] zset = bytes("bench:zset");
        final byte[] value = bytes("value-of-sixteen");
        long next;

        @Setup(Level.Trial)
        public void setUp() {
            dir = BenchSupport.tempDir("collections");
            store = Store.open(dir, Clock.SYSTEM);
            ks = store.keyspace(Store.DEFAULT_APP, 0);
            for (int i = 0; i < ENTRIES; i++) {
                byte[] name = bytes("element:" + i);
                ks.hashes().set(hash, new byte[][] {name, value});
                ks.lists().push(list, new byte[][] {value}, 0, false, false);
                ks.sets().add(set, new byte[][] {name});
                ks.zsets().add(zset, NONE, new double[] {i}, new byte[][] {name});
            }
            if (ks.hashes().length(hash) != ENTRIES || ks.lists().length(list) != ENTRIES
                    || ks.sets().cardinality(set) != ENTRIES || ks.zsets().card(zset) != ENTRIES) {
                throw new IllegalStateException("collections not loaded as expected");
            }
            next = ENTRIES;
        }

        byte[] fresh() {
            return bytes("element:" + next++);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            store.close();
            BenchSupport.deleteTree(dir);
        }
    }

    @Benchmark
    public long hset(Collections s) {
        return s.ks.hashes().set(s.hash, new byte[][] {s.fresh(), s.value});
    }

    @Benchmark
    public List<byte[]> lpushLpop(Collections s) {
        s.ks.lists().push(s.list, new byte[][] {s.value}, 0, true, false);
        return s.ks.lists().pop(s.list, true, 1);
    }

    @Benchmark
    public long sadd(Collections s) {
        return s.ks.sets().add(s.set, new byte[][] {s.fresh()});
    }

    @Benchmark
    public ZSetOps.AddResult zadd(Collections s) {
        return s.ks.zsets().add(s.zset, NONE, new double[] {s.next}, new byte[][] {s.fresh()});
    }

    @Benchmark
    public ZSetOps.PopResult zaddZpopmin(Collections s) {
        s.ks.zsets().add(s.zset, NONE, new double[] {-1}, new byte[][] {s.fresh()});
        return s.ks.zsets().pop(new byte[][] {s.zset}, false, 1);
    }

    @Benchmark
    public List<byte[]> lrange100(Collections s) {
        return s.ks.lists().range(s.list, 0, 99);
    }

    @Benchmark
    public List<ZSetOps.Member> zrange100(Collections s) {
        return s.ks.zsets().rangeByRank(s.zset, 0, 99, false);
    }

    @Benchmark
    public List<byte[][]> hgetall(Collections s) {
        return s.ks.hashes().getAll(s.hash);
    }

    @Benchmark
    public List<byte[]> smembers(Collections s) {
        return s.ks.sets().members(s.set);
    }
}
