package dev.cajon.server.nativeio;

import com.sun.jna.Library;
import com.sun.jna.Native;
import net.openhft.posix.internal.PosixAPIHolder;
import net.openhft.posix.internal.noop.NoOpPosixAPI;

/**
 * The one call of Chronicle's POSIX layer that Cajon needs, without the layer.
 *
 * <p>Chronicle's static set-up builds its POSIX layer through jnr-ffi, which generates native call
 * stubs with ASM at start-up: about 200 classes and 0.1-0.2 s on the way to the first PING. Of
 * that layer Cajon only uses {@code fallocate}: Chronicle reserves a map file's blocks when it
 * creates or extends it, so that a full disk is an error at that moment rather than a SIGBUS
 * when a later write lands in a hole of a sparse file. (msync, the other call on Cajon's paths,
 * is never made: acknowledged writes are kept through a process crash, not a power loss.) So the
 * server installs this layer before anything touches Chronicle: every call is Chronicle's no-op
 * except {@code fallocate}, which calls the C library's {@code posix_fallocate} through JNA (the
 * library Chronicle's CPU-affinity probe loads anyway).
 */
public final class FallocateOnlyPosix extends NoOpPosixAPI {
    /** The C library, bound on first use (a map's creation, on the thread that opens the store). */
    private static final class LibC {
        interface C extends Library {
            int posix_fallocate(int fd, long offset, long len);
        }

        static final C INSTANCE = Native.load("c", C.class);
    }

    public FallocateOnlyPosix() {
        super("Cajon uses only fallocate");
    }

    /** Installs this layer as Chronicle's; call before Chronicle's classes initialise. */
    public static void install() {
        PosixAPIHolder.POSIX_API = new FallocateOnlyPosix();
    }

    /**
     * Reserves {@code length} bytes from {@code offset}; 0 on success, else the error number
     * (posix_fallocate's contract, which Chronicle checks). {@code mode} is always 0 from
     * Chronicle (allocate and extend the file), which is what posix_fallocate does.
     */
    @Override
    public int fallocate(int fd, int mode, long offset, long length) {
        if (mode != 0) {
            return super.fallocate(fd, mode, offset, length);
        }
        return LibC.INSTANCE.posix_fallocate(fd, offset, length);
    }
}
