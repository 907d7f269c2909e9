package dev.cajon.storage.blob;

import dev.cajon.storage.durability.Durability;
import dev.cajon.storage.durability.FileSync;
import dev.cajon.storage.durability.FsyncPolicy;
import dev.cajon.storage.durability.SyncTarget;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Holds string values too large for a Chronicle Map entry, one file per value.
 *
 * <p>Chronicle caps an entry at a few hundred KB and its capacity is fixed at creation, so large
 * values live beside the map: the map entry holds a small {@code ENC_BLOB} header (blob id and
 * length) and the bytes live in {@code <dir>/<id as 16 hex digits>}. What must stay true:
 * <ul>
 *   <li>A blob is written completely before any map entry points at it, and it is deleted only
 *       after no entry points at it any more. A crash in between leaves an orphan file, never a
 *       dangling reference; {@link #sweep(Set)} removes orphans at start-up.</li>
 *   <li>The length in the map entry is authoritative: APPEND writes past the old end first and
 *       then publishes the new length, so a crash mid-append leaves the old value intact.</li>
 *   <li>Against a power cut (the fsync policy, {@link Durability}): under {@code always} a blob
 *       write is synced (file, and directory for a new file) before it returns, so before any
 *       map entry points at it; under {@code everysec} the files written since the last pass
 *       are synced at the start of the pass, before the journals and the maps.</li>
 *   <li>Bytes inside the published length are never overwritten (SETRANGE copies), so a reader
 *       that holds an open channel streams a stable value even if the key changes meanwhile.</li>
 * </ul>
 */
public final class BlobStore {
    private final Path dir;
    private final Durability durability;
    /** Blobs written since the last pass, by id; {@link #ENTRIES} stands for new files (the directory to sync). */
    private final Set<Long> written = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static final long ENTRIES = -1;
    private final SyncTarget dirty;

    public BlobStore(Path dir) {
        this.dir = dir;
        this.durability = Durability.forFile(dir);
        this.dirty = new SyncTarget(durability, SyncTarget.BLOBS) {
            @Override
            protected void sync(FileSync sync) throws IOException {
                syncWritten(sync);
            }

            @Override
            public String toString() {
                return dir.toString();
            }
        };
    }

    /**
     * A blob was written (created when {@code created}): synced now under {@code always}, else
     * remembered for the next pass.
     */
    private void written(long id, boolean created) throws IOException {
        if (!durability.enabled()) {
            return;
        }
        if (durability.policy() == FsyncPolicy.ALWAYS) {
            durability.forceNow(path(id));
            if (created) {
                durability.forceDirectoryNow(dir);
            }
            return;
        }
        written.add(id);
        if (created) {
            written.add(ENTRIES); // the directory's entries changed
        }
        dirty.mark();
    }

    private void syncWritten(FileSync sync) throws IOException {
        boolean entries = false;
        for (java.util.Iterator<Long> it = written.iterator(); it.hasNext(); ) {
            long id = it.next();
            it.remove();
            if (id == ENTRIES) {
                entries = true;
                continue;
            }
            try {
                sync.force(path(id));
            } catch (NoSuchFileException e) {
                // deleted since: nothing points at it
            }
        }
        if (entries) {
            sync.forceDirectory(dir);
        }
    }

    public Path dir() {
        return dir;
    }

    private Path path(long id) {
        return dir.resolve(String.format("%016x", id));
    }

    /** Writes a new blob holding {@code data[off, off+len)} and returns its id. */
    public long create(byte[] data, int off, int len) {
        try {
            Files.createDirectories(dir);
            for (;;) {
                long id = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
                try (FileChannel ch = FileChannel.open(path(id), StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE)) {
                    writeFully(ch, ByteBuffer.wrap(data, off, len), 0);
                    written(id, true);
                    return id;
                } catch (FileAlreadyExistsException e) {
                    // astronomically rare: pick another id
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Copies {@code length} bytes of a blob of {@code src} (possibly this store) into a new blob here. */
    public long copyFrom(BlobStore src, long srcId, long length) {
        try {
            Files.createDirectories(dir);
            for (;;) {
                long id = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
                try (FileChannel dst = FileChannel.open(path(id), StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE);
                     FileChannel in = FileChannel.open(src.path(srcId), StandardOpenOption.READ)) {
                    long done = 0;
                    while (done < length) {
                        done += in.transferTo(done, length - done, dst);
                    }
                    written(id, true);
                    return id;
                } catch (FileAlreadyExistsException e) {
                    // pick another id
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes {@code data} at {@code offset} of an existing blob (used past the published end). */
    public void writeAt(long id, long offset, byte[] data, int off, int len) {
        try (FileChannel ch = FileChannel.open(path(id), StandardOpenOption.WRITE)) {
            writeFully(ch, ByteBuffer.wrap(data, off, len), offset);
            written(id, false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads {@code [offset, offset+len)} into a new array. */
    public byte[] read(long id, long offset, int len) {
        byte[] out = new byte[len];
        try (FileChannel ch = FileChannel.open(path(id), StandardOpenOption.READ)) {
            ByteBuffer bb = ByteBuffer.wrap(out);
            long pos = offset;
            while (bb.hasRemaining()) {
                int n = ch.read(bb, pos);
                if (n < 0) {
                    throw new IOException("blob " + Long.toHexString(id) + " is shorter than its header says");
                }
                pos += n;
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Opens a blob for streaming. The caller owns the channel and must close it; the bytes inside
     * the published length stay stable even if the blob is deleted meanwhile.
     */
    public FileChannel open(long id) {
        try {
            return FileChannel.open(path(id), StandardOpenOption.READ);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void delete(long id) {
        try {
            Files.deleteIfExists(path(id));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes every blob file whose id is not in {@code live}. Returns how many were removed. */
    public int sweep(Set<Long> live) {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path p : files) {
                long id;
                try {
                    id = Long.parseUnsignedLong(p.getFileName().toString(), 16);
                } catch (NumberFormatException e) {
                    continue;
                }
                if (!live.contains(id)) {
                    try {
                        Files.delete(p);
                        removed++;
                    } catch (NoSuchFileException ignored) {
                        // already gone
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return removed;
    }

    /** Deletes every blob and key file (FLUSHDB). */
    public void deleteAll() {
        sweep(Set.of());
        sweepKeyFiles(Set.of());
    }

    // ---- key files: the bytes of keys too long to be map keys (see KeyCodec)

    /** Writes a key file unless it exists (its content never changes for a given name). */
    public void ensureKeyFile(String name, byte[] key) {
        Path p = dir.resolve(name);
        if (Files.exists(p)) {
            return;
        }
        try {
            Files.createDirectories(dir);
            Path tmp = dir.resolve(name + ".tmp");
            Files.write(tmp, key);
            durability.forceNow(tmp); // a key file is written once: synced whatever the policy's pace
            Files.move(tmp, p, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            durability.forceDirectoryNow(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A key file's bytes, or null when it is missing. */
    public byte[] readKeyFile(String name) {
        try {
            return Files.readAllBytes(dir.resolve(name));
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void deleteKeyFile(String name) {
        try {
            Files.deleteIfExists(dir.resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes every key file (name "k...") not in {@code live}, and leftover temporaries. */
    public void sweepKeyFiles(Set<String> live) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "k*")) {
            for (Path p : files) {
                String n = p.getFileName().toString();
                if (n.endsWith(".tmp") || !live.contains(n)) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer bb, long pos) throws IOException {
        while (bb.hasRemaining()) {
            pos += ch.write(bb, pos);
        }
    }
}
