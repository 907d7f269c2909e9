package dev.cajon.storage.chronicle;

import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.TestData;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The multi-key write journal: its persisted bytes, and what a reopen finds pending. */
class BatchJournalTest {
    static final int SLOTS = 16;

    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve("inflight.batch");
    }

    private static BatchJournal.Entry put(String k, String v) {
        return new BatchJournal.Entry(b(k), b(v));
    }

    private static BatchJournal.Entry removed(String k) {
        return new BatchJournal.Entry(b(k), null);
    }

    @Test
    void batchesLeftPendingAreFoundWholeByTheNextOpen() {
        try (BatchJournal j = BatchJournal.open(file(), SLOTS)) {
            assertEquals(List.of(), j.pending(), "a new journal has nothing in flight");
            j.begin(3, List.of(put("dst", "value"), removed("src")));
            j.begin(9, List.of(put("a", "1"), put("b", "2"), put("a", "3")));
            // no end(): the process died here
        }
        try (BatchJournal j = BatchJournal.open(file(), SLOTS)) {
            List<List<BatchJournal.Entry>> p = j.pending();
            assertEquals(2, p.size());
            List<BatchJournal.Entry> rename = p.get(0);
            assertArrayEquals(b("dst"), rename.get(0).key());
            assertArrayEquals(b("value"), rename.get(0).value());
            assertArrayEquals(b("src"), rename.get(1).key());
            assertNull(rename.get(1).value(), "a removal");
            assertEquals(3, p.get(1).size(), "a key given twice is kept twice, in order");
            assertArrayEquals(b("3"), p.get(1).get(2).value());
            j.clearAll();
            assertEquals(List.of(), j.pending());
        }
        try (BatchJournal j = BatchJournal.open(file(), SLOTS)) {
            assertEquals(List.of(), j.pending(), "cleared for good");
        }
    }

    @Test
    void anEndedBatchLeavesNothingPending() {
        try (BatchJournal j = BatchJournal.open(file(), SLOTS)) {
            int t = j.begin(0, List.of(put("a", "1"), put("b", "2")));
            int u = j.begin(1, List.of(put("c", "3"), put("d", "4")));
            j.end(t);
            assertEquals(1, j.pending().size(), "the other batch is still in flight");
            j.end(u);
            assertEquals(List.of(), j.pending());
        }
    }

    @Test
    void aBatchLargerThanASlotGoesToTheLargeAreaAndLetsGoOfItsLock() throws Exception {
        byte[] big = TestData.pattern(700 * 1024, 5);
        try (BatchJournal j = BatchJournal.open(file(), SLOTS)) {
            int t = j.begin(2, List.of(new BatchJournal.Entry(b("x"), big), new BatchJournal.Entry(b("y"), big),
                    removed("z")));
            assertEquals(BatchJournal.LARGE, t);
            j.end(t);
            Thread other = new Thread(() -> j.begin(5, List.of(new BatchJournal.Entry(b("w"), big), removed("v"))));
            other.start();
            other.join(10_000);
            assertTrue(!other.isAlive(), "a second large batch could begin after the first ended");
        }
        try (BatchJournal j = BatchJournal.open(file(), SLOTS)) {
            List<List<BatchJournal.Entry>> p = j.pending();
            assertEquals(1, p.size());
            assertArrayEquals(big, p.get(0).get(0).value());
            assertNull(p.get(0).get(1).value());
        }
    }

    @Test
    void persistedLayoutIsPinned() throws Exception {
        // persisted format: a later version must still read what this one left in flight
        try (BatchJournal j = BatchJournal.open(file(), SLOTS)) {
            j.begin(1, List.of(put("k1", "abc"), removed("k2")));
        }
        byte[] all = Files.readAllBytes(file());
        assertEquals(64 + SLOTS * 2048, all.length, "header and slots; the large area only when used");
        ByteBuffer bb = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
        assertArrayEquals(b("CBATCH02"), java.util.Arrays.copyOf(all, 8));
        assertEquals(SLOTS, bb.getInt(8));
        assertEquals(2048, bb.getInt(12));
        assertEquals(0, bb.getInt(16), "large area idle");
        int slot = 64 + 2048;
        assertEquals(0, bb.getInt(64), "slot 0 idle");
        assertEquals(1, bb.getInt(slot), "slot 1 pending");
        assertEquals(2, bb.getInt(slot + 4), "records");
        assertEquals(8 + 2 + 3 + 8 + 2, bb.getInt(slot + 8), "body length");
        int body = slot + 16;
        assertEquals(2, bb.getInt(body));
        assertEquals(3, bb.getInt(body + 4));
        assertArrayEquals(b("k1abc"), java.util.Arrays.copyOfRange(all, body + 8, body + 13));
        assertEquals(2, bb.getInt(body + 13));
        assertEquals(-1, bb.getInt(body + 17), "value length -1: removed");
        assertArrayEquals(b("k2"), java.util.Arrays.copyOfRange(all, body + 21, body + 23));
    }

    @Test
    void aDamagedJournalIsReportedNotGuessedAt() throws Exception {
        try (BatchJournal j = BatchJournal.open(file(), SLOTS)) {
            j.begin(4, List.of(put("k1", "abc"), put("k2", "d")));
        }
        try (RandomAccessFile f = new RandomAccessFile(file().toFile(), "rw")) {
            f.seek(64 + 4 * 2048 + 16);
            f.write(new byte[] {(byte) 0xff, (byte) 0xff, 0, 0}); // key length 65535: past the body
        }
        try (BatchJournal j = BatchJournal.open(file(), SLOTS)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, j::pending);
            assertTrue(e.getMessage().contains("damaged"), e.getMessage());
        }
        assertThrows(IllegalStateException.class, () -> BatchJournal.open(file(), SLOTS * 2),
                "a journal of another slot count");
        byte[] other = new byte[64 + SLOTS * 2048];
        other[3] = 7;
        Files.write(file(), other);
        assertThrows(IllegalStateException.class, () -> BatchJournal.open(file(), SLOTS), "another file's header");
    }

    @Test
    void aFileWhoseHeaderWasNeverWrittenIsTakenAsNew() throws Exception {
        // a process killed between creating (mapping) the file and writing its header
        Files.write(file(), new byte[64 + SLOTS * 2048]);
        try (BatchJournal j = BatchJournal.open(file(), SLOTS)) {
            assertEquals(List.of(), j.pending());
        }
        assertArrayEquals(b("CBATCH02"), java.util.Arrays.copyOf(Files.readAllBytes(file()), 8));
    }
}
