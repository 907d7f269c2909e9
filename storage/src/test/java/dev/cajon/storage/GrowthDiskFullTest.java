package dev.cajon.storage;

import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.MapFile;
import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.durability.DiskFull;
import dev.cajon.storage.durability.DiskSpace;
import dev.cajon.storage.durability.FsyncPolicy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Growth on a disk too full for the new generation (the free space is injected): it is refused
 * before anything is copied, the writes that fit the map's spare room still succeed, a write
 * that needs the growth fails with {@link DiskFull} and leaves nothing, reads never fail, and
 * once there is room the keyspace grows and takes writes again. Before, the growth that follows
 * a write failed inside the unlock and turned even a GET into an internal error.
 */
class GrowthDiskFullTest {
    @TempDir
    Path dir;

    @Test
    void growthRefusedForWantOfDiskFailsOnlyTheWritesThatNeedIt() {
        try (Store s = Store.open(dir, new ManualClock(1_700_000_000_000L), ExpiryListener.NONE, FsyncPolicy.NO)) {
            DiskSpace disk = s.durability().disk();
            AtomicLong free = new AtomicLong(0);
            disk.usableSpace(free::get);
            Keyspace ks = s.keyspace(Store.DEFAULT_APP, 0);
            List<String> written = new ArrayList<>();
            DiskFull refused = null;
            byte[] value = new byte[200];
            for (int i = 0; i < 5_000 && refused == null; i++) {
                String k = "key:" + i;
                try {
                    assertEquals(OpStatus.OK, ks.set(b(k), value, SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false).status());
                    written.add(k);
                } catch (DiskFull e) {
                    refused = e;
                    assertEquals(null, ks.get(b(k)), "a refused write leaves nothing");
                }
                assertNotNull(ks.get(b("key:0")), "a read never fails for want of growth");
            }
            assertNotNull(refused, "a write that needs the growth is refused");
            assertTrue(refused.getMessage().contains("min-free-disk"), refused.getMessage());
            assertTrue(written.size() > MapFile.INITIAL_ENTRIES, "the map's spare room was used first: " + written.size());
            assertEquals(1, ks.generation(), "nothing grew");
            for (String k : written) {
                assertNotNull(ks.get(b(k)), k);
            }

            free.set(Long.MAX_VALUE);
            disk.usableSpace(free::get);
            for (int i = 0; i < 2_000; i++) {
                assertEquals(OpStatus.OK, ks.set(b("more:" + i), value, SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, false).status());
            }
            assertTrue(ks.generation() > 1, "it grew once there was room");
            assertEquals(written.size() + 2_000, ks.dbsize());
        }
    }
}
