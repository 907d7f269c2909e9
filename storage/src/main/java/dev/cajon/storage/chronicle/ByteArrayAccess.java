package dev.cajon.storage.chronicle;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import net.openhft.chronicle.algo.hashing.LongHashFunction;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.bytes.RandomDataOutput;
import net.openhft.chronicle.hash.AbstractData;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.serialization.DataAccess;
import net.openhft.chronicle.wire.WireIn;
import net.openhft.chronicle.wire.WireOut;

/**
 * How Chronicle Map sees a {@code byte[]} key or value that Cajon hands it: the same bytes as
 * Chronicle's own {@code ByteArrayDataAccess}, without its per-call garbage.
 *
 * <h2>Why</h2>
 * Chronicle's access wraps every array it is given in a new {@code HeapBytesStore}, and each of
 * those builds a reference counter with a listener list (a {@code CopyOnWriteArrayList}) and a
 * lambda: about 150-200 bytes and a few hundred nanoseconds of constructor work per key and per
 * value, on every GET, SET, INCR and expiry reclamation (JFR allocation samples put them at
 * 40-75 % of the storage layer's bytes per operation). Chronicle only needs three things from an
 * input key or value on those paths: its hash, a comparison against an entry's bytes and a copy
 * into the segment. This class does the three straight on the array; the wrapper is still built,
 * once, for any other caller of {@link #bytes()}.
 *
 * <h2>Stable code</h2>
 * Chronicle stores the class name of a map's data access in the map file's header and
 * instantiates it when the file is opened, so this class's name is a persisted code: renaming or
 * moving it makes existing data directories unreadable. (Files created before it existed name
 * Chronicle's access and keep working with it.) It has no configuration, so nothing else is
 * written.
 *
 * <p>The hash must equal Chronicle's for the same bytes (an entry is found by the hash it was
 * stored under); {@code ByteArrayAccessTest} pins that against Chronicle's own access.
 */
public final class ByteArrayAccess extends AbstractData<byte[]> implements DataAccess<byte[]> {
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private transient byte[] array;
    /** Chronicle's view of {@link #array}, made only if somebody asks for {@link #bytes()}. */
    private transient BytesStore<?, ?> wrapped;

    @Override
    public Data<byte[]> getData(byte[] instance) {
        array = instance;
        wrapped = null;
        return this;
    }

    @Override
    public void uninit() {
        array = null;
        wrapped = null;
    }

    @Override
    public DataAccess<byte[]> copy() {
        return new ByteArrayAccess();
    }

    @Override
    public RandomDataInput bytes() {
        BytesStore<?, ?> w = wrapped;
        if (w == null) {
            w = BytesStore.wrap(array);
            wrapped = w;
        }
        return w;
    }

    @Override
    public long offset() {
        return 0;
    }

    @Override
    public long size() {
        return array.length;
    }

    @Override
    public long hash(LongHashFunction f) {
        return f == XX_R39 ? xxHash64(array) : f.hashBytes(array);
    }

    // ------------------------------------------------------------------ xxHash64

    /** The function Chronicle Map hashes keys with. */
    private static final LongHashFunction XX_R39 = LongHashFunction.xx_r39();
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long P4 = 0x85EBCA77C2B2AE63L;
    private static final long P5 = 0x27D4EB2F165667C5L;

    /**
     * xxHash64 (seed 0) of the whole array: the value of Chronicle's {@code LongHashFunction.xx_r39()
     * .hashBytes(a)}, computed straight on the array. Chronicle's own goes through its generic
     * {@code Access} interface, which the JIT could not inline on the server's hot path (several
     * access types reach that call site): a JFR profile under redis-benchmark -P 16 had 23 % of the
     * event loops' samples in {@code XxHash_r39$AsLongHashFunction.hash}. Equality with Chronicle's
     * is what finds an entry again; {@code ByteArrayAccessTest} checks it over many lengths.
     */
    public static long xxHash64(byte[] a) {
        int len = a.length;
        int p = 0;
        long h;
        if (len >= 32) {
            long v1 = P1 + P2;
            long v2 = P2;
            long v3 = 0;
            long v4 = -P1;
            int limit = len - 32;
            do {
                v1 = round(v1, (long) LONGS.get(a, p));
                v2 = round(v2, (long) LONGS.get(a, p + 8));
                v3 = round(v3, (long) LONGS.get(a, p + 16));
                v4 = round(v4, (long) LONGS.get(a, p + 24));
                p += 32;
            } while (p <= limit);
            h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
            h = merge(h, v1);
            h = merge(h, v2);
            h = merge(h, v3);
            h = merge(h, v4);
        } else {
            h = P5;
        }
        h += len;
        for (; p + 8 <= len; p += 8) {
            h ^= round(0, (long) LONGS.get(a, p));
            h = Long.rotateLeft(h, 27) * P1 + P4;
        }
        if (p + 4 <= len) {
            h ^= ((int) INTS.get(a, p) & 0xFFFFFFFFL) * P1;
            h = Long.rotateLeft(h, 23) * P2 + P3;
            p += 4;
        }
        for (; p < len; p++) {
            h ^= (a[p] & 0xFFL) * P5;
            h = Long.rotateLeft(h, 11) * P1;
        }
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        h ^= h >>> 32;
        return h;
    }

    private static long round(long acc, long input) {
        acc += input * P2;
        acc = Long.rotateLeft(acc, 31);
        return acc * P1;
    }

    private static long merge(long acc, long v) {
        acc ^= round(0, v);
        return acc * P1 + P4;
    }

    @Override
    public boolean equivalent(RandomDataInput source, long sourceOffset) {
        byte[] a = array;
        int n = a.length;
        int i = 0;
        if (LITTLE_ENDIAN) {
            // Chronicle's stores read longs in native order
            for (; i + 8 <= n; i += 8) {
                if (source.readLong(sourceOffset + i) != (long) LONGS.get(a, i)) {
                    return false;
                }
            }
        }
        for (; i < n; i++) {
            if (source.readByte(sourceOffset + i) != a[i]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void writeTo(RandomDataOutput target, long targetOffset) {
        target.write(targetOffset, array, 0, array.length);
    }

    @Override
    public byte[] get() {
        return array;
    }

    @Override
    public byte[] getUsing(byte[] using) {
        byte[] a = array;
        if (using == null || using.length != a.length) {
            using = new byte[a.length];
        }
        System.arraycopy(a, 0, using, 0, a.length);
        return using;
    }

    @Override
    public void writeMarshallable(WireOut wire) {
        // no configuration
    }

    @Override
    public void readMarshallable(WireIn wire) {
        // no configuration
    }
}
