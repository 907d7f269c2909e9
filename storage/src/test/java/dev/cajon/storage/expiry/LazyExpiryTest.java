package dev.cajon.storage.expiry;

import static dev.cajon.storage.expiry.ExpiryFixture.NO_EXPIRY;
import static dev.cajon.storage.expiry.ExpiryFixture.SECOND;
import static dev.cajon.storage.expiry.ExpiryFixture.T0;
import static dev.cajon.storage.expiry.ExpiryFixture.b;
import static dev.cajon.storage.expiry.ExpiryFixture.liveKeys;
import static dev.cajon.storage.expiry.ExpiryFixture.scanAll;
import static dev.cajon.storage.expiry.ExpiryFixture.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.ExpireCondition;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.OpStatus;
import dev.cajon.storage.SetCondition;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lazy check: with the wheel never advanced, no read or walk returns a key whose deadline has
 * passed ({@code deadline < now}: as in Redis's keyIsExpired, a key lives through its deadline
 * millisecond), and every write treats it as absent. Each key is touched by
 * one operation only, so one lazy deletion cannot hide another operation's mistake.
 */
class LazyExpiryTest {
    private static final long START = T0 + 7;
    private static final long AT = START + 10 * SECOND;

    @TempDir
    Path dir;
    ExpiryFixture f;
    Keyspace ks;

    @BeforeEach
    void open() {
        f = new ExpiryFixture(dir, START);
        ks = f.ks;
    }

    @AfterEach
    void close() {
        f.close();
    }

    private static final List<String> READS = List.of("get", "exists", "type", "strlen", "deadline", "getdel",
            "getex", "copy", "rename");
    private static final List<String> WRITES = List.of("setnx", "setxx", "expire", "persist", "incr", "append",
            "setrange", "del", "keepttl");

    private void load() {
        for (String k : READS) {
            ExpiryFixture.setAt(ks, k, "12", AT);
        }
        for (String k : WRITES) {
            ExpiryFixture.setAt(ks, k, "12", AT);
        }
        ExpiryFixture.setAt(ks, "plain", "p", NO_EXPIRY);
        ExpiryFixture.setAt(ks, "later", "l", AT + 1);
    }

    @Test
    void atTheDeadlineEverythingIsThere() {
        load();
        f.clock.set(AT); // now == deadline: not expired yet; no advance()
        Set<String> all = new HashSet<>(READS);
        all.addAll(WRITES);
        all.add("plain");
        all.add("later");
        assertEquals(all, liveKeys(ks));
        assertEquals(all, scanAll(ks));
        assertEquals("12", str(ks.get(b("get"))));
        assertTrue(ks.exists(b("exists")));
        assertEquals("string", ks.type(b("type")));
        assertEquals(2, ks.strlen(b("strlen")));
        assertEquals(AT, ks.deadline(b("deadline")));
        assertEquals(0, ks.expiredCount());
    }

    /** One millisecond past the deadline (now == deadline + 1) the key is expired, for every operation. */
    @Test
    void noReadOrWalkReturnsAKeyPastItsDeadline() {
        load();
        f.clock.set(AT + 1); // no advance(); "later" (deadline AT + 1) is at its deadline, still alive

        Set<String> live = Set.of("plain", "later");
        assertEquals(live, liveKeys(ks), "KEYS");
        assertEquals(live, scanAll(ks), "SCAN");
        assertEquals(0, ks.expiredCount(), "walks filter, they do not delete");

        assertNull(ks.get(b("get")));
        assertFalse(ks.exists(b("exists")));
        assertEquals("none", ks.type(b("type")));
        assertEquals(0, ks.strlen(b("strlen")));
        assertEquals(Keyspace.NO_KEY, ks.deadline(b("deadline")));
        assertNull(ks.getDel(b("getdel")));
        assertNull(ks.getEx(b("getex"), AT + 100 * SECOND));
        assertEquals(OpStatus.NOT_FOUND, ks.copy(b("copy"), ks, b("copy2"), true));
        assertEquals(OpStatus.NOT_FOUND, ks.rename(b("rename"), b("rename2"), false));
        assertFalse(ks.exists(b("copy2")));
        assertFalse(ks.exists(b("rename2")));

        // writes see the expired key as absent
        assertEquals(OpStatus.OK, ks.set(b("setnx"), b("n"), SetCondition.IF_ABSENT, NO_EXPIRY, false).status());
        assertEquals(OpStatus.NOT_APPLIED,
                ks.set(b("setxx"), b("x"), SetCondition.IF_PRESENT, NO_EXPIRY, false).status());
        assertFalse(ks.expireAt(b("expire"), AT + 100 * SECOND, ExpireCondition.NONE));
        assertFalse(ks.persist(b("persist")));
        assertEquals(1, ks.incrBy(b("incr"), 1).value(), "INCR starts from 0");
        assertEquals(Keyspace.NO_TTL, ks.deadline(b("incr")), "and the old TTL is not inherited");
        assertEquals(3, ks.append(b("append"), b("abc")).length());
        assertEquals(Keyspace.NO_TTL, ks.deadline(b("append")));
        assertEquals(3, ks.setRange(b("setrange"), 2, b("z")).length(), "zero padding, not the old 12");
        assertFalse(ks.del(b("del")));
        ks.set(b("keepttl"), b("k"), SetCondition.ALWAYS, Keyspace.KEEP_TTL, false);
        assertEquals(Keyspace.NO_TTL, ks.deadline(b("keepttl")), "KEEPTTL of an expired key keeps nothing");

        // what is left: plain, later, and the keys the writes created anew
        Set<String> now = Set.of("plain", "later", "setnx", "incr", "append", "setrange", "keepttl");
        assertEquals(now, liveKeys(ks));
        assertEquals(now.size(), ks.size(), "every expired key was deleted by the operation that met it");

        // the wheel fires later and must neither count nor touch anything twice
        long expiredByReads = ks.expiredCount();
        assertEquals(READS.size() + WRITES.size(), expiredByReads, "each lazy deletion counted once");
        assertEquals(0, f.wheel.advance(), "already reclaimed lazily");
        assertEquals(expiredByReads, ks.expiredCount());
        assertEquals(now.size(), ks.size());
        assertEquals(1, f.advanceTo(AT + 2), "later");
        assertEquals(0, f.wheel.scheduled());
    }

    /** RANDOMKEY never picks a key past its deadline, even when most keys are. */
    @Test
    void randomKeyNeverReturnsAnExpiredKey() {
        for (int i = 0; i < 2_000; i++) {
            ExpiryFixture.setAt(ks, "dead" + i, "v", AT);
        }
        ExpiryFixture.setAt(ks, "alive", "v", NO_EXPIRY);
        f.clock.set(AT + 1);
        for (int i = 0; i < 200; i++) {
            byte[] k = ks.randomKey();
            assertEquals("alive", k == null ? null : ExpiryFixture.s(k));
        }
    }

    /** A walk's filtering uses the clock of the call: a key expiring mid-walk is not returned after. */
    @Test
    void scanStepsUseTheCurrentClock() {
        for (int i = 0; i < 5_000; i++) {
            ExpiryFixture.setAt(ks, "k" + i, "v", i % 2 == 0 ? AT : NO_EXPIRY);
        }
        long cursor = ks.scan(0, 100, k -> { });
        assertNotEquals(0, cursor, "more than one step");
        f.clock.set(AT + 1);
        Set<String> rest = new HashSet<>();
        while (cursor != 0) {
            cursor = ks.scan(cursor, 100, k -> rest.add(ExpiryFixture.s(k)));
        }
        for (String k : rest) {
            assertTrue(Integer.parseInt(k.substring(1)) % 2 == 1, k + " was returned past its deadline");
        }
    }
}
