package dev.cajon.storage;

import dev.cajon.storage.chronicle.ValueHeader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a multi-key write has changed so far. If the map runs out of room part way, the writes
 * are taken back before the stripes are let go, so that no client sees part of the command and
 * its retry after growth starts from the state before it (MSETNX must not find its own keys).
 * Overwritten blob files are deleted only once every write is in. An atomic section's snapshot
 * is one too ({@link Sections}).
 */
final class Undo {
    final List<byte[]> keys = new ArrayList<>();
    /** The stored bytes before each write; null when the key was absent. */
    final List<byte[]> before = new ArrayList<>();
    /** The blob each write overwrote, or NO_BLOB. */
    final List<Long> oldBlobs = new ArrayList<>();
    /** Blobs that nothing names any more once the writes are taken back. */
    final List<Long> deadBlobs = new ArrayList<>();
    /** Collections ({key, stored}) the writes overwrote: released once every write is in. */
    final List<byte[][]> deadCollections = new ArrayList<>();
    /** After {@link #takeBack}: how many writes (the first ones) are still applied. */
    int applied;

    void written(byte[] key, byte[] old, long oldBlob) {
        keys.add(key);
        before.add(old);
        oldBlobs.add(oldBlob);
    }

    /** Deletes the blob files the command left unnamed: {@code done}, it went through. */
    void deleteFiles(KeyspaceEngine e, java.util.function.LongConsumer drop, boolean done) {
        if (done) {
            for (byte[][] c : deadCollections) {
                e.dropCollection(c[0], c[1]);
            }
        }
        deadCollections.clear();
        int overwritten = done ? oldBlobs.size() : applied;
        for (int w = 0; w < overwritten; w++) {
            if (oldBlobs.get(w) != ValueHeader.NO_BLOB) {
                drop.accept(oldBlobs.get(w));
            }
        }
        if (!done) {
            deadBlobs.forEach(drop::accept);
        }
    }

    /**
     * Restores what was recorded, last write first (so a key written twice gets its first value
     * back). Every key's stripe is still held. Deletes no file: the blobs it unnames go to
     * {@link #deadBlobs}, and a long key's file is brought in line by the caller's
     * {@code syncKeyFile} once the batch journal is ended.
     *
     * <p>A removal never needs room; putting back an old value could, but only when it is larger
     * than the one written and the space it freed has been taken meanwhile (by a key of another
     * stripe in the same segment). Then the take-back stops there ({@link #applied} writes stay)
     * and the command is retried after growth, which completes it: MSETNX's retry does not decide
     * again (it would find its own keys). Other clients can see the part applied until then.
     */
    void takeBack(KeyspaceEngine e) {
        int room = e.owner.takeBackRoom;
        for (int k = keys.size() - 1; k >= 0; k--) {
            byte[] key = keys.get(k);
            byte[] old = before.get(k);
            byte[] now = e.map().get(key);
            if (Arrays.equals(now, old)) {
                continue; // unchanged (or already put back by an earlier round)
            }
            if (room-- <= 0) {
                applied = k + 1; // a test's stand-in for running out of room here
                return;
            }
            try {
                if (KeyCodec.isPage(key)) {
                    KeyCollections.restorePage(e, key, old); // a collection's page (an atomic section's)
                } else if (old == null) {
                    if (now != null) {
                        e.map().remove(key);
                        e.touched(key);
                        e.accountRemoval(ValueHeader.expireAt(now), ValueHeader.NO_BLOB, KeyCounts.footprint(key, now));
                    }
                } else {
                    e.put(key, old, now);
                }
            } catch (CapacityExhausted ex) {
                applied = k + 1;
                return;
            }
            long unnamed = KeyspaceEngine.blobLeftBy(now, old);
            if (unnamed != ValueHeader.NO_BLOB) {
                deadBlobs.add(unnamed);
            }
        }
        applied = 0;
    }
}
