package dev.cajon.storage.expiry;

import dev.cajon.storage.Clock;
import dev.cajon.storage.FileTrees;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.SetCondition;
import dev.cajon.storage.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the expiry path on a scratch store so that the JIT has compiled it before the first real
 * storm. Measured before this existed: a server's first storm (1M keys over 2 s) met a reclaim
 * path that the JVM ran interpreted for its first 0.8 s and then spent 0.3 core-seconds compiling,
 * and its 99th percentile lag was 145 ms where a warm server's was 18-88 ms.
 *
 * <p>The scratch store lives in a temporary directory outside the data directory
 * ({@code cajon-expiry-warmup-<pid>-*}, holding a lock on its {@code warmup.lock} while in use; a
 * start sweeps those whose lock nobody holds, left by a process killed mid-run), has its own
 * wheel, and is deleted afterwards: nothing of it reaches the server's keyspaces, counters or
 * INFO. Its keyspace stays within its first generation (no growth). The walk goes through
 * everything a storm runs: SET with a deadline (filing, on several wheel levels), cascades, chunks
 * taken by {@link ExpiryWheel#advance} and by {@link ExpiryWheel#assist}, and the in-place
 * reclaim of each key. In a server it runs on the real clock, waiting for its deadlines (about
 * 2-3 s and 0.4 core-second measured): a manual clock would leave the compiled code expecting the
 * manual clock's class at every {@code nowMillis()} call, and the first real storm would throw
 * that code away.
 */
public final class ExpiryWarmup implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ExpiryWarmup.class);
    /** Keys per round: inside the first generation's capacity, so the scratch map never grows. */
    public static final int KEYS_PER_ROUND = 12_000;
    /** Rounds: about 36k reclamations, past C2's compile thresholds for the loop and its callees. */
    public static final int ROUNDS = 3;
    /** Deadlines are spread over this window (beyond the wheel's first level, so cascades run). */
    static final int WINDOW_MS = 600;
    /** Between two steps the wheel falls this far behind, enough for the event loops' assist. */
    static final long STEP_MS = 4 * ExpiryWheel.ASSIST_AFTER_MILLIS;
    static final String DIR_PREFIX = "cajon-expiry-warmup-";
    static final String LOCK_FILE = "warmup.lock";
    /** A scratch directory without a lock file is left alone this long (it may be being created). */
    static final long UNLOCKED_GRACE_MILLIS = TimeUnit.MINUTES.toMillis(10);

    private final Thread thread;
    private volatile boolean stop;

    private ExpiryWarmup() {
        this.thread = new Thread(this::body, "cajon-warmup-expiry");
        thread.setDaemon(true);
    }

    /** Starts the warm-up on a thread of its own, on the real clock. */
    public static ExpiryWarmup start() {
        ExpiryWarmup w = new ExpiryWarmup();
        w.thread.start();
        return w;
    }

    private void body() {
        long t0 = System.nanoTime();
        try {
            long n = run(KEYS_PER_ROUND, ROUNDS, Clock.SYSTEM,
                    ms -> LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ms)), () -> stop);
            log.debug("expiry path warmed up: {} keys reclaimed on a scratch store in {} ms", n,
                    (System.nanoTime() - t0) / 1_000_000);
        } catch (Throwable e) {
            log.warn("expiry warm-up failed (the first expiry storm will run on a cold JIT): {}", e.toString());
        }
    }

    /** Stops the warm-up at its next step and waits for it to delete its scratch store. */
    @Override
    public void close() {
        stop = true;
        LockSupport.unpark(thread);
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn("the expiry warm-up has not stopped yet; its scratch store is deleted when it does");
        }
    }

    /**
     * Sets {@code keysPerRound} keys with deadlines over {@value #WINDOW_MS} ms, {@code rounds}
     * times, and lets the wheel reclaim them, {@code pause} moving time on between steps;
     * returns the number of keys the wheel reclaimed. Stops early when {@code stopped} says so.
     */
    static long run(int keysPerRound, int rounds, Clock clock, LongConsumer pause,
                    java.util.function.BooleanSupplier stopped) {
        if (stopped.getAsBoolean()) {
            return 0;
        }
        sweepLeftovers();
        Path dir;
        FileChannel lockFile;
        try {
            dir = Files.createTempDirectory(DIR_PREFIX + ProcessHandle.current().pid() + "-");
            lockFile = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            lockFile.lock();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (lockFile) {
            ExpiryWheel wheel = new ExpiryWheel(clock);
            long reclaimed = 0;
            try (Store store = Store.open(dir, clock, wheel)) {
                Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
                byte[] value = new byte[32];
                for (int round = 0; round < rounds && !stopped.getAsBoolean(); round++) {
                    long start = clock.nowMillis();
                    for (int i = 0; i < keysPerRound; i++) {
                        byte[] key = ("warmup:" + round + ":" + i).getBytes(StandardCharsets.US_ASCII);
                        ks.set(key, value, SetCondition.ALWAYS, start + 1 + (i * 7919L) % WINDOW_MS, false);
                    }
                    // fall behind far enough for the assist, let it take chunks, then advance
                    while (wheel.scheduled() > 0 && !stopped.getAsBoolean()) {
                        pause.accept(STEP_MS);
                        for (int n = wheel.assist(); n > 0; n = wheel.assist()) {
                            reclaimed += n;
                        }
                        reclaimed += wheel.advance();
                    }
                }
            }
            return reclaimed;
        } catch (IOException e) {
            throw new UncheckedIOException(e); // closing the lock file
        } finally {
            FileTrees.delete(dir);
        }
    }

    /**
     * Deletes the scratch directories of warm-ups that are gone (killed mid-run): those whose lock
     * file nobody holds. Another running warm-up, in this or any process, holds its lock.
     */
    static void sweepLeftovers() {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        List<Path> dirs;
        try (Stream<Path> s = Files.list(tmp)) {
            dirs = s.filter(p -> p.getFileName().toString().startsWith(DIR_PREFIX) && Files.isDirectory(p)).toList();
        } catch (IOException e) {
            return; // only housekeeping
        }
        for (Path d : dirs) {
            try {
                if (abandoned(d)) {
                    FileTrees.delete(d);
                }
            } catch (IOException | UncheckedIOException e) {
                // not ours, or not deletable now: left alone
            }
        }
    }

    private static boolean abandoned(Path dir) throws IOException {
        Path lock = dir.resolve(LOCK_FILE);
        if (!Files.exists(lock)) {
            long age = System.currentTimeMillis() - Files.getLastModifiedTime(dir).toMillis();
            return age > UNLOCKED_GRACE_MILLIS;
        }
        try (FileChannel ch = FileChannel.open(lock, StandardOpenOption.WRITE)) {
            FileLock l = ch.tryLock();
            if (l == null) {
                return false; // another process holds it
            }
            l.release();
            return true;
        } catch (OverlappingFileLockException e) {
            return false; // held in this JVM
        }
    }
}
