package dev.cajon.storage.collection;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;

/**
 * {@link Entries} on plain Java collections: the reference model the paged tree is tested
 * against. Its {@link #state()} is the whole collection, so it is only fit for tests (and for
 * small collections): every state() rewrites everything.
 */
public final class MemoryEntries implements Entries {
    private final boolean positional;
    private final TreeMap<byte[], byte[]> keyed = new TreeMap<>(Arrays::compareUnsigned);
    private final List<byte[]> list = new ArrayList<>();

    public MemoryEntries(boolean positional) {
        this.positional = positional;
    }

    /** A model holding what {@code state} (from {@link #state()}) holds, or empty for null. */
    public static MemoryEntries of(byte[] state, boolean positional) {
        MemoryEntries m = new MemoryEntries(positional);
        if (state == null) {
            return m;
        }
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(state))) {
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                byte[] k = new byte[in.readInt()];
                in.readFully(k);
                byte[] v = new byte[in.readInt()];
                in.readFully(v);
                if (positional) {
                    m.list.add(v);
                } else {
                    m.keyed.put(k, v);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return m;
    }

    @Override
    public long size() {
        return positional ? list.size() : keyed.size();
    }

    @Override
    public byte[] get(byte[] key) {
        return keyed.get(key);
    }

    @Override
    public byte[] put(byte[] key, byte[] value) {
        return keyed.put(key.clone(), value.clone());
    }

    @Override
    public byte[] remove(byte[] key) {
        return keyed.remove(key);
    }

    @Override
    public long rank(byte[] key) {
        return keyed.headMap(key, false).size();
    }

    @Override
    public void insertAt(long index, byte[] value) {
        list.add((int) index, value.clone());
    }

    @Override
    public byte[] removeAt(long index) {
        return list.remove((int) index);
    }

    @Override
    public byte[] setAt(long index, byte[] value) {
        return list.set((int) index, value.clone());
    }

    @Override
    public Entry at(long index) {
        if (index < 0 || index >= size()) {
            throw new IndexOutOfBoundsException(index);
        }
        if (positional) {
            return new Entry(new byte[0], list.get((int) index));
        }
        Iterator<Map.Entry<byte[], byte[]>> it = keyed.entrySet().iterator();
        for (long i = 0; i < index; i++) {
            it.next();
        }
        Map.Entry<byte[], byte[]> e = it.next();
        return new Entry(e.getKey(), e.getValue());
    }

    @Override
    public Iterator<Entry> iterator(long from, boolean descending) {
        List<Entry> all = new ArrayList<>();
        if (positional) {
            for (byte[] v : list) {
                all.add(new Entry(new byte[0], v));
            }
        } else {
            keyed.forEach((k, v) -> all.add(new Entry(k, v)));
        }
        return new Iterator<>() {
            long i = from;

            @Override
            public boolean hasNext() {
                return descending ? i >= 0 && i < all.size() : i >= 0 && i < all.size();
            }

            @Override
            public Entry next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Entry e = all.get((int) i);
                i += descending ? -1 : 1;
                return e;
            }
        };
    }

    @Override
    public byte[] state() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt((int) size());
            if (positional) {
                for (byte[] v : list) {
                    out.writeInt(0);
                    out.writeInt(v.length);
                    out.write(v);
                }
            } else {
                for (Map.Entry<byte[], byte[]> e : keyed.entrySet()) {
                    out.writeInt(e.getKey().length);
                    out.write(e.getKey());
                    out.writeInt(e.getValue().length);
                    out.write(e.getValue());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    @Override
    public void clear() {
        keyed.clear();
        list.clear();
    }
}
