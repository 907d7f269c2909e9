package dev.cajon.storage.durability;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The system calls that put a file on the disk, behind an interface so that tests can count
 * them. {@link #SYSTEM} opens the file and calls {@code fdatasync} ({@code FileChannel.force(false)}).
 *
 * <p>Why a descriptor of its own works for memory-mapped files: on Linux a {@code MAP_SHARED}
 * mapping and the file's descriptors share one page cache. A store through the mapping marks the
 * page dirty in that cache (the kernel write-protects clean shared pages and marks them dirty at
 * the first write fault), and {@code fsync}/{@code fdatasync} on any descriptor of the file
 * writes every dirty page of the file and waits for it, then write-protects the pages again.
 * So neither Chronicle's own descriptor nor the mapping's address is needed. Measured, not
 * assumed: see docs/ARCHITECTURE.md, "Durability".
 */
public interface FileSync {
    /** Writes {@code file}'s dirty pages (and the metadata needed to read them) to the disk. */
    void force(Path file) throws IOException;

    /** Makes the entries of {@code dir} (files created, renamed, deleted) durable. */
    void forceDirectory(Path dir) throws IOException;

    FileSync SYSTEM = new FileSync() {
        @Override
        public void force(Path file) throws IOException {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                ch.force(false);
            }
        }

        @Override
        public void forceDirectory(Path dir) throws IOException {
            try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
                ch.force(true);
            }
        }
    };
}
