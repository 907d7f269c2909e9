package dev.cajon.storage.chronicle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The clean-shutdown state file: its bytes (a persisted format), and that it is trusted only when
 * whole and describing the map file as it is on disk, and never twice.
 */
class CleanStateTest {
    @TempDir
    Path dir;
    Path map;

    @BeforeEach
    void mapFile() throws IOException {
        map = dir.resolve("keys.g3.e1024.k16.v40.cmap");
        Files.write(map, new byte[] {1, 2, 3, 4, 5});
        Files.setLastModifiedTime(map, FileTime.fromMillis(1_700_000_000_123L));
    }

    private static final List<CleanState.Entry> RECORDS = List.of(
            new CleanState.Entry("ab".getBytes(StandardCharsets.US_ASCII), 0x0102030405060708L),
            new CleanState.Entry(new byte[0], -1L));

    @Test
    void layoutIsPinned() throws IOException {
        CleanState.write(dir, map, 7, 2, 99, 4321, RECORDS);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(expected);
        out.writeBytes("CCLEAN02");
        out.writeShort(26);
        out.writeBytes("keys.g3.e1024.k16.v40.cmap");
        out.writeLong(5); // map size
        out.writeLong(1_700_000_000_123L); // map mtime
        out.writeLong(7);
        out.writeLong(2);
        out.writeLong(99);
        out.writeLong(4321); // bytes
        out.writeLong(2);
        out.writeLong(0x0102030405060708L);
        out.writeInt(2);
        out.writeBytes("ab");
        out.writeLong(-1L);
        out.writeInt(0);
        CRC32 crc = new CRC32();
        crc.update(expected.toByteArray());
        out.writeInt((int) crc.getValue());
        assertArrayEquals(expected.toByteArray(), Files.readAllBytes(dir.resolve(CleanState.FILE)));
    }

    @Test
    void takeReturnsTheStateOnceAndDeletesIt() throws IOException {
        CleanState.write(dir, map, 7, 2, 99, 4321, RECORDS);
        CleanState s = CleanState.take(dir);
        assertNotNull(s);
        assertEquals("keys.g3.e1024.k16.v40.cmap", s.mapFile);
        assertEquals(7, s.keys);
        assertEquals(2, s.volatileKeys);
        assertEquals(99, s.deadlineSum);
        assertEquals(4321, s.bytes);
        assertEquals(2, s.records.size());
        assertArrayEquals("ab".getBytes(StandardCharsets.US_ASCII), s.records.get(0).key());
        assertEquals(0x0102030405060708L, s.records.get(0).at());
        assertEquals(0, s.records.get(1).key().length);
        assertFalse(Files.exists(dir.resolve(CleanState.FILE)), "taken: a crash from now on must mean a scan");
        assertNull(CleanState.take(dir), "never twice");
    }

    @Test
    void aTornOrCorruptedFileIsIgnoredAndDeleted() throws IOException {
        CleanState.write(dir, map, 7, 2, 99, 4321, RECORDS);
        Path f = dir.resolve(CleanState.FILE);
        byte[] whole = Files.readAllBytes(f);
        for (int cut = 0; cut < whole.length; cut += 7) {
            Files.write(f, Arrays.copyOf(whole, cut));
            assertNull(CleanState.take(dir), "cut at " + cut);
            assertFalse(Files.exists(f));
        }
        byte[] flipped = whole.clone();
        flipped[40] ^= 1;
        Files.write(f, flipped);
        assertNull(CleanState.take(dir), "one bit flipped");
        assertFalse(Files.exists(f));
    }

    @Test
    void aMapFileChangedSinceTheCloseMakesItStale() throws IOException {
        CleanState.write(dir, map, 7, 2, 99, 4321, RECORDS);
        Files.setLastModifiedTime(map, FileTime.fromMillis(1_700_000_000_124L));
        assertNull(CleanState.take(dir), "touched after the close");

        Files.setLastModifiedTime(map, FileTime.fromMillis(1_700_000_000_123L));
        CleanState.write(dir, map, 7, 2, 99, 4321, RECORDS);
        Files.write(map, new byte[] {1, 2, 3, 4, 5, 6});
        Files.setLastModifiedTime(map, FileTime.fromMillis(1_700_000_000_123L));
        assertNull(CleanState.take(dir), "another size");

        CleanState.write(dir, map, 7, 2, 99, 4321, RECORDS);
        Files.delete(map);
        assertNull(CleanState.take(dir), "the generation is gone");
    }
}
