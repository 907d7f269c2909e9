package dev.cajon.storage.chronicle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The in-flight write journal: what a reopen finds, and its persisted bytes. */
class WriteJournalTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aBegunWriteIsPendingAfterReopenAndAnEndedOneIsNot() {
        Path f = dir.resolve("j");
        WriteJournal j = WriteJournal.open(f, 16);
        j.begin(3, b("key3"), b("value3"));
        j.begin(9, b("key9"), b("value9"));
        j.end(9);
        j.begin(15, b("k"), new byte[0]);
        List<WriteJournal.Pending> p = WriteJournal.open(f, 16).pending();
        assertEquals(2, p.size());
        assertEquals(3, p.get(0).slot());
        assertArrayEquals(b("key3"), p.get(0).key());
        assertArrayEquals(b("value3"), p.get(0).value());
        assertEquals(15, p.get(1).slot());
        assertArrayEquals(new byte[0], p.get(1).value());
    }

    @Test
    void aShorterRecordOverAnOlderOneReadsBackExactly() {
        Path f = dir.resolve("j");
        WriteJournal j = WriteJournal.open(f, 4);
        j.begin(1, b("a-long-key"), b("a-long-value-xxxxxxxx"));
        j.end(1);
        j.begin(1, b("k"), b("v"));
        WriteJournal.Pending p = WriteJournal.open(f, 4).pending().get(0);
        assertArrayEquals(b("k"), p.key());
        assertArrayEquals(b("v"), p.value());
    }

    @Test
    void persistedLayout() throws IOException {
        // persisted format: a journal written by one version is replayed by the next
        Path f = dir.resolve("j");
        WriteJournal j = WriteJournal.open(f, 2);
        j.begin(1, b("K"), b("VV"));
        byte[] bigValue = new byte[600];
        java.util.Arrays.fill(bigValue, (byte) 'B');
        j.begin(0, b("O"), bigValue);
        assertEquals(64 + 2 * 512 + 2 * 32 * 1024, Files.size(f));
        ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(f)).order(ByteOrder.LITTLE_ENDIAN);
        byte[] magic = new byte[8];
        all.get(0, magic);
        assertEquals("CJOURNL1", new String(magic, StandardCharsets.US_ASCII));
        assertEquals(2, all.getInt(8), "slot count");
        assertEquals(512, all.getInt(12), "slot size");
        assertEquals(32 * 1024, all.getInt(16), "overflow slot size");
        int slot1 = 64 + 512;
        assertEquals(1, all.getInt(slot1), "slot 1: put pending, inline");
        assertEquals(1, all.getInt(slot1 + 4), "key length");
        assertEquals(2, all.getInt(slot1 + 8), "value length");
        assertEquals('K', all.get(slot1 + 12));
        assertEquals('V', all.get(slot1 + 13));
        assertEquals('V', all.get(slot1 + 14));
        assertEquals(2, all.getInt(64), "slot 0: put pending, in its overflow slot");
        assertEquals(1, all.getInt(64 + 4));
        assertEquals(600, all.getInt(64 + 8));
        int overflow0 = 64 + 2 * 512;
        assertEquals('O', all.get(overflow0));
        assertEquals('B', all.get(overflow0 + 1));
        assertEquals('B', all.get(overflow0 + 600));
    }

    @Test
    void recordsOfEverySizeUpToTheLargestReadBack() {
        Path f = dir.resolve("j");
        WriteJournal j = WriteJournal.open(f, 4);
        int[][] shapes = {{0, 0}, {10, 490}, {10, 491}, {8194, 16 * 1024 + 30}};
        for (int s = 0; s < shapes.length; s++) {
            j.begin(s, TestBytes.pattern(shapes[s][0], s), TestBytes.pattern(shapes[s][1], s + 10));
        }
        List<WriteJournal.Pending> p = WriteJournal.open(f, 4).pending();
        assertEquals(shapes.length, p.size());
        for (int s = 0; s < shapes.length; s++) {
            assertArrayEquals(TestBytes.pattern(shapes[s][0], s), p.get(s).key(), "slot " + s);
            assertArrayEquals(TestBytes.pattern(shapes[s][1], s + 10), p.get(s).value(), "slot " + s);
        }
    }

    @Test
    void aJournalOfAnotherShapeOrADamagedSlotIsRefused() throws IOException {
        Path f = dir.resolve("j");
        WriteJournal.open(f, 4).begin(2, b("k"), b("v"));
        assertThrows(IllegalStateException.class, () -> WriteJournal.open(f, 8), "slot count differs");
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.seek(64 + 2L * 512 + 4);
            raf.write(new byte[] {(byte) 0xFF, (byte) 0xFF, 0, 0}); // key length 65535: past any slot
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> WriteJournal.open(f, 4).pending());
        assertTrue(e.getMessage().contains("slot 2"), e.getMessage());
    }

    @Test
    void aFileWhoseHeaderWasNeverWrittenIsTakenAsNew() throws IOException {
        // a process killed between creating (mapping) the file and writing its header
        Path f = dir.resolve("j");
        java.nio.file.Files.write(f, new byte[64 + 4 * (512 + WriteJournal.OVERFLOW_SLOT_SIZE)]);
        WriteJournal j = WriteJournal.open(f, 4);
        assertEquals(List.of(), j.pending());
        j.begin(1, b("k"), b("v"));
        assertEquals(1, WriteJournal.open(f, 4).pending().size(), "and works as a journal from then on");
    }

    @Test
    void aRecordLargerThanASlotIsRefusedBeforeAnythingIsMarked() {
        Path f = dir.resolve("j");
        WriteJournal j = WriteJournal.open(f, 2);
        assertThrows(IllegalArgumentException.class,
                () -> j.begin(0, new byte[8192], new byte[WriteJournal.OVERFLOW_SLOT_SIZE]));
        assertEquals(List.of(), j.pending());
    }

    /** Deterministic bytes of a given length. */
    private static final class TestBytes {
        static byte[] pattern(int len, int seed) {
            byte[] out = new byte[len];
            for (int i = 0; i < len; i++) {
                out[i] = (byte) (i * 31 + seed);
            }
            return out;
        }
    }
}
