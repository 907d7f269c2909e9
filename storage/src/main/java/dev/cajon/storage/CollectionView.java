package dev.cajon.storage;

import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.collection.Collection;
import dev.cajon.storage.collection.NodeCache;
import dev.cajon.storage.collection.PageStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import net.openhft.chronicle.map.ChronicleMap;

/**
 * One key as a {@link KeyCollections} body sees it, with its buffered changes: its page writes,
 * frees and new state stay here (reads see them) until {@link KeyCollections#apply} writes them
 * whole, and the page entries it read from the map are kept, as read, so applying needs no second
 * lookup. It is also the trees' {@link PageStore}, with the process's {@link NodeCache}.
 * {@code old} is the key's live stored value when the body started (any type; null when absent).
 */
final class CollectionView implements Collection, PageStore {
    final KeyspaceEngine e;
    final byte[] key;
    final byte[] userKey;
    final byte[] old;
    /** The type a new collection gets ({@code write}'s type; 0 for a writeAll STORE slot). */
    final byte wanted;
    byte curType;
    long cid;
    byte[] curState;
    /** Whether the collection has pages in the map (false: new, or replaced). */
    boolean inMap;
    /** The body changed the state or replaced the key. */
    boolean changed;
    /** The body replaced what the key held: {@link #old} goes whole once the write is applied. */
    boolean replaced;
    /** A deadline to give the new key entry instead of the old one's (COPY keeps the source's). */
    long expireOverride = Keyspace.KEEP_TTL;
    /** Buffered page writes (null: freed). */
    final Map<Long, byte[]> pages = new LinkedHashMap<>();
    /** Pages added by this body (never in the map before). */
    final Set<Long> added = new HashSet<>();
    /**
     * The map entries of the pages this body read from the map, as read: what the map still
     * holds for them when the writes are applied (the key's stripe is held all along), so
     * that applying them need not read them again.
     */
    final Map<Long, byte[]> read = new HashMap<>();
    /** What the trees run once the body's writes are applied ({@link PageStore#afterApply}). */
    private final Hooks afters = new Hooks();

    CollectionView(KeyspaceEngine e, byte[] key, byte[] userKey, byte[] old, byte wanted) {
        this.e = e;
        this.key = key;
        this.userKey = userKey;
        this.old = old;
        this.wanted = wanted;
        if (old != null && ValueHeader.isCollection(old)) {
            curType = ValueHeader.type(old);
            cid = ValueHeader.collectionId(old);
            curState = ValueHeader.collectionState(old);
            inMap = true;
        } else if (old != null) {
            curType = ValueHeader.type(old); // a string (writeAll's any-type slot)
        }
    }

    @Override
    public boolean exists() {
        return curState != null || (!replaced && !changed && old != null);
    }

    @Override
    public byte type() {
        return exists() ? curType : 0;
    }

    @Override
    public byte[] state() {
        return curState;
    }

    @Override
    public void state(byte[] state) {
        if (state != null && cid == 0) {
            if (wanted == 0 && curType == 0) {
                throw new IllegalStateException("state() on a new key of no type: use replace()");
            }
            if (old != null && !ValueHeader.isCollection(old)) {
                throw new IllegalStateException("state() over a string: use replace()");
            }
            curType = wanted;
            cid = KeyCollections.newCollectionId();
        }
        curState = state;
        changed = true;
    }

    @Override
    public void replace(byte type, byte[] state) {
        replaced = true;
        changed = true;
        pages.clear();
        added.clear();
        read.clear();
        inMap = false;
        curType = type;
        cid = KeyCollections.newCollectionId();
        curState = state;
        expireOverride = ValueHeader.NO_EXPIRY;
    }

    @Override
    public PageStore pages() {
        return this;
    }

    /** The trees' deferred page writes ({@link PageStore#beforeApply}), run by {@link #apply}. */
    private final Hooks flushes = new Hooks();

    @Override
    public boolean appliesLater() {
        return true;
    }

    @Override
    public void beforeApply(Runnable flush) {
        flushes.add(flush);
    }

    @Override
    public NodeCache nodes() {
        return NodeCache.SHARED;
    }

    @Override
    public long scope() {
        return cid;
    }

    @Override
    public void afterApply(Runnable done) {
        afters.add(done);
    }

    /** The body's writes are applied (or it was a read): runs what the trees asked for. */
    void done() {
        afters.run();
    }

    /**
     * The page's map entry as the map holds it now, if known without a lookup (read by this
     * body, or added by it: then null), else {@code absent}.
     */
    byte[] before(long page, byte[] absent) {
        byte[] r = read.get(page);
        if (r != null) {
            return r;
        }
        return added.contains(page) ? null : absent;
    }

    /** Writes what the trees kept back, so that {@link #pages} holds every page as it is now. */
    void flushTrees() {
        flushes.run();
    }

    @Override
    public byte[] read(long page) {
        if (pages.containsKey(page)) {
            byte[] b = pages.get(page);
            if (b == null) {
                throw new IllegalStateException("page " + page + " was freed");
            }
            return b;
        }
        byte[] stored = inMap ? read.get(page) : null;
        if (stored == null) {
            stored = inMap ? e.map().get(KeyCodec.pageKey(cid, page)) : null;
            if (stored == null) {
                throw new IllegalStateException("no page " + page + " in collection " + Long.toHexString(cid));
            }
            read.put(page, stored);
        }
        return ValueHeader.pageBytes(stored);
    }

    @Override
    public long add(byte[] bytes) {
        check(bytes);
        if (cid == 0) {
            state(new byte[0]); // a new collection: it gets its id (the body sets the real state)
        }
        long id;
        ChronicleMap<byte[], byte[]> m = inMap ? e.map() : null;
        do {
            id = ThreadLocalRandom.current().nextLong();
        } while (id == 0 || pages.containsKey(id) || m != null && m.containsKey(KeyCodec.pageKey(cid, id)));
        pages.put(id, bytes);
        added.add(id);
        return id;
    }

    @Override
    public void write(long page, byte[] bytes) {
        check(bytes);
        pages.put(page, bytes);
    }

    @Override
    public void free(long page) {
        if (added.remove(page)) {
            pages.remove(page); // never reached the map
        } else {
            pages.put(page, null);
        }
    }

    private static void check(byte[] bytes) {
        if (bytes.length > MAX_PAGE) {
            throw new IllegalArgumentException("a page of " + bytes.length + " bytes (at most " + MAX_PAGE + ")");
        }
    }

    /** The key entry to store after the body, or null to remove it (only read when {@link #changed}). */
    byte[] newEntry() {
        if (curState == null) {
            return null;
        }
        long at = expireOverride != Keyspace.KEEP_TTL ? expireOverride
                : old == null ? ValueHeader.NO_EXPIRY : ValueHeader.expireAt(old);
        byte[] stored = ValueHeader.collection(curType, cid, curState, at);
        long oldWheel = old == null ? ValueHeader.NO_EXPIRY : ValueHeader.wheelAt(old);
        // what put() will store, so that the batch journal names the same bytes
        return KeyspaceEngine.withWheel(stored, at, oldWheel, KeyspaceEngine.needsRecord(at, oldWheel));
    }

    /** What {@link #mark} saves: the view's state between two commands on a held view ({@link HeldViews}). */
    record Mark(byte curType, long cid, byte[] curState, boolean inMap, boolean changed, boolean replaced,
                long expireOverride, Map<Long, byte[]> pages, Set<Long> added) {
    }

    /** The view as it is now, to {@link #reset} to if the next body throws. */
    Mark mark() {
        return new Mark(curType, cid, curState, inMap, changed, replaced, expireOverride,
                new LinkedHashMap<>(pages), new HashSet<>(added));
    }

    /**
     * Puts the view back as it was at {@code m}, forgetting what a body that threw asked of its
     * trees. The page entries read since stay: they are what the map holds.
     */
    void reset(Mark m) {
        curType = m.curType;
        cid = m.cid;
        curState = m.curState;
        inMap = m.inMap;
        changed = m.changed;
        replaced = m.replaced;
        expireOverride = m.expireOverride;
        pages.clear();
        pages.putAll(m.pages);
        added.clear();
        added.addAll(m.added);
        flushes.clear();
        afters.clear();
    }

    /** Callbacks a body's trees ask for ({@link PageStore#beforeApply}, {@link PageStore#afterApply}), run once. */
    private static final class Hooks {
        private List<Runnable> list;

        void add(Runnable r) {
            if (list == null) {
                list = new ArrayList<>(2);
            }
            list.add(r);
        }

        void clear() {
            list = null;
        }

        void run() {
            if (list != null) {
                List<Runnable> l = list;
                list = null;
                l.forEach(Runnable::run);
            }
        }
    }
}
