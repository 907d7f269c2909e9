package dev.cajon.storage.collection;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * A {@link PageStore} on a heap map, for tests: it checks the contract (page sizes, unknown
 * pages, ids never 0) and counts what a tree does with it.
 */
final class MemoryPageStore implements PageStore {
    private final Map<Long, byte[]> pages = new HashMap<>();
    private long next = 1;
    /** As the engine's store: a tree may keep changed pages back until its state is taken. */
    private final boolean later;
    final java.util.List<Runnable> beforeApply = new java.util.ArrayList<>();

    MemoryPageStore() {
        this(false);
    }

    MemoryPageStore(boolean appliesLater) {
        this(appliesLater, false);
    }

    /** {@code cached}: trees over this store keep decoded pages across bodies, in a cache of its own. */
    MemoryPageStore(boolean appliesLater, boolean cached) {
        this.later = appliesLater;
        this.nodes = cached ? new NodeCache(64) : null;
    }

    private final NodeCache nodes;
    private final java.util.List<Runnable> afterApply = new java.util.ArrayList<>();

    @Override
    public NodeCache nodes() {
        return nodes;
    }

    @Override
    public long scope() {
        return 1;
    }

    @Override
    public void afterApply(Runnable done) {
        if (nodes == null) {
            throw new IllegalStateException("this store keeps no nodes");
        }
        afterApply.add(done);
    }

    /** A body ended: its trees give their nodes back (the tree must not be used again). */
    void endBody() {
        java.util.List<Runnable> a = new java.util.ArrayList<>(afterApply);
        afterApply.clear();
        a.forEach(Runnable::run);
    }

    @Override
    public boolean appliesLater() {
        return later;
    }

    @Override
    public void beforeApply(Runnable flush) {
        if (!later) {
            throw new IllegalStateException("this store applies its writes at once");
        }
        beforeApply.add(flush);
    }
    long reads;
    long adds;
    long writes;
    long frees;
    long bytesWritten;

    @Override
    public byte[] read(long page) {
        byte[] b = pages.get(page);
        if (b == null) {
            throw new IllegalStateException("no page " + page);
        }
        reads++;
        return b;
    }

    @Override
    public long add(byte[] bytes) {
        check(bytes);
        long id = next++;
        pages.put(id, bytes);
        adds++;
        bytesWritten += bytes.length;
        return id;
    }

    @Override
    public void write(long page, byte[] bytes) {
        check(bytes);
        if (!pages.containsKey(page)) {
            throw new IllegalStateException("write to missing page " + page);
        }
        pages.put(page, bytes);
        writes++;
        bytesWritten += bytes.length;
    }

    @Override
    public void free(long page) {
        if (pages.remove(page) == null) {
            throw new IllegalStateException("free of missing page " + page);
        }
        frees++;
    }

    /** Page writes of any kind (add, write, free) so far. */
    long touches() {
        return adds + writes + frees;
    }

    void resetCounters() {
        reads = adds = writes = frees = bytesWritten = 0;
    }

    Set<Long> ids() {
        return pages.keySet();
    }

    int count() {
        return pages.size();
    }

    long totalBytes() {
        long t = 0;
        for (byte[] b : pages.values()) {
            t += b.length;
        }
        return t;
    }

    private static void check(byte[] bytes) {
        if (bytes.length > MAX_PAGE) {
            throw new IllegalStateException("page of " + bytes.length + " bytes over MAX_PAGE");
        }
    }
}
