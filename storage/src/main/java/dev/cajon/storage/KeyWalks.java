package dev.cajon.storage;

import dev.cajon.storage.chronicle.ValueHeader;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import net.openhft.chronicle.map.ChronicleMap;

/**
 * Whole-map walks: SCAN, KEYS and RANDOMKEY. Each holds txGate exclusively (never part of a
 * transaction, see {@link Sections}) and the map lock shared (growth and FLUSHDB take it
 * exclusively), and judges liveness from the entry itself, read in place. Collections' page
 * entries ({@link KeyCodec#isPage}) are not keys: every walk skips them.
 */
final class KeyWalks {
    private KeyWalks() {
    }

    private static final int SEGMENT_BITS = 24;

    /** See {@link Keyspace#scan}. */
    static long scan(KeyspaceEngine e, long cursor, int count, Consumer<byte[]> visitor) {
        return scan(e, cursor, count, (byte) 0, visitor);
    }

    /**
     * {@link #scan} visiting only keys of value-header type {@code type} (0: every type), judged
     * in place; the keys of other types still count towards {@code count}, as in Redis.
     */
    static long scan(KeyspaceEngine e, long cursor, int count, byte type, Consumer<byte[]> visitor) {
        HeldViews.release(); // a lock-free walk sees what this thread's commands wrote
        e.txGate.writeLock().lock(); // never part of a transaction (see atomically)
        e.mapLock.readLock().lock();
        try {
            ChronicleMap<byte[], byte[]> m = e.map();
            int segs = m.segments();
            int seg = 0;
            int ep = e.epoch;
            if (cursor != 0) {
                long cEpoch = cursor >>> SEGMENT_BITS;
                seg = (int) (cursor & ((1 << SEGMENT_BITS) - 1));
                if (cEpoch != ep || seg >= segs) {
                    seg = 0;
                }
            }
            long now = e.clock.nowMillis();
            int[] seen = {0};
            while (seg < segs && seen[0] < count) {
                try (var ctx = m.segmentContext(seg)) {
                    ctx.forEachSegmentEntry(en -> {
                        byte[] uk = KeyCodec.isPage(en.key()) || KeyspaceEngine.isExpired(en.value(), now) ? null
                                : e.userKeyOf(en.key().get().clone());
                        if (uk != null) {
                            if (type == 0 || en.value().bytes().readByte(en.value().offset() + 1) == type) {
                                visitor.accept(uk);
                            }
                            seen[0]++;
                        }
                    });
                }
                seg++;
            }
            return seg >= segs ? 0 : ((long) ep << SEGMENT_BITS) | seg;
        } finally {
            e.mapLock.readLock().unlock();
            e.txGate.writeLock().unlock();
        }
    }

    /** See {@link Keyspace#forEachLiveKey}. */
    static void forEachLiveKey(KeyspaceEngine e, Consumer<byte[]> visitor) {
        HeldViews.release(); // a lock-free walk sees what this thread's commands wrote
        e.txGate.writeLock().lock();
        e.mapLock.readLock().lock();
        try {
            long now = e.clock.nowMillis();
            e.map().forEachEntry(en -> {
                byte[] uk = KeyCodec.isPage(en.key()) || KeyspaceEngine.isExpired(en.value(), now) ? null : e.userKeyOf(en.key().get().clone());
                if (uk != null) {
                    visitor.accept(uk);
                }
            });
        } finally {
            e.mapLock.readLock().unlock();
            e.txGate.writeLock().unlock();
        }
    }

    /** See {@link Keyspace#randomKey}. */
    static byte[] randomKey(KeyspaceEngine e) {
        HeldViews.release(); // a lock-free walk sees what this thread's commands wrote
        e.txGate.writeLock().lock();
        e.mapLock.readLock().lock();
        try {
            byte[] k = randomKeyLocked(e);
            return k == null ? null : e.userKeyOf(k);
        } finally {
            e.mapLock.readLock().unlock();
            e.txGate.writeLock().unlock();
        }
    }

    private static byte[] randomKeyLocked(KeyspaceEngine e) {
        ChronicleMap<byte[], byte[]> m = e.map();
        int segs = m.segments();
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 4 * segs + 16 && e.counts.keys.sum() > 0; attempt++) {
            // liveness is judged from the entry itself: calling a locked operation here could
            // start a growth, which needs the map lock this walk holds shared
            byte[] k = randomKeyIn(m, rnd.nextInt(segs), rnd, e.clock.nowMillis());
            if (k != null) {
                return k;
            }
        }
        // sparse keyspace: walk everything once
        byte[][] found = new byte[1][];
        m.forEachEntryWhile(en -> {
            if (KeyCodec.isPage(en.key())) {
                return true;
            }
            byte[] v = en.value().get();
            if (!ValueHeader.isExpired(v, e.clock.nowMillis())) {
                found[0] = en.key().get().clone();
                return false;
            }
            return true;
        });
        return found[0];
    }

    private static byte[] randomKeyIn(ChronicleMap<byte[], byte[]> m, int seg, ThreadLocalRandom rnd, long now) {
        try (var ctx = m.segmentContext(seg)) {
            long n = ctx.size();
            if (n == 0) {
                return null;
            }
            long[] skip = {rnd.nextLong(n)};
            byte[][] out = new byte[1][];
            ctx.forEachSegmentEntryWhile(en -> {
                if (skip[0] > 0) {
                    skip[0]--;
                    return true;
                }
                // from the chosen entry on, the first that is a key: where collections' pages
                // outnumber the keys, a pick that lands on a page must not send every call to
                // the walk of the whole map
                if (!KeyCodec.isPage(en.key())) {
                    if (!KeyspaceEngine.isExpired(en.value(), now)) {
                        out[0] = en.key().get().clone();
                    }
                    return false;
                }
                return true;
            });
            return out[0];
        }
    }
}
