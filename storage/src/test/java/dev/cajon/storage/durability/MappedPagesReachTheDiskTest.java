package dev.cajon.storage.durability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cajon.storage.ExpiryListener;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.ManualClock;
import dev.cajon.storage.OpStatus;
import dev.cajon.storage.SetCondition;
import dev.cajon.storage.Store;
import dev.cajon.storage.chronicle.ValueHeader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The claim the whole policy rests on: an fdatasync on a descriptor of the map file (not
 * Chronicle's, not an msync of its mapping) writes the pages that Chronicle dirtied through its
 * MAP_SHARED mapping. Observed in this process's {@code /proc/self/smaps}: the dirty kB of the
 * map file's mappings (a page stored through the mapping counts as dirty until writeback cleans
 * it and write-protects it again) must fall to zero after one pass, and stay up without one.
 */
@EnabledOnOs(OS.LINUX)
class MappedPagesReachTheDiskTest {
    @TempDir
    Path dir;

    @Test
    void aPassCleansThePagesChronicleDirtiedThroughItsMapping() throws IOException {
        try (Store s = Store.open(dir, new ManualClock(1_700_000_000_000L), ExpiryListener.NONE,
                FsyncPolicy.EVERYSEC, false)) {
            Keyspace ks = s.keyspace(Store.DEFAULT_APP, 0);
            byte[] value = new byte[4000];
            for (int i = 0; i < 2000; i++) { // about 8 MB through the mapping, over several growths
                value[0] = (byte) i;
                assertEquals(OpStatus.OK, ks.set(("k" + i).getBytes(StandardCharsets.UTF_8), value,
                        SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false).status());
            }
            s.durability().tick(); // everything before this point is clean
            for (int i = 0; i < 2000; i++) {
                value[0] = (byte) (i + 1);
                ks.set(("k" + i).getBytes(StandardCharsets.UTF_8), value, SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false);
            }
            Path map = mapFile(dir.resolve(Store.DEFAULT_APP).resolve("db0")).toRealPath();
            long before = dirtyKb(map);
            // the kernel's own writeback waits 30 s for a page this young: dirty now, unless the
            // machine is under memory pressure, in which case this check proves nothing
            assumeTrue(before > 1000, "the pages were not dirty (" + before + " kB): writeback ran meanwhile");
            long syncs = s.durability().syncs();
            s.durability().tick();
            assertTrue(s.durability().syncs() > syncs);
            assertEquals(0, dirtyKb(map), "dirty kB of " + map + " after the pass (" + before + " before)");
        }
    }

    private static Path mapFile(Path db) throws IOException {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(db, "keys.g*.cmap")) {
            for (Path p : ds) {
                return p;
            }
        }
        throw new AssertionError("no map file in " + db);
    }

    /** Shared_Dirty + Private_Dirty of every mapping of {@code file} in this process. */
    static long dirtyKb(Path file) throws IOException {
        long kb = 0;
        boolean in = false;
        String name = file.toString();
        for (String l : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            if (l.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
                in = l.endsWith(" " + name);
            } else if (in && (l.startsWith("Shared_Dirty:") || l.startsWith("Private_Dirty:"))) {
                kb += Long.parseLong(l.replaceAll("\\D+", ""));
            }
        }
        return kb;
    }
}
