package dev.cajon.storage.expiry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The warm-up reclaims every key it sets and leaves nothing behind in the temp directory. */
class ExpiryWarmupTest {
    private static List<Path> scratchDirs() throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (Stream<Path> s = Files.list(tmp)) {
            return s.filter(p -> p.getFileName().toString().startsWith("cajon-expiry-warmup")).sorted().toList();
        }
    }

    @Test
    void everyKeyItSetsIsReclaimedByTheWheelAndTheScratchStoreIsDeleted() throws IOException {
        List<Path> before = scratchDirs();
        assertEquals(3 * 2_000, ExpiryWarmup.run(2_000, 3),
                "each round's keys are all reclaimed by advance and assist");
        assertEquals(before, scratchDirs(), "the scratch store's directory is deleted");
    }

    @Test
    void theDefaultWarmupStaysInItsFirstGenerationAndReclaimsAll() {
        assertEquals((long) ExpiryWarmup.KEYS_PER_ROUND * ExpiryWarmup.ROUNDS, ExpiryWarmup.run());
    }
}
