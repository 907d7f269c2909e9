package dev.cajon.storage.durability;

import java.io.IOException;
import java.nio.file.Path;

/**
 * One file (or set of files) that writes make dirty and a sync pass puts on the disk: a map
 * generation, a journal, a keyspace's blob directory. Writers call {@link #mark} after their
 * stores, never before: a pass clears the mark and then syncs, so a store made before the mark
 * is either covered by a pass that cleared it later, or marks the file dirty again.
 *
 * <p>Cost on the write path: one volatile read while the file is already dirty (the usual case
 * between two passes); the first write after a pass takes the durability's queue lock once.
 */
public abstract class SyncTarget {
    /** Sync order within a pass: what others point at goes first (blobs, then journals, then maps). */
    public static final int BLOBS = 0;
    public static final int JOURNAL = 1;
    public static final int MAP = 2;

    final Durability owner;
    final int order;
    volatile boolean dirty;
    volatile boolean retired;

    protected SyncTarget(Durability owner, int order) {
        this.owner = owner;
        this.order = order;
    }

    /** The file's pages were written: the next pass (or the next reply under always) syncs it. */
    public final void mark() {
        if (!dirty) {
            owner.enqueue(this);
        }
    }

    /** The file is gone (deleted, replaced): passes skip it from now on. */
    public final void retire() {
        retired = true;
    }

    public final Durability durability() {
        return owner;
    }

    /** Puts the file on the disk through {@code sync}. A file deleted meanwhile is no error. */
    protected abstract void sync(FileSync sync) throws IOException;

    /** A target for one file, synced by path (so no descriptor is held between passes). */
    public static SyncTarget ofFile(Durability owner, int order, Path file) {
        return new SyncTarget(owner, order) {
            @Override
            protected void sync(FileSync sync) throws IOException {
                sync.force(file);
            }

            @Override
            public String toString() {
                return file.toString();
            }
        };
    }
}
