package dev.cajon.storage.chronicle;

import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.Keyspace;
import dev.cajon.storage.ManualClock;
import dev.cajon.storage.SetCondition;
import dev.cajon.storage.Store;
import dev.cajon.storage.TestData;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pins the on-disk value layout byte for byte. Every map file ever written depends on these
 * bytes: if one of these tests fails, the change breaks existing data directories and needs a
 * new layout version instead.
 */
class ValueHeaderTest {

    private static final long DEADLINE = 0x0102030405060708L;

    @Test
    void codesAreAppendOnlyAndKeepTheirNumbers() {
        assertEquals(1, ValueHeader.LAYOUT_V1);
        assertEquals(1, ValueHeader.TYPE_STRING);
        assertEquals(0, ValueHeader.ENC_RAW);
        assertEquals(1, ValueHeader.ENC_BLOB);
        assertEquals(1, ValueHeader.FLAG_EXPIRES);
        assertEquals(-1L, ValueHeader.NO_EXPIRY);
        assertEquals(4, ValueHeader.headerLength(ValueHeader.NO_EXPIRY));
        assertEquals(12, ValueHeader.headerLength(DEADLINE));
    }

    @Test
    void collectionCodesKeepTheirNumbers() {
        assertEquals(2, ValueHeader.TYPE_LIST);
        assertEquals(3, ValueHeader.TYPE_SET);
        assertEquals(4, ValueHeader.TYPE_ZSET);
        assertEquals(5, ValueHeader.TYPE_HASH);
        assertEquals(16, ValueHeader.TYPE_PAGE);
        assertEquals(2, ValueHeader.ENC_COLLECTION);
    }

    @Test
    void collectionKeyEntryIsPinned() {
        byte[] plain = ValueHeader.collection(ValueHeader.TYPE_HASH, 0x1122334455667788L, new byte[] {9, 8},
                ValueHeader.NO_EXPIRY);
        assertArrayEquals(new byte[] {1, 5, 2, 0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, (byte) 0x88, 9, 8}, plain);
        byte[] ttl = ValueHeader.collection(ValueHeader.TYPE_ZSET, 1L, new byte[] {7}, DEADLINE);
        assertArrayEquals(new byte[] {1, 4, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 1, 7}, ttl);
        assertTrue(ValueHeader.isCollection(ttl));
        assertFalse(ValueHeader.isCollection(ValueHeader.raw(b("x"), ValueHeader.NO_EXPIRY)));
        assertEquals(1L, ValueHeader.collectionId(ttl));
        assertArrayEquals(new byte[] {7}, ValueHeader.collectionState(ttl));
        assertEquals(DEADLINE, ValueHeader.expireAt(ttl));
        // the expiry operations touch the header only: type, id and state stay
        byte[] persisted = ValueHeader.withExpiry(ttl, ValueHeader.NO_EXPIRY);
        assertArrayEquals(new byte[] {1, 4, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 7}, persisted);
        byte[] wheel = ValueHeader.withWheelAt(ttl, DEADLINE - 1);
        assertEquals(ValueHeader.TYPE_ZSET, ValueHeader.type(wheel));
        assertEquals(1L, ValueHeader.collectionId(wheel));
        assertArrayEquals(new byte[] {7}, ValueHeader.collectionState(wheel));
    }

    @Test
    void pageEntryIsPinned() {
        byte[] page = ValueHeader.page(new byte[] {'p', 'g'});
        assertArrayEquals(new byte[] {1, 16, 0, 0, 'p', 'g'}, page);
        assertEquals(ValueHeader.NO_EXPIRY, ValueHeader.expireAt(page), "a page never expires");
        assertFalse(ValueHeader.isCollection(page));
        assertFalse(ValueHeader.isBlob(page));
        assertArrayEquals(new byte[] {'p', 'g'}, ValueHeader.pageBytes(page));
    }

    @Test
    void rawValueWithoutTtl() {
        assertArrayEquals(new byte[] {1, 1, 0, 0, 'a', 'b', 'c'}, ValueHeader.raw(b("abc"), ValueHeader.NO_EXPIRY));
    }

    @Test
    void emptyRawValueIsHeaderOnly() {
        assertArrayEquals(new byte[] {1, 1, 0, 0}, ValueHeader.raw(new byte[0], ValueHeader.NO_EXPIRY));
    }

    @Test
    void rawValueWithTtlHasBigEndianDeadline() {
        assertArrayEquals(new byte[] {1, 1, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 'a', 'b', 'c'},
                ValueHeader.raw(b("abc"), DEADLINE));
    }

    @Test
    void rawValueOfASlice() {
        assertArrayEquals(new byte[] {1, 1, 0, 0, 'b', 'c'}, ValueHeader.raw(b("abcd"), 1, 2, ValueHeader.NO_EXPIRY));
    }

    @Test
    void realisticDeadline() {
        // 1_700_000_000_000 ms = 0x18BCFE56800
        assertArrayEquals(new byte[] {1, 1, 0, 1, 0, 0, 0x01, (byte) 0x8B, (byte) 0xCF, (byte) 0xE5, 0x68, 0x00, 'x'},
                ValueHeader.raw(b("x"), 1_700_000_000_000L));
    }

    @Test
    void blobReferenceWithoutTtl() {
        byte[] stored = ValueHeader.blob(0x1122334455667788L, 40L << 20, ValueHeader.NO_EXPIRY);
        assertArrayEquals(new byte[] {1, 1, 1, 0,
                0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, (byte) 0x88,
                0, 0, 0, 0, 0x02, (byte) 0x80, 0, 0}, stored);
    }

    @Test
    void blobReferenceWithTtl() {
        byte[] stored = ValueHeader.blob(0x7FFFFFFFFFFFFFFFL, 16385, DEADLINE);
        assertArrayEquals(new byte[] {1, 1, 1, 1,
                1, 2, 3, 4, 5, 6, 7, 8,
                0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF,
                0, 0, 0, 0, 0, 0, 0x40, 0x01}, stored);
    }

    @Test
    void readersDecodeWhatWritersWrote() {
        byte[] raw = ValueHeader.raw(b("hello"), DEADLINE);
        assertEquals(DEADLINE, ValueHeader.expireAt(raw));
        assertEquals(12, ValueHeader.payloadOffset(raw));
        assertEquals(5, ValueHeader.stringLength(raw));
        assertFalse(ValueHeader.isBlob(raw));
        assertEquals(ValueHeader.TYPE_STRING, ValueHeader.type(raw));
        assertEquals(ValueHeader.ENC_RAW, ValueHeader.encoding(raw));

        byte[] blob = ValueHeader.blob(42, 1L << 33, ValueHeader.NO_EXPIRY);
        assertTrue(ValueHeader.isBlob(blob));
        assertEquals(42, ValueHeader.blobId(blob));
        assertEquals(1L << 33, ValueHeader.blobLength(blob));
        assertEquals(1L << 33, ValueHeader.stringLength(blob));
        assertEquals(ValueHeader.NO_EXPIRY, ValueHeader.expireAt(blob));
    }

    @Test
    void expiredMeansDeadlinePassed() {
        // Redis's keyIsExpired (now > when): a key lives through its deadline millisecond
        byte[] v = ValueHeader.raw(b("v"), 1000);
        assertFalse(ValueHeader.isExpired(v, 999));
        assertFalse(ValueHeader.isExpired(v, 1000));
        assertTrue(ValueHeader.isExpired(v, 1001));
        assertTrue(ValueHeader.isExpired(v, 1002));
        assertFalse(ValueHeader.isExpired(ValueHeader.raw(b("v"), ValueHeader.NO_EXPIRY), Long.MAX_VALUE));
    }

    @Test
    void withExpiryAddsChangesAndRemovesTheDeadlineKeepingThePayload() {
        byte[] plain = ValueHeader.raw(b("abc"), ValueHeader.NO_EXPIRY);
        byte[] timed = ValueHeader.withExpiry(plain, DEADLINE);
        assertArrayEquals(ValueHeader.raw(b("abc"), DEADLINE), timed);
        assertArrayEquals(ValueHeader.raw(b("abc"), 7), ValueHeader.withExpiry(timed, 7));
        assertArrayEquals(plain, ValueHeader.withExpiry(timed, ValueHeader.NO_EXPIRY));

        byte[] blob = ValueHeader.blob(9, 100_000, ValueHeader.NO_EXPIRY);
        assertArrayEquals(ValueHeader.blob(9, 100_000, DEADLINE), ValueHeader.withExpiry(blob, DEADLINE));
    }

    @Test
    void unknownLayoutIsRefused() {
        ValueHeader.checkLayout(new byte[] {1, 1, 0, 0});
        assertThrows(IllegalStateException.class, () -> ValueHeader.checkLayout(new byte[] {2, 1, 0, 0, 'x'}));
        assertThrows(IllegalStateException.class, () -> ValueHeader.checkLayout(new byte[] {1, 1, 0}));
        assertThrows(IllegalStateException.class, () -> ValueHeader.checkLayout(new byte[0]));
    }

    /** The bytes a keyspace actually persists, read back from the map file after a close. */
    @Test
    void keyspacePersistsExactlyThisLayout(@TempDir Path dir) {
        ManualClock clock = new ManualClock(TestData.T0);
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            ks.set(b("plain"), b("hi"), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
            ks.set(b("timed"), b("hi"), SetCondition.ALWAYS, DEADLINE, false);
            ks.incrBy(b("counter"), -12);
            ks.set(b("big"), new byte[Keyspace.BLOB_THRESHOLD + 1], SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
        }
        try (MapFile f = MapFile.open(dir.resolve(Store.DEFAULT_APP).resolve("db0"), "raw", false)) {
            assertArrayEquals(new byte[] {1, 1, 0, 0, 'h', 'i'}, f.map().get(b("plain")));
            assertArrayEquals(new byte[] {1, 1, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 'h', 'i'}, f.map().get(b("timed")));
            assertArrayEquals(new byte[] {1, 1, 0, 0, '-', '1', '2'}, f.map().get(b("counter")));
            byte[] big = f.map().get(b("big"));
            assertEquals(20, big.length);
            assertArrayEquals(new byte[] {1, 1, 1, 0}, java.util.Arrays.copyOf(big, 4));
            assertEquals(Keyspace.BLOB_THRESHOLD + 1, ValueHeader.blobLength(big));
            assertEquals(String.format("%016x", ValueHeader.blobId(big)),
                    TestData.list(dir.resolve(Store.DEFAULT_APP).resolve("db0").resolve("blobs")).get(0));
        }
    }
}
