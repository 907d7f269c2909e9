package dev.cajon.storage.collection;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * {@link CollectionAccess} on the heap for tests of the type operations alone (their model
 * tests): one lock for everything, nothing persisted, no key commands. The keyspace's own is
 * {@code KeyCollections}.
 */
public final class MemoryCollectionAccess implements CollectionAccess {
    private final Map<ByteBuffer, Slot> keys = new HashMap<>();

    private static final class Slot {
        byte type;
        byte[] state;
        final Map<Long, byte[]> pages = new HashMap<>();
        long next = 1;
    }

    private final class View implements Collection, PageStore {
        final ByteBuffer key;
        Slot slot;

        View(ByteBuffer key) {
            this.key = key;
            this.slot = keys.get(key);
        }

        @Override
        public boolean exists() {
            return slot != null && slot.state != null;
        }

        @Override
        public byte type() {
            return exists() ? slot.type : 0;
        }

        @Override
        public byte[] state() {
            return exists() ? slot.state : null;
        }

        @Override
        public void state(byte[] state) {
            if (state == null) {
                keys.remove(key);
                slot = null;
                return;
            }
            if (slot == null) {
                throw new IllegalStateException("state() on a new key needs replace() or write(key, type)");
            }
            slot.state = state;
            keys.put(key, slot);
        }

        @Override
        public void replace(byte type, byte[] state) {
            keys.remove(key);
            slot = new Slot();
            slot.type = type;
            if (state != null) {
                slot.state = state;
                keys.put(key, slot);
            }
        }

        @Override
        public PageStore pages() {
            return this;
        }

        @Override
        public byte[] read(long page) {
            byte[] b = slot.pages.get(page);
            if (b == null) {
                throw new IllegalStateException("no page " + page);
            }
            return b;
        }

        @Override
        public long add(byte[] bytes) {
            long id = slot.next++;
            slot.pages.put(id, bytes);
            return id;
        }

        @Override
        public void write(long page, byte[] bytes) {
            slot.pages.put(page, bytes);
        }

        @Override
        public void free(long page) {
            slot.pages.remove(page);
        }
    }

    private View view(byte[] key, byte type) {
        View v = new View(ByteBuffer.wrap(key.clone()));
        if (v.exists() && type != 0 && v.slot.type != type) {
            throw WrongType.INSTANCE;
        }
        if (v.slot == null) {
            v.slot = new Slot();
            v.slot.type = type;
        }
        return v;
    }

    @Override
    public synchronized <T> T read(byte[] key, byte type, Function<Collection, T> body) {
        View v = view(key, type);
        return body.apply(v.exists() ? v : null);
    }

    @Override
    public synchronized <T> T write(byte[] key, byte type, Function<Collection, T> body) {
        return body.apply(view(key, type));
    }

    @Override
    public synchronized <T> T writeAll(byte[][] keyList, byte[] types, Function<Collection[], T> body) {
        Collection[] c = new Collection[keyList.length];
        for (int i = 0; i < keyList.length; i++) {
            c[i] = view(keyList[i], types[i]);
        }
        return body.apply(c);
    }
}
