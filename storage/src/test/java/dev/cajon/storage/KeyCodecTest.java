package dev.cajon.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stored form of keys (a persisted format), and keys far longer than a map entry. */
class KeyCodecTest {
    static final long T0 = 1_800_000_000_000L;

    @Test
    void storedFormsArePinned() {
        byte[] plain = "user:42".getBytes(StandardCharsets.US_ASCII);
        assertSame(plain, KeyCodec.mapKey(plain), "ordinary keys are stored as they are");
        assertArrayEquals(new byte[0], KeyCodec.mapKey(new byte[0]));
        assertArrayEquals(new byte[] {(byte) 0xFF, 0, (byte) 0xFF, 'a'}, KeyCodec.mapKey(new byte[] {(byte) 0xFF, 'a'}));
        byte[] longKey = new byte[KeyCodec.INLINE_MAX + 1];
        byte[] digest = KeyCodec.mapKey(longKey);
        assertEquals(34, digest.length);
        assertEquals((byte) 0xFF, digest[0]);
        assertEquals(1, digest[1]);
        // SHA-256 of 8193 zero bytes, pinned: the name of the key's file
        assertEquals("k" + sha256Hex(longKey), KeyCodec.fileName(digest));
        assertTrue(KeyCodec.isDigest(digest));
        assertFalse(KeyCodec.isDigest(plain));
        assertArrayEquals(new byte[] {(byte) 0xFF, 'a'}, KeyCodec.userKey(KeyCodec.mapKey(new byte[] {(byte) 0xFF, 'a'})));
    }

    @Test
    void pageKeysArePinnedAndNeverACLientsKey() {
        byte[] pk = KeyCodec.pageKey(0x0102030405060708L, 0x1112131415161718L);
        assertArrayEquals(new byte[] {(byte) 0xFF, 2, 1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18}, pk);
        assertTrue(KeyCodec.isPage(pk));
        assertEquals(0x0102030405060708L, KeyCodec.pageCollection(pk));
        assertFalse(KeyCodec.isDigest(pk));
        // a client's key with the same bytes is escaped, so it is never a page key
        byte[] lookalike = KeyCodec.mapKey(pk);
        assertFalse(KeyCodec.isPage(lookalike));
        assertArrayEquals(pk, KeyCodec.userKey(lookalike));
        assertFalse(KeyCodec.isPage(KeyCodec.mapKey(new byte[KeyCodec.INLINE_MAX + 1])));
        assertFalse(KeyCodec.isPage("abcdefghijklmnopqr".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void aOneMebibyteKeyWorksThroughEveryOperationAndScan(@TempDir Path dir) {
        ManualClock clock = new ManualClock(T0);
        byte[] big = new byte[1 << 20];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31);
        }
        byte[] escaped = {(byte) 0xFF, 1, 2};
        byte[] other = Arrays.copyOf(big, big.length);
        other[other.length - 1] ^= 1;
        try (Store s = Store.open(dir, clock)) {
            Keyspace ks = s.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(OpStatus.OK, ks.set(big, "v".getBytes(), SetCondition.ALWAYS, -1, false).status());
            ks.set(escaped, "e".getBytes(), SetCondition.ALWAYS, -1, false);
            assertEquals("v", new String(ks.get(big).toBytes()));
            assertNull(ks.get(other), "a key differing in its last byte is another key");
            assertEquals(5, ks.incrBy(other, 5).value());
            List<byte[]> seen = new ArrayList<>();
            long cursor = 0;
            do {
                cursor = ks.scan(cursor, 10, seen::add);
            } while (cursor != 0);
            Set<String> names = new HashSet<>();
            seen.forEach(k -> names.add(Arrays.hashCode(k) + ":" + k.length));
            assertEquals(Set.of(Arrays.hashCode(big) + ":" + big.length, Arrays.hashCode(other) + ":" + other.length,
                    Arrays.hashCode(escaped) + ":" + escaped.length), names, "SCAN returns the client's keys");
            assertEquals(OpStatus.OK, ks.rename(big, "short".getBytes(), false));
            assertNull(ks.get(big));
            assertTrue(ks.del(other));
        }
        try (Store s = Store.open(dir, clock)) {
            Keyspace ks = s.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(2, ks.size());
            assertEquals("e", new String(ks.get(escaped).toBytes()));
            long keyFiles;
            try (var files = Files.list(dir.resolve("default/db0/blobs"))) {
                keyFiles = files.filter(p -> p.getFileName().toString().startsWith("k")).count();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            assertEquals(0, keyFiles, "no key file outlives its key");
        }
    }

    private static String sha256Hex(byte[] b) {
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-256").digest(b);
            StringBuilder sb = new StringBuilder();
            for (byte x : d) {
                sb.append(String.format("%02x", x));
            }
            return sb.toString();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
