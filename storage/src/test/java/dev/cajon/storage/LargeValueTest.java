package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static dev.cajon.storage.TestData.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.ValueHeader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Values above {@link Keyspace#BLOB_THRESHOLD} live in blob files: they round-trip byte for byte,
 * change copy-on-write, and their files go away with their keys.
 */
class LargeValueTest {
    private static final int MIB = 1024 * 1024;
    private static final long NO_EXPIRY = ValueHeader.NO_EXPIRY;

    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(T0);
    Store store;
    Keyspace ks;

    @BeforeEach
    void open() {
        store = Store.open(dir, clock);
        ks = store.keyspace(Store.DEFAULT_APP, 0);
    }

    @AfterEach
    void close() {
        store.close();
    }

    private void reopen() {
        store.close();
        store = Store.open(dir, clock);
        ks = store.keyspace(Store.DEFAULT_APP, 0);
    }

    private List<String> blobs() {
        return TestData.list(TestData.blobDir(store, 0));
    }

    private void set(String k, byte[] v) {
        assertEquals(OpStatus.OK, ks.set(b(k), v, SetCondition.ALWAYS, NO_EXPIRY, false).status());
    }

    private byte[] get(String k) {
        StringValue v = ks.get(b(k));
        return v == null ? null : v.toBytes();
    }

    @Test
    void thresholdDecidesWhereTheBytesLive() {
        set("at", pattern(Keyspace.BLOB_THRESHOLD, 1));
        assertFalse(ks.get(b("at")).isBlob());
        assertEquals(List.of(), blobs());
        set("above", pattern(Keyspace.BLOB_THRESHOLD + 1, 2));
        StringValue v = ks.get(b("above"));
        assertTrue(v.isBlob());
        assertEquals(Keyspace.BLOB_THRESHOLD + 1, v.length());
        assertArrayEquals(pattern(Keyspace.BLOB_THRESHOLD + 1, 2), v.toBytes());
        assertEquals(1, blobs().size());
    }

    @Test
    void oneMebibyteRoundTrips() {
        byte[] v = pattern(MIB, 3);
        set("k", v);
        assertEquals(MIB, ks.strlen(b("k")));
        assertArrayEquals(v, get("k"));
        assertEquals(1, blobs().size());
        reopen();
        assertArrayEquals(v, get("k"), "and after a reopen");
    }

    @Test
    void fortyMebibytesRoundTrip() {
        byte[] v = pattern(40 * MIB, 4);
        set("k", v);
        assertEquals(40L * MIB, ks.strlen(b("k")));
        assertArrayEquals(v, get("k"));
    }

    @Test
    void aSliceOfABlobReadsItsRange() {
        byte[] v = pattern(MIB, 26);
        set("k", v);
        StringValue slice = ks.get(b("k")).slice(MIB - 100, 50);
        assertTrue(slice.isBlob());
        assertEquals(50, slice.length());
        assertArrayEquals(Arrays.copyOfRange(v, MIB - 100, MIB - 50), slice.toBytes());
    }

    @Test
    void appendOntoABlob() {
        byte[] first = pattern(MIB, 5);
        byte[] more = pattern(1000, 6);
        set("k", first);
        StringValue before = ks.get(b("k"));
        assertEquals(new LengthResult(OpStatus.OK, MIB + 1000), ks.append(b("k"), more));
        byte[] expected = Arrays.copyOf(first, MIB + 1000);
        System.arraycopy(more, 0, expected, MIB, 1000);
        assertArrayEquals(expected, get("k"));
        assertEquals(MIB + 1000, ks.strlen(b("k")));
        assertArrayEquals(first, before.toBytes(), "a reader that started before the append sees the old value");
        assertEquals(1, blobs().size());
    }

    @Test
    void appendCrossingTheThresholdMovesToABlob() {
        byte[] a = pattern(Keyspace.BLOB_THRESHOLD - 10, 7);
        byte[] c = pattern(100, 8);
        set("k", a);
        ks.append(b("k"), c);
        StringValue v = ks.get(b("k"));
        assertTrue(v.isBlob());
        byte[] expected = Arrays.copyOf(a, a.length + c.length);
        System.arraycopy(c, 0, expected, a.length, c.length);
        assertArrayEquals(expected, v.toBytes());
        assertEquals(1, blobs().size());
    }

    @Test
    void setRangeInsideABlobIsCopyOnWrite() {
        byte[] orig = pattern(MIB, 9);
        set("k", orig);
        StringValue before = ks.get(b("k"));
        assertEquals(new LengthResult(OpStatus.OK, MIB), ks.setRange(b("k"), 1000, b("patched")));
        byte[] expected = orig.clone();
        System.arraycopy(b("patched"), 0, expected, 1000, 7);
        assertArrayEquals(expected, get("k"));
        assertArrayEquals(orig, before.toBytes(), "the published bytes were never overwritten");
        assertEquals(1, blobs().size(), "the old blob file was retired");
    }

    @Test
    void setRangePastTheEndOfABlobPadsWithZeros() {
        byte[] orig = pattern(Keyspace.BLOB_THRESHOLD + 100, 10);
        set("k", orig);
        long off = orig.length + 50_000L;
        assertEquals(new LengthResult(OpStatus.OK, off + 3), ks.setRange(b("k"), off, b("end")));
        byte[] expected = Arrays.copyOf(orig, (int) off + 3);
        System.arraycopy(b("end"), 0, expected, (int) off, 3);
        assertArrayEquals(expected, get("k"));
        assertEquals(1, blobs().size());
    }

    @Test
    void setRangeOnASmallValuePastTheThreshold() {
        set("k", b("abc"));
        assertEquals(new LengthResult(OpStatus.OK, 100_001), ks.setRange(b("k"), 100_000, b("z")));
        byte[] expected = new byte[100_001];
        expected[0] = 'a';
        expected[1] = 'b';
        expected[2] = 'c';
        expected[100_000] = 'z';
        assertArrayEquals(expected, get("k"));
        assertEquals(new LengthResult(OpStatus.OK, 50_000), ks.setRange(b("missing"), 49_999, b("y")));
        assertEquals(50_000, ks.strlen(b("missing")));
        assertEquals(2, blobs().size());
    }

    @Test
    void setRangeKeepsTheTtlOfABlob() {
        ks.set(b("k"), pattern(MIB, 11), SetCondition.ALWAYS, T0 + 1000, false);
        ks.setRange(b("k"), 5, b("x"));
        ks.append(b("k"), b("y"));
        assertEquals(T0 + 1000, ks.deadline(b("k")));
    }

    @Test
    void getDelAndDelRemoveTheBlobFile() {
        byte[] v = pattern(MIB, 12);
        set("a", v);
        set("b", v);
        assertEquals(2, blobs().size());
        assertArrayEquals(v, ks.getDel(b("a")).toBytes(), "GETDEL still returns the bytes");
        assertEquals(1, blobs().size());
        assertTrue(ks.del(b("b")));
        assertEquals(List.of(), blobs());
        assertEquals(0, ks.size());
    }

    @Test
    void overwritingABlobRetiresItsFile() {
        set("k", pattern(MIB, 13));
        set("k", pattern(2 * MIB, 14));
        assertEquals(1, blobs().size());
        SetResult r = ks.set(b("k"), b("small"), SetCondition.ALWAYS, NO_EXPIRY, true);
        assertArrayEquals(pattern(2 * MIB, 14), r.old().toBytes(), "SET ... GET returns the replaced blob");
        assertEquals(List.of(), blobs());
        assertEquals("small", TestData.str(ks.get(b("k"))));
    }

    @Test
    void expiryRemovesTheBlobFile() {
        ks.set(b("lazy"), pattern(MIB, 15), SetCondition.ALWAYS, T0 + 100, false);
        set("now", pattern(MIB, 16));
        ks.set(b("getex"), pattern(MIB, 17), SetCondition.ALWAYS, NO_EXPIRY, false);
        assertEquals(3, blobs().size());
        assertTrue(ks.expireAt(b("now"), T0 - 1, ExpireCondition.NONE));
        assertArrayEquals(pattern(MIB, 17), ks.getEx(b("getex"), T0).toBytes(), "GETEX PXAT now deletes");
        assertEquals(1, blobs().size(), "only lazy's blob is left");
        clock.advance(100);
        assertArrayEquals(pattern(MIB, 15), ks.get(b("lazy")).toBytes(), "alive at its deadline");
        assertEquals(1, blobs().size());
        clock.advance(1);
        assertNull(ks.get(b("lazy")));
        assertEquals(List.of(), blobs());
        assertEquals(0, ks.size());
    }

    @Test
    void renameMovesTheBlobAndRetiresTheReplacedOne() {
        set("src", pattern(MIB, 18));
        set("dst", pattern(MIB, 19));
        assertEquals(2, blobs().size());
        assertEquals(OpStatus.OK, ks.rename(b("src"), b("dst"), false));
        assertArrayEquals(pattern(MIB, 18), get("dst"));
        assertEquals(1, blobs().size());
        reopen();
        assertArrayEquals(pattern(MIB, 18), get("dst"));
    }

    @Test
    void copyGivesEachKeyItsOwnBlob() {
        byte[] v = pattern(MIB, 20);
        set("src", v);
        assertEquals(OpStatus.OK, ks.copy(b("src"), ks, b("dst"), false));
        assertEquals(2, blobs().size());
        ks.setRange(b("dst"), 0, b("changed"));
        ks.append(b("dst"), b("tail"));
        assertArrayEquals(v, get("src"), "changing the copy leaves the source alone");
        ks.del(b("src"));
        assertEquals(MIB + 4, ks.strlen(b("dst")));
        assertEquals(1, blobs().size());
    }

    @Test
    void copyAcrossKeyspacesCopiesTheFile() {
        Keyspace db1 = store.keyspace(Store.DEFAULT_APP, 1);
        byte[] v = pattern(MIB, 21);
        set("src", v);
        db1.set(b("dst"), pattern(MIB, 22), SetCondition.ALWAYS, NO_EXPIRY, false);
        assertEquals(OpStatus.NOT_APPLIED, ks.copy(b("src"), db1, b("dst"), false));
        assertEquals(1, TestData.list(TestData.blobDir(store, 1)).size(), "a refused copy leaves no stray file");
        assertEquals(OpStatus.OK, ks.copy(b("src"), db1, b("dst"), true));
        assertEquals(1, TestData.list(TestData.blobDir(store, 1)).size());
        ks.del(b("src"));
        assertEquals(List.of(), blobs());
        assertArrayEquals(v, db1.get(b("dst")).toBytes());
    }

    @Test
    void orphanedBlobFilesAreSweptOnReopen() throws Exception {
        byte[] v = pattern(MIB, 23);
        set("k", v);
        String live = blobs().get(0);
        Path bd = TestData.blobDir(store, 0);
        Files.write(bd.resolve("00000000deadbeef"), new byte[] {1, 2, 3});
        Files.write(bd.resolve("not-a-blob.txt"), new byte[] {1});
        store.close();
        // an orphan is what a crash leaves (a blob written, its key not yet), and a crash leaves no
        // clean-shutdown state: without one, the open scans the map and sweeps
        Files.delete(bd.getParent().resolve(dev.cajon.storage.chronicle.CleanState.FILE));
        store = Store.open(dir, clock);
        ks = store.keyspace(Store.DEFAULT_APP, 0);
        assertEquals(List.of(live, "not-a-blob.txt"), blobs(), "the orphan is gone, foreign files are left alone");
        assertArrayEquals(v, get("k"));
    }

    @Test
    void blobsOfKeysThatExpiredWhileDownAreRemoved() {
        ks.set(b("k"), pattern(MIB, 24), SetCondition.ALWAYS, T0 + 100, false);
        set("keep", pattern(MIB, 25));
        assertEquals(2, blobs().size());
        store.close();
        clock.advance(101); // 1 ms past the deadline
        store = Store.open(dir, clock);
        ks = store.keyspace(Store.DEFAULT_APP, 0);
        assertEquals(1, ks.size());
        assertEquals(1, blobs().size());
        assertArrayEquals(pattern(MIB, 25), get("keep"));
    }

    /** The 512 MiB limit, checked with a sparse file so nothing large is allocated. */
    @Test
    void stringsAboveTheLimitAreRefused() {
        long max = Keyspace.MAX_STRING_LENGTH;
        assertEquals(OpStatus.TOO_LARGE, ks.setRange(b("k"), max, b("x")).status());
        assertFalse(ks.exists(b("k")));
        assertEquals(List.of(), blobs());

        assertEquals(new LengthResult(OpStatus.OK, max), ks.setRange(b("k"), max - 1, b("x")),
                "exactly the limit is allowed");
        assertEquals(max, ks.strlen(b("k")));
        assertEquals(OpStatus.TOO_LARGE, ks.append(b("k"), b("y")).status());
        assertEquals(OpStatus.TOO_LARGE, ks.setRange(b("k"), max - 1, b("xy")).status());
        assertEquals(max, ks.strlen(b("k")));
        assertEquals(new LengthResult(OpStatus.OK, max), ks.append(b("k"), new byte[0]));
        assertTrue(ks.del(b("k")));
        assertEquals(List.of(), blobs());
    }
}
