package dev.cajon.storage;

import dev.cajon.storage.chronicle.BatchJournal;
import dev.cajon.storage.chronicle.ValueHeader;
import dev.cajon.storage.chronicle.WriteJournal;
import dev.cajon.storage.collection.Collection;
import dev.cajon.storage.collection.CollectionAccess;
import dev.cajon.storage.collection.CollectionType;
import dev.cajon.storage.collection.CollectionTypes;
import dev.cajon.storage.collection.PageStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import net.openhft.chronicle.map.ChronicleMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's {@link CollectionAccess}: collections stored in the keyspace's own map.
 *
 * <h2>Layout (persisted; pinned by ValueHeaderTest and KeyCodecTest)</h2>
 * A collection key is one map entry under its stored key ({@link KeyCodec#mapKey}) whose value is
 * a {@link ValueHeader} of the collection's type, encoding {@code ENC_COLLECTION}, the usual
 * deadline flags, then the collection id (8 bytes, random, non-zero) and the type's state. Each of
 * its pages is a map entry of its own under {@link KeyCodec#pageKey}(collection id, page id),
 * valued by a header of type {@code TYPE_PAGE} (never a deadline) and the page's bytes. Because
 * pages are keyed by the collection id, not by the key, a RENAME moves only the key entry. Page ids
 * are random non-zero longs, checked against the body's own buffer and, for a collection that
 * already has pages in the map, against the map.
 *
 * <h2>A write, whole or not at all</h2>
 * A body runs under its keys' stripe locks and sees a {@link CollectionView}: its page writes, frees and
 * new state are buffered in the view (reads see them) and nothing reaches the map while it runs,
 * so a body that throws, or one that growth re-runs after {@link CapacityExhausted}, leaves no
 * trace. When it returns, every map entry it changes is listed; two or more are recorded first in
 * the collections journal ({@link Journals#beginCollections}), so a {@code kill -9} in the middle is applied
 * again whole on open; one alone uses the write journal (a page too big for its slot, the
 * collections journal). Puts go first (they are the only steps
 * that can run out of room: they are taken back then, and the body is re-run after growth), then
 * removals. Inside an EXEC's atomic section every entry's previous value is also added to the
 * section's snapshot, so a section taken back in process restores pages as well as key entries.
 *
 * <h2>Releasing</h2>
 * A collection removed by anything but its own body (DEL, SET over it, expiry, a RENAME or COPY
 * onto it, a replace) loses its key entry first, then its pages, through the type's
 * {@link CollectionType#release} ({@link KeyspaceEngine#dropCollection}). A crash in between
 * leaves pages no key names: the full open after a crash sweeps them ({@link Recovery}).
 */
final class KeyCollections implements CollectionAccess {
    private static final Logger log = LoggerFactory.getLogger(KeyCollections.class);

    private final KeyspaceEngine e;

    KeyCollections(KeyspaceEngine e) {
        this.e = e;
    }

    @Override
    public <T> T read(byte[] userKey, byte type, Function<Collection, T> body) {
        byte[] key = KeyCodec.mapKey(userKey);
        HeldViews h = HeldViews.current();
        if (h != null) {
            T r = held(h, key, userKey, type, false, body);
            if (r != HeldViews.NOT_HELD) {
                return r;
            }
        }
        return e.locked(key, userKey, () -> {
            byte[] v = e.readLive(key);
            Lookups.found(v != null); // a key of another type is found too (then WRONGTYPE), as in Redis
            if (v == null) {
                return body.apply(null);
            }
            if (ValueHeader.type(v) != type) {
                throw WrongType.INSTANCE;
            }
            CollectionView view = new CollectionView(e, key, userKey, v, type);
            T result = body.apply(view);
            view.done();
            return result;
        });
    }

    @Override
    public <T> T write(byte[] userKey, byte type, Function<Collection, T> body) {
        byte[] key = KeyCodec.mapKey(userKey);
        HeldViews h = HeldViews.current();
        if (h != null) {
            T r = held(h, key, userKey, type, true, body);
            if (r != HeldViews.NOT_HELD) {
                return r;
            }
        }
        return e.locked(key, userKey, () -> {
            CollectionView view = open(key, userKey, type);
            T result = body.apply(view);
            apply(e, new CollectionView[] {view});
            return result;
        });
    }

    @Override
    public <T> T writeAll(byte[][] userKeys, byte[] types, Function<Collection[], T> body) {
        byte[][] keys = KeyspaceEngine.mapKeys(userKeys, 0);
        return e.locked(keys, userKeys, () -> {
            CollectionView[] views = new CollectionView[keys.length];
            List<CollectionView> distinct = new ArrayList<>();
            for (int i = 0; i < keys.length; i++) {
                for (int j = 0; j < i; j++) {
                    if (Arrays.equals(keys[i], keys[j])) {
                        views[i] = views[j];
                        break;
                    }
                }
                if (views[i] == null) {
                    views[i] = open(keys[i], userKeys[i], types[i]);
                    distinct.add(views[i]);
                } else if (types[i] != 0 && views[i].exists() && views[i].type() != types[i]) {
                    throw WrongType.INSTANCE;
                }
            }
            T result = body.apply(views);
            apply(e, distinct.toArray(new CollectionView[0]));
            return result;
        });
    }

    /**
     * A single-key command on a thread that holds views ({@link HeldViews}): on the held view when
     * it is this key's, else on a view opened and held now; {@link HeldViews#NOT_HELD} (anything held let
     * go first) when the command must apply its own writes: inside an EXEC, or when the keyspace
     * needs growth.
     */
    @SuppressWarnings("unchecked")
    private <T> T held(HeldViews h, byte[] key, byte[] userKey, byte type, boolean write, Function<Collection, T> body) {
        if (e.section.get() != null) {
            return (T) HeldViews.NOT_HELD; // an EXEC: nothing is held (it applied what was)
        }
        if (h.holds(e, key)) {
            return h.reuse(type, body);
        }
        if (!write && !HeldViews.READS) {
            return (T) HeldViews.NOT_HELD; // a read opens nothing to hold (it applies what is held, in locked)
        }
        HeldViews.release();
        return h.open(e, key, userKey, type, write, body);
    }

    private CollectionView open(byte[] key, byte[] userKey, byte type) {
        byte[] v = e.readLive(key);
        Lookups.found(v != null); // counted only when the command is a read (SINTER, ZUNION ...)
        if (v != null && type != 0 && ValueHeader.type(v) != type) {
            throw WrongType.INSTANCE;
        }
        return new CollectionView(e, key, userKey, v, type);
    }

    // ------------------------------------------------------------------ ids

    /** A fresh collection id: random, non-zero. */
    static long newCollectionId() {
        long id;
        do {
            id = ThreadLocalRandom.current().nextLong();
        } while (id == 0);
        return id;
    }

    // ------------------------------------------------------------------ applying a body's writes

    /**
     * For tests: called after each map entry a write applies (its count so far), and after each
     * page a release frees (negative count), where a test takes the picture a kill would leave.
     */
    static volatile java.util.function.IntConsumer crashHook;

    private static void crashPoint(int n) {
        java.util.function.IntConsumer h = crashHook;
        if (h != null) {
            h.accept(n);
        }
    }

    /**
     * One map entry a write changes: a page or a key entry; {@code value} null removes it.
     * {@code before}: what the map holds for it now, when known without a lookup (a key entry's
     * is its view's {@code old}; a page's, {@link CollectionView#before}), else {@link #UNKNOWN}.
     */
    private record Change(CollectionView view, byte[] key, byte[] value, boolean page, byte[] before) {
        byte[] before(ChronicleMap<byte[], byte[]> m) {
            return before != UNKNOWN ? before : m.get(key);
        }
    }

    /** A page entry's value not known yet: read it from the map. */
    private static final byte[] UNKNOWN = new byte[0];

    /**
     * Applies the views' buffered writes, whole (every stripe of theirs held): see the class
     * comment. Throws {@link CapacityExhausted} with nothing applied when the map ran out of room.
     */
    static void apply(KeyspaceEngine e, CollectionView[] views) {
        for (CollectionView v : views) {
            v.flushTrees();
        }
        List<Change> puts = new ArrayList<>();
        List<Change> removals = new ArrayList<>();
        for (CollectionView v : views) {
            for (Map.Entry<Long, byte[]> p : v.pages.entrySet()) {
                byte[] pk = KeyCodec.pageKey(v.cid, p.getKey());
                byte[] before = v.before(p.getKey(), UNKNOWN);
                if (p.getValue() == null) {
                    removals.add(new Change(v, pk, null, true, before));
                } else {
                    puts.add(new Change(v, pk, ValueHeader.page(p.getValue()), true, before));
                }
            }
            if (v.changed) {
                byte[] entry = v.newEntry();
                if (entry != null && !Arrays.equals(entry, v.old)) {
                    puts.add(new Change(v, v.key, entry, false, v.old));
                } else if (entry == null && v.old != null) {
                    removals.add(new Change(v, v.key, null, false, v.old));
                }
            }
        }
        int n = puts.size() + removals.size();
        if (n == 0) {
            done(views);
            return;
        }
        Sections.Section section = e.section.get();
        if (section != null) {
            // the EXEC's undo record must name every entry this write changes before it does
            List<BatchJournal.Entry> befores = new ArrayList<>(n);
            ChronicleMap<byte[], byte[]> m = e.map();
            for (Change c : puts) {
                befores.add(new BatchJournal.Entry(c.key, c.before(m)));
            }
            for (Change c : removals) {
                befores.add(new BatchJournal.Entry(c.key, c.before(m)));
            }
            Sections.recordBefore(e, section, befores);
        }
        int token = Journals.NO_BATCH;
        int single = -1;
        boolean lonePage = n == 1 && !puts.isEmpty() && puts.get(0).page;
        // a lone page overwrite uses the write journal's slot, unless the page is too big for
        // one (pages reach 128 KiB, a slot 32 KiB): then the collections journal, like a batch
        if (n > 1 || lonePage && !WriteJournal.fits(puts.get(0).key.length, puts.get(0).value.length)) {
            List<BatchJournal.Entry> writes = new ArrayList<>(n);
            int lowest = Integer.MAX_VALUE;
            for (CollectionView v : views) {
                // a replayed batch writes map entries only: a long key's file must exist first
                e.ensureKeyFileFirst(v.key, v.userKey);
                lowest = Math.min(lowest, KeyspaceEngine.stripeOf(v.key));
            }
            for (Change c : puts) {
                writes.add(new BatchJournal.Entry(c.key, c.value));
            }
            for (Change c : removals) {
                writes.add(new BatchJournal.Entry(c.key, null));
            }
            token = e.journals.beginCollections(lowest, writes);
        } else if (lonePage) {
            single = KeyspaceEngine.stripeOf(puts.get(0).view.key); // an overwrite of one page
        }
        Undo sectionUndo = section == null ? null : section.undo;
        List<byte[]> befores = new ArrayList<>(puts.size()); // per applied put: the entry's previous value
        try {
            try {
                for (Change c : puts) {
                    byte[] before;
                    if (c.page) {
                        before = putPage(e, c.key, c.value, single, c.before(e.map()));
                    } else {
                        before = c.view.old;
                        e.put(c.key, c.value, before);
                    }
                    befores.add(before);
                    if (sectionUndo != null) {
                        sectionUndo.written(c.key, before, ValueHeader.NO_BLOB);
                    }
                    crashPoint(befores.size());
                }
            } catch (CapacityExhausted ex) {
                takeBack(e, puts, befores);
                throw ex;
            }
            int applied = befores.size();
            for (Change c : removals) {
                byte[] before;
                if (c.page) {
                    before = removePage(e, c.key, c.before(e.map()));
                } else {
                    before = c.view.old;
                    e.removeEntry(c.key, before);
                }
                if (sectionUndo != null && before != null) {
                    sectionUndo.written(c.key, before, ValueHeader.NO_BLOB);
                }
                crashPoint(++applied);
            }
        } finally {
            e.journals.endCollections(token);
        }
        // what the bodies replaced goes only now, once their writes are in (and the batch ended)
        for (CollectionView v : views) {
            if (v.replaced && v.old != null) {
                if (ValueHeader.isCollection(v.old)) {
                    e.dropCollection(v.key, v.old);
                } else if (ValueHeader.isBlob(v.old)) {
                    e.dropBlob(ValueHeader.blobId(v.old));
                }
            }
        }
        done(views);
    }

    private static void done(CollectionView[] views) {
        for (CollectionView v : views) {
            v.done();
        }
    }

    /**
     * Takes back the puts applied before one ran out of room, last first, so that the body's
     * retry after growth starts from the state before it. A removal never needs room; putting an
     * old value back could only if it is larger than the one written and its room was taken
     * meanwhile by another stripe's key in the same segment (then the map stays part applied
     * until the retry writes it whole, as {@link Undo#takeBack} describes for MSET).
     */
    private static void takeBack(KeyspaceEngine e, List<Change> puts, List<byte[]> befores) {
        for (int k = befores.size() - 1; k >= 0; k--) {
            Change c = puts.get(k);
            byte[] before = befores.get(k);
            try {
                if (c.page) {
                    restorePage(e, c.key, before);
                } else if (before == null) {
                    e.removeEntry(c.key, c.value);
                } else {
                    e.put(c.key, before, c.value);
                }
            } catch (CapacityExhausted again) {
                log.warn("{}: a collection write that ran out of room could not be taken back whole", e.name);
                return;
            }
        }
    }

    /**
     * Puts a page entry and keeps the counts; returns what it replaced (null: new). {@code slot}:
     * the write journal slot for a lone overwrite, else -1 (a batch covers it, or it is new).
     */
    static byte[] putPage(KeyspaceEngine e, byte[] pk, byte[] stored, int slot) {
        return putPage(e, pk, stored, slot, e.map().get(pk));
    }

    /** {@link #putPage} where the entry's value now, {@code before}, is known. */
    private static byte[] putPage(KeyspaceEngine e, byte[] pk, byte[] stored, int slot, byte[] before) {
        // the map's put and remove return null (MapFile's settings): the old value is read first
        ChronicleMap<byte[], byte[]> m = e.map();
        if (slot >= 0 && before != null) {
            // outside the try: a record that does not fit is a bug of the caller, not a full map
            e.journals.write().begin(slot, pk, stored);
        }
        try {
            m.put(pk, stored);
        } catch (IllegalStateException | IllegalArgumentException ex) {
            throw new CapacityExhausted(ex);
        } finally {
            if (slot >= 0) {
                e.journals.endWrite(slot);
            }
        }
        KeyCounts c = e.counts;
        if (before == null) {
            c.pages.increment();
        }
        c.liveBytes.add(KeyCounts.footprint(pk, stored) - (before == null ? 0 : KeyCounts.footprint(pk, before)));
        c.keyBytes.add(pk.length);
        c.valueBytes.add(stored.length);
        c.puts.increment();
        return before;
    }

    /** Removes a page entry and keeps the counts; returns what it held (null: there was none). */
    static byte[] removePage(KeyspaceEngine e, byte[] pk) {
        return removePage(e, pk, e.map().get(pk));
    }

    /** {@link #removePage} where the entry's value now, {@code before}, is known. */
    private static byte[] removePage(KeyspaceEngine e, byte[] pk, byte[] before) {
        if (before != null) {
            e.map().remove(pk);
            e.counts.pages.decrement();
            e.counts.liveBytes.add(-KeyCounts.footprint(pk, before));
        }
        return before;
    }

    /** Puts a page back as it was before a write that is taken back (null: it was absent). */
    static void restorePage(KeyspaceEngine e, byte[] pk, byte[] before) {
        if (before == null) {
            removePage(e, pk);
        } else {
            putPage(e, pk, before, -1);
        }
    }

    // ------------------------------------------------------------------ releasing

    /**
     * The pages of a collection whose key entry is gone, read and freed straight in the map (the
     * key's stripe held, or the whole keyspace). Never adds or writes.
     */
    static class Release implements PageStore {
        private final KeyspaceEngine e;
        private final long cid;
        int freed;

        Release(KeyspaceEngine e, long cid) {
            this.e = e;
            this.cid = cid;
        }

        @Override
        public byte[] read(long page) {
            byte[] stored = e.map().get(KeyCodec.pageKey(cid, page));
            if (stored == null) {
                throw new IllegalStateException("no page " + page + " in collection " + Long.toHexString(cid));
            }
            return ValueHeader.pageBytes(stored);
        }

        @Override
        public long add(byte[] bytes) {
            throw new UnsupportedOperationException("a released collection gets no pages");
        }

        @Override
        public void write(long page, byte[] bytes) {
            throw new UnsupportedOperationException("a released collection gets no pages");
        }

        @Override
        public void free(long page) {
            if (removePage(e, KeyCodec.pageKey(cid, page)) != null) {
                freed++;
                crashPoint(-freed);
            }
        }
    }

    /** Frees every page of the collection {@code stored} names (its key entry is already gone). */
    static void release(KeyspaceEngine e, byte[] stored) {
        CollectionType t = CollectionTypes.of(ValueHeader.type(stored));
        if (t == null) {
            log.warn("{}: no collection type {} to release a collection with; its pages stay until the next scan",
                    e.name, ValueHeader.type(stored));
            return;
        }
        t.release(ValueHeader.collectionState(stored), new Release(e, ValueHeader.collectionId(stored)));
    }

    /** A read-only store over an existing collection's pages (COPY's source). */
    static PageStore reader(KeyspaceEngine e, long cid) {
        return new Release(e, cid) {
            @Override
            public void free(long page) {
                throw new UnsupportedOperationException("a copy's source is read only");
            }
        };
    }

    /**
     * Pages written on the heap under a collection id of their own (COPY into another keyspace,
     * MOVE): adopted whole by the target with {@link #adopt}.
     */
    static final class Detached implements PageStore {
        final Map<Long, byte[]> pages = new LinkedHashMap<>();
        byte[] state;

        @Override
        public byte[] read(long page) {
            byte[] b = pages.get(page);
            if (b == null) {
                throw new IllegalStateException("no page " + page);
            }
            return b;
        }

        @Override
        public long add(byte[] bytes) {
            long id;
            do {
                id = ThreadLocalRandom.current().nextLong();
            } while (id == 0 || pages.containsKey(id));
            pages.put(id, bytes);
            return id;
        }

        @Override
        public void write(long page, byte[] bytes) {
            pages.put(page, bytes);
        }

        @Override
        public void free(long page) {
            pages.remove(page);
        }
    }

    /**
     * Writes a copy of a collection to {@code dst} of {@code e} (its stripe held; {@code old} its
     * live value, replaced), with the pages {@code pages} and the deadline {@code expireAt}.
     */
    static void adopt(KeyspaceEngine e, byte[] dst, byte[] userDst, byte[] old, byte type, byte[] state,
                      Map<Long, byte[]> pages, long expireAt) {
        CollectionView v = new CollectionView(e, dst, userDst, old, type);
        v.replace(type, state);
        v.pages.putAll(pages);
        v.added.addAll(pages.keySet());
        v.expireOverride = expireAt;
        apply(e, new CollectionView[] {v});
    }

    /** COPY of a collection within one keyspace: a new collection id, its pages copied by the type. */
    static void copyWithin(KeyspaceEngine e, byte[] src, byte[] dst, byte[] userDst, byte[] old) {
        Detached d = copyOut(e, src);
        adopt(e, dst, userDst, old, ValueHeader.type(src), d.state, d.pages, ValueHeader.expireAt(src));
    }

    /** The pages and state of a copy of the collection {@code stored} names (its stripe held). */
    static Detached copyOut(KeyspaceEngine e, byte[] stored) {
        CollectionType t = CollectionTypes.of(ValueHeader.type(stored));
        if (t == null) {
            throw new IllegalStateException("no collection type " + ValueHeader.type(stored) + " to copy with");
        }
        Detached d = new Detached();
        d.state = t.copy(ValueHeader.collectionState(stored), reader(e, ValueHeader.collectionId(stored)), d);
        return d;
    }
}
