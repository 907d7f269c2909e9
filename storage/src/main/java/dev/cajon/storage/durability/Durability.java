package dev.cajon.storage.durability;

import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A data directory's fsync policy (Redis's {@code appendfsync}) and the files written since the
 * last sync.
 *
 * <p>How it works. Every file that writes pass through (map generations, journals, blob files)
 * has a {@link SyncTarget}; the first write after a pass puts it in this queue. A <em>pass</em>
 * ({@link #syncDirty}) takes the queue and syncs each file once, blobs first, then journals,
 * then maps (what a map entry points at reaches the disk no later than the entry). Passes run
 * one at a time under {@link #passLock}; that is the group commit:
 * <ul>
 *   <li>{@code everysec}: the {@code cajon-fsync} daemon thread runs a pass once a second; the
 *       event loops never wait for it.</li>
 *   <li>{@code always}: before an event loop writes the replies of a batch it calls
 *       {@link #beforeReply}, which runs a pass if anything is queued or a pass is running, and
 *       waits for it. Whatever its batch wrote is then on the disk: its files are queued (the
 *       mark and the enqueue happen together under {@link #queueLock}), or were taken by a pass
 *       that started after the write, which this call waits for. Loops that arrive while a
 *       pass runs share the next one, so N loops cost far fewer than N syncs each. The daemon
 *       still runs once a second for writes no client waits on (the expiry reaper's).</li>
 *   <li>{@code no}: nothing is queued; the kernel writes the pages back on its own.</li>
 * </ul>
 *
 * <p>Files find their directory's durability at open, by path ({@link #forFile}), so the
 * storage classes that create them need no extra parameter; a file outside any registered
 * directory (unit tests of one class) gets {@link #OFF}.
 */
public final class Durability implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Durability.class);
    private static final Map<Path, Durability> BY_DIR = new ConcurrentHashMap<>();
    /** How long {@link #close} lets a running pass finish before it interrupts it. */
    static final long CLOSE_WAIT_SECONDS = 30;

    /** Tracks nothing and syncs nothing: files outside a registered data directory. */
    public static final Durability OFF = new Durability(FsyncPolicy.NO);

    private volatile FsyncPolicy policy;
    private volatile FileSync sync = FileSync.SYSTEM;
    private final Object queueLock = new Object();
    private List<SyncTarget> queue = new ArrayList<>();
    private volatile int queued;
    private final ReentrantLock passLock = new ReentrantLock();
    private volatile boolean passRunning;
    private final AtomicLong syncCalls = new AtomicLong();
    private final AtomicLong passes = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private volatile long lastPassMicros;
    private volatile long lastPassEpochMillis;
    private final List<Path> registered = new ArrayList<>();
    private ScheduledExecutorService thread;
    /** The owner asked for the thread ({@link #start}); it runs whenever the policy syncs. */
    private volatile boolean started;
    private volatile boolean closed;
    /** The free space of the directory's file system ({@link DiskSpace#UNLIMITED} until {@link #register}). */
    private volatile DiskSpace disk = DiskSpace.UNLIMITED;

    public Durability(FsyncPolicy policy) {
        this.policy = policy;
    }

    // ------------------------------------------------------------------ registry by directory

    /** Files under {@code dir} (and its real path) use this durability from now on. */
    public synchronized void register(Path dir) {
        if (this != OFF && disk == DiskSpace.UNLIMITED) {
            disk = DiskSpace.of(dir);
        }
        for (Path p : variants(dir)) {
            BY_DIR.put(p, this);
            registered.add(p);
        }
    }

    private static List<Path> variants(Path dir) {
        List<Path> out = new ArrayList<>();
        Path abs = dir.toAbsolutePath().normalize();
        out.add(abs);
        try {
            Path real = dir.toRealPath();
            if (!real.equals(abs)) {
                out.add(real);
            }
        } catch (IOException e) {
            // not created yet: its absolute path is enough
        }
        return out;
    }

    /** The durability of the data directory holding {@code file}, or {@link #OFF}. */
    public static Durability forFile(Path file) {
        if (BY_DIR.isEmpty()) {
            return OFF;
        }
        for (Path p = file.toAbsolutePath().normalize(); p != null; p = p.getParent()) {
            Durability d = BY_DIR.get(p);
            if (d != null) {
                return d;
            }
        }
        return OFF;
    }

    // ------------------------------------------------------------------ policy and counters

    /** The free space of the registered directory's file system and its floor. */
    public DiskSpace disk() {
        return disk;
    }

    public FsyncPolicy policy() {
        return policy;
    }

    /** CONFIG SET appendfsync: takes effect for the next write and the next reply. */
    public void policy(FsyncPolicy p) {
        if (this != OFF) {
            this.policy = p;
            if (p != FsyncPolicy.NO && started) {
                start();
            }
        }
    }

    /** Whether files are synced at all (growth and FLUSHDB then sync their new files inline). */
    public boolean enabled() {
        return this != OFF && policy != FsyncPolicy.NO;
    }

    /** Replaces the system calls (tests count them). */
    public void fileSync(FileSync s) {
        this.sync = s;
    }

    /** fsync/fdatasync calls made (files and directories). */
    public long syncs() {
        return syncCalls.get();
    }

    /** Sync passes that synced at least one file. */
    public long passes() {
        return passes.get();
    }

    /** Syncs that failed (an I/O error other than a file deleted meanwhile). */
    public long errors() {
        return errors.get();
    }

    /** How long the last pass took, in microseconds (0 before the first). */
    public long lastPassMicros() {
        return lastPassMicros;
    }

    /** When the last pass ended (epoch millis, 0 before the first). */
    public long lastPassEpochMillis() {
        return lastPassEpochMillis;
    }

    /** Files waiting for the next pass. */
    public int pending() {
        return queued;
    }

    // ------------------------------------------------------------------ marking and passes

    void enqueue(SyncTarget t) {
        if (this == OFF || policy == FsyncPolicy.NO) {
            return;
        }
        synchronized (queueLock) {
            if (!t.dirty && !t.retired) {
                queue.add(t);
                queued = queue.size();
                // set last: a writer that reads dirty == true knows the target is queued, or
                // taken by a pass that started after its write (see beforeReply)
                t.dirty = true;
            }
        }
    }

    /**
     * {@code always}: called by an event loop before it writes replies; returns once everything
     * written before the call is on the disk. A no-op under the other policies and when nothing
     * was written.
     */
    public void beforeReply() {
        if (syncBeforeReply()) {
            syncDirty();
        }
    }

    /** Whether {@link #beforeReply} would sync now (always, and something is queued or being synced). */
    public boolean syncBeforeReply() {
        return policy == FsyncPolicy.ALWAYS && (queued > 0 || passRunning);
    }

    /** The once-a-second pass of the {@code cajon-fsync} thread (tests call it directly). */
    public void tick() {
        if (policy != FsyncPolicy.NO && queued > 0) {
            syncDirty();
        }
    }

    /** Syncs every file written since the last pass; waits for a pass already running first. */
    public void syncDirty() {
        passLock.lock();
        try {
            passRunning = true;
            List<SyncTarget> batch;
            synchronized (queueLock) {
                batch = queue;
                queue = new ArrayList<>();
                queued = 0;
                for (SyncTarget t : batch) {
                    t.dirty = false;
                }
            }
            if (batch.isEmpty()) {
                return;
            }
            long t0 = System.nanoTime();
            batch.sort(Comparator.comparingInt(t -> t.order));
            for (SyncTarget t : batch) {
                if (!t.retired) {
                    syncOne(t);
                }
            }
            passes.incrementAndGet();
            lastPassMicros = (System.nanoTime() - t0) / 1000;
            lastPassEpochMillis = System.currentTimeMillis();
        } finally {
            passRunning = false;
            passLock.unlock();
        }
    }

    private void syncOne(SyncTarget t) {
        try {
            t.sync(counting);
        } catch (NoSuchFileException e) {
            // deleted or replaced since it was written; whoever replaced it synced the new file
        } catch (ClosedByInterruptException e) {
            // this thread was interrupted (a close that stopped waiting): not the disk's fault,
            // and the file is still unsynced, so the next pass (close's last one) takes it
            enqueue(t);
        } catch (IOException | RuntimeException e) {
            errors.incrementAndGet();
            log.error("fsync of {} failed: {}", t, e.toString());
        }
    }

    /** The injected system calls, counted. */
    private final FileSync counting = new FileSync() {
        @Override
        public void force(Path file) throws IOException {
            syncCalls.incrementAndGet();
            sync.force(file);
        }

        @Override
        public void forceDirectory(Path dir) throws IOException {
            syncCalls.incrementAndGet();
            sync.forceDirectory(dir);
        }
    };

    /** Syncs {@code file} now, when the policy syncs at all (a new map generation, a blob under always). */
    public void forceNow(Path file) throws IOException {
        if (enabled()) {
            counting.force(file);
        }
    }

    /** Syncs the entries of {@code dir} now, when the policy syncs at all. */
    public void forceDirectoryNow(Path dir) throws IOException {
        if (enabled()) {
            counting.forceDirectory(dir);
        }
    }

    /**
     * SAVE: syncs every file and directory under {@code root} now, whatever the policy, and
     * returns how many files it synced. Everything written before the call is then on the disk;
     * files replaced or deleted meanwhile are skipped (whoever replaced one synced its successor
     * under a policy that syncs, and its data was not acknowledged on it otherwise). Throws on
     * the first file that cannot be synced, after counting it.
     */
    public int syncTree(Path root) throws IOException {
        List<Path> files = new ArrayList<>();
        List<Path> dirs = new ArrayList<>();
        java.nio.file.Files.walkFileTree(root, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult preVisitDirectory(Path d, java.nio.file.attribute.BasicFileAttributes a) {
                dirs.add(d);
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFile(Path f, java.nio.file.attribute.BasicFileAttributes a) {
                files.add(f);
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFileFailed(Path f, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return java.nio.file.FileVisitResult.CONTINUE; // deleted during the walk: the rest is still synced
                }
                throw e;
            }
        });
        int n = 0;
        for (Path f : files) {
            try {
                counting.force(f);
                n++;
            } catch (NoSuchFileException gone) {
                // deleted since the walk
            } catch (IOException e) {
                errors.incrementAndGet();
                throw e;
            }
        }
        for (Path d : dirs) {
            try {
                counting.forceDirectory(d);
            } catch (NoSuchFileException gone) {
                // deleted since the walk
            }
        }
        return n;
    }

    // ------------------------------------------------------------------ the background thread

    /**
     * Starts the {@code cajon-fsync} daemon thread, one pass a second, now or (under {@code no})
     * when CONFIG SET first asks for a policy that syncs.
     */
    public synchronized void start() {
        started = true;
        if (thread != null || this == OFF || closed || policy == FsyncPolicy.NO) {
            return;
        }
        thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cajon-fsync");
            t.setDaemon(true);
            return t;
        });
        thread.scheduleAtFixedRate(this::tickQuietly, 1, 1, TimeUnit.SECONDS);
    }

    private void tickQuietly() {
        try {
            tick();
        } catch (RuntimeException | Error e) {
            log.error("fsync pass failed", e);
        }
    }

    /**
     * Stops the thread, runs a last pass (when the policy syncs) and forgets the directories.
     *
     * <p>The thread is let finish the pass it is in, not interrupted: an interrupt inside
     * {@code FileChannel.force} closes the channel ({@code ClosedByInterruptException}), and the
     * files that pass had taken would then miss both it and the last pass below. Only a pass
     * still running after {@link #CLOSE_WAIT_SECONDS} (a disk that stopped answering) is
     * interrupted; whatever it had not synced goes back in the queue for the last pass.
     */
    @Override
    public synchronized void close() {
        closed = true;
        if (thread != null) {
            thread.shutdown();
            try {
                if (!thread.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                    thread.shutdownNow();
                    thread.awaitTermination(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            thread = null;
        }
        if (policy != FsyncPolicy.NO) {
            syncDirty();
        }
        for (Path p : registered) {
            BY_DIR.remove(p, this);
        }
        registered.clear();
    }
}
