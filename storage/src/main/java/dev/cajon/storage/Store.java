package dev.cajon.storage;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data directory: every keyspace of every app, and the rules for opening them safely.
 *
 * <p>Layout: {@code <dir>/cajon.lock}, {@code <dir>/cajon.running} and one directory per
 * keyspace, {@code <dir>/<app>/db<N>/} holding the map generations and {@code blobs/}.
 *
 * <p>Start-up protocol, in order:
 * <ol>
 *   <li>Take an exclusive OS lock on {@code cajon.lock}. A second server on the same directory
 *       fails here with {@link DataDirLockedException}: two processes mapping the same Chronicle
 *       files would corrupt them, and recovery is only safe for a sole owner.</li>
 *   <li>If {@code cajon.running} exists, the previous run did not stop cleanly: segment locks
 *       may still be held inside the map files, so every keyspace is reopened through Chronicle's
 *       {@code recoverPersistedTo}.</li>
 *   <li>Open every existing keyspace (expired keys are dropped, orphaned blobs swept), then
 *       create {@code cajon.running}. Only then may the server accept connections.</li>
 * </ol>
 * {@link #close()} closes every map and deletes {@code cajon.running}.
 *
 * <p>Idle keyspaces: a keyspace that was closed cleanly opens released (its map not mapped, see
 * {@link Keyspace#release}), so a start maps nothing it does not need; and once
 * {@link #closeIdle} is on, a sweep releases the keyspaces not used for a while, and the least
 * recently used ones whenever more than the budget are mapped. So memory and file descriptors
 * follow the apps in use, not the apps that exist.
 */
public final class Store implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(Store.class);
    private static final Pattern DB_DIR = Pattern.compile("db(\\d+)");
    public static final String DEFAULT_APP = "default";

    private final Path dir;
    private final Clock clock;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final boolean recovered;
    private final Map<String, Keyspace> open = new ConcurrentHashMap<>();
    /** The same keyspaces by app, then db: an app's usage and walks never look at other apps. */
    private final Map<String, java.util.concurrent.ConcurrentSkipListMap<Integer, Keyspace>> byApp =
            new ConcurrentHashMap<>();
    private final ExpiryListener expiryListener;
    /** Each app's logical db to directory map (see {@link DbMap}), read on first use. */
    private final Map<String, DbMap> dbMaps = new ConcurrentHashMap<>();
    /**
     * Which keyspace each db is stays put while this is held: a SWAPDB takes it exclusively
     * (swaps never interleave, so two never lock the same keyspaces in opposite orders), an EXEC
     * shared for as long as it runs (the keyspaces its footprint looked up stay its dbs'), and an
     * EXEC that queues a SWAPDB exclusively (see {@link #holdingDbs}).
     */
    private final java.util.concurrent.locks.ReentrantReadWriteLock dbGate =
            new java.util.concurrent.locks.ReentrantReadWriteLock();
    /** Bumped by every SWAPDB: whoever caches the keyspace of a db checks it (see {@link #swapEpoch}). */
    private volatile long swapEpoch;
    private volatile boolean closed;
    /** Data directories (real paths) held by a Store of this JVM. */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();
    private volatile Path held;
    /** Keyspaces whose map is mapped now. */
    private final java.util.concurrent.atomic.AtomicInteger mapped = new java.util.concurrent.atomic.AtomicInteger();
    private volatile int maxMapped = Integer.MAX_VALUE;
    private volatile long idleMillis = Long.MAX_VALUE;
    private java.util.concurrent.ScheduledExecutorService sweeper;
    private final java.util.concurrent.atomic.AtomicBoolean sweepAsked = new java.util.concurrent.atomic.AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicLong releases = new java.util.concurrent.atomic.AtomicLong();
    /** The fsync policy and the files written since the last sync (registered for {@link #dir}). */
    private final dev.cajon.storage.durability.Durability durability;

    /** Thrown when another process holds the data directory. */
    public static final class DataDirLockedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DataDirLockedException(Path dir) {
            super("data directory " + dir.toAbsolutePath()
                    + " is in use by another Cajon process (lock held on cajon.lock)");
        }
    }

    private Store(Path dir, Clock clock, FileChannel ch, FileLock lock, boolean recovered, ExpiryListener l,
                  dev.cajon.storage.durability.Durability durability) {
        this.durability = durability;
        this.expiryListener = l == null ? ExpiryListener.NONE : l;
        this.dir = dir;
        this.clock = clock;
        this.lockChannel = ch;
        this.lock = lock;
        this.recovered = recovered;
    }

    public static Store open(Path dir, Clock clock) {
        return open(dir, clock, ExpiryListener.NONE);
    }

    /**
     * Opens the data directory; every persisted deadline (and every later one) is reported to
     * {@code expiry}, so an expiry index can be rebuilt from the value headers on start.
     */
    public static Store open(Path dir, Clock clock, ExpiryListener expiry) {
        return open(dir, clock, expiry, dev.cajon.storage.durability.FsyncPolicy.NO);
    }

    /**
     * {@link #open(Path, Clock, ExpiryListener)} with an fsync policy (Redis's appendfsync): under
     * {@code everysec} and {@code always} the {@code cajon-fsync} thread runs from now on, and
     * every file written under the directory is synced as {@link #durability()} says.
     */
    public static Store open(Path dir, Clock clock, ExpiryListener expiry, dev.cajon.storage.durability.FsyncPolicy fsync) {
        return open(dir, clock, expiry, fsync, true);
    }

    /**
     * With {@code fsyncThread} false no {@code cajon-fsync} thread runs: a test drives the
     * once-a-second pass itself ({@link dev.cajon.storage.durability.Durability#tick}).
     */
    public static Store open(Path dir, Clock clock, ExpiryListener expiry, dev.cajon.storage.durability.FsyncPolicy fsync,
                             boolean fsyncThread) {
        Path real;
        try {
            Files.createDirectories(dir);
            real = dir.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // Closing any channel on cajon.lock drops every POSIX lock this process holds on it, so a
        // second open in this JVM is refused before it opens the lock file at all.
        if (!HELD.add(real)) {
            throw new DataDirLockedException(dir);
        }
        boolean opened = false;
        try {
            Store s = openLocked(dir, clock, expiry, fsync, fsyncThread);
            s.held = real;
            opened = true;
            return s;
        } finally {
            if (!opened) {
                HELD.remove(real);
            }
        }
    }

    private static Store openLocked(Path dir, Clock clock, ExpiryListener expiry,
                                    dev.cajon.storage.durability.FsyncPolicy fsync, boolean fsyncThread) {
        try {
            FileChannel ch = FileChannel.open(dir.resolve("cajon.lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                ch.close();
                throw new DataDirLockedException(dir);
            }
            Path running = dir.resolve("cajon.running");
            boolean unclean = Files.exists(running);
            dev.cajon.storage.durability.Durability durability = new dev.cajon.storage.durability.Durability(fsync);
            durability.register(dir);
            Store s = new Store(dir, clock, ch, lock, unclean, expiry, durability);
            try {
                if (unclean) {
                    log.warn("{} was not closed cleanly: recovering every keyspace", dir.toAbsolutePath());
                }
                s.openExisting(unclean);
                Files.writeString(running, Long.toString(ProcessHandle.current().pid()));
                if (fsyncThread) {
                    durability.start();
                }
            } catch (RuntimeException | IOException e) {
                // keep cajon.running: the next start must still recover
                s.open.values().forEach(Keyspace::close);
                durability.close();
                lock.release();
                ch.close();
                throw e;
            }
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void openExisting(boolean recover) throws IOException {
        try (DirectoryStream<Path> apps = Files.newDirectoryStream(dir, Files::isDirectory)) {
            for (Path app : apps) {
                try (DirectoryStream<Path> dbs = Files.newDirectoryStream(app, Files::isDirectory)) {
                    for (Path db : dbs) {
                        Matcher m = DB_DIR.matcher(db.getFileName().toString());
                        if (m.matches() && dev.cajon.storage.chronicle.MapFile.exists(db)) {
                            String a = app.getFileName().toString();
                            int n = dbMap(a).dbOf(Integer.parseInt(m.group(1)));
                            String key = key(a, n);
                            Keyspace ks = Keyspace.open(db, key, clock, recover, expiryListener);
                            open.put(key, ks);
                            index(a, n, ks);
                            track(ks);
                        }
                    }
                }
            }
        }
    }

    /** The fsync policy in force (CONFIG SET appendfsync changes it) and its counters. */
    public dev.cajon.storage.durability.Durability durability() {
        return durability;
    }

    /**
     * SAVE and BGSAVE: every file of the store synced to the disk now, whatever the fsync policy
     * (the map files are the data: there is nothing to write first). Returns the files synced.
     */
    public int save() throws java.io.IOException {
        return durability.syncTree(dir);
    }

    /** Whether this start followed an unclean stop (and so ran recovery). */
    public boolean recovered() {
        return recovered;
    }

    public Path dir() {
        return dir;
    }

    public Clock clock() {
        return clock;
    }

    private static String key(String app, int db) {
        return app + "/" + db;
    }

    /** The keyspace of (app, db), created on first use. */
    public Keyspace keyspace(String app, int db) {
        if (closed) {
            throw new IllegalStateException("store is closed");
        }
        String k = key(app, db);
        Keyspace ks = open.get(k);
        if (ks != null) {
            return ks;
        }
        return open.computeIfAbsent(k, kk -> {
            Path d = dir.resolve(app).resolve("db" + dbMap(app).directoryOf(db));
            Keyspace created = Keyspace.open(d, kk, clock, false, expiryListener);
            index(app, db, created);
            track(created);
            return created;
        });
    }

    private DbMap dbMap(String app) {
        return dbMaps.computeIfAbsent(app, a -> DbMap.read(dir.resolve(a)));
    }

    /**
     * Changes with every SWAPDB. A keyspace cached for a db (a connection's current db) is the
     * db's as long as this is what it was when it was looked up.
     */
    public long swapEpoch() {
        return swapEpoch;
    }

    /**
     * SWAPDB a b of {@code app}: from now on db {@code a} is the keyspace that was {@code b} and
     * the other way round. No file moves and no map is unmapped: the app's {@link DbMap} records
     * which directory holds which db (replaced atomically, on the disk before this returns), and
     * the tables here swap the two keyspaces. Both keyspaces are held whole meanwhile (their
     * every stripe, taken in db order; inside an EXEC the transaction holds them already), so no
     * command runs on either during the swap. Watches follow Redis's rule ({@link
     * Keyspace#swapWatches}). A command that looked its keyspace up just before the swap and runs
     * on it just after acts on the db as it was when it was looked up. Returns the two keyspaces
     * (db a's before, db b's before), or null when a is b (nothing to do).
     */
    public Keyspace[] swapDbs(String app, int a, int b) {
        if (a == b) {
            return null;
        }
        HeldViews.release();
        dbGate.writeLock().lock(); // reentrant: an EXEC that queued this SWAPDB holds it already
        try {
            return swapHeld(app, a, b);
        } finally {
            dbGate.writeLock().unlock();
        }
    }

    /**
     * Runs {@code body} with every db's keyspace fixed: shared, or exclusive when the body may
     * swap dbs itself (an EXEC with a SWAPDB queued). Taken before any stripe lock.
     */
    public <T> T holdingDbs(boolean swapping, java.util.function.Supplier<T> body) {
        java.util.concurrent.locks.Lock l = swapping ? dbGate.writeLock() : dbGate.readLock();
        HeldViews.release();
        l.lock();
        try {
            return body.get();
        } finally {
            l.unlock();
        }
    }

    /** The swap itself; the caller holds the db gate exclusively, so no other swap moves a keyspace meanwhile. */
    private Keyspace[] swapHeld(String app, int a, int b) {
        int lo = Math.min(a, b);
        int hi = Math.max(a, b);
        Keyspace kl = keyspace(app, lo);
        Keyspace kh = keyspace(app, hi);
        kl.lockWhole();
        try {
            kh.lockWhole();
            try {
                DbMap next = dbMap(app).swapped(lo, hi);
                next.write(dir.resolve(app), durability);
                dbMaps.put(app, next);
                open.put(key(app, lo), kh);
                open.put(key(app, hi), kl);
                index(app, lo, kh);
                index(app, hi, kl);
                Keyspace.swapWatches(kl, kh);
                swapEpoch++;
                return new Keyspace[] {kl, kh};
            } finally {
                kh.unlockWhole();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            kl.unlockWhole();
        }
    }

    /** Counts the keyspace's map while it is mapped, and asks for a sweep past the budget. */
    private void track(Keyspace ks) {
        ks.onWake(() -> {
            if (mapped.incrementAndGet() > maxMapped) {
                askSweep();
            }
        });
        if (ks.isMapped() && mapped.incrementAndGet() > maxMapped) {
            askSweep();
        }
    }

    /**
     * Starts releasing idle keyspaces: those not used for {@code idle}, checked every second or
     * so, and the least recently used ones as soon as more than {@code maxMapped} are mapped.
     */
    public synchronized void closeIdle(java.time.Duration idle, int maxMapped) {
        if (maxMapped < 1) {
            throw new IllegalArgumentException("max open keyspaces must be at least 1");
        }
        this.idleMillis = idle.isZero() || idle.isNegative() ? Long.MAX_VALUE : idle.toMillis();
        this.maxMapped = maxMapped;
        if (sweeper == null) {
            sweeper = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "cajon-idle-close");
                t.setDaemon(true);
                return t;
            });
            long period = Math.max(100, Math.min(1000, this.idleMillis / 4));
            sweeper.scheduleWithFixedDelay(this::sweepQuietly, period, period,
                    java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        askSweep();
    }

    private void askSweep() {
        var s = sweeper;
        if (s != null && sweepAsked.compareAndSet(false, true)) {
            try {
                s.execute(this::sweepQuietly);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                sweepAsked.set(false); // shutting down
            }
        }
    }

    private void sweepQuietly() {
        sweepAsked.set(false);
        try {
            releaseIdle();
        } catch (RuntimeException e) {
            log.warn("releasing idle keyspaces failed", e);
        }
    }

    /**
     * One idle sweep: releases every mapped keyspace not used for the idle time, then the least
     * recently used ones until at most the budget are mapped. Returns how many it released.
     */
    public synchronized int releaseIdle() {
        if (closed) {
            return 0;
        }
        long now = clock.nowMillis();
        List<Keyspace> mappedNow = new ArrayList<>();
        List<Long> lastUsed = new ArrayList<>();
        for (Keyspace ks : open.values()) {
            long last = ks.sweepLastUsed(now);
            if (ks.isMapped()) {
                mappedNow.add(ks);
                lastUsed.add(last);
            }
        }
        int released = 0;
        List<Integer> kept = new ArrayList<>();
        for (int i = 0; i < mappedNow.size(); i++) {
            if (now - lastUsed.get(i) >= idleMillis) {
                released += release(mappedNow.get(i));
            } else {
                kept.add(i);
            }
        }
        if (mapped.get() > maxMapped) {
            kept.sort((a, b) -> Long.compare(lastUsed.get(a), lastUsed.get(b)));
            for (int i : kept) {
                if (mapped.get() <= maxMapped) {
                    break;
                }
                released += release(mappedNow.get(i));
            }
        }
        return released;
    }

    private int release(Keyspace ks) {
        if (ks.release()) {
            mapped.decrementAndGet();
            releases.incrementAndGet();
            return 1;
        }
        return 0;
    }

    /** Keyspaces whose map is mapped now (the others cost no memory and no descriptor). */
    public int mappedKeyspaces() {
        return mapped.get();
    }

    /** Idle releases since the start. */
    public long idleReleases() {
        return releases.get();
    }

    private void index(String app, int db, Keyspace ks) {
        byApp.computeIfAbsent(app, a -> new java.util.concurrent.ConcurrentSkipListMap<>()).put(db, ks);
    }

    /** Live keys over every open keyspace of {@code app} (its key quota). */
    public long appKeys(String app) {
        var dbs = byApp.get(app);
        long n = 0;
        if (dbs != null) {
            for (Keyspace ks : dbs.values()) {
                n += ks.size();
            }
        }
        return n;
    }

    /** What the live keys of {@code app} take, over every open keyspace (its byte quota). */
    public long appBytes(String app) {
        var dbs = byApp.get(app);
        long n = 0;
        if (dbs != null) {
            for (Keyspace ks : dbs.values()) {
                n += ks.liveBytes();
            }
        }
        return n;
    }

    /** The keyspace of (app, db) if it has been opened or exists on disk, else null. */
    public Keyspace existing(String app, int db) {
        return open.get(key(app, db));
    }

    /** Visits every open keyspace of {@code app} with its db number, in db order. */
    public void forEachKeyspace(String app, BiConsumer<Integer, Keyspace> visitor) {
        var dbs = byApp.get(app);
        if (dbs != null) {
            dbs.forEach(visitor);
        }
    }

    /** Every open keyspace. */
    public List<Keyspace> keyspaces() {
        return new ArrayList<>(open.values());
    }

    /** Where {@link #dropApp} moves an app's directory before deleting it; no app has this name. */
    static final String DROPPED = ".dropped";

    /**
     * ACL DELUSER: closes every keyspace of {@code app} and deletes its directory, so a new app of
     * the same name starts empty. The directory is first renamed into {@value #DROPPED} (one
     * atomic rename, with the data directory fsynced), so a crash never leaves part of the app's
     * data where it would be opened again; what is left in there is deleted by the next call or
     * by {@link #sweepDroppedApps}. The caller makes sure no client of the app runs commands.
     */
    public synchronized void dropApp(String app) {
        // not in the middle of a swap of its dbs; inside an EXEC (the gate held shared) no swap runs
        boolean take = dbGate.getReadHoldCount() == 0;
        if (take) {
            dbGate.writeLock().lock();
        }
        try {
            dropAppHeld(app);
        } finally {
            if (take) {
                dbGate.writeLock().unlock();
            }
        }
    }

    private void dropAppHeld(String app) {
        if (app.isEmpty() || app.equals(DEFAULT_APP) || app.startsWith(".") || app.contains("/")
                || app.contains(java.io.File.separator)) {
            throw new IllegalArgumentException("not an app that can be dropped: '" + app + "'");
        }
        var dbs = byApp.remove(app);
        dbMaps.remove(app);
        if (dbs != null) {
            for (Map.Entry<Integer, Keyspace> e : dbs.entrySet()) {
                open.remove(key(app, e.getKey()), e.getValue());
                boolean wasMapped = e.getValue().isMapped();
                e.getValue().close();
                if (wasMapped) {
                    mapped.decrementAndGet();
                }
            }
        }
        Path appDir = dir.resolve(app);
        try {
            if (Files.exists(appDir)) {
                Path dropped = dir.resolve(DROPPED);
                Files.createDirectories(dropped);
                Files.move(appDir, dropped.resolve(app + "-" + System.nanoTime()),
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                    d.force(true);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        sweepDroppedApps();
    }

    /** Deletes what {@link #dropApp} moved aside and a crash left behind. */
    public void sweepDroppedApps() {
        FileTrees.delete(dir.resolve(DROPPED));
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (sweeper != null) {
            sweeper.shutdownNow();
        }
        for (Keyspace ks : open.values()) {
            try {
                ks.close();
            } catch (RuntimeException e) {
                log.error("closing {} failed", ks.name(), e);
            }
        }
        // the last writes and the files closing wrote, before cajon.running says "clean"
        try {
            durability.close();
        } catch (RuntimeException e) {
            log.error("last fsync pass failed", e);
        }
        try {
            Files.deleteIfExists(dir.resolve("cajon.running"));
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            HELD.remove(held);
        }
    }
}
