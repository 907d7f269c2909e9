package dev.cajon.storage.chronicle;

import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import net.openhft.chronicle.algo.hashing.LongHashFunction;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.serialization.impl.ByteArrayDataAccess;
import net.openhft.chronicle.map.ChronicleMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cajon's byte[] access for Chronicle: the same hashes and comparisons as Chronicle's own. */
class ByteArrayAccessTest {
    @TempDir
    Path dir;

    @Test
    void hashesEveryLengthExactlyAsChronicleDoes() {
        // an entry is found under the hash it was stored with: a different hash loses every key
        // written before (or by Chronicle's access, in files created before this class)
        Random rnd = new Random(7);
        LongHashFunction f = LongHashFunction.xx_r39();
        // the fast path is taken when Chronicle passes its xx_r39 instance, which it fetches per call
        assertSame(f, LongHashFunction.xx_r39(), "xx_r39() is one instance");
        for (int len = 0; len <= 300; len++) {
            for (int trial = 0; trial < 20; trial++) {
                byte[] a = new byte[len];
                rnd.nextBytes(a);
                long theirs = new ByteArrayDataAccess().getData(a).hash(f);
                assertEquals(theirs, new ByteArrayAccess().getData(a).hash(f), "length " + len);
                assertEquals(theirs, ByteArrayAccess.xxHash64(a), "our own xxHash64, length " + len);
            }
        }
        // and a few long ones (values are hashed too, e.g. by Chronicle's checksums)
        for (int len : new int[] {1_000, 4_096, 65_537}) {
            byte[] a = new byte[len];
            rnd.nextBytes(a);
            assertEquals(f.hashBytes(a), ByteArrayAccess.xxHash64(a), "length " + len);
        }
        // bytes with the high bit set, where sign extension would show
        byte[] ones = new byte[77];
        java.util.Arrays.fill(ones, (byte) 0xFF);
        for (int len = 0; len <= ones.length; len++) {
            byte[] a = java.util.Arrays.copyOf(ones, len);
            assertEquals(f.hashBytes(a), ByteArrayAccess.xxHash64(a), "0xFF x " + len);
        }
    }

    @Test
    void equivalentComparesEveryByteAtTheGivenOffset() {
        Random rnd = new Random(11);
        for (int len = 0; len <= 40; len++) {
            byte[] a = new byte[len];
            rnd.nextBytes(a);
            BytesStore<?, byte[]> store = BytesStore.wrap(new byte[len + 13]);
            store.write(5, a, 0, len);
            Data<byte[]> d = new ByteArrayAccess().getData(a);
            assertTrue(d.equivalent(store, 5), "length " + len);
            for (int i = 0; i < len; i++) {
                byte[] other = a.clone();
                other[i] ^= 0x40;
                store.write(5, other, 0, len);
                assertFalse(d.equivalent(store, 5), "length " + len + ", byte " + i + " differs");
            }
        }
    }

    @Test
    void writesCopiesAndWrapsTheArray() {
        byte[] a = b("hello, drawer");
        ByteArrayAccess access = new ByteArrayAccess();
        Data<byte[]> d = access.getData(a);
        assertEquals(a.length, d.size());
        assertSame(a, d.get());
        byte[] copy = d.getUsing(null);
        assertNotSame(a, copy);
        assertArrayEquals(a, copy);
        BytesStore<?, byte[]> target = BytesStore.wrap(new byte[a.length + 3]);
        d.writeTo(target, 3);
        byte[] back = new byte[a.length];
        target.read(3, back, 0, back.length);
        assertArrayEquals(a, back);
        assertEquals('h', d.bytes().readByte(d.offset()));
        access.uninit();
        assertNull(access.get());
    }

    @Test
    void newMapFilesNameThisAccessInTheirHeader() throws Exception {
        // persisted code: Chronicle instantiates the class named in the header when it opens the file
        try (MapFile f = MapFile.open(dir, "t", false)) {
            f.map().put(b("k"), b("v"));
            byte[] all = Files.readAllBytes(f.file());
            String header = new String(all, 0, Math.min(all.length, 64 * 1024), StandardCharsets.ISO_8859_1);
            assertTrue(header.contains("dev.cajon.storage.chronicle.ByteArrayAccess"), "header names the access");
        }
    }

    @Test
    void filesWrittenWithChroniclesOwnAccessStillOpenAndWork() throws Exception {
        // a data directory created before Cajon had its own access: same name scheme, default access
        Path file = dir.resolve(MapFile.fileName(1, MapFile.INITIAL_ENTRIES, 24, 48));
        try (ChronicleMap<byte[], byte[]> old = ChronicleMap.of(byte[].class, byte[].class)
                .name("t").entries(MapFile.INITIAL_ENTRIES).averageKeySize(24).averageValueSize(48)
                .createPersistedTo(file.toFile())) {
            for (int i = 0; i < 100; i++) {
                old.put(b("key:" + i), b("value:" + i));
            }
        }
        try (MapFile f = MapFile.open(dir, "t", false)) {
            assertEquals(1, f.generation());
            for (int i = 0; i < 100; i++) {
                assertArrayEquals(b("value:" + i), f.map().get(b("key:" + i)));
            }
            f.map().put(b("key:7"), b("changed"));
            // growth copies into a new generation, which uses Cajon's access: same keys found
            f.grow(MapFile.INITIAL_ENTRIES * 4, 24, 48, (k, v) -> true);
            assertEquals(2, f.generation());
            assertArrayEquals(b("changed"), f.map().get(b("key:7")));
            assertArrayEquals(b("value:99"), f.map().get(b("key:99")));
            assertEquals(100, f.map().size());
        }
    }
}
