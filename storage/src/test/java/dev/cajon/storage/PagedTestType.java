package dev.cajon.storage;

import dev.cajon.storage.collection.CollectionType;
import dev.cajon.storage.collection.CollectionTypes;
import dev.cajon.storage.collection.PageStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A collection type for the engine's tests, written on {@link PageStore} alone (no tree): each
 * member is a page of its own, and the state lists the page ids, 8 bytes each. So every member
 * added is one more map entry, which is what the engine's tests count.
 */
final class PagedTestType implements CollectionType {
    /** A type code no Redis type uses. */
    static final byte CODE = 60;
    static final PagedTestType TYPE = new PagedTestType();

    static {
        CollectionTypes.register(TYPE);
    }

    static void init() {
        // loads the class, which registers the type
    }

    @Override
    public byte code() {
        return CODE;
    }

    @Override
    public String name() {
        return "testpages";
    }

    @Override
    public String encoding(byte[] state) {
        return "pages" + state.length / 8;
    }

    static long[] ids(byte[] state) {
        ByteBuffer b = ByteBuffer.wrap(state);
        long[] out = new long[state.length / 8];
        for (int i = 0; i < out.length; i++) {
            out[i] = b.getLong();
        }
        return out;
    }

    static byte[] state(long[] ids) {
        ByteBuffer b = ByteBuffer.allocate(ids.length * 8);
        for (long id : ids) {
            b.putLong(id);
        }
        return b.array();
    }

    @Override
    public void release(byte[] state, PageStore pages) {
        for (long id : ids(state)) {
            pages.read(id); // as a tree reads its inner pages to find the others
            pages.free(id);
        }
    }

    @Override
    public byte[] copy(byte[] state, PageStore from, PageStore to) {
        long[] ids = ids(state);
        long[] out = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[i] = to.add(from.read(ids[i]).clone());
        }
        return state(out);
    }

    // ------------------------------------------------------------------ operations for the tests

    /** Adds members (one page each, padded to {@code pad} bytes); returns the new size. */
    static int add(Keyspace ks, String key, int pad, String... members) {
        return ks.collections().write(TestData.b(key), CODE, c -> {
            long[] ids = c.exists() ? ids(c.state()) : new long[0];
            long[] next = java.util.Arrays.copyOf(ids, ids.length + members.length);
            for (int i = 0; i < members.length; i++) {
                byte[] m = members[i].getBytes(StandardCharsets.UTF_8);
                byte[] page = java.util.Arrays.copyOf(m, Math.max(pad, m.length));
                next[ids.length + i] = c.pages().add(page);
            }
            c.state(state(next));
            return next.length;
        });
    }

    /** Removes the first member; deletes the key when it was the last. */
    static void pop(Keyspace ks, String key) {
        ks.collections().write(TestData.b(key), CODE, c -> {
            long[] ids = ids(c.state());
            c.pages().free(ids[0]);
            c.state(ids.length == 1 ? null : state(java.util.Arrays.copyOfRange(ids, 1, ids.length)));
            return null;
        });
    }

    /** The members, in order; null when the key is absent. */
    static List<String> members(Keyspace ks, String key) {
        return ks.collections().read(TestData.b(key), CODE, c -> {
            if (c == null) {
                return null;
            }
            List<String> out = new ArrayList<>();
            for (long id : ids(c.state())) {
                byte[] p = c.pages().read(id);
                int n = 0;
                while (n < p.length && p[n] != 0) {
                    n++;
                }
                out.add(new String(p, 0, n, StandardCharsets.UTF_8));
            }
            return out;
        });
    }
}
