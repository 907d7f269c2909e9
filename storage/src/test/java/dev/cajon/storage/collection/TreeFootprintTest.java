package dev.cajon.storage.collection;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Not a check but a measurement, run by hand ({@code -Dcajon.tree.measure=true}): bytes of pages
 * and state per entry, and rough nanoseconds per put and get, for a million entries.
 */
@EnabledIfSystemProperty(named = "cajon.tree.measure", matches = "true")
class TreeFootprintTest {

    @Test
    void measure() {
        for (int round = 0; round < 2; round++) {
            keyed(1_000_000, round == 1);
            positional(1_000_000, round == 1);
        }
    }

    private static void keyed(int n, boolean print) {
        MemoryPageStore store = new MemoryPageStore();
        Random r = new Random(11);
        byte[][] keys = new byte[n][];
        for (int i = 0; i < n; i++) {
            keys[i] = new byte[10];
            r.nextBytes(keys[i]);
        }
        byte[] state = null;
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            // a fresh tree per write, as each CollectionAccess body opens one
            CountedTree t = new CountedTree(state, store, false);
            t.put(keys[i], keys[(i + 1) % n]);
            state = t.state();
        }
        long t1 = System.nanoTime();
        long touches = store.touches();
        long written = store.bytesWritten;
        for (int i = 0; i < n; i++) {
            new CountedTree(state, store, false).get(keys[(int) ((i * 7919L) % n)]);
        }
        long t2 = System.nanoTime();
        CountedTree one = new CountedTree(state, store, false);
        for (int i = 0; i < n; i++) {
            one.get(keys[(int) ((i * 7919L) % n)]);
        }
        long t3 = System.nanoTime();
        if (print) {
            System.out.printf("keyed %d: pages %d, %.1f bytes/entry (pages %d + state %d), height %d,"
                    + " put %d ns (fresh tree each), get %d ns (fresh), %d ns (one tree),"
                    + " %.2f page writes/put, %.0f bytes written/put%n",
                    n, store.count(), (store.totalBytes() + state.length) / (double) n, store.totalBytes(),
                    state.length, one.height(), (t1 - t0) / n, (t2 - t1) / n, (t3 - t2) / n,
                    touches / (double) n, written / (double) n);
        }
    }

    private static void positional(int n, boolean print) {
        MemoryPageStore store = new MemoryPageStore();
        Random r = new Random(12);
        byte[] state = null;
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            CountedTree t = new CountedTree(state, store, true);
            byte[] v = new byte[10];
            r.nextBytes(v);
            t.insertAt(i % 2 == 0 ? t.size() : 0, v); // RPUSH / LPUSH
            state = t.state();
        }
        long t1 = System.nanoTime();
        long touches = store.touches();
        for (int i = 0; i < n; i++) {
            new CountedTree(state, store, true).at((i * 7919L) % n);
        }
        long t2 = System.nanoTime();
        if (print) {
            System.out.printf("positional %d: pages %d, %.1f bytes/entry, push %d ns, index %d ns (fresh),"
                    + " %.2f page writes/push%n",
                    n, store.count(), (store.totalBytes() + state.length) / (double) n,
                    (t1 - t0) / n, (t2 - t1) / n, touches / (double) n);
        }
    }
}
