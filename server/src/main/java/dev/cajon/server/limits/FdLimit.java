package dev.cajon.server.limits;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redis's adjustOpenFilesLimit: at start, raise RLIMIT_NOFILE so that {@code maxclients} fit
 * ({@link NetLimits#descriptorsFor}: a socket and at most one blob file per client, and 32 more),
 * and when the system refuses, say so in the log and lower maxclients to what fits, with Redis's
 * messages.
 */
public final class FdLimit {
    private static final Logger log = LoggerFactory.getLogger(FdLimit.class);
    /** RLIMIT_NOFILE on Linux (x86-64 and arm64). */
    private static final int RLIMIT_NOFILE = 7;

    private static final class LibC {
        interface C extends Library {
            int getrlimit(int resource, long[] rlim);

            int setrlimit(int resource, long[] rlim);
        }

        static final C INSTANCE = Native.load("c", C.class);
    }

    private FdLimit() {
    }

    /** The soft limit of open files now, from /proc/self/limits; -1 when unknown. */
    public static long current() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) {
                    String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                    return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
                }
            }
        } catch (IOException | RuntimeException e) {
            log.debug("reading /proc/self/limits: {}", e.toString());
        }
        return -1;
    }

    /**
     * Raises the limit for {@code maxclients} if needed; returns the maxclients that fit (the
     * same unless the system refused).
     */
    public static int adjust(int maxclients) {
        return adjust(maxclients, 0);
    }

    /**
     * {@link #adjust(int)} with {@code extra} descriptors more for the rest of the server (one per
     * open keyspace, {@code --max-open-keyspaces}).
     */
    public static int adjust(int maxclients, int extra) {
        long needed = NetLimits.descriptorsFor(maxclients) + extra;
        long[] lim = new long[2];
        try {
            if (LibC.INSTANCE.getrlimit(RLIMIT_NOFILE, lim) != 0) {
                log.warn("Unable to obtain the current NOFILE limit, assuming 1024 and setting the max clients configuration accordingly.");
                return fit(maxclients, 1024 - extra);
            }
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            long cur = current();
            log.warn("Cannot read or raise the open files limit ({}); it is {}", e.toString(), cur);
            return cur < 0 ? maxclients : fit(maxclients, cur - extra);
        }
        long old = lim[0];
        if (old >= needed) {
            return maxclients;
        }
        String error = null;
        // as redis-server: the limit it needs, both soft and hard; then as high as the hard limit goes
        for (long[] attempt : new long[][] {{needed, Math.max(needed, lim[1])}, {Math.min(needed, lim[1]), lim[1]}}) {
            if (LibC.INSTANCE.setrlimit(RLIMIT_NOFILE, attempt) == 0) {
                if (attempt[0] >= needed) {
                    log.info("Increased maximum number of open files to {} (it was originally set to {}).", attempt[0], old);
                    return maxclients;
                }
                break;
            }
            error = "errno " + Native.getLastError();
        }
        long now = current() > 0 ? current() : old;
        log.warn("You requested maxclients of {} requiring at least {} max file descriptors.", maxclients, needed);
        log.warn("Server can't set maximum open files to {} because of OS error: {}.", needed,
                error == null ? "the hard limit is " + lim[1] : error);
        int fitted = fit(maxclients, now - extra);
        log.warn("Current maximum open files is {}. maxclients has been reduced to {} to compensate for low ulimit."
                + " If you need higher maxclients increase 'ulimit -n'.", now, fitted);
        return fitted;
    }

    /** The maxclients that {@code limit} descriptors allow (at least 1). */
    public static int fit(int maxclients, long limit) {
        long fits = (limit - NetLimits.RESERVED_FDS) / (1 + NetLimits.MAX_OPEN_FILES);
        return (int) Math.max(1, Math.min(maxclients, fits));
    }
}
