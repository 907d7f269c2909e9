package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.cajon.storage.chronicle.ValueHeader;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Keyspace#readInto}: GET's allocation-free path and when it defers to {@link Keyspace#get}. */
class ReadIntoTest {
    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(T0);
    Store store;
    Keyspace ks;
    byte[] got;

    @BeforeEach
    void open() {
        store = Store.open(dir, clock);
        ks = store.keyspace(Store.DEFAULT_APP, 0);
    }

    @AfterEach
    void close() {
        store.close();
    }

    private int read(byte[] key) {
        got = null;
        return ks.readInto(key, (a, off, len) -> got = Arrays.copyOfRange(a, off, off + len));
    }

    private void set(byte[] k, byte[] v, long at) {
        assertEquals(OpStatus.OK, ks.set(k, v, SetCondition.ALWAYS, at, false).status());
    }

    @Test
    void smallValuesOfEverySizeUpToTheBlobThreshold() {
        for (int len : new int[] {0, 1, 31, 255, 256, 257, 4096, Keyspace.BLOB_THRESHOLD}) {
            byte[] v = TestData.pattern(len, len);
            set(b("k" + len), v, ValueHeader.NO_EXPIRY);
            assertEquals(Keyspace.READ, read(b("k" + len)), "length " + len);
            assertArrayEquals(v, got, "length " + len);
        }
        // a shorter value after a longer one: only its own bytes
        assertEquals(Keyspace.READ, read(b("k1")));
        assertEquals(1, got.length);
    }

    @Test
    void aMissingKeyIsAbsentAndTheReaderIsNotCalled() {
        assertEquals(Keyspace.ABSENT, read(b("nope")));
        assertNull(got);
    }

    @Test
    void aValueWithADeadlineIsReadUntilItPassesThenGetRemovesIt() {
        set(b("t"), b("v"), T0 + 100);
        clock.advance(100);
        assertEquals(Keyspace.READ, read(b("t")), "alive through its deadline millisecond");
        clock.advance(1);
        assertEquals(Keyspace.USE_GET, read(b("t")));
        assertNull(got);
        assertNull(ks.get(b("t")));
        assertEquals(0, ks.size());
        assertEquals(Keyspace.ABSENT, read(b("t")));
    }

    @Test
    void blobsAndKeysNotStoredAsTheyAreGoThroughGet() {
        set(b("big"), TestData.pattern(Keyspace.BLOB_THRESHOLD + 1, 1), ValueHeader.NO_EXPIRY);
        assertEquals(Keyspace.USE_GET, read(b("big")));
        byte[] marked = {(byte) 0xFF, 'k'};
        set(marked, b("v"), ValueHeader.NO_EXPIRY);
        assertEquals(Keyspace.USE_GET, read(marked));
        byte[] longKey = TestData.pattern(KeyCodec.INLINE_MAX + 1, 2);
        set(longKey, b("v"), ValueHeader.NO_EXPIRY);
        assertEquals(Keyspace.USE_GET, read(longKey));
        assertNull(got, "the reader never ran");
    }
}
