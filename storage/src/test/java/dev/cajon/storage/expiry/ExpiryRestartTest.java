package dev.cajon.storage.expiry;

import static dev.cajon.storage.expiry.ExpiryFixture.DAY;
import static dev.cajon.storage.expiry.ExpiryFixture.HOUR;
import static dev.cajon.storage.expiry.ExpiryFixture.NO_EXPIRY;
import static dev.cajon.storage.expiry.ExpiryFixture.SECOND;
import static dev.cajon.storage.expiry.ExpiryFixture.T0;
import static dev.cajon.storage.expiry.ExpiryFixture.b;
import static dev.cajon.storage.expiry.ExpiryFixture.liveKeys;
import static dev.cajon.storage.expiry.ExpiryFixture.scanAll;
import static dev.cajon.storage.expiry.ExpiryFixture.setAt;
import static dev.cajon.storage.expiry.ExpiryFixture.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.ExpireCondition;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.SetCondition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TTLs across a restart. Deadlines live in the value headers, so they survive close and reopen
 * unchanged; the wheel is in memory only and is rebuilt from those headers by the new store.
 * Keys whose deadline passed while the store was closed are gone as soon as it is open, before
 * any {@code advance()}; a key exactly at its deadline at the reopen is still live (a key lives
 * through its deadline millisecond, as in Redis).
 */
class ExpiryRestartTest {
    private static final long START = T0 + 7;

    @TempDir
    Path dir;
    ExpiryFixture f;

    @AfterEach
    void close() {
        if (f != null) {
            f.close();
        }
    }

    /**
     * @param unclean reopen as after a crash ({@code cajon.running} left behind), which goes
     *                through Chronicle's recovery
     */
    @ParameterizedTest(name = "unclean stop: {0}")
    @ValueSource(booleans = {false, true})
    void deadlinesSurviveAndANewWheelReclaimsOnTime(boolean unclean) throws IOException {
        f = new ExpiryFixture(dir, START);
        Keyspace db0 = f.ks;
        Keyspace db1 = f.db(1);
        setAt(db0, "a", "1", START + 10 * SECOND);
        setAt(db0, "b", "1", START + HOUR);
        setAt(db0, "c", "1", START + 30 * DAY);
        setAt(db0, "plain", "1", NO_EXPIRY);
        setAt(db0, "gone", "1", START + 2 * SECOND); // passes while closed
        setAt(db0, "edge", "1", START + 3 * SECOND - 1); // 1 ms past its deadline at the reopen
        setAt(db0, "atReopen", "1", START + 3 * SECOND); // at its deadline at the reopen: still live
        setAt(db0, "renewed", "1", START + 4 * SECOND);
        setAt(db1, "f", "1", START + 5 * SECOND);
        setAt(db1, "gone", "1", START + SECOND);
        f.advanceTo(START + 500);
        // a lazy renewal: the old wheel still holds the record at +4 s, the header says +20 s
        assertTrue(db0.expireAt(b("renewed"), START + 20 * SECOND, ExpireCondition.NONE));
        ExpiryWheel oldWheel = f.wheel;
        f.store.close();

        f.clock.set(START + 3 * SECOND);
        if (unclean) {
            Files.writeString(dir.resolve("cajon.running"), "1");
        }
        f.reopen();
        assertEquals(unclean, f.store.recovered());
        db0 = f.ks;
        db1 = f.db(1);

        // before any advance(): the keys that expired while closed are not there at all
        assertEquals(6, db0.size(), "a, b, c, plain, renewed, atReopen");
        assertEquals(1, db1.size(), "f");
        assertEquals(Set.of("a", "b", "c", "plain", "renewed", "atReopen"), liveKeys(db0));
        assertEquals(Set.of("a", "b", "c", "plain", "renewed", "atReopen"), scanAll(db0));
        assertEquals(Set.of("f"), liveKeys(db1));
        assertNull(db0.get(b("gone")));
        assertNull(db0.get(b("edge")));
        assertNull(db1.get(b("gone")));
        assertEquals(5, db0.volatileSize());
        assertEquals(1, db1.volatileSize());
        assertEquals(START + 3 * SECOND, db0.deadline(b("atReopen")));

        // deadlines unchanged, TTLs counted from the same absolute instant
        assertEquals(START + 10 * SECOND, db0.deadline(b("a")));
        assertEquals(START + HOUR, db0.deadline(b("b")));
        assertEquals(START + 30 * DAY, db0.deadline(b("c")));
        assertEquals(START + 20 * SECOND, db0.deadline(b("renewed")));
        assertEquals(Keyspace.NO_TTL, db0.deadline(b("plain")));
        assertEquals(START + 5 * SECOND, db1.deadline(b("f")));
        assertEquals(6, f.wheel.scheduled(), "the new wheel was rebuilt from the value headers");

        // atReopen lived through its deadline millisecond; 1 ms later a read finds it gone (the
        // new wheel reclaiming it on time is aKeyAtItsDeadlineAtTheReopenIsReclaimedOneMillisecondLater)
        f.clock.set(START + 3 * SECOND + 1);
        assertNull(db0.get(b("atReopen")));
        assertEquals(1, db0.expiredCount());
        assertEquals(5, db0.size());

        // the wheel from before the restart holds records of closed keyspaces: they do nothing
        assertEquals(0, oldWheel.advance());

        // the new wheel reclaims each key exactly on time (1 ms past its deadline), without any read
        long[][] plan = {
            {START + 5 * SECOND, 1}, // db1 f
            {START + 10 * SECOND, 0}, // a
            {START + 20 * SECOND, 0}, // renewed
            {START + HOUR, 0}, // b
            {START + 30 * DAY, 0}, // c
        };
        long live0 = db0.size();
        long live1 = db1.size();
        for (long[] p : plan) {
            assertEquals(0, f.advanceTo(p[0]), "at its deadline +" + (p[0] - START));
            assertEquals(live0, db0.size());
            assertEquals(live1, db1.size());
            assertEquals(1, f.advanceTo(p[0] + 1), "1 ms past +" + (p[0] - START));
            if (p[1] == 0) {
                live0--;
            } else {
                live1--;
            }
            assertEquals(live0, db0.size(), "db0 at +" + (p[0] - START));
            assertEquals(live1, db1.size(), "db1 at +" + (p[0] - START));
        }
        assertEquals(Set.of("plain"), liveKeys(db0));
        assertEquals(0, db1.size());
        assertEquals(0, f.wheel.scheduled());
        assertEquals(0, f.wheel.maxLagMillis(), "every key was reclaimed on time");
        assertEquals(5, db0.expiredCount(), "atReopen (by the read), a, renewed, b, c (keys dropped at open are "
                + "not counted)");
        assertEquals(1, db1.expiredCount(), "f");
    }

    /**
     * Twenty thousand TTL keys (the map grew into later generations) with deadlines from 1 ms to
     * two days; half the clock passes while closed. After reopen exactly the still-live keys are
     * there, with their deadlines, and the new wheel reclaims the rest on time.
     */
    @Test
    void manyKeysAcrossGenerations() {
        f = new ExpiryFixture(dir, START);
        Random rnd = new Random(9);
        int n = 20_000;
        long[] at = new long[n];
        for (int i = 0; i < n; i++) {
            at[i] = START + 1 + (long) (rnd.nextDouble() * 2 * DAY);
            setAt(f.ks, "k" + i, "v", at[i]);
        }
        setAt(f.ks, "plain", "v", NO_EXPIRY);
        assertTrue(f.ks.generation() > 1, "grew past the first generation");
        f.store.close();

        long reopenAt = START + DAY;
        f.clock.set(reopenAt);
        f.reopen();
        Set<String> expect = new HashSet<>();
        expect.add("plain");
        for (int i = 0; i < n; i++) {
            if (at[i] >= reopenAt) { // a key at its deadline is still live
                expect.add("k" + i);
            }
        }
        assertEquals(expect.size(), f.ks.size(), "size right after open");
        assertEquals(expect, liveKeys(f.ks));
        assertEquals(expect.size() - 1, f.ks.volatileSize());
        assertEquals(expect.size() - 1, f.wheel.scheduled());
        for (int i = 0; i < n; i += 97) {
            assertEquals(at[i] >= reopenAt ? at[i] : Keyspace.NO_KEY, f.ks.deadline(b("k" + i)), "k" + i);
        }

        long[] sorted = Arrays.stream(at).filter(x -> x >= reopenAt).sorted().toArray();
        long now = reopenAt;
        int gone = 0;
        for (int step = 0; step < 200 && now < START + 2 * DAY + 2; step++) {
            now += 1 + rnd.nextInt((int) (DAY / 50));
            gone += f.advanceTo(now);
            long due = Arrays.stream(sorted).filter(x -> x < f.now()).count();
            assertEquals(due, gone, "reclaimed by +" + (now - START));
            assertEquals(expect.size() - due, f.ks.size(), "at +" + (now - START));
        }
    }

    /**
     * A key exactly at its deadline when the store is reopened is live, and the new wheel, built
     * at that very millisecond, reclaims it on time: 1 ms later, with no lag.
     */
    @Test
    void aKeyAtItsDeadlineAtTheReopenIsReclaimedOneMillisecondLater() {
        f = new ExpiryFixture(dir, START);
        setAt(f.ks, "k", "v", START + SECOND);
        setAt(f.ks, "plain", "v", NO_EXPIRY);
        f.store.close();

        f.clock.set(START + SECOND);
        f.reopen();
        assertEquals(Set.of("k", "plain"), liveKeys(f.ks), "at its deadline: still live");
        assertEquals(1, f.wheel.scheduled());
        assertEquals(0, f.wheel.advance(), "nothing is due at the deadline itself");
        assertEquals(2, f.ks.size());
        assertEquals(1, f.advanceTo(START + SECOND + 1), "reclaimed by the new wheel 1 ms past its deadline");
        assertEquals(Set.of("plain"), liveKeys(f.ks));
        assertEquals(0, f.wheel.maxLagMillis());
        assertEquals(0, f.wheel.scheduled());
    }

    /** A key read back after the restart keeps its value and TTL; a renewal then files anew. */
    @Test
    void aKeyRenewedAfterTheRestartUsesTheNewWheel() {
        f = new ExpiryFixture(dir, START);
        setAt(f.ks, "s", "x", START + 10 * SECOND);
        f.store.close();
        f.clock.set(START + 5 * SECOND);
        f.reopen();
        assertEquals("x", str(f.ks.get(b("s"))));
        f.ks.set(b("s"), b("y"), SetCondition.ALWAYS, START + 60 * SECOND, false);
        assertEquals(1, f.wheel.scheduled());
        assertEquals(0, f.advanceTo(START + 10 * SECOND + 1), "the record from the reopen fires, re-files");
        assertEquals(1, f.wheel.scheduled());
        assertEquals("y", str(f.ks.get(b("s"))));
        assertEquals(0, f.advanceTo(START + 60 * SECOND));
        assertEquals(1, f.advanceTo(START + 60 * SECOND + 1));
        assertFalse(f.ks.exists(b("s")));
    }
}
