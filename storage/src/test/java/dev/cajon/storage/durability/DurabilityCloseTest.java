package dev.cajon.storage.durability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing while the {@code cajon-fsync} thread is inside a sync. CI once logged
 * {@code fsync of ... failed: ClosedByInterruptException} at shutdown: close interrupted the
 * pass, the interrupt closed the channel mid-{@code force}, and the files that pass had taken
 * were marked clean without reaching the disk. A close now lets the running pass finish.
 */
class DurabilityCloseTest {
    @TempDir
    Path dir;

    /** Blocks the first sync until released, and records whether any sync saw an interrupt. */
    static final class SlowSync implements FileSync {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean interrupted = new AtomicBoolean();
        final AtomicInteger completed = new AtomicInteger();

        @Override
        public void force(Path file) throws IOException {
            entered.countDown();
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                interrupted.set(true);
                Thread.currentThread().interrupt();
            }
            if (Thread.currentThread().isInterrupted()) {
                interrupted.set(true);
            }
            FileSync.SYSTEM.force(file);
            completed.incrementAndGet();
        }

        @Override
        public void forceDirectory(Path d) throws IOException {
            FileSync.SYSTEM.forceDirectory(d);
        }
    }

    @Test
    void closeLetsTheRunningPassFinishInsteadOfInterruptingIt() throws Exception {
        Path file = Files.writeString(dir.resolve("journal"), "x");
        Durability d = new Durability(FsyncPolicy.EVERYSEC);
        SlowSync sync = new SlowSync();
        d.fileSync(sync);
        SyncTarget t = SyncTarget.ofFile(d, SyncTarget.JOURNAL, file);
        t.mark();
        d.start();
        assertTrue(sync.entered.await(10, TimeUnit.SECONDS), "the daemon's pass started");

        Thread closer = new Thread(d::close, "closer");
        closer.start();
        closer.join(300);
        assertTrue(closer.isAlive(), "close waits for the pass it found running");
        sync.release.countDown();
        closer.join(10_000);
        assertFalse(closer.isAlive(), "close returns once the pass has finished");

        assertFalse(sync.interrupted.get(), "the pass ran to its end, uninterrupted");
        assertEquals(1, sync.completed.get(), "the file was synced once, by the running pass");
        assertEquals(0, d.errors(), "no failed sync is counted");
        assertEquals(0, d.pending(), "nothing is left unsynced");
    }
}
