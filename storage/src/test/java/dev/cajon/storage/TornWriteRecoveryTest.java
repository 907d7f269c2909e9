package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static dev.cajon.storage.TestData.str;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.chronicle.WriteJournal;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process killed in the middle of overwriting a key. Chronicle Map writes the new value in
 * place and stores the entry's checksum afterwards; a kill in between leaves a torn entry, which
 * recovery drops, so the key would lose its acknowledged value. The write journal applies the
 * in-flight write again at the next open.
 *
 * <p>A kill cannot be produced in-process, so each test stops cleanly and then puts back what the
 * kill leaves: the journal slot still marked, the entry half overwritten, the running marker.
 * (The SIGKILL system tests in the server module do it for real, at random moments.)
 */
class TornWriteRecoveryTest {
    private static final long NO_EXPIRY = ValueHeader.NO_EXPIRY;
    private static final String V1 = "acknowledged-value-1-0123456789abcdefghij";
    private static final String V2 = "in-flight-value-2-ZYXWVUTSRQPONMLKJIHGFEDCBA";

    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(T0);

    private void setUp(int others) {
        try (Store store = Store.open(dir, clock)) {
            Keyspace db0 = store.keyspace(Store.DEFAULT_APP, 0);
            set(db0, "k", V1, NO_EXPIRY);
            for (int i = 0; i < others; i++) {
                set(db0, "other" + i, "o" + i, NO_EXPIRY);
            }
        }
    }

    private static void set(Keyspace ks, String k, String v, long at) {
        assertEquals(OpStatus.OK, ks.set(b(k), b(v), SetCondition.ALWAYS, at, false).status());
    }

    private Path db0() {
        return dir.resolve(Store.DEFAULT_APP).resolve("db0");
    }

    /** Marks the write of {@code stored} under {@code key} as in flight, as begin() left it. */
    private void journalInFlight(String key, byte[] stored) {
        WriteJournal j = WriteJournal.open(db0().resolve(Keyspace.JOURNAL_FILE), Keyspace.STRIPES);
        j.begin(7, KeyCodec.mapKey(b(key)), stored);
        j.close();
    }

    /** Overwrites the first half of V1's bytes in the map file with V2's: an interrupted replace. */
    private void tearEntry() throws IOException {
        Path map;
        try (Stream<Path> files = Files.list(db0())) {
            map = files.filter(p -> p.getFileName().toString().endsWith(".cmap")).findFirst().orElseThrow();
        }
        byte[] all = Files.readAllBytes(map);
        byte[] v1 = b(V1);
        int at = indexOf(all, v1);
        assertTrue(at > 0, "the value is in the map file");
        try (RandomAccessFile f = new RandomAccessFile(map.toFile(), "rw")) {
            f.seek(at);
            f.write(b(V2), 0, v1.length / 2);
        }
        // a killed process leaves no clean state (the map was mapped); the clean stop above wrote
        // one, which the open would take when the tear lands in the same mtime tick as the close
        Files.deleteIfExists(db0().resolve(dev.cajon.storage.chronicle.CleanState.FILE));
        Files.writeString(dir.resolve("cajon.running"), "12345");
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Test
    void withoutTheJournalRecoveryDropsATornEntry() throws IOException {
        // the premise: this is the loss the journal exists for
        setUp(100);
        tearEntry();
        try (Store store = Store.open(dir, clock)) {
            assertTrue(store.recovered());
            Keyspace db0 = store.keyspace(Store.DEFAULT_APP, 0);
            assertNull(db0.get(b("k")), "Chronicle's recovery dropped the torn entry");
            assertEquals(100, db0.size());
        }
    }

    @Test
    void aTornOverwriteEndsWithTheInFlightValue() throws IOException {
        setUp(100);
        journalInFlight("k", ValueHeader.raw(b(V2), NO_EXPIRY));
        tearEntry();
        try (Store store = Store.open(dir, clock)) {
            assertTrue(store.recovered());
            Keyspace db0 = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(V2, str(db0.get(b("k"))));
            assertEquals(101, db0.size(), "the key counts once, the other keys are intact");
            assertEquals("o42", str(db0.get(b("other42"))));
        }
    }

    @Test
    void aWriteThatNeverReachedTheMapIsApplied() {
        setUp(0);
        journalInFlight("k", ValueHeader.raw(b(V2), T0 + 60_000));
        try (Store store = Store.open(dir, clock)) {
            Keyspace db0 = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(V2, str(db0.get(b("k"))));
            assertEquals(T0 + 60_000, db0.deadline(b("k")), "the in-flight write's deadline comes with it");
            assertEquals(1, db0.volatileSize(), "and is counted among the keys with a deadline");
        }
    }

    @Test
    void aLargeInFlightValueComesBackWhole() {
        setUp(0);
        byte[] big = TestData.pattern(Keyspace.BLOB_THRESHOLD, 9); // the largest inline value
        journalInFlight("k", ValueHeader.raw(big, NO_EXPIRY));
        try (Store store = Store.open(dir, clock)) {
            assertArrayEquals(big, store.keyspace(Store.DEFAULT_APP, 0).get(b("k")).toBytes());
        }
    }

    @Test
    void anAppliedWriteIsNotAppliedAgainAtTheNextStart() {
        setUp(0);
        journalInFlight("k", ValueHeader.raw(b(V2), NO_EXPIRY));
        try (Store store = Store.open(dir, clock)) {
            set(store.keyspace(Store.DEFAULT_APP, 0), "k", "later", NO_EXPIRY);
        }
        try (Store store = Store.open(dir, clock)) {
            assertEquals("later", str(store.keyspace(Store.DEFAULT_APP, 0).get(b("k"))),
                    "the journal slot was cleared once the in-flight write was applied");
        }
    }

    @Test
    void anInFlightWriteWhoseDeadlinePassedWhileDownIsGone() {
        setUp(0);
        journalInFlight("k", ValueHeader.raw(b(V2), T0 + 1_000));
        clock.advance(5_000);
        try (Store store = Store.open(dir, clock)) {
            Keyspace db0 = store.keyspace(Store.DEFAULT_APP, 0);
            assertNull(db0.get(b("k")));
            assertEquals(0, db0.size());
        }
    }

    @Test
    void everyWritePathLeavesTheJournalIdle() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace db0 = store.keyspace(Store.DEFAULT_APP, 0);
            set(db0, "plain", "v", NO_EXPIRY);
            set(db0, "ttl", "v", T0 + 100);
            db0.set(b("big"), TestData.pattern(Keyspace.BLOB_THRESHOLD + 1, 3), SetCondition.ALWAYS, NO_EXPIRY, false);
            db0.incrBy(b("n"), 5);
            db0.incrBy(b("n"), 5);
            db0.mset(new byte[][] {b("m1"), b("1"), b("m2"), b("2")});
            db0.expireAt(b("plain"), T0 + 50, ExpireCondition.NONE);
            db0.expireAt(b("plain"), T0 + 500, ExpireCondition.NONE); // renewal: re-filed when 50 fires
            clock.advance(60);
            db0.reclaimIfDue(b("plain"));
            clock.advance(100);
            db0.reclaimIfDue(b("ttl"));
            WriteJournal j = WriteJournal.open(db0().resolve(Keyspace.JOURNAL_FILE), Keyspace.STRIPES);
            assertEquals(java.util.List.of(), j.pending(), "no write is marked in flight once it returned");
        }
    }
}
