package dev.cajon.storage.durability;

/**
 * A write that needs more disk than the data directory's file system has above its floor
 * ({@link DiskSpace}); nothing of it was written. The server answers {@code -MISCONF}.
 */
public final class DiskFull extends RuntimeException {
    public DiskFull(String message) {
        super(message, null, false, false);
    }
}
