package dev.cajon.storage.chronicle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A map generation takes on the disk the pages written to it, not its whole capacity (see
 * {@link MapFile}, "Sparse files"): a generation of 262,144 entries holding 1,000 is about
 * 100 MB long and takes well under 5 MB, and it reads back what was written after a reopen.
 * With Chronicle's preallocation (fallocate) the same file took all its 100 MB.
 */
class SparseGenerationTest {
    @TempDir
    Path dir;

    /** Allocated bytes of {@code p} as du counts them (-1 when du is not there). */
    static long allocated(Path p) throws IOException, InterruptedException {
        Process du;
        try {
            du = new ProcessBuilder("du", "-B1", "--", p.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            return -1;
        }
        String out = new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (du.waitFor() != 0) {
            return -1;
        }
        return Long.parseLong(out.trim().split("\\s+")[0]);
    }

    @Test
    void aGrownGenerationTakesTheDiskItsEntriesNeedNotItsCapacity() throws Exception {
        try (MapFile f = MapFile.open(dir, "t", false)) {
            f.grow(262_144, 13, 288, (k, v) -> true);
            byte[] value = new byte[280];
            for (int i = 0; i < 1_000; i++) {
                value[0] = (byte) i;
                f.map().put(("key:" + i).getBytes(StandardCharsets.UTF_8), value.clone());
            }
            Path file = f.file();
            long length = Files.size(file);
            long onDisk = allocated(file);
            assumeTrue(onDisk >= 0, "du is not available here");
            assertTrue(length > 90L << 20, "sized for its capacity: " + length);
            assertTrue(onDisk < 5L << 20, "allocated " + onDisk + " bytes of " + length);
        }
        // laid out as the preallocated file: the same length and the same spare tiers
        Path plain = dir.resolve("plain.cmap");
        try (var m = net.openhft.chronicle.map.ChronicleMap.of(byte[].class, byte[].class).entries(262_144)
                .averageKeySize(13).averageValueSize(288).maxBloatFactor(4.0).createPersistedTo(plain.toFile());
             MapFile f = MapFile.open(dir, "t", false)) {
            assertEquals(m.remainingAutoResizes(), f.map().remainingAutoResizes());
            assertEquals(Files.size(plain), Files.size(f.file()), 64 * 1024.0, "file lengths");
            assertTrue(allocated(plain) > 90L << 20, "the plain file is preallocated: the check can fail");
        }
        try (MapFile f = MapFile.open(dir, "t", false)) {
            assertEquals(1_000, f.map().size());
            byte[] v = f.map().get("key:999".getBytes(StandardCharsets.UTF_8));
            assertEquals(280, v.length);
            assertArrayEquals(new byte[] {(byte) 999}, new byte[] {v[0]});
        }
    }
}
