package dev.cajon.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cajon.storage.collection.MemoryCollectionAccess;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Pins the persisted bytes of the hash and set layout: an entry key is xxHash64 (seed 0) of the
 * member, big-endian, then the member; a state starts with the format byte 1 and the flags byte
 * (bit 0: left the compact encoding). Changing any of these needs a new format byte.
 */
class HashedEntriesTest {

    @Test
    void entryKeyIsTheBigEndianHashThenTheMember() {
        byte[] k = HashedEntries.key("a".getBytes(StandardCharsets.US_ASCII));
        // XXH64("a", 0) = 0xd24ec4f1a98c6e5b
        assertEquals("d24ec4f1a98c6e5b61", HexFormat.of().formatHex(k));
        assertEquals(0xd24ec4f1a98c6e5bL, HashedEntries.hashOf(k));
        assertArrayEquals("a".getBytes(StandardCharsets.US_ASCII), HashedEntries.member(k));
        // XXH64("", 0) = 0xef46db3751d8e999
        assertEquals("ef46db3751d8e999", HexFormat.of().formatHex(HashedEntries.key(new byte[0])));
    }

    @Test
    void stateHeaderIsFormatThenFlags() {
        MemoryCollectionAccess access = new MemoryCollectionAccess();
        HashOps hashes = new HashOps(access);
        byte[] key = "h".getBytes(StandardCharsets.US_ASCII);
        hashes.set(key, new byte[][] {"f".getBytes(StandardCharsets.US_ASCII), "v".getBytes(StandardCharsets.US_ASCII)});
        byte[] st = access.read(key, dev.cajon.storage.chronicle.ValueHeader.TYPE_HASH, c -> c.state());
        assertEquals(1, st[0]);
        assertEquals(0, st[1]);
        assertEquals("listpack", HashOps.TYPE.encoding(st));
        hashes.set(key, new byte[][] {"f".getBytes(StandardCharsets.US_ASCII), new byte[65]});
        st = access.read(key, dev.cajon.storage.chronicle.ValueHeader.TYPE_HASH, c -> c.state());
        assertEquals(1, st[0]);
        assertEquals(1, st[1]);
        assertEquals("hashtable", HashOps.TYPE.encoding(st));
        byte[] unknown = st.clone();
        unknown[0] = 2;
        assertThrows(IllegalStateException.class, () -> HashOps.TYPE.encoding(unknown));
    }
}
