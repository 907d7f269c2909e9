package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.BitOps.BitOp;
import dev.cajon.storage.BitOps.BitResult;
import dev.cajon.storage.BitOps.FieldKind;
import dev.cajon.storage.BitOps.FieldOp;
import dev.cajon.storage.BitOps.Overflow;
import dev.cajon.storage.chronicle.ValueHeader;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the model test cannot see: WRONGTYPE from every operation, the top of the offset range
 * (2^32-1, a 512 MiB string), how a write reaches a blob (grown in place, copy-on-write under an
 * open reader), writes that change nothing, TTLs, and bitmaps surviving a reopen.
 */
class BitOpsTest {
    private static final int BLOB = Keyspace.BLOB_THRESHOLD;
    private static final long NO_EXPIRY = ValueHeader.NO_EXPIRY;

    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(T0);
    Store store;
    Keyspace ks;
    BitOps bits;

    @BeforeEach
    void open() {
        store = Store.open(dir, clock);
        ks = store.keyspace(Store.DEFAULT_APP, 0);
        bits = ks.bits();
    }

    @AfterEach
    void close() {
        store.close();
    }

    private void reopen() {
        store.close();
        store = Store.open(dir, clock);
        ks = store.keyspace(Store.DEFAULT_APP, 0);
        bits = ks.bits();
    }

    private byte[] value(String k) {
        StringValue v = ks.get(b(k));
        return v == null ? null : v.toBytes();
    }

    private byte[] stored(String k) {
        byte[] key = KeyCodec.mapKey(b(k));
        return ks.engine().locked(key, () -> ks.engine().readLive(key));
    }

    private static BitResult ok(long v) {
        return new BitResult(OpStatus.OK, v);
    }

    /** A key holding another type: a string's bytes under a hash's type code. */
    private void putHash(String k) {
        byte[] key = KeyCodec.mapKey(b(k));
        byte[] v = ValueHeader.raw(b("not a string"), NO_EXPIRY);
        v[1] = ValueHeader.TYPE_HASH;
        ks.engine().locked(key, () -> {
            ks.engine().put(key, v, null);
            return null;
        });
    }

    @Test
    void everyOperationAnswersWrongTypeAndLeavesTheKeyAlone() {
        putHash("h");
        ks.set(b("s"), b("abc"), SetCondition.ALWAYS, NO_EXPIRY, false);
        byte[] before = stored("h");
        assertEquals(OpStatus.WRONG_TYPE, bits.probe(b("h")));
        assertEquals(OpStatus.OK, bits.probe(b("s")));
        assertEquals(OpStatus.NOT_FOUND, bits.probe(b("none")));
        assertEquals(OpStatus.WRONG_TYPE, bits.setBit(b("h"), 3, true).status());
        assertEquals(OpStatus.WRONG_TYPE, bits.getBit(b("h"), 3).status());
        assertEquals(OpStatus.WRONG_TYPE, bits.bitCount(b("h"), false, 0, 0, false).status());
        assertEquals(OpStatus.WRONG_TYPE, bits.bitPos(b("h"), 1, false, 0, false, 0, false).status());
        assertEquals(OpStatus.WRONG_TYPE, bits.bitField(b("h"),
                List.of(new FieldOp(FieldKind.SET, false, 8, 0, 1, Overflow.WRAP))).status());
        assertEquals(OpStatus.WRONG_TYPE, bits.bitField(b("h"), List.of()).status());
        assertEquals(OpStatus.WRONG_TYPE, bits.bitOp(BitOp.OR, b("d"), new byte[][] {b("s"), b("h")}).status());
        assertNull(value("d"));
        assertEquals(OpStatus.WRONG_TYPE, ks.lcs().lcs(b("s"), b("h"), false, false, 0).status());
        assertEquals(OpStatus.WRONG_TYPE, ks.lcs().lcs(b("h"), b("s"), true, false, 0).status());
        assertArrayEquals(before, stored("h"));
        // a destination of another type is overwritten, as SET does
        assertEquals(ok(3), bits.bitOp(BitOp.OR, b("h"), new byte[][] {b("s")}));
        assertEquals("string", ks.type(b("h")));
        assertArrayEquals(b("abc"), value("h"));
    }

    @Test
    void theLastOffsetMakesA512MiBStringWithoutWritingIt() {
        long last = BitOps.MAX_BIT_OFFSET;
        assertEquals(4294967295L, last);
        long t = System.nanoTime();
        assertEquals(ok(0), bits.setBit(b("k"), last, true));
        long setMicros = (System.nanoTime() - t) / 1000;
        assertEquals(Keyspace.MAX_STRING_LENGTH, ks.strlen(b("k")));
        assertEquals(ok(1), bits.getBit(b("k"), last));
        assertEquals(ok(0), bits.getBit(b("k"), last - 1));
        assertEquals(ok(0), bits.getBit(b("k"), 0));
        assertEquals(ok(last), bits.bitPos(b("k"), 1, true, -1, false, 0, false));
        assertEquals(ok(last - 7), bits.bitPos(b("k"), 0, true, -1, false, 0, false));
        assertEquals(ok(1), bits.bitCount(b("k"), true, -3, -1, false));
        assertEquals(ok(1), bits.bitCount(b("k"), true, -1, -1, true));
        // a write past the end of the blob grows it in place: the same file, and the same length
        long id = ValueHeader.blobId(stored("k"));
        assertEquals(ok(1), bits.setBit(b("k"), last, true)); // unchanged: nothing written
        assertEquals(id, ValueHeader.blobId(stored("k")));
        assertTrue(setMicros < 5_000_000, "SETBIT at 2^32-1 took " + setMicros + " us");
        System.out.println("bitops: SETBIT at 2^32-1 on a new key: " + setMicros + " us");
    }

    @Test
    void growingABlobWritesPastItsEndAndZeroesWhatAnAbandonedWriteLeftThere() {
        byte[] v = TestData.pattern(BLOB + 100, 7);
        ks.set(b("k"), v, SetCondition.ALWAYS, NO_EXPIRY, false);
        long id = ValueHeader.blobId(stored("k"));
        byte[] junk = new byte[300];
        Arrays.fill(junk, (byte) 0x5a);
        ks.engine().blobs.writeAt(id, v.length, junk, 0, junk.length); // as an APPEND that ran out of room
        reopen(); // or as a growth killed before it published the new length: the old value stands
        assertArrayEquals(v, value("k"));
        assertEquals(id, ValueHeader.blobId(stored("k")));
        long offset = (v.length + 200L) * 8 + 3;
        assertEquals(ok(0), bits.setBit(b("k"), offset, true));
        assertEquals(id, ValueHeader.blobId(stored("k")), "grown in place");
        byte[] got = value("k");
        assertEquals(v.length + 201, got.length);
        assertArrayEquals(v, Arrays.copyOf(got, v.length));
        for (int i = v.length; i < v.length + 200; i++) {
            assertEquals(0, got[i], "byte " + i);
        }
        assertEquals(0x10, got[v.length + 200] & 0xff);
        // BITFIELD growing past the end, with an OVERFLOW FAIL: grown, nothing written
        FieldOp fail = new FieldOp(FieldKind.INCRBY, false, 8, (got.length + 10L) * 8, 1000, Overflow.FAIL);
        BitOps.FieldResult r = bits.bitField(b("k"), List.of(fail));
        assertTrue(r.failed()[0]);
        assertEquals(id, ValueHeader.blobId(stored("k")));
        assertEquals(got.length + 11, ks.strlen(b("k")));
        long ones = 0;
        for (byte x : v) {
            ones += Integer.bitCount(x & 0xff);
        }
        assertEquals(ok(1 + ones), bits.bitCount(b("k"), false, 0, 0, false));
    }

    @Test
    void aWriteInsideABlobIsCopyOnWriteSoAnOpenReaderKeepsItsValue() {
        byte[] v = new byte[BLOB * 2];
        ks.set(b("k"), v, SetCondition.ALWAYS, NO_EXPIRY, false);
        long id = ValueHeader.blobId(stored("k"));
        StringValue reader = ks.get(b("k")); // a GET streaming from its open channel
        assertEquals(ok(0), bits.setBit(b("k"), 100, true));
        FieldOp set = new FieldOp(FieldKind.SET, true, 16, BLOB * 8L - 4, -2, Overflow.WRAP);
        bits.bitField(b("k"), List.of(set));
        assertNotEquals(id, ValueHeader.blobId(stored("k")));
        assertArrayEquals(v, reader.toBytes(), "the reader still sees the old value");
        byte[] now = value("k");
        assertEquals(0x08, now[12] & 0xff);
        assertEquals(ok(1 + 15), bits.bitCount(b("k"), false, 0, 0, false));
        assertFalse(TestData.list(TestData.blobDir(store, 0)).contains(String.format("%016x", id)),
                "the old blob file is gone");
    }

    @Test
    void aWriteThatChangesNothingWritesNothing() {
        ks.set(b("k"), b("abc"), SetCondition.ALWAYS, NO_EXPIRY, false);
        var w = ks.watch(b("k"));
        assertEquals(ok(1), bits.setBit(b("k"), 1, true));
        assertEquals(ok(0), bits.setBit(b("k"), 0, false));
        bits.bitField(b("k"), List.of(new FieldOp(FieldKind.SET, false, 8, 0, 'a', Overflow.WRAP),
                new FieldOp(FieldKind.INCRBY, false, 8, 8, 0, Overflow.WRAP)));
        assertFalse(changed(w));
        bits.setBit(b("k"), 23, false); // inside, already 1 ('c' = 0x63)? 'c' ends in 1: a change
        assertTrue(changed(w));
        ks.unwatch(w);
        var w2 = ks.watch(b("k"));
        bits.setBit(b("k"), 24, false); // past the end: grows, so it is a write
        assertTrue(changed(w2));
        ks.unwatch(w2);
    }

    private boolean changed(dev.cajon.storage.tx.Watch w) {
        return ks.atomically(new byte[][] {b("k")}, false, false, () -> ks.changed(w));
    }

    @Test
    void bitWritesKeepTheTtlAndBitopClearsTheDestinations() {
        long at = T0 + 100_000;
        ks.set(b("k"), b("abc"), SetCondition.ALWAYS, at, false);
        bits.setBit(b("k"), 100, true);
        assertEquals(at, ks.deadline(b("k")));
        bits.bitField(b("k"), List.of(new FieldOp(FieldKind.INCRBY, false, 8, 0, 1, Overflow.WRAP)));
        assertEquals(at, ks.deadline(b("k")));
        bits.setBit(b("k"), BLOB * 8L + 5, true); // into a blob
        assertEquals(at, ks.deadline(b("k")));
        bits.setBit(b("k"), BLOB * 8L + 100, true); // grown in place
        assertEquals(at, ks.deadline(b("k")));
        bits.setBit(b("k"), 0, true); // copy-on-write
        assertEquals(at, ks.deadline(b("k")));
        ks.set(b("d"), b("x"), SetCondition.ALWAYS, at, false);
        bits.bitOp(BitOp.NOT, b("d"), new byte[][] {b("k")});
        assertEquals(Keyspace.NO_TTL, ks.deadline(b("d")));
        clock.advance(100_001);
        assertEquals(new BitResult(OpStatus.OK, 0, false), bits.getBit(b("k"), 0));
        assertEquals(OpStatus.NOT_FOUND, bits.probe(b("k")));
    }

    @Test
    void bitmapsSurviveAReopen() {
        bits.setBit(b("small"), 77, true);
        bits.setBit(b("big"), BLOB * 8L * 3, true);
        bits.setBit(b("big"), 5, true);
        bits.setBit(b("big"), BLOB * 8L * 3 + 9, true);
        bits.bitOp(BitOp.XOR, b("x"), new byte[][] {b("small"), b("big")});
        byte[] small = value("small");
        byte[] big = value("big");
        byte[] x = value("x");
        reopen();
        assertArrayEquals(small, value("small"));
        assertArrayEquals(big, value("big"));
        assertArrayEquals(x, value("x"));
        assertEquals(ok(3), bits.bitCount(b("big"), false, 0, 0, false));
    }

    @Test
    void lcsLimitsItsTable() {
        assertEquals(OpStatus.OK, Lcs.lcsRoom(1000, 1000));
        assertEquals(OpStatus.TOO_LARGE, Lcs.lcsRoom(20_000, 20_000));
        assertEquals(OpStatus.TOO_LARGE, Lcs.lcsRoom(Keyspace.MAX_STRING_LENGTH, 0));
        ks.set(b("a"), b("ohmytext"), SetCondition.ALWAYS, NO_EXPIRY, false);
        ks.set(b("b"), b("mynewtext"), SetCondition.ALWAYS, NO_EXPIRY, false);
        Lcs.LcsResult r = ks.lcs().lcs(b("a"), b("b"), true, false, 0);
        assertArrayEquals(b("mytext"), r.lcs());
        assertEquals(6, r.length());
        assertEquals(2, r.matches().size());
        assertArrayEquals(new long[] {4, 7, 5, 8, 4}, r.matches().get(0));
        assertArrayEquals(new long[] {2, 3, 0, 1, 2}, r.matches().get(1));
    }

    /**
     * The cost of the three ways a bitmap write is applied, at 64 MiB and 512 MiB; opt-in
     * ({@code -Dbitops.large=true}): it writes over 1 GiB to disk.
     */
    @Test
    @EnabledIfSystemProperty(named = "bitops.large", matches = "true")
    void measureLargeBitmaps() {
        for (long bytes : new long[] {64L << 20, 512L << 20}) {
            String k = "m" + bytes;
            long top = bytes * 8 - 1;
            long t0 = System.nanoTime();
            bits.setBit(b(k), top, true);
            long t1 = System.nanoTime();
            bits.setBit(b(k), top - 8 * 1024, true); // inside: copy-on-write
            long t2 = System.nanoTime();
            BitResult c = bits.bitCount(b(k), false, 0, 0, false);
            long t3 = System.nanoTime();
            bits.bitField(b(k), List.of(new FieldOp(FieldKind.GET, false, 8, 12345, 0, Overflow.WRAP)));
            long t4 = System.nanoTime();
            bits.setBit(b(k), top + 8, true); // past the end: in place
            long t5 = System.nanoTime();
            assertEquals(ok(2), c);
            System.out.printf("bitops %d MiB: new at top %.1f ms, inside (copy) %.1f ms, BITCOUNT %.1f ms, "
                            + "BITFIELD GET %.3f ms, grow in place %.3f ms%n", bytes >> 20, (t1 - t0) / 1e6,
                    (t2 - t1) / 1e6, (t3 - t2) / 1e6, (t4 - t3) / 1e6, (t5 - t4) / 1e6);
            ks.del(b(k));
        }
    }
}
