package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static dev.cajon.storage.TestData.str;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.collection.CollectionAccess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Collections in the keyspace's map (see {@link KeyCollections}): key entries and pages, the key
 * commands on them, counts, walks, growth, expiry, and what a kill leaves. Uses
 * {@link PagedTestType}, whose every member is a page, so map entries can be counted.
 */
class KeyCollectionsTest {
    private static final long NO_EXPIRY = ValueHeader.NO_EXPIRY;

    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(T0);

    @BeforeAll
    static void register() {
        PagedTestType.init();
    }

    @AfterEach
    void noHook() {
        KeyCollections.crashHook = null;
    }

    private static long entries(Keyspace ks) {
        return ks.engine().map().longSize();
    }

    private static List<String> list(String... s) {
        return List.of(s);
    }

    private static void set(Keyspace ks, String k, String v) {
        assertEquals(OpStatus.OK, ks.set(b(k), b(v), SetCondition.ALWAYS, NO_EXPIRY, false).status());
    }

    @Test
    void aCollectionIsOneKeyWithItsPagesBeside() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            set(ks, "s", "v");
            assertEquals(3, PagedTestType.add(ks, "c", 0, "a", "b", "c"));
            assertEquals(list("a", "b", "c"), PagedTestType.members(ks, "c"));
            assertEquals(2, ks.size(), "DBSIZE counts keys, not pages");
            assertEquals(2, ks.dbsize());
            assertEquals(3, ks.pageCount());
            assertEquals(5, entries(ks), "two key entries and three pages");
            assertEquals("testpages", ks.type(b("c")));
            assertEquals("pages3", ks.encoding(b("c")));
            List<String> keys = new ArrayList<>();
            ks.forEachLiveKey(k -> keys.add(new String(k)));
            keys.sort(null);
            assertEquals(list("c", "s"), keys, "KEYS skips pages");
            List<String> scanned = new ArrayList<>();
            long cur = 0;
            int rounds = 0;
            do {
                cur = ks.scan(cur, 10, k -> scanned.add(new String(k)));
            } while (cur != 0 && ++rounds < 1000);
            scanned.sort(null);
            assertEquals(list("c", "s"), scanned, "SCAN skips pages");
            List<String> typed = new ArrayList<>();
            ks.scan(0, 1000, PagedTestType.CODE, k -> typed.add(new String(k)));
            assertEquals(list("c"), typed, "SCAN ... TYPE");
            List<String> strings = new ArrayList<>();
            ks.scan(0, 1000, Keyspace.typeCode("STRING"), k -> strings.add(new String(k)));
            assertEquals(list("s"), strings);
            assertEquals(PagedTestType.CODE, Keyspace.typeCode("testpages"));
            assertEquals(-1, Keyspace.typeCode("nosuchtype"));
            for (int i = 0; i < 50; i++) {
                String r = new String(ks.randomKey());
                assertTrue(r.equals("c") || r.equals("s"), r);
            }
            assertTrue(ks.liveBytes() > 3 * KeyCodec.PAGE_KEY_LENGTH, "the byte quota counts pages");
        }
    }

    @Test
    void randomKeyFindsTheFewKeysAmongManyPages() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            String[] m = new String[3000];
            for (int i = 0; i < m.length; i++) {
                m[i] = "m" + i;
            }
            PagedTestType.add(ks, "big", 0, m);
            set(ks, "s", "v");
            java.util.Set<String> seen = new java.util.HashSet<>();
            for (int i = 0; i < 200; i++) {
                seen.add(new String(ks.randomKey()));
            }
            assertEquals(java.util.Set.of("big", "s"), seen);
            assertTrue(ks.del(b("big")));
            assertTrue(ks.del(b("s")));
            assertNull(ks.randomKey());
        }
    }

    @Test
    void aCollectionSurvivesACleanRestartAndAReleasedOpen() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            PagedTestType.add(ks, "c", 100, "x", "y");
        }
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(list("x", "y"), PagedTestType.members(ks, "c"));
            assertEquals(1, ks.size());
            assertEquals(2, ks.pageCount(), "pages counted again once the map is mapped");
            assertTrue(ks.del(b("c")));
            assertEquals(0, ks.pageCount());
            assertEquals(0, entries(ks));
        }
    }

    @Test
    void delAndOverwritesFreeThePages() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            set(ks, "other", "o");
            long base = entries(ks);
            long bytes = ks.liveBytes();
            PagedTestType.add(ks, "c", 0, "a", "b", "c");
            assertTrue(ks.del(b("c")));
            assertEquals(base, entries(ks), "DEL freed every page");
            assertEquals(bytes, ks.liveBytes());
            assertEquals(0, ks.pageCount());

            PagedTestType.add(ks, "c", 0, "a", "b");
            assertEquals(2, ks.delAll(new byte[][] {b("c"), b("other"), b("none")}, 0));
            assertEquals(0, entries(ks));

            PagedTestType.add(ks, "c", 0, "a", "b");
            set(ks, "c", "now a string"); // SET over a collection (the in-place path)
            assertEquals("string", ks.type(b("c")));
            assertEquals(1, entries(ks));
            PagedTestType.add(ks, "d", 0, "a", "b");
            assertEquals(OpStatus.OK, ks.set(b("d"), b("v"), SetCondition.ALWAYS, T0 + 1000, false).status());
            assertEquals(2, entries(ks), "the general SET path too");
            PagedTestType.add(ks, "m", 0, "a", "b");
            ks.mset(new byte[][] {b("m"), b("1"), b("n"), b("2")});
            assertEquals(4, entries(ks), "MSET over a collection");
            assertEquals(0, ks.pageCount());

            PagedTestType.add(ks, "p", 0, "only");
            PagedTestType.pop(ks, "p");
            assertFalse(ks.exists(b("p")), "an emptied collection is deleted by its body");
            assertEquals(4, entries(ks));

            ks.flush();
            PagedTestType.add(ks, "q", 0, "a");
            assertEquals(1, ks.size());
            assertEquals(1, ks.pageCount());
        }
    }

    @Test
    void stringCommandsOnACollectionAnswerWrongType() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            PagedTestType.add(ks, "c", 0, "a");
            set(ks, "s", "1");
            assertThrows(CollectionAccess.WrongType.class, () -> ks.get(b("c")));
            assertThrows(CollectionAccess.WrongType.class, () -> ks.getDel(b("c")));
            assertThrows(CollectionAccess.WrongType.class, () -> ks.getEx(b("c"), T0 + 10));
            assertThrows(CollectionAccess.WrongType.class, () -> ks.strlen(b("c")));
            int[] called = {0};
            assertEquals(Keyspace.USE_GET, ks.readInto(b("c"), (a, o, l) -> called[0]++));
            assertEquals(0, called[0]);
            StringValue[] mget = ks.getAll(new byte[][] {b("s"), b("c")}, 0);
            assertEquals("1", str(mget[0]));
            assertNull(mget[1], "MGET answers nil for another type");
            assertEquals(OpStatus.WRONG_TYPE, ks.incrBy(b("c"), 1).status());
            assertEquals(OpStatus.WRONG_TYPE, ks.incrByFloat(b("c"), java.math.BigDecimal.ONE).status());
            assertEquals(OpStatus.WRONG_TYPE, ks.append(b("c"), b("x")).status());
            assertEquals(OpStatus.WRONG_TYPE, ks.setRange(b("c"), 0, b("x")).status());
            assertEquals(OpStatus.WRONG_TYPE, ks.set(b("c"), b("x"), SetCondition.ALWAYS, NO_EXPIRY, true).status(),
                    "SET ... GET and GETSET");
            assertEquals(OpStatus.NOT_APPLIED, ks.set(b("c"), b("x"), SetCondition.IF_ABSENT, NO_EXPIRY, false).status());
            assertFalse(ks.msetnx(new byte[][] {b("c"), b("x"), b("new"), b("y")}));
            assertEquals(list("a"), PagedTestType.members(ks, "c"), "nothing was written");
            assertThrows(CollectionAccess.WrongType.class, () -> PagedTestType.members(ks, "s"));
            assertThrows(CollectionAccess.WrongType.class, () -> PagedTestType.add(ks, "s", 0, "x"));
            assertEquals("1", str(ks.get(b("s"))));
        }
    }

    @Test
    void expiryRemovesTheCollectionAndItsPages() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            PagedTestType.add(ks, "lazy", 0, "a", "b");
            PagedTestType.add(ks, "wheel", 0, "a", "b");
            assertTrue(ks.expireAt(b("lazy"), T0 + 1000, 0));
            assertTrue(ks.expireAt(b("wheel"), T0 + 1000, 0));
            assertEquals(T0 + 1000, ks.deadline(b("lazy")));
            PagedTestType.add(ks, "lazy", 0, "c");
            assertEquals(T0 + 1000, ks.deadline(b("lazy")), "a write keeps the TTL");
            assertEquals(2, ks.volatileSize());
            assertTrue(ks.persist(b("wheel")));
            assertTrue(ks.expireAt(b("wheel"), T0 + 1000, 0));
            assertEquals(list("a", "b"), PagedTestType.members(ks, "wheel"), "PERSIST and EXPIRE touch the header only");
            clock.advance(1001);
            assertNull(PagedTestType.members(ks, "lazy"), "the lazy check");
            assertEquals(Keyspace.RECLAIMED, ks.reclaimIfDue(b("wheel")), "the wheel's reclaim");
            assertEquals(0, ks.size());
            assertEquals(0, ks.pageCount());
            assertEquals(0, entries(ks));
            assertEquals(2, ks.expiredCount());

            PagedTestType.add(ks, "past", 0, "a", "b");
            assertTrue(ks.expireAt(b("past"), clock.nowMillis() - 1, 0), "a deadline in the past deletes");
            assertEquals(0, entries(ks));
        }
    }

    @Test
    void aCollectionThatExpiredWhileDownGoesWithItsPages() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            PagedTestType.add(ks, "c", 0, "a", "b", "c");
            PagedTestType.add(ks, "kept", 0, "a");
            ks.expireAt(b("c"), T0 + 1000, 0);
        }
        clock.advance(5000);
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertFalse(ks.exists(b("c")));
            assertEquals(1, ks.size());
            assertEquals(1, ks.pageCount());
            assertEquals(2, entries(ks));
        }
    }

    @Test
    void renameMovesTheKeyEntryOnly() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            PagedTestType.add(ks, "src", 0, "a", "b");
            ks.expireAt(b("src"), T0 + 60_000, 0);
            byte[] before = ks.engine().map().get(b("src"));
            List<byte[]> pageKeys = pageKeys(ks);
            assertEquals(OpStatus.OK, ks.rename(b("src"), b("dst"), false));
            assertArrayEquals(before, ks.engine().map().get(b("dst")), "the same entry, same collection id");
            List<byte[]> after = pageKeys(ks);
            assertEquals(pageKeys.size(), after.size());
            for (int i = 0; i < after.size(); i++) {
                assertArrayEquals(pageKeys.get(i), after.get(i), "pages untouched");
            }
            assertEquals(list("a", "b"), PagedTestType.members(ks, "dst"));
            assertEquals(T0 + 60_000, ks.deadline(b("dst")));
            assertFalse(ks.exists(b("src")));

            PagedTestType.add(ks, "other", 0, "x", "y", "z");
            assertEquals(OpStatus.NOT_APPLIED, ks.rename(b("dst"), b("other"), true));
            assertEquals(OpStatus.OK, ks.rename(b("dst"), b("other"), false));
            assertEquals(list("a", "b"), PagedTestType.members(ks, "other"));
            assertEquals(2, ks.pageCount(), "the overwritten collection's pages went");
            assertEquals(3, entries(ks));
        }
    }

    private static List<byte[]> pageKeys(Keyspace ks) {
        List<byte[]> out = new ArrayList<>();
        ks.engine().map().forEachEntry(en -> {
            byte[] k = en.key().get().clone();
            if (KeyCodec.isPage(k)) {
                out.add(k);
            }
        });
        out.sort(java.util.Arrays::compare);
        return out;
    }

    @Test
    void copyMakesAnIndependentCollection() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            Keyspace db1 = store.keyspace(Store.DEFAULT_APP, 1);
            PagedTestType.add(ks, "src", 0, "a", "b");
            ks.expireAt(b("src"), T0 + 60_000, 0);
            assertEquals(OpStatus.OK, ks.copy(b("src"), ks, b("dst"), false));
            assertEquals(OpStatus.NOT_APPLIED, ks.copy(b("src"), ks, b("dst"), false));
            assertEquals(T0 + 60_000, ks.deadline(b("dst")), "COPY keeps the TTL");
            assertEquals(4, ks.pageCount());
            long srcId = ValueHeader.collectionId(ks.engine().map().get(b("src")));
            long dstId = ValueHeader.collectionId(ks.engine().map().get(b("dst")));
            assertFalse(srcId == dstId, "a new collection id");
            PagedTestType.pop(ks, "dst");
            assertEquals(list("a", "b"), PagedTestType.members(ks, "src"));
            assertEquals(list("b"), PagedTestType.members(ks, "dst"));

            set(ks, "str", "v");
            assertEquals(OpStatus.OK, ks.copy(b("src"), ks, b("str"), true), "REPLACE over a string");
            assertEquals(list("a", "b"), PagedTestType.members(ks, "str"));
            assertEquals(OpStatus.OK, ks.copy(b("dst"), ks, b("str"), true), "REPLACE over a collection");
            assertEquals(list("b"), PagedTestType.members(ks, "str"));
            assertEquals(4, ks.pageCount(), "the replaced copy's pages went");

            assertEquals(OpStatus.OK, ks.copy(b("src"), db1, b("moved"), false), "COPY ... DB");
            assertEquals(list("a", "b"), PagedTestType.members(db1, "moved"));
            assertEquals(T0 + 60_000, db1.deadline(b("moved")));
            assertEquals(2, db1.pageCount());
            assertEquals(1, db1.size());
            assertTrue(ks.del(b("src")));
            assertEquals(list("a", "b"), PagedTestType.members(db1, "moved"), "the other db has its own pages");
            assertEquals(OpStatus.OK, ks.copy(b("dst"), db1, b("moved"), true));
            assertEquals(list("b"), PagedTestType.members(db1, "moved"));
            assertEquals(1, db1.pageCount());
        }
    }

    @Test
    void pagesSurviveGrowthAndGrowthCountsThem() {
        int collections = 20;
        int members = 60;
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(1, ks.generation());
            for (int c = 0; c < collections; c++) {
                String[] m = new String[members];
                for (int i = 0; i < members; i++) {
                    m[i] = "c" + c + "-m" + i;
                }
                for (int i = 0; i < members; i += 10) {
                    PagedTestType.add(ks, "coll" + c, 50, java.util.Arrays.copyOfRange(m, i, i + 10));
                }
            }
            PagedTestType.add(ks, "expired", 0, "a", "b");
            ks.expireAt(b("expired"), T0 + 10, 0);
            clock.advance(100);
            ks.engine(); // no read of "expired": growth meets it past its deadline
            assertTrue(ks.generation() > 1, "the pages made the map grow: generation " + ks.generation());
            Growth.grow(ks.engine(), true, 0); // and once more with the expired one in it
            assertTrue(ks.capacity() >= collections * members, "capacity " + ks.capacity());
            assertEquals(collections + 1, ks.size());
            assertEquals(collections * members + 2, ks.pageCount(), "the expired one is kept with its pages");
            for (int c = 0; c < collections; c++) {
                List<String> got = PagedTestType.members(ks, "coll" + c);
                assertEquals(members, got.size());
                assertEquals("c" + c + "-m" + (members - 1), got.get(members - 1));
            }
            assertNull(PagedTestType.members(ks, "expired"));
            assertEquals(collections * members, ks.pageCount());
            assertEquals(collections * (members + 1), entries(ks));
        }
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(members, PagedTestType.members(ks, "coll7").size());
        }
    }

    @Test
    void aBodyThatThrowsLeavesNothing() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            PagedTestType.add(ks, "c", 0, "a");
            assertThrows(IllegalStateException.class, () -> ks.collections().write(b("c"), PagedTestType.CODE, c -> {
                c.pages().add(b("more"));
                c.state(PagedTestType.state(new long[0]));
                throw new IllegalStateException("the body fails");
            }));
            assertEquals(list("a"), PagedTestType.members(ks, "c"));
            assertEquals(1, ks.pageCount());
            assertEquals(2, entries(ks));
            // a new key whose body throws never appears
            assertThrows(IllegalStateException.class, () -> ks.collections().write(b("n"), PagedTestType.CODE, c -> {
                c.pages().add(b("x"));
                throw new IllegalStateException("the body fails");
            }));
            assertFalse(ks.exists(b("n")));
            assertEquals(2, entries(ks));
        }
    }

    @Test
    void writeAllSharesOneCollectionForAKeyNamedTwiceAndReplaceOverwritesAnyType() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            PagedTestType.add(ks, "a", 0, "x");
            byte[] big = TestData.pattern(Keyspace.BLOB_THRESHOLD + 10, 3);
            ks.set(b("blob"), big, SetCondition.ALWAYS, T0 + 60_000, false);
            ks.collections().writeAll(new byte[][] {b("a"), b("a"), b("blob")},
                    new byte[] {PagedTestType.CODE, PagedTestType.CODE, 0}, cs -> {
                        assertSame(cs[0], cs[1]);
                        assertEquals(ValueHeader.TYPE_STRING, cs[2].type());
                        assertTrue(cs[2].exists());
                        byte[] st = cs[0].state();
                        cs[2].replace(PagedTestType.CODE, new byte[0]); // then pages() is the new collection's
                        cs[2].state(PagedTestType.TYPE.copy(st, cs[0].pages(), cs[2].pages()));
                        return null;
                    });
            assertEquals(list("x"), PagedTestType.members(ks, "blob"));
            assertEquals(Keyspace.NO_TTL, ks.deadline(b("blob")), "replace drops the TTL");
            assertEquals(list(), TestData.list(dir.resolve(Store.DEFAULT_APP).resolve("db0").resolve("blobs")).stream()
                    .filter(f -> !f.startsWith("k")).toList(), "the overwritten blob file went");
            assertThrows(CollectionAccess.WrongType.class, () -> ks.collections().writeAll(
                    new byte[][] {b("a"), b("blob2")}, new byte[] {ValueHeader.TYPE_HASH, 0}, cs -> null));
            ks.collections().writeAll(new byte[][] {b("a"), b("blob")}, new byte[] {0, 0}, cs -> {
                cs[1].replace(PagedTestType.CODE, null);
                return null;
            });
            assertFalse(ks.exists(b("blob")), "replace with null deletes");
            assertEquals(2, entries(ks));
        }
    }

    @Test
    void aWriteToACollectionDirtiesItsWatch() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            PagedTestType.add(ks, "c", 0, "a");
            dev.cajon.storage.tx.Watch w = ks.watch(b("c"));
            dev.cajon.storage.tx.Watch other = ks.watch(b("quiet"));
            PagedTestType.add(ks, "c", 0, "b");
            assertTrue(ks.atomically(new byte[][] {b("c"), b("quiet")}, false, false,
                    () -> ks.changed(w) && !ks.changed(other)));
            ks.unwatch(w);
            ks.unwatch(other);
        }
    }

    // ------------------------------------------------------------------ kills

    private Path crash() {
        return dir.getParent().resolve(dir.getFileName() + "-crash");
    }

    /** Copies the store as it is now: what a kill -9 leaves (the page cache holds every mapped write). */
    private void takePicture() {
        TestData.copyStore(dir, crash());
    }

    @Test
    void aKillInTheMiddleOfAMultiPageWriteIsAppliedWholeOnOpen() throws Exception {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            PagedTestType.add(ks, "c", 900, "a", "b");
            set(ks, "s", "v");
            // a write of four pages (~1 KiB each, past a batch slot) and the key entry: killed after two
            KeyCollections.crashHook = n -> {
                if (n == 2) {
                    takePicture();
                }
            };
            PagedTestType.add(ks, "c", 900, "c", "d", "e", "f");
            KeyCollections.crashHook = null;
        }
        // the picture holds the write in the collections journal: 64 slots of 16 KiB, pinned
        byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(
                crash().resolve(Store.DEFAULT_APP).resolve("db0").resolve(Keyspace.COLLECTIONS_FILE)), 16);
        java.nio.ByteBuffer hb = java.nio.ByteBuffer.wrap(head).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        assertArrayEquals(b("CBATCH02"), java.util.Arrays.copyOf(head, 8));
        assertEquals(64, hb.getInt(8));
        assertEquals(16 * 1024, hb.getInt(12));
        try (Store store = Store.open(crash(), clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(list("a", "b", "c", "d", "e", "f"), PagedTestType.members(ks, "c"), "whole");
            assertFalse(Files.exists(crash().resolve(Store.DEFAULT_APP).resolve("db0").resolve(Keyspace.COLLECTIONS_FILE)),
                    "replayed and deleted");
            assertEquals(2, ks.size());
            assertEquals(6, ks.pageCount());
            assertEquals(8, entries(ks));
        }
    }

    @Test
    void aKillBeforeAWriteTouchedTheMapLeavesTheCollectionAsItWas() throws Exception {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            PagedTestType.add(ks, "c", 0, "a");
            takePicture(); // the moment before the next write began
            PagedTestType.add(ks, "c", 0, "b", "c");
        }
        try (Store store = Store.open(crash(), clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(list("a"), PagedTestType.members(ks, "c"), "nothing of it");
            assertEquals(1, ks.pageCount());
        }
    }

    @Test
    void aKillInTheMiddleOfDeletingABigCollectionLeavesNoOrphanAfterTheOpen() throws Exception {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            String[] m = new String[200];
            for (int i = 0; i < m.length; i++) {
                m[i] = "m" + i;
            }
            PagedTestType.add(ks, "big", 0, m);
            PagedTestType.add(ks, "kept", 0, "k1", "k2");
            KeyCollections.crashHook = n -> {
                if (n == -50) {
                    takePicture(); // the key entry is gone, 50 of its pages too
                }
            };
            assertTrue(ks.del(b("big")));
            KeyCollections.crashHook = null;
        }
        try (Store store = Store.open(crash(), clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertFalse(ks.exists(b("big")));
            assertEquals(list("k1", "k2"), PagedTestType.members(ks, "kept"));
            assertEquals(2, ks.pageCount());
            assertEquals(3, entries(ks), "the open swept the pages no key names");
        }
    }

    @Test
    void aKillInTheMiddleOfAnExecThatWritesCollectionsTakesItAllBack() throws Exception {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            PagedTestType.add(ks, "c", 700, "a", "b", "c");
            set(ks, "s", "before");
            int[] applies = {0};
            // the kill comes in the third collection write of the EXEC, after two of its entries
            KeyCollections.crashHook = n -> {
                if (n == 2 && ++applies[0] == 3) {
                    takePicture();
                }
            };
            ks.atomically(new byte[][] {b("c"), b("d"), b("s")}, false, true, () -> {
                PagedTestType.pop(ks, "c"); // frees a page of c (in place: no new page)
                set(ks, "s", "during");
                PagedTestType.add(ks, "c", 700, "x", "y"); // changes c's state, adds pages
                PagedTestType.add(ks, "d", 700, "p", "q", "r", "t"); // a new key with four pages
                return null;
            });
            KeyCollections.crashHook = null;
            assertEquals(list("b", "c", "x", "y"), PagedTestType.members(ks, "c"));
            assertEquals(3, applies[0] >= 3 ? 3 : applies[0], "the picture was taken");
        }
        try (Store store = Store.open(crash(), clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(list("a", "b", "c"), PagedTestType.members(ks, "c"), "c as before the EXEC");
            assertFalse(ks.exists(b("d")), "nothing of d");
            assertEquals("before", str(ks.get(b("s"))));
            assertEquals(2, ks.size());
            assertEquals(3, ks.pageCount());
            assertEquals(5, entries(ks), "no page of the EXEC stays");
        }
    }

    @Test
    void anAtomicSectionTakenBackRestoresPagesToo() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            ks.growBeforeSection = false;
            PagedTestType.add(ks, "c", 0, "a");
            int[] runs = {0};
            // more new pages than the first generation holds even with Chronicle's bloat (as
            // AtomicSectionTest): a write runs out of room in the middle, the section is taken
            // back, the map grows, and it runs again from the start
            int keys = 150;
            byte[][] sectionKeys = new byte[keys + 1][];
            sectionKeys[0] = b("c");
            for (int k = 0; k < keys; k++) {
                sectionKeys[k + 1] = b("d" + k);
            }
            String[] many = new String[1000];
            for (int i = 0; i < many.length; i++) {
                many[i] = "m" + i;
            }
            ks.atomically(sectionKeys, false, true, () -> {
                runs[0]++;
                assertEquals(list("a"), PagedTestType.members(ks, "c"), "each run starts from the state before it");
                PagedTestType.pop(ks, "c");
                PagedTestType.add(ks, "c", 0, "run-" + runs[0]);
                if (runs[0] == 1) {
                    for (int k = 0; k < keys; k++) {
                        PagedTestType.add(ks, "d" + k, 0, many);
                    }
                }
                return null;
            });
            assertTrue(runs[0] >= 2, "ran out of room: " + runs[0]);
            assertEquals(list("run-" + runs[0]), PagedTestType.members(ks, "c"));
            assertFalse(ks.exists(b("d0")));
            assertEquals(1, ks.pageCount());
            assertEquals(2, entries(ks), "nothing of the first run stays");
        }
    }
}
