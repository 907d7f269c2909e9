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
        return f.hashBytes(array);
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
