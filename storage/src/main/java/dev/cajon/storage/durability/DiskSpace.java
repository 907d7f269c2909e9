package dev.cajon.storage.durability;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;

/**
 * The free space of the file system that holds a data directory, and the floor below which
 * Cajon stops taking data.
 *
 * <p>Why it is needed. Map generations are sparse files (see {@code MapFile}): the disk holds only
 * the pages written, so a keyspace that just grew four times does not take four times its data
 * on the disk. The price is that the file system is asked for a block only when a mapped page is
 * first written, and a write into a hole of a full file system is a SIGBUS, which the JVM turns
 * into an {@code InternalError} in the middle of a map operation. So the server refuses the
 * commands that add data (flagged {@code denyoom}, as Redis's maxmemory does) while less than
 * {@link #minFree} bytes are free, with {@code -MISCONF}, and keeps serving reads, deletes and
 * expiry; growth checks the room for its copy before it starts ({@link #require}). A burst
 * that writes more than the floor between two looks can still meet a full disk; the floor is
 * sized for that (64 MiB by default, {@code min-free-disk}).
 *
 * <p>Cost: the free space is read with one {@code statvfs} at most every {@link #REFRESH_NANOS}
 * ns, by whichever thread asks first after that.
 */
public final class DiskSpace {
    public static final long DEFAULT_MIN_FREE = 64L << 20;
    static final long REFRESH_NANOS = 250_000_000L;

    /** For stores outside a data directory (unit tests of one class): never low. */
    public static final DiskSpace UNLIMITED = new DiskSpace(() -> Long.MAX_VALUE);

    private volatile LongSupplier usable;
    private volatile long minFree = DEFAULT_MIN_FREE;
    private volatile long cached;
    private volatile long cachedAt;
    private volatile boolean fresh;

    DiskSpace(LongSupplier usable) {
        this.usable = usable;
    }

    /** The space of the file system holding {@code dir} (which must exist). */
    public static DiskSpace of(Path dir) {
        FileStore fs;
        try {
            fs = Files.getFileStore(dir);
        } catch (IOException e) {
            return new DiskSpace(() -> Long.MAX_VALUE); // cannot be asked: never refuse for it
        }
        return new DiskSpace(() -> {
            try {
                long usable = fs.getUsableSpace();
                // a file system that reports no size at all (some FUSE and network ones) says
                // nothing about its room: never refuse writes for it
                return usable == 0 && fs.getTotalSpace() == 0 ? Long.MAX_VALUE : usable;
            } catch (IOException e) {
                return Long.MAX_VALUE;
            }
        });
    }

    /** Bytes free for this process's writes, as of at most {@link #REFRESH_NANOS} ago. */
    public long usable() {
        long now = System.nanoTime();
        if (!fresh || now - cachedAt > REFRESH_NANOS) {
            cached = usable.getAsLong();
            cachedAt = now;
            fresh = true;
        }
        return cached;
    }

    /** Whether the free space is under the floor: commands that add data are refused. */
    public boolean low() {
        return this != UNLIMITED && usable() < minFree;
    }

    /**
     * Throws {@link DiskFull} unless {@code bytes} more can be written with the floor still free
     * (asked now, not from the cache). {@code what} names the write in the error.
     */
    public void require(long bytes, String what) {
        if (this == UNLIMITED) {
            return;
        }
        long u = usable.getAsLong();
        if (u - bytes < minFree) {
            throw new DiskFull(what + " needs about " + mib(bytes) + " and " + mib(u)
                    + " are free (min-free-disk " + mib(minFree) + ")");
        }
    }

    private static String mib(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    public long minFree() {
        return minFree;
    }

    /** CONFIG SET min-free-disk. */
    public void minFree(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("min-free-disk must not be negative");
        }
        this.minFree = bytes;
    }

    /** Replaces how the free space is read (tests); the next look reads it anew. */
    public void usableSpace(LongSupplier s) {
        if (this == UNLIMITED) {
            throw new IllegalStateException("UNLIMITED is shared");
        }
        this.usable = s;
        this.fresh = false;
    }
}
