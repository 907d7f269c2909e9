package dev.cajon.storage.expiry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.FileTrees;
import dev.cajon.storage.ManualClock;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The warm-up reclaims every key it sets and leaves nothing behind in the temp directory. On a
 * manual clock: its pauses move the clock instead of waiting.
 */
class ExpiryWarmupTest {
    private static final Path TMP = Path.of(System.getProperty("java.io.tmpdir"));

    /** This JVM's scratch dirs: a server of another process may be warming up meanwhile. */
    private static List<Path> scratchDirs() throws IOException {
        String mine = ExpiryWarmup.DIR_PREFIX + ProcessHandle.current().pid() + "-";
        try (Stream<Path> s = Files.list(TMP)) {
            return s.filter(p -> p.getFileName().toString().startsWith(mine)).sorted().toList();
        }
    }

    @Test
    void everyKeyItSetsIsReclaimedByTheWheelAndTheScratchStoreIsDeleted() throws IOException {
        List<Path> before = scratchDirs();
        ManualClock clock = new ManualClock(1_700_000_000_000L);
        assertEquals(3 * 2_000, ExpiryWarmup.run(2_000, 3, clock, clock::advance, () -> false),
                "each round's keys are all reclaimed by advance and assist");
        assertEquals(before, scratchDirs(), "the scratch store's directory is deleted");
    }

    @Test
    void itStopsWhenToldAndStillDeletesItsStore() throws IOException {
        List<Path> before = scratchDirs();
        ManualClock clock = new ManualClock(1_700_000_000_000L);
        long[] pauses = {0};
        long n = ExpiryWarmup.run(2_000, 3, clock, ms -> {
            pauses[0]++;
            clock.advance(ms);
        }, () -> pauses[0] >= 3);
        assertTrue(n < 2_000, "stopped within its first round: " + n);
        assertEquals(before, scratchDirs());
    }

    @Test
    void aStartSweepsOnlyScratchStoresWhoseLockNobodyHolds() throws Exception {
        Path dead = Files.createTempDirectory(ExpiryWarmup.DIR_PREFIX + "1-");
        Files.writeString(dead.resolve(ExpiryWarmup.LOCK_FILE), "");
        Files.writeString(dead.resolve("keys.cmap"), "left by a killed warm-up");
        Path alive = Files.createTempDirectory(ExpiryWarmup.DIR_PREFIX + "2-");
        Path fresh = Files.createTempDirectory(ExpiryWarmup.DIR_PREFIX + "3-"); // no lock file yet
        try (FileChannel ch = FileChannel.open(alive.resolve(ExpiryWarmup.LOCK_FILE),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock held = ch.lock()) {
            ExpiryWarmup.sweepLeftovers();
            assertFalse(Files.exists(dead), "a scratch store whose lock nobody holds is deleted");
            assertTrue(Files.exists(alive.resolve(ExpiryWarmup.LOCK_FILE)), "a held one is left alone");
            assertTrue(Files.exists(fresh), "one still being created is left alone");
        } finally {
            FileTrees.delete(dead);
            FileTrees.delete(alive);
            FileTrees.delete(fresh);
        }
    }
}
