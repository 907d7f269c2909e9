package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.ValueHeader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MSET and MSETNX that run out of room part way through a fresh map: the map grows and the
 * command is retried, and neither its own retry nor any other client ever sees part of it. The
 * commands carry more keys than the first generation can hold even with Chronicle's bloat, so it
 * fills up in the middle of the command; each test checks that it did.
 */
class MultiKeyGrowthTest {
    /** Four times the first generation's entries: more than Chronicle's bloat lets it hold. */
    private static final int PAIRS = 150_000;
    private static final int BIG = 40;

    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(T0);

    private static byte[] key(int i) {
        return b(String.format("k:%05d", i));
    }

    private static byte[] big(int i, int len) {
        byte[] v = TestData.pattern(len, i);
        v[0] = (byte) i;
        v[1] = (byte) (i >>> 8);
        return v;
    }

    private static byte[][] pairs(int n, int len) {
        byte[][] kv = new byte[2 * n][];
        for (int i = 0; i < n; i++) {
            kv[2 * i] = key(i);
            kv[2 * i + 1] = big(i, len);
        }
        return kv;
    }

    /** Counts the retries and checks, at each, that the keyspace shows none of the command. */
    private static final class Observer implements Runnable {
        final Keyspace ks;
        final byte[][] expected; // per key: the value before the command, or null (absent)
        int retries;
        final List<String> seen = new ArrayList<>();

        Observer(Keyspace ks, byte[][] expected) {
            this.ks = ks;
            this.expected = expected;
        }

        @Override
        public void run() {
            retries++;
            for (int i = 0; i < expected.length; i++) {
                StringValue v = ks.get(key(i));
                byte[] got = v == null ? null : v.toBytes();
                boolean differs = expected[i] == null ? got != null : got == null || !Arrays.equals(expected[i], got);
                if (differs && seen.size() < 5) { // the first few are enough to read
                    seen.add("key " + i + " at retry " + retries + ": "
                            + (got == null ? "absent" : got.length + " bytes"));
                }
            }
        }
    }

    @Test
    void msetnxThatOutgrowsTheMapSetsEveryKeyAndSaysSo() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            Observer o = new Observer(ks, new byte[PAIRS][]);
            ks.beforeRetry = o;
            assertTrue(ks.msetnx(pairs(PAIRS, BIG)), "no key existed, so MSETNX must set them all and say 1");
            assertTrue(o.retries > 0, "the command never ran out of room: the test proves nothing");
            assertEquals(List.of(), o.seen, "between attempts the keyspace showed part of the command");
            assertEquals(PAIRS, ks.size());
            for (int i = 0; i < PAIRS; i++) {
                StringValue v = ks.get(key(i));
                assertNotNull(v, "key " + i);
                assertArrayEquals(big(i, BIG), v.toBytes(), "key " + i);
            }
            assertFalse(ks.msetnx(new byte[][] {key(0), b("x"), b("fresh"), b("y")}), "a key exists now");
            assertNull(ks.get(b("fresh")));
        }
    }

    @Test
    void msetOverExistingAndNewKeysIsNeverSeenHalfDone() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            // a few keys exist (more would grow the map before the command); the rest are new
            byte[][] before = new byte[PAIRS][];
            for (int i = 0; i < 3_000; i++) {
                before[i] = b("old-" + i);
                // some of the old values carry a TTL, which they must keep if the command is taken back
                long at = i % 3 == 0 ? T0 + 60_000 + i : ValueHeader.NO_EXPIRY;
                ks.set(key(i), before[i], SetCondition.ALWAYS, at, false);
            }
            Observer o = new Observer(ks, before);
            ks.beforeRetry = o;
            ks.mset(pairs(PAIRS, BIG));
            assertTrue(o.retries > 0, "the command never ran out of room: the test proves nothing");
            assertEquals(List.of(), o.seen, "between attempts the keyspace showed part of the command");
            assertEquals(PAIRS, ks.size());
            assertEquals(0, ks.volatileSize(), "MSET clears every TTL");
            for (int i = 0; i < PAIRS; i++) {
                assertArrayEquals(big(i, BIG), ks.get(key(i)).toBytes(), "key " + i);
            }
        }
    }

    @Test
    void msetOfLargeValuesLeavesOneBlobFilePerKey() {
        int n = PAIRS;
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            // every 300th key starts as a blob of its own, which the command replaces
            for (int i = 0; i < n; i += 300) {
                ks.set(key(i), big(i + 1000, Keyspace.BLOB_THRESHOLD + 1), SetCondition.ALWAYS,
                        ValueHeader.NO_EXPIRY, false);
            }
            int[] retries = {0};
            ks.beforeRetry = () -> retries[0]++;
            byte[][] kv = new byte[2 * n][];
            for (int i = 0; i < n; i++) {
                kv[2 * i] = key(i);
                // one value in 200 is large enough for a blob file
                kv[2 * i + 1] = big(i, i % 200 == 0 ? Keyspace.BLOB_THRESHOLD + 100 : BIG);
            }
            ks.mset(kv);
            assertTrue(retries[0] > 0, "the command never ran out of room: the test proves nothing");
            for (int i = 0; i < n; i++) {
                assertArrayEquals(kv[2 * i + 1], ks.get(key(i)).toBytes(), "key " + i);
            }
            assertEquals(n / 200, TestData.list(TestData.blobDir(store, 0)).size(),
                    "one blob file per large value: none left from the taken-back attempt, none of the old ones");
        }
    }

    /**
     * The rare case: putting an old value back runs out of room too, so the take-back stops with
     * part of the command applied. The retry after growth then completes the command: MSETNX
     * answers 1 (it decided when every key was absent) instead of finding its own keys.
     */
    @Test
    void aTakeBackThatStopsPartWayIsCompletedByTheRetry() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            int[] retries = {0};
            long[] seenAtRetry = {-1};
            ks.beforeRetry = () -> {
                if (retries[0]++ == 0) {
                    seenAtRetry[0] = ks.size();
                }
            };
            ks.takeBackRoom = 1_000;
            assertTrue(ks.msetnx(pairs(PAIRS, BIG)), "the command had decided: it completes and says 1");
            assertTrue(retries[0] > 0, "the command never ran out of room: the test proves nothing");
            assertTrue(seenAtRetry[0] > 0 && seenAtRetry[0] < PAIRS,
                    "the take-back stopped part way: " + seenAtRetry[0] + " keys at the retry");
            assertEquals(PAIRS, ks.size());
            for (int i = 0; i < PAIRS; i += 997) {
                assertArrayEquals(big(i, BIG), ks.get(key(i)).toBytes(), "key " + i);
            }
        }
    }
}
