package dev.cajon.storage.chronicle;

import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generation files of one keyspace: naming, growth, and what start-up discards. */
class MapFileTest {
    @TempDir
    Path dir;

    private static final String GEN1 = "keys.g1.e256.k24.v512.cmap";

    @Test
    void fileNamesRecordTheBuilderSettings() {
        // persisted format: the name is how a generation is reopened with its own configuration
        assertEquals(GEN1, MapFile.fileName(1, MapFile.INITIAL_ENTRIES, 24, 512));
        assertEquals("keys.g12.e131072.k17.v90.cmap", MapFile.fileName(12, 131072, 17, 90));
    }

    @Test
    void openCreatesTheFirstGeneration() {
        assertFalse(MapFile.exists(dir));
        try (MapFile f = MapFile.open(dir, "t", false)) {
            assertEquals(1, f.generation());
            assertEquals(MapFile.INITIAL_ENTRIES, f.capacity());
            assertEquals(dir.resolve(GEN1), f.file());
        }
        assertEquals(List.of(GEN1), TestData.list(dir));
        assertTrue(MapFile.exists(dir));
    }

    /**
     * Values far above the configured average need extra segment tiers, which Chronicle maps
     * lazily through the file's path. That must work in a freshly created generation and in a
     * grown one, both of which were built under a temporary name.
     */
    @Test
    void extraTiersCanBeMappedInEveryGeneration() {
        try (MapFile f = MapFile.open(dir, "t", false)) {
            int n = fillUntilATierIsAdded(f, "a");
            f.grow(MapFile.INITIAL_ENTRIES * 4, 24, 512, (k, v) -> true);
            assertEquals(2, f.generation());
            int m = fillUntilATierIsAdded(f, "b");
            assertEquals(n + m, f.map().size());
        }
        try (MapFile f = MapFile.open(dir, "t", false)) {
            assertEquals(2, f.generation());
            assertArrayEquals(TestData.pattern(4096, 3), f.map().get(b("b3")));
        }
    }

    /**
     * Puts 4 KiB values until Chronicle has mapped an extra tier, then a few more (a one-segment
     * first generation has room for four extra tiers in all).
     */
    private static int fillUntilATierIsAdded(MapFile f, String prefix) {
        long resizes = f.map().remainingAutoResizes();
        int i = 0;
        while (f.map().remainingAutoResizes() == resizes) {
            f.map().put(b(prefix + i), TestData.pattern(4096, i));
            i++;
            assertTrue(i < 20_000, "no extra tier after " + i + " puts");
        }
        for (int j = 0; j < 3; j++, i++) {
            f.map().put(b(prefix + i), TestData.pattern(4096, i));
        }
        for (int j = 0; j < i; j++) {
            assertArrayEquals(TestData.pattern(4096, j), f.map().get(b(prefix + j)));
        }
        return i;
    }

    @Test
    void growCopiesWhatTheFilterKeepsAndRetiresTheOldFile() {
        try (MapFile f = MapFile.open(dir, "t", false)) {
            for (int i = 0; i < 100; i++) {
                f.map().put(b("k" + i), b("v" + i));
            }
            f.grow(40_000, 10, 20, (k, v) -> new String(k).endsWith("7"));
            assertEquals(2, f.generation());
            assertEquals(40_000, f.capacity());
            assertEquals(10, f.map().size());
            assertArrayEquals(b("v17"), f.map().get(b("k17")));
            assertNull(f.map().get(b("k18")));
            assertEquals(List.of("keys.g2.e40000.k10.v20.cmap"), TestData.list(dir));
        }
        try (MapFile f = MapFile.open(dir, "t", false)) {
            assertEquals(2, f.generation());
            assertEquals(40_000, f.capacity());
            assertEquals(10, f.map().size());
        }
    }

    /** What a crash mid-growth leaves behind: a .tmp, or both generations. */
    @Test
    void startUpDiscardsUnfinishedAndSupersededGenerations() throws Exception {
        try (MapFile f = MapFile.open(dir, "t", false)) {
            f.map().put(b("k"), b("old"));
        }
        Files.copy(dir.resolve(GEN1), dir.resolve("keys.g2.e256.k24.v512.cmap"));
        try (MapFile f = MapFile.open(dir.resolve("keys.g2.e256.k24.v512.cmap").getParent(), "t", false)) {
            f.map().put(b("k"), b("new"));
        }
        Files.write(dir.resolve("keys.g3.e32768.k24.v48.cmap.tmp"), new byte[] {1, 2, 3});
        try (MapFile f = MapFile.open(dir, "t", false)) {
            assertEquals(2, f.generation());
            assertArrayEquals(b("new"), f.map().get(b("k")));
        }
        assertEquals(List.of("keys.g2.e256.k24.v512.cmap"), TestData.list(dir));
    }

    @Test
    void resetStartsOverAtGenerationOne() {
        try (MapFile f = MapFile.open(dir, "t", false)) {
            f.map().put(b("k"), b("v"));
            f.grow(40_000, 10, 20, (k, v) -> true);
            f.reset();
            assertEquals(1, f.generation());
            assertEquals(0, f.map().size());
            f.map().put(b("k2"), TestData.pattern(4096, 2));
        }
        assertEquals(List.of(GEN1), TestData.list(dir));
    }
}
