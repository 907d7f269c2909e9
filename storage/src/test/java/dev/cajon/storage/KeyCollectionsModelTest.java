package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.collection.CollectionAccess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Collections in the keyspace against a model: random sequences of writes, DEL, SET over them,
 * RENAME, COPY, EXPIRE with the clock moving, restarts and forced growth, on {@link PagedTestType}
 * (a page per member, some of them large enough that a write needs the collections journal's
 * slot), and kills in the middle of a multi-page write (the restart applies it whole). After every step each key reads as the model says, and the counts hold: keys, pages,
 * and map entries = keys + pages (no page leaked, none lost).
 */
class KeyCollectionsModelTest {
    private static final String[] KEYS = {"k0", "k1", "k2"};

    /** One step: an operation, two keys and an argument. */
    record Op(int kind, int a, int b, int arg) {
        @Override
        public String toString() {
            String[] names = {"ADD", "POP", "DEL", "SET", "RENAME", "COPY", "EXPIRE", "ADVANCE", "REOPEN", "GROW",
                "KILLED-ADD"};
            return names[kind] + " " + KEYS[a] + " " + KEYS[b] + " " + arg;
        }
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Op> op = net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 10),
                Arbitraries.integers().between(0, KEYS.length - 1), Arbitraries.integers().between(0, KEYS.length - 1),
                Arbitraries.integers().between(0, 5)).as(Op::new);
        return op.list().ofMinSize(1).ofMaxSize(40);
    }

    /** The model: a key holds a list of members, or a string (a one-element list marked so). */
    static final class Model {
        final Map<String, List<String>> colls = new HashMap<>();
        final Map<String, String> strings = new HashMap<>();
        final Map<String, Long> deadlines = new HashMap<>();

        void drop(String k) {
            colls.remove(k);
            strings.remove(k);
            deadlines.remove(k);
        }

        void expire(long now) {
            for (String k : KEYS) {
                Long at = deadlines.get(k);
                if (at != null && at < now) {
                    drop(k);
                }
            }
        }
    }

    @Property(tries = 80)
    void collectionsMatchTheModel(@ForAll("ops") List<Op> ops) throws IOException {
        PagedTestType.init();
        List<Path> dirs = new ArrayList<>();
        Path dir = Files.createTempDirectory("kc-model");
        dirs.add(dir);
        ManualClock clock = new ManualClock(T0);
        Model m = new Model();
        int counter = 0;
        Store store = Store.open(dir, clock);
        try {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            for (Op op : ops) {
                String a = KEYS[op.a];
                String bk = KEYS[op.b];
                switch (op.kind) {
                    case 0 -> {
                        String[] members = new String[1 + op.arg % 3];
                        for (int i = 0; i < members.length; i++) {
                            members[i] = "m" + (counter++);
                        }
                        int pad = op.arg >= 3 ? 1500 : 0; // three of 1.5 KiB: past a batch slot
                        if (m.strings.containsKey(a)) {
                            try {
                                PagedTestType.add(ks, a, pad, members);
                                throw new AssertionError("no WRONGTYPE for " + op);
                            } catch (CollectionAccess.WrongType expected) {
                                // as the model says
                            }
                        } else {
                            PagedTestType.add(ks, a, pad, members);
                            m.colls.computeIfAbsent(a, k -> new ArrayList<>()).addAll(List.of(members));
                        }
                    }
                    case 1 -> {
                        if (m.colls.containsKey(a)) {
                            PagedTestType.pop(ks, a);
                            List<String> l = m.colls.get(a);
                            l.remove(0);
                            if (l.isEmpty()) {
                                m.drop(a);
                            }
                        }
                    }
                    case 2 -> {
                        assertEquals(m.colls.containsKey(a) || m.strings.containsKey(a), ks.del(b(a)), op.toString());
                        m.drop(a);
                    }
                    case 3 -> {
                        ks.set(b(a), b("s" + op.arg), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
                        m.drop(a);
                        m.strings.put(a, "s" + op.arg);
                    }
                    case 4 -> {
                        boolean exists = m.colls.containsKey(a) || m.strings.containsKey(a);
                        assertEquals(exists ? OpStatus.OK : OpStatus.NOT_FOUND, ks.rename(b(a), b(bk), false), op.toString());
                        if (exists && !a.equals(bk)) {
                            List<String> c = m.colls.get(a);
                            String s = m.strings.get(a);
                            Long at = m.deadlines.get(a);
                            m.drop(a);
                            m.drop(bk);
                            if (c != null) {
                                m.colls.put(bk, c);
                            } else {
                                m.strings.put(bk, s);
                            }
                            if (at != null) {
                                m.deadlines.put(bk, at);
                            }
                        }
                    }
                    case 5 -> {
                        if (!a.equals(bk)) {
                            boolean exists = m.colls.containsKey(a) || m.strings.containsKey(a);
                            assertEquals(exists ? OpStatus.OK : OpStatus.NOT_FOUND, ks.copy(b(a), ks, b(bk), true),
                                    op.toString());
                            if (exists) {
                                List<String> c = m.colls.get(a);
                                String s = m.strings.get(a);
                                Long at = m.deadlines.get(a);
                                m.drop(bk);
                                if (c != null) {
                                    m.colls.put(bk, new ArrayList<>(c));
                                } else {
                                    m.strings.put(bk, s);
                                }
                                if (at != null) {
                                    m.deadlines.put(bk, at);
                                }
                            }
                        }
                    }
                    case 6 -> {
                        boolean exists = m.colls.containsKey(a) || m.strings.containsKey(a);
                        long at = clock.nowMillis() + 1000L * (1 + op.arg);
                        assertEquals(exists, ks.expireAt(b(a), at, 0), op.toString());
                        if (exists) {
                            m.deadlines.put(a, at);
                        }
                    }
                    case 7 -> clock.advance(1500);
                    case 8 -> {
                        store.close();
                        store = Store.open(dir, clock);
                        ks = store.keyspace(Store.DEFAULT_APP, 0);
                    }
                    case 9 -> Growth.grow(ks.engine(), true, 0);
                    case 10 -> {
                        // a kill -9 after the first `target` map entries of a three-page write: the
                        // picture of the files then is opened as the store after the restart
                        if (m.strings.containsKey(a)) {
                            break;
                        }
                        String[] members = {"m" + (counter++), "m" + (counter++), "m" + (counter++)};
                        int target = 1 + op.arg % 4;
                        Path from = dir;
                        Path picture = Files.createTempDirectory("kc-model-kill");
                        dirs.add(picture);
                        KeyCollections.crashHook = n -> {
                            if (n == target) {
                                copy(from, picture);
                            }
                        };
                        try {
                            PagedTestType.add(ks, a, 1500, members);
                        } finally {
                            KeyCollections.crashHook = null;
                        }
                        store.close();
                        dir = picture;
                        store = Store.open(dir, clock);
                        ks = store.keyspace(Store.DEFAULT_APP, 0);
                        m.colls.computeIfAbsent(a, k -> new ArrayList<>()).addAll(List.of(members)); // whole
                    }
                    default -> throw new AssertionError(op);
                }
                m.expire(clock.nowMillis());
                check(ks, m, ops, op);
            }
        } finally {
            store.close();
            KeyCollections.crashHook = null;
            for (Path d : dirs) {
                try (Stream<Path> files = Files.walk(d)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    /** The store's files as they are now (what a kill leaves: the page cache has every mapped write). */
    private static void copy(Path from, Path to) {
        TestData.copyStore(from, to);
    }

    private static void check(Keyspace ks, Model m, List<Op> ops, Op step) {
        String where = "after " + step + " in " + ops;
        long pages = 0;
        for (String k : KEYS) {
            // reading first: a key past its deadline goes now (the lazy expiry), with its pages
            if (m.strings.containsKey(k)) {
                assertEquals(m.strings.get(k), TestData.str(ks.get(b(k))), k + " " + where);
            } else {
                assertEquals(m.colls.get(k), PagedTestType.members(ks, k), k + " " + where);
            }
            if (m.colls.containsKey(k)) {
                pages += m.colls.get(k).size();
            }
            Long at = m.deadlines.get(k);
            if (m.colls.containsKey(k) || m.strings.containsKey(k)) {
                assertEquals(at == null ? Keyspace.NO_TTL : at, ks.deadline(b(k)), "TTL of " + k + " " + where);
            }
        }
        long keys = m.colls.size() + m.strings.size();
        assertEquals(keys, ks.size(), "keys " + where);
        assertEquals(pages, ks.pageCount(), "pages " + where);
        assertEquals(keys + pages, ks.engine().map().longSize(), "map entries " + where);
    }
}
