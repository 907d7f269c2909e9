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
    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve("inflight.batch");
    }

    @Test
    void aBatchLeftPendingIsFoundWholeByTheNextOpen() {
        try (BatchJournal j = BatchJournal.open(file())) {
            assertEquals(List.of(), j.pending(), "a new journal has nothing in flight");
            j.begin(List.of(new BatchJournal.Entry(b("dst"), b("value")), new BatchJournal.Entry(b("src"), null)));
            // no end(): the process died here
        }
        try (BatchJournal j = BatchJournal.open(file())) {
            List<BatchJournal.Entry> p = j.pending();
            assertEquals(2, p.size());
            assertArrayEquals(b("dst"), p.get(0).key());
            assertArrayEquals(b("value"), p.get(0).value());
            assertArrayEquals(b("src"), p.get(1).key());
            assertNull(p.get(1).value(), "a removal");
            j.clear();
            assertEquals(List.of(), j.pending());
        }
        try (BatchJournal j = BatchJournal.open(file())) {
            assertEquals(List.of(), j.pending(), "cleared for good");
        }
    }

    @Test
    void anEndedBatchLeavesNothingPending() {
        try (BatchJournal j = BatchJournal.open(file())) {
            j.begin(List.of(new BatchJournal.Entry(b("a"), b("1")), new BatchJournal.Entry(b("b"), b("2"))));
            j.end();
            assertEquals(List.of(), j.pending());
            // the lock was let go: the next batch can begin on another thread
            Thread t = new Thread(() -> {
                j.begin(List.of(new BatchJournal.Entry(b("c"), b("3"))));
                j.end();
            });
            t.start();
            assertTrue(joined(t), "a second batch could begin after the first ended");
        }
    }

    private static boolean joined(Thread t) {
        try {
            t.join(10_000);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        return !t.isAlive();
    }

    @Test
    void aBatchLargerThanTheMappedWindowGoesThroughTheFile() {
        byte[] big = TestData.pattern(700 * 1024, 5);
        try (BatchJournal j = BatchJournal.open(file())) {
            j.begin(List.of(new BatchJournal.Entry(b("x"), big), new BatchJournal.Entry(b("y"), big),
                    new BatchJournal.Entry(b("z"), null)));
        }
        try (BatchJournal j = BatchJournal.open(file())) {
            List<BatchJournal.Entry> p = j.pending();
            assertEquals(3, p.size());
            assertArrayEquals(big, p.get(0).value());
            assertArrayEquals(big, p.get(1).value());
            assertNull(p.get(2).value());
        }
    }

    @Test
    void persistedLayoutIsPinned() throws Exception {
        // persisted format: a later version must still read what this one left in flight
        try (BatchJournal j = BatchJournal.open(file())) {
            j.begin(List.of(new BatchJournal.Entry(b("k1"), b("abc")), new BatchJournal.Entry(b("k2"), null)));
        }
        byte[] all = Files.readAllBytes(file());
        ByteBuffer bb = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
        assertArrayEquals(b("CBATCH01"), java.util.Arrays.copyOf(all, 8));
        assertEquals(1, bb.getInt(8), "state: pending");
        assertEquals(2, bb.getInt(12), "records");
        assertEquals(8 + 2 + 3 + 8 + 2, bb.getLong(16), "body length");
        assertEquals(2, bb.getInt(64));
        assertEquals(3, bb.getInt(68));
        assertArrayEquals(b("k1abc"), java.util.Arrays.copyOfRange(all, 72, 77));
        assertEquals(2, bb.getInt(77));
        assertEquals(-1, bb.getInt(81), "value length -1: removed");
        assertArrayEquals(b("k2"), java.util.Arrays.copyOfRange(all, 85, 87));
    }

    @Test
    void aDamagedJournalIsReportedNotGuessedAt() throws Exception {
        try (BatchJournal j = BatchJournal.open(file())) {
            j.begin(List.of(new BatchJournal.Entry(b("k1"), b("abc")), new BatchJournal.Entry(b("k2"), b("d"))));
        }
        try (RandomAccessFile f = new RandomAccessFile(file().toFile(), "rw")) {
            f.seek(64);
            f.write(new byte[] {(byte) 0xff, (byte) 0xff, 0, 0}); // key length 65535: past the body
        }
        try (BatchJournal j = BatchJournal.open(file())) {
            IllegalStateException e = assertThrows(IllegalStateException.class, j::pending);
            assertTrue(e.getMessage().contains("damaged"), e.getMessage());
        }
        Files.write(file(), b("not a journal at all, but long enough to have a header of 64 bytes....."));
        assertThrows(IllegalStateException.class, () -> BatchJournal.open(file()));
    }
}
