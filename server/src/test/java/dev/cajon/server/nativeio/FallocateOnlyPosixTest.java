package dev.cajon.server.nativeio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import net.openhft.chronicle.hash.impl.util.jna.PosixFallocate;
import net.openhft.posix.PosixAPI;
import net.openhft.posix.internal.PosixAPIHolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chronicle reserves a map file's blocks through its POSIX layer's fallocate; the layer the
 * server installs (to skip jnr-ffi at start-up) must still do that, or map files become sparse
 * and a full disk turns into a SIGBUS on a later write.
 */
class FallocateOnlyPosixTest {
    @TempDir
    Path dir;

    @Test
    void chroniclesFallocateReservesTheBlocks() throws Exception {
        PosixAPI before = PosixAPIHolder.POSIX_API;
        try {
            FallocateOnlyPosix.install();
            assertTrue(PosixAPI.posix() instanceof FallocateOnlyPosix);
            Path f = dir.resolve("map");
            long len = 8L << 20;
            try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
                PosixFallocate.fallocate(raf.getFD(), 0, len); // Chronicle's own call, as at map creation
            }
            assertEquals(len, Files.size(f), "posix_fallocate extends the file");
            long blocks = allocatedBytes(f);
            assertTrue(blocks >= len, "the blocks are reserved, not a sparse hole: " + blocks + " of " + len);
        } finally {
            PosixAPIHolder.POSIX_API = before;
        }
    }

    /** st_blocks * 512 through stat(1), which every Linux box has. */
    private static long allocatedBytes(Path f) throws Exception {
        Process p = new ProcessBuilder("stat", "-c", "%b %B", f.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        assertEquals(0, p.waitFor(), out);
        String[] parts = out.split(" ");
        return Long.parseLong(parts[0]) * Long.parseLong(parts[1]);
    }
}
