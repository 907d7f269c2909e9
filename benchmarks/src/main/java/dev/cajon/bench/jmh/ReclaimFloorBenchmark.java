package dev.cajon.bench.jmh;

import dev.cajon.storage.Keyspace;
import dev.cajon.storage.ManualClock;
import dev.cajon.storage.SetCondition;
import dev.cajon.storage.Store;
import dev.cajon.storage.chronicle.ByteArrayAccess;
import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.expiry.ExpiryWheel;
import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.hash.serialization.impl.ByteArraySizedReader;
import net.openhft.chronicle.map.ChronicleMap;
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
 * The price of reclaiming one expired key at the expiry storm's scale, against the floor that
 * Chronicle Map itself sets: what it costs to remove a key from a map of that size at all.
 *
 * <p>Both start from the storm's map: 100,000 keys without TTL plus {@value #STORM} keys, in a
 * map of 4M entries (the generation the storm's keyspace grows into). Each shot then removes the
 * {@value #STORM} keys, in the order of their deadlines (random with respect to the hash), one
 * way or the other ({@code path}):
 * <ul>
 *   <li>{@code chronicleRemove}: {@code ChronicleMap.remove} on a bare map built as Cajon builds
 *       its maps (same key and value access, same sizes), the keys in deadline order. No lock,
 *       no header, no counters: the least any design on Chronicle Map pays per removed key.</li>
 *   <li>{@code wheelReclaim}: the keys were SET with deadlines spread over 2 s (the storm's
 *       window) on a {@link ManualClock}; the shot advances the clock a millisecond at a time and
 *       lets {@link ExpiryWheel#advance} reclaim every due key, as the reaper does in a storm
 *       (records read, stripe lock, header checked in place, removal, counters).</li>
 * </ul>
 * Single-shot, with the map filled again (not measured) before every shot. Per key: the shot's
 * time divided by {@value #STORM}. One thread: on two cores the storm's half a million keys a
 * second cost this much CPU whoever spends it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(1)
public class ReclaimFloorBenchmark {
    static final int KEEP = 100_000;
    static final int STORM = 1_000_000;
    static final long ENTRIES = 1L << 22;
    static final int WINDOW_MS = 2_000;

    @Param({"chronicleRemove", "wheelReclaim"})
    String path;

    private byte[][] stormKeys;
    private long[] offsets;
    private byte[] value;

    private Path rawDir;
    private ChronicleMap<byte[], byte[]> raw;
    private byte[] rawValue;

    private Path storeDir;
    private ManualClock clock;
    private Store store;
    private ExpiryWheel wheel;
    private Keyspace keyspace;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        stormKeys = new byte[STORM][];
        offsets = new long[STORM];
        SplittableRandom rnd = new SplittableRandom(42);
        for (int i = 0; i < STORM; i++) {
            stormKeys[i] = BenchSupport.ascii(String.format("storm:%010d", i));
            offsets[i] = 1 + rnd.nextInt(WINDOW_MS);
        }
        // the bare map removes in deadline order too
        sortByOffset();
        value = BenchSupport.value(32, 3);
        // what Cajon stores for that value: header plus payload
        rawValue = ValueHeader.raw(value, ValueHeader.NO_EXPIRY);

        rawDir = BenchSupport.tempDir("reclaim-floor-raw");
        raw = ChronicleMap.of(byte[].class, byte[].class)
                .name("reclaim-floor")
                .keyReaderAndDataAccess(ByteArraySizedReader.INSTANCE, new ByteArrayAccess())
                .valueReaderAndDataAccess(ByteArraySizedReader.INSTANCE, new ByteArrayAccess())
                .entries(ENTRIES)
                .averageKeySize(17)
                .averageValueSize(rawValue.length + 8)
                .maxBloatFactor(4.0)
                .putReturnsNull(true)
                .removeReturnsNull(true)
                .skipCloseOnExitHook(true)
                .createPersistedTo(rawDir.resolve("raw.cmap").toFile());

        clock = new ManualClock(1_750_000_000_000L);
        wheel = new ExpiryWheel(clock);
        storeDir = BenchSupport.tempDir("reclaim-floor-store");
        store = Store.open(storeDir, clock, wheel);
        keyspace = store.keyspace(Store.DEFAULT_APP, 0);
        for (int i = 0; i < KEEP; i++) {
            byte[] k = BenchSupport.key(i);
            raw.put(k, rawValue);
            keyspace.set(k, value, SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
        }
    }

    private void sortByOffset() {
        Integer[] idx = new Integer[STORM];
        for (int i = 0; i < STORM; i++) {
            idx[i] = i;
        }
        java.util.Arrays.sort(idx, (a, b) -> Long.compare(offsets[a], offsets[b]));
        byte[][] k = new byte[STORM][];
        long[] o = new long[STORM];
        for (int i = 0; i < STORM; i++) {
            k[i] = stormKeys[idx[i]];
            o[i] = offsets[idx[i]];
        }
        stormKeys = k;
        offsets = o;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        raw.close();
        store.close();
        BenchSupport.deleteTree(rawDir);
        BenchSupport.deleteTree(storeDir);
    }

    /** Fills the map again; checks that the last shot removed every storm key. */
    @Setup(Level.Invocation)
    public void fill() {
        long now = clock.nowMillis();
        boolean bare = path.equals("chronicleRemove");
        long left = bare ? raw.size() : keyspace.size() + wheel.scheduled();
        if (left != KEEP) {
            throw new IllegalStateException("the last shot left " + (left - KEEP) + " keys or records behind");
        }
        // in key order, as the storm's loader does
        for (int i = 0; i < STORM; i++) {
            if (bare) {
                raw.put(stormKeys[i], rawValue);
            } else {
                keyspace.set(stormKeys[i], value, SetCondition.ALWAYS, now + offsets[i], false);
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(STORM)
    public long reclaim() {
        if (path.equals("chronicleRemove")) {
            ChronicleMap<byte[], byte[]> m = raw;
            for (byte[] k : stormKeys) {
                m.remove(k);
            }
            return m.size();
        }
        int n = 0;
        for (int ms = 0; ms <= WINDOW_MS; ms++) {
            clock.advance(1);
            n += wheel.advance();
        }
        if (n != STORM) {
            throw new IllegalStateException("reclaimed " + n + " of " + STORM);
        }
        return n;
    }
}
