package dev.cajon.storage;

import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.collection.CollectionType;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * UNLINK's background free, Redis's lazyfree: the key goes at once, a big collection's pages after.
 *
 * <p>Why. Freeing a collection removes each of its pages from the map under the key's stripe:
 * DEL of a 300,000-field hash took 64 ms and of a 300,000-member sorted set 138 ms, during which
 * that event loop served nobody. UNLINK exists so that it does not.
 *
 * <p>How. Under the key's stripe, after its entry is removed (nobody can reach the pages any
 * more: they are keyed by the collection's id), the type's own release walks the tree and lists
 * the page ids instead of removing them; that reads only the internal pages (about one page in
 * forty). Up to {@link #NOW_MAX} pages are removed there and then; more become a job for the
 * {@code cajon-lazyfree} thread, which removes them {@link #CHUNK} at a time, taking the stripe for
 * each chunk (other commands on it wait for one chunk at most, and growth may run in between:
 * each chunk uses the map live at that moment). The counts and the byte quota follow each removal.
 *
 * <p>What must stay true. A clean close leaves no orphan page, since a clean open does not look
 * for them: {@link #drain} runs a keyspace's remaining jobs before it closes, and an idle keyspace
 * with jobs pending is not released (its clean state would be written with orphans in its map).
 * A kill -9 before a job ends leaves pages no key names, which the full open after a crash
 * removes, as for a DEL cut short; so does a job that failed, or one found after its keyspace
 * closed (the keyspace then writes no clean state, {@code lazyOrphans}, and a keyspace closing
 * with a job still counted writes none either). Locks: the thread only tries a stripe while it
 * holds {@link #runLock} (a busy stripe puts the job back), so it never waits for one, and a
 * {@link #drain} that waits for the run lock with stripes held (an app dropped inside an EXEC)
 * cannot close a cycle; {@link #submit} takes no lock.
 */
public final class LazyFree {
    private static final Logger log = LoggerFactory.getLogger(LazyFree.class);

    /** Pages freed inline: a small collection costs less to free than to queue. */
    static final int NOW_MAX = 64;
    /** Pages the thread removes per hold of the stripe. */
    static final int CHUNK = 256;

    private static final ConcurrentLinkedQueue<Job> QUEUE = new ConcurrentLinkedQueue<>();
    /** Held by whoever runs jobs: the thread for one chunk, {@link #drain} for all of a keyspace's. */
    private static final ReentrantLock runLock = new ReentrantLock();
    private static volatile Thread worker;

    private LazyFree() {
    }

    /** One collection's pages to remove. */
    private static final class Job {
        final KeyspaceEngine e;
        final int stripe;
        final long cid;
        final long[] pages;
        int next;

        Job(KeyspaceEngine e, int stripe, long cid, long[] pages) {
            this.e = e;
            this.stripe = stripe;
            this.cid = cid;
            this.pages = pages;
        }
    }

    /**
     * Frees the pages of the collection {@code stored}, whose key entry the caller (holding
     * stripe {@code stripe}) has just removed: now when there are few, else on the thread.
     */
    static void release(KeyspaceEngine e, int stripe, byte[] stored) {
        CollectionType t = dev.cajon.storage.collection.CollectionTypes.of(ValueHeader.type(stored));
        long cid = ValueHeader.collectionId(stored);
        if (t == null) {
            KeyCollections.release(e, stored); // says why it cannot
            return;
        }
        long[][] ids = {new long[16]};
        int[] n = {0};
        t.release(ValueHeader.collectionState(stored), new KeyCollections.Release(e, cid) {
            @Override
            public void free(long page) {
                if (n[0] == ids[0].length) {
                    ids[0] = java.util.Arrays.copyOf(ids[0], n[0] * 2);
                }
                ids[0][n[0]++] = page;
            }
        });
        if (n[0] <= NOW_MAX) {
            for (int i = 0; i < n[0]; i++) {
                KeyCollections.removePage(e, KeyCodec.pageKey(cid, ids[0][i]));
            }
            return;
        }
        submit(new Job(e, stripe, cid, java.util.Arrays.copyOf(ids[0], n[0])));
    }

    private static void submit(Job j) {
        j.e.lazyFrees.incrementAndGet();
        QUEUE.add(j);
        Thread w = worker;
        if (w == null) {
            synchronized (LazyFree.class) {
                w = worker;
                if (w == null) {
                    w = new Thread(LazyFree::run, "cajon-lazyfree");
                    w.setDaemon(true);
                    worker = w;
                    w.start();
                }
            }
        }
        LockSupport.unpark(w);
    }

    private static void run() {
        for (;;) {
            boolean worked = false;
            boolean busy = false;
            runLock.lock();
            try {
                Job j = QUEUE.poll();
                if (j != null) {
                    worked = true;
                    try {
                        Boolean done = chunk(j, false);
                        busy = done == null;
                        if (done == null || !done) {
                            QUEUE.add(j); // taken again after the others' next chunk
                        }
                    } catch (RuntimeException | Error ex) {
                        abandon(j, ex);
                    }
                }
            } finally {
                runLock.unlock();
            }
            if (!worked) {
                LockSupport.park(LazyFree.class);
            } else if (busy) {
                LockSupport.parkNanos(LazyFree.class, 200_000); // its stripe was held: try again soon
            }
        }
    }

    /**
     * A job that failed: its pages stay in the map with no key naming them. The keyspace then
     * writes no clean state, so that its next open is a full one, which removes them.
     */
    private static void abandon(Job j, Throwable ex) {
        log.error("{}: freeing an unlinked collection's pages failed; the next open removes the {} left",
                j.e.name, j.pages.length - j.next, ex);
        j.e.lazyOrphans = true;
        j.next = j.pages.length;
        j.e.lazyFrees.decrementAndGet();
    }

    /**
     * Removes the job's next chunk under its stripe; returns whether the job is done, or null when
     * {@code wait} is false and the stripe was held (the thread never waits for a stripe while it
     * holds {@link #runLock}: a {@link #drain} may wait for that lock with stripes held, inside an
     * EXEC that drops an app).
     */
    private static Boolean chunk(Job j, boolean wait) {
        KeyspaceEngine e = j.e;
        int end = Math.min(j.pages.length, j.next + CHUNK);
        if (e.closed) {
            log.warn("{}: closed with {} unlinked page(s) not freed; the next full open removes them",
                    e.name, j.pages.length - j.next);
            e.lazyOrphans = true;
            end = j.pages.length;
        } else {
            java.util.concurrent.locks.ReentrantLock l = wait ? e.lockIndex(j.stripe) : e.tryLockIndex(j.stripe);
            if (l == null) {
                return null;
            }
            try {
                for (int i = j.next; i < end; i++) {
                    KeyCollections.removePage(e, KeyCodec.pageKey(j.cid, j.pages[i]));
                }
            } finally {
                l.unlock();
            }
        }
        j.next = end;
        if (end == j.pages.length) {
            e.lazyFrees.decrementAndGet();
            return true;
        }
        return false;
    }

    /**
     * Runs every job of {@code e} to its end on this thread (before the keyspace closes). The
     * caller holds no stripe (see the class comment).
     */
    static void drain(KeyspaceEngine e) {
        if (e.lazyFrees.get() == 0) {
            return;
        }
        runLock.lock();
        try {
            for (Iterator<Job> it = QUEUE.iterator(); it.hasNext();) {
                Job j = it.next();
                if (j.e == e) {
                    it.remove();
                    try {
                        while (!chunk(j, true)) {
                            // the whole job, chunk by chunk
                        }
                    } catch (RuntimeException | Error ex) {
                        abandon(j, ex);
                    }
                }
            }
        } finally {
            runLock.unlock();
        }
    }

    /** Collections queued and not yet freed, over every keyspace (INFO's lazyfree_pending_objects). */
    public static int pendingJobs() {
        return QUEUE.size();
    }
}
