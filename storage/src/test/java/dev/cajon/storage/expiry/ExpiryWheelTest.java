package dev.cajon.storage.expiry;

import static dev.cajon.storage.expiry.ExpiryFixture.DAY;
import static dev.cajon.storage.expiry.ExpiryFixture.NO_EXPIRY;
import static dev.cajon.storage.expiry.ExpiryFixture.SECOND;
import static dev.cajon.storage.expiry.ExpiryFixture.T0;
import static dev.cajon.storage.expiry.ExpiryFixture.b;
import static dev.cajon.storage.expiry.ExpiryFixture.liveKeys;
import static dev.cajon.storage.expiry.ExpiryFixture.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.ExpireCondition;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.SetCondition;
import dev.cajon.storage.Store;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Active expiry: the wheel reclaims every key exactly when its deadline has passed, never before,
 * whether or not anybody reads it. As in Redis (keyIsExpired is {@code now > when}), a key lives
 * through its deadline millisecond: with the clock at the deadline it is still there, and
 * {@code advance()} with the clock at deadline + 1 ms reclaims it, with no lag. Liveness is observed through {@link Keyspace#size()} and
 * {@link Keyspace#expiredCount()}, which (unlike a read) never reclaim anything themselves.
 *
 * <p>Unless a test is about slot boundaries, it starts at {@code T0 + 7} so that its deadlines
 * do not fall on a multiple of 256 ms (see {@link #reclaimsExactlyOneMillisecondPastTheDeadline}).
 */
class ExpiryWheelTest {
    private static final long START = T0 + 7;

    @TempDir
    Path dir;
    ExpiryFixture f;
    Keyspace ks;

    private void open(long start) {
        f = new ExpiryFixture(dir, start);
        ks = f.ks;
    }

    @AfterEach
    void close() {
        if (f != null) {
            f.close();
        }
    }

    private void setAt(String k, long at) {
        ExpiryFixture.setAt(ks, k, "v", at);
    }

    private int advanceTo(long t) {
        return f.advanceTo(t);
    }

    // ------------------------------------------------------------------ on time, at every level

    /** One deadline per level of the wheel, with its neighbours and the spans' edges. */
    static final long[] LADDER = {
        1, 2, 255, 256, 257, 768, 1000, // level 0 and the first level-1 slots
        16_383, 16_384, 16_385, 65_536, 65_539, // 16.4 s: level 1 / level 2
        1_048_576, 3_600_000, 4_194_304, // 17.5 min: level 2 / level 3
        67_108_864, 172_800_000, 268_435_456, // 18.6 h: level 3 / level 4
        49 * DAY, 1L << 32, 100 * DAY, // 49.7 days: level 4 / level 5
        10 * 365 * DAY, 20 * 365 * DAY, // past the wheel's 8.7-year span: parked, re-filed
    };

    /**
     * Starts: T0 (a multiple of 2^11, so T0 + 256·n starts a level-1 slot, as a real clock does
     * once every 256 ms), and two unaligned ones.
     */
    static Stream<Arguments> ladder() {
        List<Arguments> out = new ArrayList<>();
        for (long start : new long[] {0, 1, 137}) {
            for (long ttl : LADDER) {
                out.add(Arguments.of(start, ttl));
            }
        }
        return out.stream();
    }

    /**
     * The clock jumps (in one step) to the deadline itself: the key is still there (it lives
     * through its deadline millisecond); then to 1 ms past it: {@code advance()} reclaims it
     * although nobody reads it.
     */
    @ParameterizedTest(name = "start T0+{0}, ttl {1} ms")
    @MethodSource("ladder")
    void reclaimsExactlyOneMillisecondPastTheDeadline(long startOffset, long ttl) {
        open(T0 + startOffset);
        long at = f.now() + ttl;
        setAt("k", at);
        setAt("plain", NO_EXPIRY);
        assertEquals(1, f.wheel.scheduled());

        assertEquals(0, advanceTo(at), "nothing is due at the deadline itself");
        assertEquals(2, ks.size(), "not at its deadline");
        assertEquals(0, ks.expiredCount());
        assertEquals(1, ks.volatileSize());
        assertEquals("v", str(ks.get(b("k"))), "still readable at the deadline");
        assertEquals(2, ks.size(), "the read at the deadline reclaimed nothing");

        assertEquals(1, advanceTo(at + 1), "reclaimed by advance() 1 ms past its deadline (deadline " + at
                + " = " + (at % 256) + " mod 256)");
        assertEquals(1, ks.size(), "DBSIZE drops 1 ms past the deadline");
        assertEquals(1, ks.expiredCount());
        assertEquals(0, ks.volatileSize());
        assertEquals(0, f.wheel.scheduled());
        assertEquals(1, f.wheel.reclaimedCount());
        assertEquals(0, f.wheel.maxLagMillis(), "no lag");
        assertNull(ks.get(b("k")));
        assertEquals(1, ks.expiredCount(), "the read found nothing more to reclaim");
    }

    /** Every ladder deadline in one keyspace at once, visited in order. */
    @Test
    void allLevelsAtOnce() {
        open(START);
        TreeMap<Long, String> byDeadline = new TreeMap<>();
        for (long ttl : LADDER) {
            byDeadline.put(START + ttl, "k" + ttl);
            setAt("k" + ttl, START + ttl);
        }
        setAt("plain", NO_EXPIRY);
        int live = LADDER.length + 1;
        for (var e : byDeadline.entrySet()) {
            assertEquals(0, advanceTo(e.getKey()), e.getValue() + " at its deadline");
            assertEquals(live, ks.size(), e.getValue() + " at its deadline");
            assertEquals(1, advanceTo(e.getKey() + 1), e.getValue() + " 1 ms past its deadline");
            live--;
            assertEquals(live, ks.size(), e.getValue());
            assertFalse(liveKeys(ks).contains(e.getValue()));
        }
        assertEquals(Set.of("plain"), liveKeys(ks));
        assertEquals(0, f.wheel.scheduled());
        assertEquals(0, f.wheel.bytes());
    }

    /**
     * Twenty thousand keys with the very same deadline, 20 minutes out (level 3): one slot,
     * cascaded down level by level, and all fired in the one millisecond, more than the
     * advance() loop collects per batch.
     */
    @Test
    void manyKeysWithOneDeadline() {
        open(START);
        long at = START + 20 * 60 * SECOND + 3;
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            setAt("k" + i, at);
        }
        assertEquals(n, f.wheel.scheduled());
        assertEquals(0, advanceTo(at));
        assertEquals(n, ks.size());
        assertEquals(n, f.wheel.scheduled(), "cascaded, none lost");
        assertEquals(n, advanceTo(at + 1));
        assertEquals(0, ks.size());
        assertEquals(n, ks.expiredCount());
        assertEquals(0, f.wheel.scheduled());
        assertEquals(0, f.wheel.bytes());
    }

    // ------------------------------------------------------------------ big jumps

    /** Three days in one advance(): everything due goes, nothing else, and it is quick. */
    @Test
    void oneBigJumpReclaimsEverythingDue() {
        open(START);
        Random rnd = new Random(11);
        int n = 10_000;
        long[] at = new long[n];
        Set<String> survivors = new HashSet<>();
        for (int i = 0; i < n; i++) {
            at[i] = START + 1 + (long) (rnd.nextDouble() * 6 * DAY);
            setAt("k" + i, at[i]);
            if (at[i] >= START + 3 * DAY) { // alive through its deadline
                survivors.add("k" + i);
            }
        }
        f.clock.set(START + 3 * DAY);
        long t = System.nanoTime();
        int reclaimed = f.wheel.advance();
        long ms = (System.nanoTime() - t) / 1_000_000;
        System.out.printf("ExpiryWheelTest: one 3-day advance() reclaiming %d of %d keys took %d ms%n",
                reclaimed, n, ms);
        assertEquals(n - survivors.size(), reclaimed);
        assertEquals(survivors.size(), ks.size());
        assertEquals(survivors, liveKeys(ks));
        assertEquals(survivors.size(), f.wheel.scheduled());
        assertTrue(ms < 2_000, "3 days in " + ms + " ms: the wheel must not step every millisecond");
    }

    /**
     * A thousand 3-day jumps (8.2 years) over keys spread across 20 years. Stepping each
     * millisecond would be 2.6e8 steps per jump; skipping empty slots makes a jump a few hundred
     * steps at most. After each jump exactly the keys due are gone.
     */
    @Test
    void aThousandBigJumpsAreCheap() {
        open(START);
        Random rnd = new Random(5);
        int n = 2_000;
        long[] at = new long[n];
        for (int i = 0; i < n; i++) {
            at[i] = START + 1 + (long) (rnd.nextDouble() * (i % 2 == 0 ? 9 * 365 * DAY : 20 * 365 * DAY));
            setAt("k" + i, at[i]);
        }
        setAt("plain", NO_EXPIRY);
        long[] sorted = at.clone();
        Arrays.sort(sorted);
        long spent = 0;
        int total = 0;
        for (int j = 1; j <= 1000; j++) {
            long now = START + j * 3 * DAY;
            f.clock.set(now);
            long t = System.nanoTime();
            total += f.wheel.advance();
            spent += System.nanoTime() - t;
            int due = countBefore(sorted, now);
            assertEquals(due, total, "reclaimed by jump " + j);
            assertEquals(n - due + 1, ks.size(), "after jump " + j);
        }
        System.out.printf("ExpiryWheelTest: 1000 advance() calls of 3 days each (reclaiming %d keys) took %d ms%n",
                total, spent / 1_000_000);
        assertTrue(spent < 2_000_000_000L, "1000 jumps took " + spent / 1_000_000 + " ms");
    }

    /** How many deadlines are past at {@code x} (strictly before it). */
    private static int countBefore(long[] sorted, long x) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] < x) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    // ------------------------------------------------------------------ renewal

    /** SET EX 10, then SET EX 20 at 5 s: alive at 10 s with one record, gone at 25 s. */
    @Test
    void reSetWithALongerTtlRenewsWithOneRecord() {
        open(START);
        ks.set(b("k"), b("v1"), SetCondition.ALWAYS, START + 10 * SECOND, false);
        advanceTo(START + 5 * SECOND);
        ks.set(b("k"), b("v2"), SetCondition.ALWAYS, f.now() + 20 * SECOND, false);
        assertEquals(1, f.wheel.scheduled(), "a later deadline files nothing new");

        assertEquals(0, advanceTo(START + 10 * SECOND + 1));
        assertEquals("v2", str(ks.get(b("k"))));
        assertEquals(1, ks.size());
        assertEquals(1, f.wheel.scheduled(), "the fired record was re-filed at the new deadline");
        assertEquals(START + 25 * SECOND, ks.deadline(b("k")));

        assertEquals(0, advanceTo(START + 25 * SECOND));
        assertEquals(1, ks.size());
        assertEquals(1, advanceTo(START + 25 * SECOND + 1));
        assertEquals(0, ks.size());
        assertEquals(0, f.wheel.scheduled());
        assertEquals(1, ks.expiredCount());
    }

    /** A session renewed 10,000 times (EXPIRE, SET EX, GETEX in turn) never has a second record. */
    @Test
    void aSlidingSessionKeepsOneRecord() {
        open(START);
        byte[] k = b("session:42");
        ks.set(k, b("s"), SetCondition.ALWAYS, START + 10 * SECOND, false);
        for (int i = 0; i < 10_000; i++) {
            f.clock.advance(100 + i % 7);
            long at = f.now() + 10 * SECOND;
            switch (i % 3) {
                case 0 -> assertTrue(ks.expireAt(k, at, ExpireCondition.NONE));
                case 1 -> ks.set(k, b("s"), SetCondition.ALWAYS, at, false);
                default -> assertEquals("s", str(ks.getEx(k, at)));
            }
            assertEquals(0, f.wheel.advance());
            assertEquals(1, f.wheel.scheduled(), "after renewal " + i);
        }
        long last = ks.deadline(k);
        assertEquals(0, advanceTo(last));
        assertEquals(1, ks.size());
        assertEquals(1, advanceTo(last + 1));
        assertEquals(0, ks.size());
        assertEquals(0, f.wheel.scheduled());
        assertTrue(f.wheel.bytes() < 1024, "slot arrays released: " + f.wheel.bytes());
    }

    /** The original seed test: fifty renewals before the first deadline. */
    @Test
    void aRenewedKeyLivesToItsNewDeadlineWithOneRecord() {
        open(START);
        setAt("k", START + 1000);
        for (int i = 1; i <= 50; i++) {
            ks.expireAt(b("k"), START + 1000 + i * 100L, ExpireCondition.NONE);
        }
        assertEquals(1, f.wheel.scheduled(), "a sliding deadline keeps one record");
        assertEquals(0, advanceTo(START + 1001), "the first record fires and is re-filed");
        assertEquals(1, ks.size());
        assertEquals(1, f.wheel.scheduled());
        assertEquals(0, advanceTo(START + 6000));
        assertEquals(1, ks.size());
        assertEquals(1, advanceTo(START + 6001));
        assertEquals(0, ks.size());
    }

    /** EXPIRE to an earlier time reclaims at the earlier time; the stale record does nothing. */
    @Test
    void aShortenedDeadlineIsHonoured() {
        open(START);
        setAt("k", START + 100 * SECOND);
        advanceTo(START + SECOND);
        assertTrue(ks.expireAt(b("k"), START + 6 * SECOND, ExpireCondition.NONE));
        assertEquals(0, advanceTo(START + 6 * SECOND));
        assertEquals(1, ks.size());
        assertEquals(1, advanceTo(START + 6 * SECOND + 1));
        assertEquals(0, ks.size());
        assertEquals(0, advanceTo(START + 100 * SECOND + 1), "the stale record finds nothing to do");
        assertEquals(0, f.wheel.scheduled());
        assertEquals(1, ks.expiredCount());
    }

    /** EXPIRE ... LT, as in the seed test. */
    @Test
    void aShortenedDeadlineWithLtIsHonoured() {
        open(START);
        setAt("k", START + 100_000);
        assertTrue(ks.expireAt(b("k"), START + 50, ExpireCondition.LT));
        assertEquals(0, advanceTo(START + 50));
        assertEquals(1, advanceTo(START + 51));
        assertEquals(0, ks.size());
        assertEquals(0, advanceTo(START + 100_001));
        assertEquals(0, f.wheel.scheduled());
    }

    /**
     * A session whose TTL is set alternately to 30 s and 60 s (say, a short idle TTL and a long
     * one after activity), renewed every 100 ms for ten minutes. It is one key with one
     * deadline, so the wheel should hold one record (two at most while a shortened one is
     * pending), not one more for every shortening.
     *
     * <p>That bound of two holds when each record fires on a renewal that sets the short TTL, so
     * that it is re-filed at the earliest deadline the key will get. The deadlines here are
     * {@code now + ttl - 1} (the key is gone from {@code now + ttl} on, since it lives through
     * its deadline millisecond): a record filed at {@code now + 30 s - 1} fires with the clock at
     * {@code now + 30 s}, on a short renewal. This is the very scenario this test ran before
     * keys lived through their deadline millisecond; see the next test for the other phase.
     */
    @Test
    void shorteningAndExtendingInTurnDoesNotPileUpRecords() {
        long[] r = alternateShortAndLongTtls(-1);
        assertTrue(r[0] <= 2, "one key with one deadline holds " + r[0] + " wheel records after "
                + "3000 shortenings (max seen " + r[1] + ")");
    }

    /**
     * The same with deadlines {@code now + ttl}: each record now fires 1 ms after a short renewal,
     * on the next, long one, and is re-filed 60 s out, so the next short renewal files a record
     * again. One valid record plus the stale ones not yet due (each lives 60 s, one is made every
     * 30 s): three at most, however long it runs. (The same phase gave three before keys lived
     * through their deadline millisecond too, e.g. with a short TTL of 30.001 s.)
     */
    @Test
    void shorteningAndExtendingInTurnOutOfPhaseStaysBounded() {
        long[] r = alternateShortAndLongTtls(0);
        assertTrue(r[1] <= 3, "one key with one deadline held up to " + r[1] + " wheel records over "
                + "3000 shortenings");
        assertTrue(r[0] <= 3, r[0] + " records at the end");
    }

    /** Returns {records at the end, most records seen}. */
    private long[] alternateShortAndLongTtls(long deadlineOffset) {
        open(START);
        byte[] k = b("session:7");
        ks.set(k, b("s"), SetCondition.ALWAYS, START + 60 * SECOND, false);
        long maxScheduled = 0;
        for (int i = 0; i < 6_000; i++) {
            f.clock.advance(100);
            long ttl = i % 2 == 0 ? 30 * SECOND : 60 * SECOND;
            assertTrue(ks.expireAt(k, f.now() + ttl + deadlineOffset, ExpireCondition.NONE));
            assertEquals(0, f.wheel.advance());
            maxScheduled = Math.max(maxScheduled, f.wheel.scheduled());
        }
        assertEquals(1, ks.size());
        long scheduled = f.wheel.scheduled();
        System.out.printf("ExpiryWheelTest: alternating 30 s / 60 s TTLs (deadline now + ttl %+d) 6000 times: "
                + "%d records for one key (max %d), %d bytes%n", deadlineOffset, scheduled, maxScheduled,
                f.wheel.bytes());
        return new long[] {scheduled, maxScheduled};
    }

    // ------------------------------------------------------------------ cancellation

    /** PERSIST cancels: the key outlives its old deadline forever; the record goes when it fires. */
    @Test
    void persistCancels() {
        open(START);
        setAt("k", START + 10 * SECOND);
        setAt("g", START + 10 * SECOND);
        assertTrue(ks.persist(b("k")));
        assertEquals("v", str(ks.getEx(b("g"), NO_EXPIRY)), "GETEX PERSIST");
        assertEquals(0, ks.volatileSize());
        assertEquals(0, advanceTo(START + 10 * SECOND + 1));
        assertEquals(0, f.wheel.scheduled(), "the stale records were dropped when they fired");
        assertEquals(0, advanceTo(START + 3650 * DAY));
        assertEquals(2, ks.size());
        assertEquals(Keyspace.NO_TTL, ks.deadline(b("k")));
        assertEquals(Keyspace.NO_TTL, ks.deadline(b("g")));
        assertEquals(0, ks.expiredCount());
    }

    /** DEL then re-create without a TTL: the old record must not reclaim the new key. */
    @Test
    void deletedAndRecreatedWithoutTtlIsNotReclaimed() {
        open(START);
        setAt("k", START + 10 * SECOND);
        assertTrue(ks.del(b("k")));
        ExpiryFixture.setAt(ks, "k", "new", NO_EXPIRY);
        assertEquals(0, advanceTo(START + 10 * SECOND + 1));
        assertEquals("new", str(ks.get(b("k"))));
        assertEquals(1, ks.size());
        assertEquals(0, f.wheel.scheduled());
        assertEquals(0, ks.expiredCount());
    }

    /** DEL then re-create with a later TTL: reclaimed at the new deadline, not at the old one. */
    @Test
    void deletedAndRecreatedWithALaterTtlGoesAtTheNewDeadline() {
        open(START);
        setAt("k", START + 10 * SECOND);
        assertTrue(ks.del(b("k")));
        setAt("k", START + 30 * SECOND);
        assertEquals(0, advanceTo(START + 10 * SECOND + 1));
        assertEquals(1, ks.size());
        assertEquals(0, advanceTo(START + 30 * SECOND));
        assertEquals(1, ks.size());
        assertEquals(1, advanceTo(START + 30 * SECOND + 1));
        assertEquals(0, ks.size());
        assertEquals(0, f.wheel.scheduled());
    }

    /** The seed test: persisted, deleted and replaced keys are all left alone. */
    @Test
    void persistedDeletedAndReplacedKeysAreLeftAlone() {
        open(START);
        setAt("persisted", START + 10);
        setAt("deleted", START + 10);
        setAt("replaced", START + 10);
        ks.persist(b("persisted"));
        ks.del(b("deleted"));
        ks.set(b("replaced"), b("w"), SetCondition.ALWAYS, NO_EXPIRY, false);
        setAt("deleted", NO_EXPIRY);
        assertEquals(0, advanceTo(START + 1000));
        assertEquals(3, ks.size());
        assertEquals(0, f.wheel.scheduled(), "stale records are dropped when they fire");
    }

    /** Writes that keep the TTL (INCR, APPEND, SETRANGE, SET KEEPTTL) file nothing new. */
    @Test
    void writesThatKeepTheTtlKeepTheDeadline() {
        open(START);
        long at = START + 5 * SECOND;
        ExpiryFixture.setAt(ks, "n", "1", at);
        setAt("a", at);
        setAt("r", at);
        setAt("kt", at);
        ks.incrBy(b("n"), 5);
        ks.append(b("a"), b("xyz"));
        ks.setRange(b("r"), 3, b("!"));
        ks.set(b("kt"), b("w"), SetCondition.ALWAYS, Keyspace.KEEP_TTL, false);
        assertEquals(4, f.wheel.scheduled());
        for (String k : List.of("n", "a", "r", "kt")) {
            assertEquals(at, ks.deadline(b(k)), k);
        }
        assertEquals(0, advanceTo(at));
        assertEquals(4, ks.size());
        assertEquals(4, advanceTo(at + 1));
        assertEquals(0, ks.size());
        assertEquals(0, f.wheel.scheduled());
    }

    /** FLUSHDB with records pending: they fire harmlessly; re-created keys follow their own TTL. */
    @Test
    void flushdbWithPendingRecords() {
        open(START);
        for (int i = 0; i < 1000; i++) {
            setAt("k" + i, START + SECOND + i);
        }
        ks.flush();
        assertEquals(0, ks.size());
        assertEquals(0, ks.volatileSize());
        setAt("k1", NO_EXPIRY); // same name, no TTL
        setAt("k2", START + 60 * SECOND); // same name, later TTL
        setAt("k3", START + SECOND + 3); // same name, same deadline
        setAt("other", START + SECOND + 500);
        assertEquals(0, advanceTo(START + SECOND + 3));
        assertEquals(4, ks.size());
        assertEquals(1, advanceTo(START + SECOND + 4), "k3");
        assertEquals(1, advanceTo(START + SECOND + 501), "other");
        assertEquals(0, advanceTo(START + 60 * SECOND));
        assertEquals(Set.of("k1", "k2"), liveKeys(ks));
        assertEquals(1, advanceTo(START + 60 * SECOND + 1), "k2");
        assertEquals(Set.of("k1"), liveKeys(ks));
        assertEquals(1, ks.size());
        assertEquals(3, ks.expiredCount());
        assertEquals(0, f.wheel.scheduled());
        assertEquals(0, f.wheel.bytes());
    }

    // ------------------------------------------------------------------ several keyspaces

    /** Two dbs (and another app) share one wheel; same key names, different deadlines. */
    @Test
    void keyspacesShareOneWheel() {
        open(START);
        Keyspace db1 = f.db(1);
        Keyspace app2 = f.store.keyspace("other", 0);
        setAt("k", START + 10 * SECOND);
        ExpiryFixture.setAt(db1, "k", "v", START + 20 * SECOND);
        ExpiryFixture.setAt(app2, "k", "v", START + 15 * SECOND);
        ExpiryFixture.setAt(db1, "plain", "v", NO_EXPIRY);
        assertEquals(3, f.wheel.scheduled());

        assertEquals(1, advanceTo(START + 10 * SECOND + 1));
        assertEquals(0, ks.size());
        assertEquals(2, db1.size());
        assertEquals(1, app2.size());
        assertEquals(1, advanceTo(START + 15 * SECOND + 1));
        assertEquals(0, app2.size());
        assertEquals(2, db1.size());
        assertEquals(0, advanceTo(START + 20 * SECOND));
        assertEquals(1, advanceTo(START + 20 * SECOND + 1));
        assertEquals(Set.of("plain"), liveKeys(db1));
        assertEquals(1, ks.expiredCount());
        assertEquals(1, db1.expiredCount());
        assertEquals(1, app2.expiredCount());
    }

    /** The seed test: TTLs travel with RENAME and COPY (also into another db). */
    @Test
    void keysAreReclaimedAcrossKeyspacesAndRenames() {
        open(START);
        Keyspace db1 = f.db(1);
        setAt("a", START + 10);
        db1.set(b("a"), b("v"), SetCondition.ALWAYS, START + 20, false);
        setAt("src", START + 30);
        ks.rename(b("src"), b("dst"), false);
        ks.copy(b("dst"), db1, b("copy"), false);
        assertEquals(1, advanceTo(START + 11));
        assertEquals(1, advanceTo(START + 21));
        assertEquals(0, advanceTo(START + 30), "dst and its copy live through their deadline");
        assertEquals(2, advanceTo(START + 31), "dst and its copy");
        assertEquals(0, ks.size());
        assertEquals(0, db1.size());
    }

    /** RENAME onto a key with an earlier or a later deadline: the moved deadline wins. */
    @Test
    void renameOntoAKeyWithAnotherDeadline() {
        open(START);
        setAt("src1", START + 10 * SECOND);
        setAt("dst1", START + 5 * SECOND); // earlier than the moved deadline
        setAt("src2", START + 10 * SECOND);
        setAt("dst2", START + 50 * SECOND); // later than the moved deadline
        assertEquals(dev.cajon.storage.OpStatus.OK, ks.rename(b("src1"), b("dst1"), false));
        assertEquals(dev.cajon.storage.OpStatus.OK, ks.rename(b("src2"), b("dst2"), false));
        assertEquals(0, advanceTo(START + 10 * SECOND));
        assertEquals(Set.of("dst1", "dst2"), liveKeys(ks));
        assertEquals(2, ks.size());
        assertEquals(2, advanceTo(START + 10 * SECOND + 1));
        assertEquals(0, ks.size());
        assertEquals(0, advanceTo(START + 50 * SECOND + 1));
        assertEquals(0, f.wheel.scheduled());
    }

    // ------------------------------------------------------------------ counters

    /** INFO's expires and avg_ttl follow reclamation. */
    @Test
    void volatileCountAndAverageTtlFollowReclamation() {
        open(START);
        setAt("a", START + 10 * SECOND);
        setAt("b", START + 30 * SECOND);
        setAt("plain", NO_EXPIRY);
        assertEquals(2, ks.volatileSize());
        assertEquals(20 * SECOND, ks.averageTtl());
        advanceTo(START + 10 * SECOND);
        assertEquals(2, ks.volatileSize(), "a at its deadline still counts");
        assertEquals(10 * SECOND, ks.averageTtl(), "(0 + 20 s) / 2");
        advanceTo(START + 10 * SECOND + 1);
        assertEquals(1, ks.volatileSize());
        assertEquals(20 * SECOND - 1, ks.averageTtl());
        advanceTo(START + 30 * SECOND);
        assertEquals(1, ks.volatileSize());
        advanceTo(START + 30 * SECOND + 1);
        assertEquals(0, ks.volatileSize());
        assertEquals(0, ks.averageTtl());
        assertEquals(2, ks.expiredCount());
    }

    /**
     * Growth drops keys that are already past their deadline (nobody advanced the wheel). The
     * counters behind INFO (size, expires, avg_ttl) must describe the keys that remain.
     */
    @Test
    void averageTtlAfterGrowthDropsExpiredKeys() {
        open(START);
        for (int i = 0; i < 10_000; i++) {
            setAt("short" + i, START + SECOND);
        }
        f.clock.set(START + 2 * SECOND); // past their deadline; the wheel is not advanced
        setAt("long", f.now() + 100 * SECOND);
        int gen = ks.generation();
        for (int i = 0; i < 20_000; i++) {
            setAt("plain" + i, NO_EXPIRY);
        }
        assertTrue(ks.generation() > gen, "the inserts grew the map");
        assertEquals(20_001, ks.size());
        assertEquals(1, ks.volatileSize());
        assertEquals(10_000, ks.expiredCount());
        assertEquals(100 * SECOND, ks.averageTtl(), "avg_ttl of the one volatile key left");
        assertEquals(0, f.wheel.advance(), "the dropped keys' records find nothing");
        assertEquals(1, f.wheel.scheduled());
    }

    // ------------------------------------------------------------------ seed tests kept

    /** Random deadlines and random clock steps: after every step exactly the due keys are gone. */
    @Test
    void manyKeysRandomSteps() {
        open(START);
        Random rnd = new Random(7);
        TreeMap<Long, Integer> due = new TreeMap<>();
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            long ttl = 1 + (i % 3 == 0 ? rnd.nextInt(600_000) : rnd.nextInt(5_000));
            setAt("k" + i, START + ttl);
            due.merge(START + ttl, 1, Integer::sum);
        }
        long now = START;
        long live = n;
        while (live > 0) {
            now += 1 + rnd.nextInt(rnd.nextBoolean() ? 50 : 20_000);
            // past deadlines only: a key lives through its deadline millisecond
            int expected = due.headMap(now, false).values().stream().mapToInt(Integer::intValue).sum();
            due.headMap(now, false).clear();
            assertEquals(expected, advanceTo(now), "at +" + (now - START));
            live -= expected;
            assertEquals(live, ks.size(), "at +" + (now - START));
        }
        assertEquals(0, f.wheel.scheduled());
        assertEquals(0, f.wheel.bytes(), "no slot memory is kept once everything fired");
        assertEquals(n, f.wheel.reclaimedCount());
    }

    @Test
    void recordsOfAClosedKeyspaceAreSkipped() {
        open(START);
        setAt("k", START + 10);
        f.store.close();
        assertEquals(0, advanceTo(START + 11));
        assertEquals(0, f.wheel.scheduled());
        f.store = Store.open(dir, f.clock); // for @AfterEach
    }

    /** The reaper thread drives the wheel by itself (the clock is still manual). */
    @Test
    void theReaperThreadReclaimsWithoutAnyRead() {
        open(START);
        setAt("k", START + 10);
        try (ExpiryReaper reaper = new ExpiryReaper(f.wheel, 1).start()) {
            f.clock.set(START + 11);
            long giveUp = System.nanoTime() + 10_000_000_000L;
            // the key is gone before the wheel counts its chunk as reclaimed: wait for both
            while ((ks.size() > 0 || f.wheel.reclaimedCount() < 1) && System.nanoTime() < giveUp) {
                Thread.onSpinWait();
            }
            assertEquals(0, ks.size());
            assertTrue(f.wheel.reclaimedCount() >= 1);
        }
    }

    /** How far behind the clock the wheel is: what tells a helper reaper to join in. */
    @Test
    void behindMillisIsTheGapBetweenTheClockAndTheLastAdvance() {
        open(START);
        assertEquals(0, f.wheel.behindMillis(), "a new wheel is up to date");
        f.clock.set(START + 50);
        assertEquals(50, f.wheel.behindMillis());
        f.wheel.advance();
        assertEquals(0, f.wheel.behindMillis());
        f.clock.set(START + 51);
        assertEquals(1, f.wheel.behindMillis());
    }

    /** Helpers join in only past the threshold; with one, a backlog is cleared to the clock. */
    @Test
    void helpersJoinInWhenTheWheelFallsBehindAndClearTheBacklog() {
        assertFalse(ExpiryReaper.helps(0));
        assertFalse(ExpiryReaper.helps(ExpiryReaper.HELP_AFTER_MILLIS));
        assertTrue(ExpiryReaper.helps(ExpiryReaper.HELP_AFTER_MILLIS + 1));
        open(START);
        for (int i = 0; i < 1000; i++) {
            setAt("k" + i, START + 1 + i % 100);
        }
        f.clock.set(START + 200);
        assertTrue(ExpiryReaper.helps(f.wheel.behindMillis()));
        try (ExpiryReaper reaper = new ExpiryReaper(f.wheel, 1, 2).start()) {
            long giveUp = System.nanoTime() + 10_000_000_000L;
            while (ks.size() > 0 && System.nanoTime() < giveUp) {
                Thread.onSpinWait();
            }
            assertEquals(0, ks.size());
            while (f.wheel.behindMillis() > 0 && System.nanoTime() < giveUp) {
                Thread.onSpinWait();
            }
            assertEquals(0, f.wheel.behindMillis(), "the reapers brought the wheel up to the clock");
        }
    }

    /** INFO's expire_wheel_lag_p99_ms: the lag within which 99 % of reclaimed keys went. */
    @Test
    void lagPercentilesCountEveryReclaimedKey() {
        open(START);
        assertEquals(0, f.wheel.lagPercentileMillis(0.99), "nothing reclaimed yet");
        for (int i = 0; i < 100; i++) {
            setAt("on-time" + i, START + 10);
        }
        setAt("late", START + 20);
        advanceTo(START + 11); // the 100 keys, reclaimed in their first due millisecond
        advanceTo(START + 71); // the last one, 50 ms after its deadline
        assertEquals(0, ks.size());
        assertEquals(0, f.wheel.lagPercentileMillis(0.5));
        assertEquals(0, f.wheel.lagPercentileMillis(0.99), "100 of 101 keys had no lag");
        assertEquals(50, f.wheel.lagPercentileMillis(1.0));
        assertEquals(50, f.wheel.maxLagMillis());
    }

    // ------------------------------------------------------------------ event loops helping

    /**
     * An event loop's {@link ExpiryWheel#assist}: nothing while the wheel is within
     * {@link ExpiryWheel#ASSIST_AFTER_MILLIS} of the clock, then a few chunks at a time (the
     * oldest deadlines first, a slot's partial last chunk included).
     */
    @Test
    void assistTakesAFewSmallChunksOnlyWhenBehind() {
        open(START);
        int perCall = ExpiryWheel.MIN_ASSIST_CHUNKS * ExpiryWheel.CHUNK_RECORDS;
        int n = 3 * perCall + 5;
        for (int i = 0; i < n; i++) {
            setAt("early" + i, START + 1); // one slot, more than three calls' worth
        }
        setAt("later", START + 5);
        f.clock.set(START + ExpiryWheel.ASSIST_AFTER_MILLIS);
        assertEquals(ExpiryWheel.ASSIST_AFTER_MILLIS, f.wheel.behindMillis());
        assertEquals(0, f.wheel.assist(), "within the threshold the reapers are enough");
        assertEquals(n + 1, ks.size());

        // the first slot's keys now ASSIST_AFTER_MILLIS + 1 late
        f.clock.advance(2);
        int total = 0;
        for (int round = 0; round < 3; round++) {
            int got = f.wheel.assist();
            assertEquals(perCall, got, "MIN_ASSIST_CHUNKS full chunks per call just past the threshold");
            total += got;
            assertEquals(n + 1 - total, ks.size(), "the later deadline waits for the earlier slot");
        }
        assertEquals(6, f.wheel.assist(), "the slot's last, partial chunk, then the next due slot's");
        assertEquals(0, ks.size());
        assertEquals(n + 1, f.wheel.assistedCount());
        assertEquals(n + 1, f.wheel.reclaimedCount());
        assertEquals(0, f.wheel.assist(), "nothing left");
    }

    /** The further behind, the more chunks one call takes, up to a bound. */
    @Test
    void assistTakesMoreChunksTheFurtherBehind() {
        int min = ExpiryWheel.MIN_ASSIST_CHUNKS;
        assertEquals(0, ExpiryWheel.assistChunks(ExpiryWheel.ASSIST_AFTER_MILLIS));
        assertEquals(min, ExpiryWheel.assistChunks(ExpiryWheel.ASSIST_AFTER_MILLIS + 1));
        assertEquals(min, ExpiryWheel.assistChunks(ExpiryWheel.ASSIST_AFTER_MILLIS + ExpiryWheel.ASSIST_STEP_MILLIS));
        assertEquals(min + 1, ExpiryWheel.assistChunks(ExpiryWheel.ASSIST_AFTER_MILLIS + ExpiryWheel.ASSIST_STEP_MILLIS + 1));
        assertEquals(ExpiryWheel.MAX_ASSIST_CHUNKS, ExpiryWheel.assistChunks(10_000));
        // past RUSH_AFTER_MILLIS the assist grows faster: by 100 ms behind it takes the most
        long rush = ExpiryWheel.RUSH_AFTER_MILLIS;
        int atRush = ExpiryWheel.assistChunks(rush + 1);
        assertEquals(atRush + 1, ExpiryWheel.assistChunks(rush + 1 + ExpiryWheel.RUSH_STEP_MILLIS));
        assertEquals(ExpiryWheel.MAX_ASSIST_CHUNKS, ExpiryWheel.assistChunks(100));
        assertTrue(ExpiryWheel.assistChunks(rush) < ExpiryWheel.assistChunks(rush + 20));

        open(START);
        int n = 100 * ExpiryWheel.CHUNK_RECORDS;
        for (int i = 0; i < n; i++) {
            setAt("k" + i, START + 1);
        }
        assertEquals(0, advanceTo(START + 1), "a reaper's pass: up to date, nothing due yet");
        // the keys' slot is now 1 ms short of three steps past the threshold: two more chunks
        f.clock.set(START + 2 + ExpiryWheel.ASSIST_AFTER_MILLIS + 2 * ExpiryWheel.ASSIST_STEP_MILLIS);
        assertEquals(ExpiryWheel.ASSIST_AFTER_MILLIS + 2 * ExpiryWheel.ASSIST_STEP_MILLIS + 1,
                f.wheel.behindMillis());
        assertEquals((min + 2) * ExpiryWheel.CHUNK_RECORDS, f.wheel.assist(), "two more chunks at three steps");
        f.clock.advance(1_000);
        assertEquals(ExpiryWheel.MAX_ASSIST_CHUNKS * ExpiryWheel.CHUNK_RECORDS, f.wheel.assist(),
                "never more than the bound");
    }

    /**
     * Detached chunks still count as behind: after an event loop took one chunk of a big slot,
     * {@link ExpiryWheel#behindMillis} still points at that slot until the rest are taken, and
     * {@code advance} (the reapers) reclaims what the event loops left.
     */
    @Test
    void pendingChunksKeepTheWheelBehindUntilTakenAndAdvanceFinishesThem() {
        open(START);
        int perCall = ExpiryWheel.MIN_ASSIST_CHUNKS * ExpiryWheel.CHUNK_RECORDS;
        int n = 2 * perCall;
        for (int i = 0; i < n; i++) {
            setAt("k" + i, START + 1);
        }
        f.clock.set(START + 12);
        assertEquals(perCall, f.wheel.assist(), "just past the threshold");
        assertEquals(START + 12 - 1 - START, f.wheel.behindMillis(),
                "the slot of START + 1 is not all taken yet");
        assertEquals(perCall, f.wheel.advance());
        assertEquals(0, ks.size());
        assertEquals(0, f.wheel.behindMillis());
        assertEquals(perCall, f.wheel.assistedCount());
    }

    /** CONFIG RESETSTAT: the wheel's counters and lag histogram start again; its records stay. */
    @Test
    void resetStatsClearsCountersButNotRecords() {
        open(START);
        setAt("late", START + 10);
        setAt("pending", START + 1000);
        advanceTo(START + 60);
        assertEquals(49, f.wheel.maxLagMillis());
        assertEquals(1, f.wheel.reclaimedCount());
        f.wheel.resetStats();
        assertEquals(0, f.wheel.maxLagMillis());
        assertEquals(0, f.wheel.lagPercentileMillis(1.0));
        assertEquals(0, f.wheel.reclaimedCount());
        assertEquals(1, f.wheel.scheduled(), "the pending key's record is still filed");
        advanceTo(START + 1001);
        assertEquals(1, f.wheel.reclaimedCount());
        assertEquals(0, f.wheel.maxLagMillis(), "reclaimed in its first due millisecond");
    }
}
