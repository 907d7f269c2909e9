package dev.cajon.storage.collection;

import java.util.Iterator;

/**
 * The entries of one collection: a counted, ordered sequence that the type operations (hashes,
 * sets, sorted sets, lists) are written on. Two modes, chosen when it is opened:
 * <ul>
 *   <li><b>keyed</b>: entries are ordered by key, compared as unsigned bytes, keys unique
 *       ({@link #get}, {@link #put}, {@link #remove}, {@link #rank});</li>
 *   <li><b>positional</b>: a list; entries have empty keys and are addressed by index
 *       ({@link #insertAt}, {@link #removeAt}, {@link #setAt}).</li>
 * </ul>
 * Both modes have {@link #size}, {@link #at} and {@link #iterator}. Costs, for n entries: every
 * lookup, insert, removal and rank is O(log n); an iterator costs O(log n) to start and O(1)
 * per step. A write never rewrites the whole collection: it touches O(log n) pages.
 *
 * <p>The implementation keeps its small state (root, height, count; or the whole collection
 * while it is small) in {@link #state()}, which the type operations store in the key's value, and
 * its pages in a {@link PageStore}. Not thread-safe: the caller holds the key's stripe.
 */
public interface Entries {
    long size();

    // ---- keyed mode

    /** The value stored under {@code key}, or null. */
    byte[] get(byte[] key);

    /** Stores {@code value} under {@code key}; returns the previous value, or null if new. */
    byte[] put(byte[] key, byte[] value);

    /** Removes {@code key}; returns its value, or null if it was absent. */
    byte[] remove(byte[] key);

    /** How many keys are strictly less than {@code key} (its index if present). */
    long rank(byte[] key);

    // ---- positional mode

    /** Inserts {@code value} so that it gets index {@code index} (0..size). */
    void insertAt(long index, byte[] value);

    /** Removes and returns the entry at {@code index}. */
    byte[] removeAt(long index);

    /** Replaces the value at {@code index}; returns the old one. */
    byte[] setAt(long index, byte[] value);

    // ---- both

    /** The entry at {@code index} (0 ≤ index < size) in order. */
    Entry at(long index);

    /**
     * The entries from index {@code from} on, ascending (or, with {@code descending}, from
     * {@code from} down to 0). The collection must not change while it is used.
     */
    Iterator<Entry> iterator(long from, boolean descending);

    /**
     * As {@link #iterator}, but each entry shares the collection's own arrays instead of being a
     * copy: for a read that hands the values on or copies what it keeps (LRANGE, HGETALL, ZRANGE,
     * the set algebra ...), where the copy was a second one (a page's entries are already copied
     * out of the map when it is decoded). The caller must never change an entry's arrays. By
     * default the copies of {@link #iterator}.
     */
    default Iterator<Entry> view(long from, boolean descending) {
        return iterator(from, descending);
    }

    /**
     * The state to store with the key after changes (small: a root reference and counts, or the
     * whole collection while it fits {@code inlineMax} bytes). Pages written meanwhile are already
     * in the {@link PageStore}.
     */
    byte[] state();

    /** Frees every page this collection holds (the key is being deleted). */
    void clear();
}
