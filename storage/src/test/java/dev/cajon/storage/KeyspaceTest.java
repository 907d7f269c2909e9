package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static dev.cajon.storage.TestData.str;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.ValueHeader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The string, counter, key and expiry operations of one keyspace, in-process, with a manual
 * clock. Expected results are what Redis 7 replies to the matching command.
 */
class KeyspaceTest {
    private static final long NO_EXPIRY = ValueHeader.NO_EXPIRY;

    @TempDir
    Path dir;
    ManualClock clock;
    Store store;
    Keyspace ks;

    @BeforeEach
    void open() {
        clock = new ManualClock(T0);
        store = Store.open(dir, clock);
        ks = store.keyspace(Store.DEFAULT_APP, 0);
    }

    @AfterEach
    void close() {
        store.close();
    }

    private void set(String k, String v) {
        assertEquals(OpStatus.OK, ks.set(b(k), b(v), SetCondition.ALWAYS, NO_EXPIRY, false).status());
    }

    private void setWithDeadline(String k, String v, long at) {
        assertEquals(OpStatus.OK, ks.set(b(k), b(v), SetCondition.ALWAYS, at, false).status());
    }

    private String get(String k) {
        return str(ks.get(b(k)));
    }

    private long deadline(String k) {
        return ks.deadline(b(k));
    }

    // ------------------------------------------------------------------ SET / GET

    @Nested
    class SetAndGet {
        @Test
        void setThenGet() {
            set("k", "v");
            assertEquals("v", get("k"));
            assertEquals(1, ks.strlen(b("k")));
            assertEquals(1, ks.size());
            set("k", "longer value");
            assertEquals("longer value", get("k"));
            assertEquals(1, ks.size());
        }

        @Test
        void aSliceReadsItsRange() {
            set("k", "Hello World");
            StringValue v = ks.get(b("k"));
            assertEquals("World", str(v.slice(6, 5)));
            assertEquals("", str(v.slice(0, 0)));
            assertEquals("Hello World", str(v.slice(0, 11)));
        }

        @Test
        void missingKey() {
            assertNull(ks.get(b("nope")));
            assertEquals(0, ks.strlen(b("nope")));
            assertEquals("none", ks.type(b("nope")));
            assertEquals(Keyspace.NO_KEY, deadline("nope"));
            assertEquals(0, ks.size());
        }

        @Test
        void nxOnlySetsAbsentKeys() {
            assertEquals(OpStatus.OK, ks.set(b("k"), b("1"), SetCondition.IF_ABSENT, NO_EXPIRY, false).status());
            assertEquals(OpStatus.NOT_APPLIED, ks.set(b("k"), b("2"), SetCondition.IF_ABSENT, NO_EXPIRY, false).status());
            assertEquals("1", get("k"));
        }

        @Test
        void xxOnlySetsPresentKeys() {
            assertEquals(OpStatus.NOT_APPLIED, ks.set(b("k"), b("1"), SetCondition.IF_PRESENT, NO_EXPIRY, false).status());
            assertFalse(ks.exists(b("k")));
            assertEquals(0, ks.size());
            set("k", "0");
            assertEquals(OpStatus.OK, ks.set(b("k"), b("2"), SetCondition.IF_PRESENT, NO_EXPIRY, false).status());
            assertEquals("2", get("k"));
        }

        @Test
        void getOptionReturnsTheOldValue() {
            SetResult first = ks.set(b("k"), b("a"), SetCondition.ALWAYS, NO_EXPIRY, true);
            assertEquals(OpStatus.OK, first.status());
            assertNull(first.old());
            SetResult second = ks.set(b("k"), b("b"), SetCondition.ALWAYS, NO_EXPIRY, true);
            assertEquals(OpStatus.OK, second.status());
            assertEquals("a", str(second.old()));
            assertEquals("b", get("k"));
        }

        @Test
        void nxWithGetOnPresentKeyReturnsOldValueAndWritesNothing() {
            set("k", "a");
            SetResult r = ks.set(b("k"), b("b"), SetCondition.IF_ABSENT, NO_EXPIRY, true);
            assertEquals(OpStatus.NOT_APPLIED, r.status());
            assertEquals("a", str(r.old()));
            assertEquals("a", get("k"));
        }

        @Test
        void xxWithGetOnMissingKeyReturnsNothing() {
            SetResult r = ks.set(b("k"), b("b"), SetCondition.IF_PRESENT, NO_EXPIRY, true);
            assertEquals(OpStatus.NOT_APPLIED, r.status());
            assertNull(r.old());
            assertFalse(ks.exists(b("k")));
        }

        @Test
        void plainSetClearsTheTtl() {
            setWithDeadline("k", "a", T0 + 10_000);
            set("k", "b");
            assertEquals(Keyspace.NO_TTL, deadline("k"));
            clock.advance(20_000);
            assertEquals("b", get("k"));
        }

        @Test
        void keepTtlKeepsTheDeadline() {
            setWithDeadline("k", "a", T0 + 10_000);
            ks.set(b("k"), b("b"), SetCondition.ALWAYS, Keyspace.KEEP_TTL, false);
            assertEquals("b", get("k"));
            assertEquals(T0 + 10_000, deadline("k"));
            clock.advance(10_001);
            assertNull(ks.get(b("k")));
        }

        /**
         * SET ... KEEPTTL on a key at its deadline millisecond: the key is live, so the write
         * replaces the value and keeps the deadline; it expires 1 ms later. KEEPTTL gives no
         * deadline, so Redis's checkAlreadyExpired (a given deadline at or before now deletes)
         * does not apply.
         */
        @Test
        void keepTtlAtTheDeadlineKeepsTheKeyAndItsDeadline() {
            setWithDeadline("k", "a", T0 + 1000);
            clock.advance(1000); // now == deadline: the key is live
            SetResult r = ks.set(b("k"), b("b"), SetCondition.ALWAYS, Keyspace.KEEP_TTL, true);
            assertEquals(OpStatus.OK, r.status());
            assertEquals("a", str(r.old()));
            assertEquals("b", get("k"));
            assertEquals(T0 + 1000, deadline("k"));
            assertEquals(1, ks.size());
            clock.advance(1);
            assertNull(ks.get(b("k")));
            assertEquals(1, ks.expiredCount(), "it expired; the write did not delete it");
        }

        @Test
        void keepTtlOnMissingKeyMeansNoTtl() {
            ks.set(b("k"), b("b"), SetCondition.ALWAYS, Keyspace.KEEP_TTL, false);
            assertEquals(Keyspace.NO_TTL, deadline("k"));
        }

        @Test
        void setWithDeadlineInThePastDeletesTheKey() {
            set("k", "a");
            SetResult r = ks.set(b("k"), b("b"), SetCondition.ALWAYS, T0 - 1, true);
            assertEquals(OpStatus.OK, r.status());
            assertEquals("a", str(r.old()));
            assertFalse(ks.exists(b("k")));
            assertEquals(0, ks.size());

            ks.set(b("other"), b("b"), SetCondition.ALWAYS, T0, false);
            assertFalse(ks.exists(b("other")), "a write with a deadline equal to now deletes at once "
                    + "(Redis's checkAlreadyExpired), although a read keeps a key through its deadline");
            assertEquals(0, ks.size());
        }

        @Test
        void setWithDeadlineExpiresThen() {
            setWithDeadline("k", "v", T0 + 1000);
            assertEquals(T0 + 1000, deadline("k"));
            clock.advance(1000);
            assertEquals("v", get("k"), "alive at its deadline");
            clock.advance(1);
            assertNull(ks.get(b("k")), "gone 1 ms past it");
        }
    }

    // ------------------------------------------------------------------ expiry

    @Nested
    class Expiry {
        @Test
        void lazyExpiryOnRead() {
            setWithDeadline("k", "v", T0 + 5000);
            set("keep", "v");
            assertEquals(2, ks.size());
            assertEquals(0, ks.expiredCount());

            clock.advance(5000);
            assertEquals("v", get("k"), "alive at its deadline");
            assertEquals(0, ks.expiredCount());
            clock.advance(1);
            assertEquals(2, ks.size(), "an expired key counts until something touches it");
            assertNull(ks.get(b("k")));
            assertEquals(1, ks.size());
            assertEquals(1, ks.expiredCount());
            assertNull(ks.get(b("k")));
            assertEquals(1, ks.expiredCount(), "counted once");
            assertEquals("v", get("keep"));
        }

        @Test
        void everyReadPathHidesAnExpiredKey() {
            for (String k : List.of("a", "b", "c", "d", "e", "f", "g")) {
                setWithDeadline(k, "12", T0 + 100);
            }
            clock.advance(101); // 1 ms past the deadline
            assertFalse(ks.exists(b("a")));
            assertEquals("none", ks.type(b("b")));
            assertEquals(0, ks.strlen(b("c")));
            assertEquals(Keyspace.NO_KEY, ks.deadline(b("d")));
            assertEquals(new CounterResult(OpStatus.OK, 1), ks.incrBy(b("e"), 1));
            assertEquals(Keyspace.NO_TTL, ks.deadline(b("e")), "INCR on an expired key starts a fresh key");
            assertEquals(new LengthResult(OpStatus.OK, 1), ks.append(b("f"), b("x")));
            assertEquals("x", get("f"));
            assertNull(ks.getDel(b("g")));
            assertEquals(2, ks.size());
            assertEquals(7, ks.expiredCount());
        }

        @Test
        void reclaimIfDueOnlyTakesKeysWhoseDeadlineCame() {
            setWithDeadline("k", "v", T0 + 100);
            set("plain", "v");
            assertEquals(T0 + 100, ks.reclaimIfDue(b("k")), "not due yet: the current deadline comes back");
            assertEquals(Keyspace.NOTHING_DUE, ks.reclaimIfDue(b("missing")));
            assertEquals(Keyspace.NOTHING_DUE, ks.reclaimIfDue(b("plain")));
            assertEquals(2, ks.size());
            clock.advance(100);
            assertEquals(T0 + 100, ks.reclaimIfDue(b("k")), "at its deadline the key still lives: re-filed there");
            assertEquals(2, ks.size());
            assertEquals(0, ks.expiredCount());
            clock.advance(1);
            assertEquals(Keyspace.RECLAIMED, ks.reclaimIfDue(b("k")));
            assertEquals(1, ks.size());
            assertEquals(0, ks.volatileSize());
            assertEquals(1, ks.expiredCount());
            assertEquals(Keyspace.NOTHING_DUE, ks.reclaimIfDue(b("k")));
            assertEquals(1, ks.expiredCount());
        }

        /**
         * What the expiry wheel is asked to file: a record for each new TTL and each shortened
         * one; extensions and unchanged deadlines file nothing (the valid record re-files itself).
         */
        @Test
        void expiryListenerIsAskedToFileOnlyNewAndShortenedDeadlines(@TempDir Path other) {
            List<String> heard = new java.util.ArrayList<>();
            ExpiryListener l = (space, key, at) -> heard.add(new String(key, StandardCharsets.UTF_8)
                    + "@" + (at - T0));
            try (Store s = Store.open(other, clock, l)) {
                Keyspace k = s.keyspace(Store.DEFAULT_APP, 0);
                k.set(b("a"), b("1"), SetCondition.ALWAYS, T0 + 10, false);
                k.set(b("b"), b("v"), SetCondition.ALWAYS, NO_EXPIRY, false);
                k.expireAt(b("b"), T0 + 20, ExpireCondition.NONE);
                k.expireAt(b("a"), T0 + 30, ExpireCondition.NONE);
                k.incrBy(b("a"), 1);
                k.set(b("a"), b("x"), SetCondition.ALWAYS, Keyspace.KEEP_TTL, false);
                k.expireAt(b("a"), T0 + 30, ExpireCondition.NONE);
                k.persist(b("b"));
                k.rename(b("a"), b("c"), false);
                k.expireAt(b("c"), T0 + 40, ExpireCondition.NONE);
                k.expireAt(b("c"), T0 + 5, ExpireCondition.NONE);
                assertEquals(List.of("a@10", "b@20", "c@30", "c@5"), heard);
            }
        }

        @Test
        void averageTtlOfVolatileKeys() {
            assertEquals(0, ks.averageTtl());
            set("plain", "v");
            setWithDeadline("a", "v", T0 + 1000);
            setWithDeadline("b", "v", T0 + 3000);
            assertEquals(2000, ks.averageTtl());
            clock.advance(500);
            assertEquals(1500, ks.averageTtl());
            ks.persist(b("b"));
            assertEquals(500, ks.averageTtl());
            ks.del(b("a"));
            assertEquals(0, ks.averageTtl());
        }

        @Test
        void expireAtOnMissingKey() {
            assertFalse(ks.expireAt(b("k"), T0 + 1000, ExpireCondition.NONE));
            assertFalse(ks.exists(b("k")));
        }

        @Test
        void expireAtSetsAndReplacesTheDeadline() {
            set("k", "v");
            assertTrue(ks.expireAt(b("k"), T0 + 1000, ExpireCondition.NONE));
            assertEquals(T0 + 1000, deadline("k"));
            assertTrue(ks.expireAt(b("k"), T0 + 500, ExpireCondition.NONE));
            assertEquals(T0 + 500, deadline("k"));
            assertEquals("v", get("k"));
        }

        @Test
        void nxOnlyWhenNoTtl() {
            set("k", "v");
            assertTrue(ks.expireAt(b("k"), T0 + 1000, ExpireCondition.NX));
            assertFalse(ks.expireAt(b("k"), T0 + 2000, ExpireCondition.NX));
            assertEquals(T0 + 1000, deadline("k"));
        }

        @Test
        void xxOnlyWhenTtl() {
            set("k", "v");
            assertFalse(ks.expireAt(b("k"), T0 + 1000, ExpireCondition.XX));
            assertEquals(Keyspace.NO_TTL, deadline("k"));
            ks.expireAt(b("k"), T0 + 1000, ExpireCondition.NONE);
            assertTrue(ks.expireAt(b("k"), T0 + 2000, ExpireCondition.XX));
            assertEquals(T0 + 2000, deadline("k"));
        }

        @Test
        void gtTreatsNoTtlAsInfinite() {
            set("k", "v");
            assertFalse(ks.expireAt(b("k"), T0 + 1000, ExpireCondition.GT), "nothing is greater than no TTL");
            assertEquals(Keyspace.NO_TTL, deadline("k"));

            ks.expireAt(b("k"), T0 + 1000, ExpireCondition.NONE);
            assertFalse(ks.expireAt(b("k"), T0 + 1000, ExpireCondition.GT), "equal is not greater");
            assertFalse(ks.expireAt(b("k"), T0 + 999, ExpireCondition.GT));
            assertEquals(T0 + 1000, deadline("k"));
            assertTrue(ks.expireAt(b("k"), T0 + 1001, ExpireCondition.GT));
            assertEquals(T0 + 1001, deadline("k"));
        }

        @Test
        void ltTreatsNoTtlAsInfinite() {
            set("k", "v");
            assertTrue(ks.expireAt(b("k"), T0 + 1000, ExpireCondition.LT), "anything is less than no TTL");
            assertEquals(T0 + 1000, deadline("k"));
            assertFalse(ks.expireAt(b("k"), T0 + 1000, ExpireCondition.LT), "equal is not less");
            assertFalse(ks.expireAt(b("k"), T0 + 1001, ExpireCondition.LT));
            assertEquals(T0 + 1000, deadline("k"));
            assertTrue(ks.expireAt(b("k"), T0 + 999, ExpireCondition.LT));
            assertEquals(T0 + 999, deadline("k"));
        }

        @Test
        void xxCombinesWithGtAndLt() {
            set("k", "v");
            assertFalse(ks.expireAt(b("k"), T0 + 1000, ExpireCondition.XX | ExpireCondition.LT),
                    "LT alone would pass on no TTL; XX does not");
            assertFalse(ks.expireAt(b("k"), T0 + 1000, ExpireCondition.XX | ExpireCondition.GT));
            ks.expireAt(b("k"), T0 + 1000, ExpireCondition.NONE);
            assertFalse(ks.expireAt(b("k"), T0 + 999, ExpireCondition.XX | ExpireCondition.GT));
            assertTrue(ks.expireAt(b("k"), T0 + 1001, ExpireCondition.XX | ExpireCondition.GT));
            assertTrue(ks.expireAt(b("k"), T0 + 500, ExpireCondition.XX | ExpireCondition.LT));
            assertEquals(T0 + 500, deadline("k"));
        }

        @Test
        void volatileSizeCountsKeysWithADeadline() {
            set("plain", "v");
            setWithDeadline("a", "v", T0 + 100);
            setWithDeadline("b", "v", T0 + 1000);
            assertEquals(2, ks.volatileSize());
            ks.expireAt(b("plain"), T0 + 1000, ExpireCondition.NONE);
            assertEquals(3, ks.volatileSize());
            ks.persist(b("b"));
            assertEquals(2, ks.volatileSize());
            ks.rename(b("a"), b("b"), false);
            assertEquals(2, ks.volatileSize());
            ks.rename(b("b"), b("plain"), false);
            assertEquals(1, ks.volatileSize());
            assertEquals(1, ks.size());
            ks.set(b("plain"), b("w"), SetCondition.ALWAYS, Keyspace.KEEP_TTL, false);
            assertEquals(1, ks.volatileSize());
            clock.advance(101);
            assertNull(ks.get(b("plain")));
            assertEquals(0, ks.volatileSize());
            assertEquals(0, ks.size());
            setWithDeadline("c", "v", T0 + 1000);
            ks.set(b("c"), b("w"), SetCondition.ALWAYS, NO_EXPIRY, false);
            assertEquals(0, ks.volatileSize());
            setWithDeadline("d", "v", T0 + 1000);
            ks.del(b("d"));
            assertEquals(0, ks.volatileSize());
        }

        @Test
        void deadlineInThePastDeletesAndCountsAsSet() {
            set("k", "v");
            assertTrue(ks.expireAt(b("k"), T0 - 1, ExpireCondition.NONE));
            assertFalse(ks.exists(b("k")));
            assertEquals(0, ks.size());

            set("now", "v");
            assertTrue(ks.expireAt(b("now"), T0, ExpireCondition.NONE));
            assertFalse(ks.exists(b("now")));
        }

        @Test
        void conditionsAreCheckedBeforeAPastDeadlineDeletes() {
            setWithDeadline("ttl", "v", T0 + 1000);
            set("plain", "v");
            assertFalse(ks.expireAt(b("ttl"), T0 - 1, ExpireCondition.NX));
            assertFalse(ks.expireAt(b("plain"), T0 - 1, ExpireCondition.XX));
            assertFalse(ks.expireAt(b("plain"), T0 - 1, ExpireCondition.GT));
            assertFalse(ks.expireAt(b("ttl"), T0 - 1, ExpireCondition.GT));
            assertEquals(2, ks.size());
            assertTrue(ks.expireAt(b("ttl"), T0 - 1, ExpireCondition.LT));
            assertTrue(ks.expireAt(b("plain"), T0 - 1, ExpireCondition.NX));
            assertEquals(0, ks.size());
        }

        /** PEXPIREAT k -1 (or any negative time) deletes the key in Redis; it must not mean "no TTL". */
        @ParameterizedTest
        @ValueSource(longs = {-1, -2, 0, Long.MIN_VALUE})
        void negativeAbsoluteDeadlinesAreInThePast(long at) {
            set("k", "v");
            assertTrue(ks.expireAt(b("k"), at, ExpireCondition.NONE));
            assertFalse(ks.exists(b("k")));
            assertEquals(0, ks.size());
        }

        @Test
        void persistRemovesTheTtl() {
            assertFalse(ks.persist(b("missing")));
            set("plain", "v");
            assertFalse(ks.persist(b("plain")));
            setWithDeadline("k", "v", T0 + 1000);
            assertTrue(ks.persist(b("k")));
            assertEquals(Keyspace.NO_TTL, deadline("k"));
            assertFalse(ks.persist(b("k")));
            clock.advance(10_000);
            assertEquals("v", get("k"));
        }

        @Test
        void deadlineReportsAbsentNoTtlOrTheDeadline() {
            assertEquals(-2, Keyspace.NO_KEY);
            assertEquals(-1, Keyspace.NO_TTL);
            assertEquals(Keyspace.NO_KEY, deadline("k"));
            set("k", "v");
            assertEquals(Keyspace.NO_TTL, deadline("k"));
            ks.expireAt(b("k"), T0 + 1234, ExpireCondition.NONE);
            assertEquals(T0 + 1234, deadline("k"));
        }
    }

    // ------------------------------------------------------------------ counters

    @Nested
    class Counters {
        @Test
        void incrByCreatesAndAdds() {
            assertEquals(new CounterResult(OpStatus.OK, 5), ks.incrBy(b("n"), 5));
            assertEquals(new CounterResult(OpStatus.OK, 2), ks.incrBy(b("n"), -3));
            assertEquals(new CounterResult(OpStatus.OK, -8), ks.incrBy(b("n"), -10));
            assertEquals("-8", get("n"));
            set("m", "10");
            assertEquals(new CounterResult(OpStatus.OK, 11), ks.incrBy(b("m"), 1));
            assertEquals("11", get("m"));
        }

        @ParameterizedTest
        @ValueSource(strings = {"01", "+1", " 1", "1 ", "", "-0", "-", "--1", "abc", "1.5", "1e3", "0x10", "1,000",
                "9223372036854775808", "-9223372036854775809", "99999999999999999999", "000", "-01"})
        void notAnInteger(String stored) {
            set("n", stored);
            assertEquals(OpStatus.NOT_INTEGER, ks.incrBy(b("n"), 1).status());
            assertEquals(stored, get("n"), "a failed INCR writes nothing");
        }

        @ParameterizedTest
        @CsvSource({
            "0, 0, 0",
            "-1, 1, 0",
            "9223372036854775807, 0, 9223372036854775807",
            "9223372036854775806, 1, 9223372036854775807",
            "-9223372036854775808, 0, -9223372036854775808",
            "-9223372036854775808, 1, -9223372036854775807",
            "-9223372036854775807, -1, -9223372036854775808",
            "9223372036854775807, -9223372036854775808, -1",
            "123456789, 1000000000, 1123456789",
        })
        void validIntegers(String stored, long delta, long expected) {
            set("n", stored);
            assertEquals(new CounterResult(OpStatus.OK, expected), ks.incrBy(b("n"), delta));
            assertEquals(Long.toString(expected), get("n"));
        }

        @Test
        void overflowIsRefusedAndWritesNothing() {
            set("max", "9223372036854775807");
            assertEquals(OpStatus.OVERFLOW, ks.incrBy(b("max"), 1).status());
            assertEquals(OpStatus.OVERFLOW, ks.incrBy(b("max"), Long.MAX_VALUE).status());
            assertEquals("9223372036854775807", get("max"));
            set("min", "-9223372036854775808");
            assertEquals(OpStatus.OVERFLOW, ks.incrBy(b("min"), -1).status());
            assertEquals(OpStatus.OVERFLOW, ks.incrBy(b("min"), Long.MIN_VALUE).status());
            assertEquals("-9223372036854775808", get("min"));
            assertEquals(new CounterResult(OpStatus.OK, Long.MIN_VALUE), ks.incrBy(b("fresh"), Long.MIN_VALUE));
        }

        @Test
        void incrByKeepsTheTtl() {
            setWithDeadline("n", "1", T0 + 1000);
            ks.incrBy(b("n"), 1);
            assertEquals(T0 + 1000, deadline("n"));
            clock.advance(1000);
            assertEquals("2", get("n"), "alive at its deadline");
            clock.advance(1);
            assertNull(ks.get(b("n")));
        }

        @Test
        void incrByOnALargeValueIsNotAnInteger() {
            byte[] digits = new byte[Keyspace.BLOB_THRESHOLD + 10];
            java.util.Arrays.fill(digits, (byte) '1');
            ks.set(b("n"), digits, SetCondition.ALWAYS, NO_EXPIRY, false);
            assertEquals(OpStatus.NOT_INTEGER, ks.incrBy(b("n"), 1).status());
            assertEquals(OpStatus.NOT_FLOAT, ks.incrByFloat(b("n"), BigDecimal.ONE).status());
        }

        private String incrByFloat(String key, String incr) {
            BigDecimal d = Numbers.parseLongDouble(b(incr), 0, incr.length());
            assertNotNull(d, incr);
            BytesResult r = ks.incrByFloat(b(key), d);
            assertEquals(OpStatus.OK, r.status());
            String out = new String(r.value(), StandardCharsets.US_ASCII);
            assertEquals(out, get(key), "the reply is what is stored");
            return out;
        }

        /** Replies of a real Redis 7 on x86-64 (80-bit long double). */
        @ParameterizedTest
        @CsvSource(nullValues = "NIL", value = {
            "10.5, 0.1, 10.6",
            "10.50, 0.1, 10.6",
            "0.1, 0.2, 0.3",
            "NIL, 3.0e3, 3000",
            "5.0e3, 2.0e2, 5200",
            "NIL, 1.5, 1.5",
            "NIL, 0.1, 0.1",
            "10.6, -5, 5.6",
            "1, -1, 0",
            "-0.5, 0.5, 0",
            "3, 1.0e0, 4",
            "+1.5, 1, 2.5",
            "100000000000000000, 1, 100000000000000001",
            "1, 1e-20, 1",
            "0, -1.25, -1.25",
            "1.1, 1.1, 2.2",
            "NIL, 0.333333333333333333333, 0.33333333333333333",
            "1e20, 1, 100000000000000000000",
            "1e20, 5, 100000000000000000008",
            "18446744073709551616, 3, 18446744073709551620",
            "2.5, -2.5000000000000000001, 0",
        })
        void incrByFloatPrintsLikeRedis(String initial, String incr, String expected) {
            if (initial != null) {
                set("f", initial);
            }
            assertEquals(expected, incrByFloat("f", incr));
        }

        @Test
        void incrByFloatAccumulates() {
            for (int i = 0; i < 10; i++) {
                incrByFloat("f", "0.1");
            }
            assertEquals("1", get("f"));
        }

        @ParameterizedTest
        @ValueSource(strings = {"abc", " 1", "1 ", "", "nan", "1.5.5", "0x"})
        void incrByFloatOnNonFloat(String stored) {
            set("f", stored);
            BytesResult r = ks.incrByFloat(b("f"), BigDecimal.ONE);
            assertEquals(OpStatus.NOT_FLOAT, r.status());
            assertEquals(stored, get("f"));
        }

        @Test
        void incrByFloatToInfinityIsRefused() {
            set("f", "1.1e4932");
            BytesResult r = ks.incrByFloat(b("f"), new BigDecimal("1.1e4932"));
            assertEquals(OpStatus.NAN_OR_INFINITY, r.status());
            assertEquals("1.1e4932", get("f"));
        }

        @Test
        void incrByFloatKeepsTheTtl() {
            setWithDeadline("f", "1.5", T0 + 1000);
            incrByFloat("f", "1");
            assertEquals(T0 + 1000, deadline("f"));
        }
    }

    // ------------------------------------------------------------------ APPEND / SETRANGE

    @Nested
    class AppendAndSetRange {
        @Test
        void appendCreatesThenExtends() {
            assertEquals(new LengthResult(OpStatus.OK, 5), ks.append(b("k"), b("Hello")));
            assertEquals(new LengthResult(OpStatus.OK, 11), ks.append(b("k"), b(" World")));
            assertEquals("Hello World", get("k"));
            assertEquals(1, ks.size());
        }

        @Test
        void appendEmptyOnMissingKeyCreatesAnEmptyString() {
            assertEquals(new LengthResult(OpStatus.OK, 0), ks.append(b("k"), new byte[0]));
            assertTrue(ks.exists(b("k")));
            assertEquals("", get("k"));
            assertEquals(1, ks.size());
        }

        @Test
        void appendKeepsTheTtl() {
            setWithDeadline("k", "a", T0 + 1000);
            ks.append(b("k"), b("b"));
            assertEquals(T0 + 1000, deadline("k"));
            assertEquals("ab", get("k"));
        }

        @Test
        void setRangeOverwritesInside() {
            set("k", "Hello World");
            assertEquals(new LengthResult(OpStatus.OK, 11), ks.setRange(b("k"), 6, b("Redis")));
            assertEquals("Hello Redis", get("k"));
        }

        @Test
        void setRangePadsWithZeros() {
            assertEquals(new LengthResult(OpStatus.OK, 6), ks.setRange(b("k"), 5, b("x")));
            assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 'x'}, ks.get(b("k")).toBytes());
            set("ab", "ab");
            assertEquals(new LengthResult(OpStatus.OK, 5), ks.setRange(b("ab"), 4, b("c")));
            assertArrayEquals(new byte[] {'a', 'b', 0, 0, 'c'}, ks.get(b("ab")).toBytes());
            assertEquals(new LengthResult(OpStatus.OK, 5), ks.setRange(b("ab"), 1, b("BC")));
            assertArrayEquals(new byte[] {'a', 'B', 'C', 0, 'c'}, ks.get(b("ab")).toBytes());
        }

        @Test
        void setRangeWithEmptyValue() {
            assertEquals(new LengthResult(OpStatus.OK, 0), ks.setRange(b("k"), 10, new byte[0]));
            assertFalse(ks.exists(b("k")), "an empty SETRANGE on a missing key creates nothing");
            assertEquals(0, ks.size());
            set("k", "abc");
            assertEquals(new LengthResult(OpStatus.OK, 3), ks.setRange(b("k"), 10, new byte[0]));
            assertEquals("abc", get("k"));
        }

        @Test
        void setRangeKeepsTheTtl() {
            setWithDeadline("k", "abc", T0 + 1000);
            ks.setRange(b("k"), 1, b("X"));
            assertEquals(T0 + 1000, deadline("k"));
            assertEquals("aXc", get("k"));
        }

        @ParameterizedTest
        @ValueSource(longs = {Keyspace.MAX_STRING_LENGTH, Keyspace.MAX_STRING_LENGTH - 1, Long.MAX_VALUE,
                Long.MAX_VALUE - 1, Integer.MAX_VALUE})
        void setRangePastTheLimitIsTooLarge(long offset) {
            assertEquals(OpStatus.TOO_LARGE, ks.setRange(b("k"), offset, b("xy")).status());
            assertFalse(ks.exists(b("k")));
            set("k", "abc");
            assertEquals(OpStatus.TOO_LARGE, ks.setRange(b("k"), offset, b("xy")).status());
            assertEquals("abc", get("k"));
        }
    }

    // ------------------------------------------------------------------ GETDEL / GETEX

    @Nested
    class GetDelAndGetEx {
        @Test
        void getDel() {
            set("k", "v");
            assertEquals("v", str(ks.getDel(b("k"))));
            assertFalse(ks.exists(b("k")));
            assertEquals(0, ks.size());
            assertNull(ks.getDel(b("k")));
        }

        @Test
        void getExWithoutOptionKeepsTheTtl() {
            setWithDeadline("k", "v", T0 + 1000);
            assertEquals("v", str(ks.getEx(b("k"), Keyspace.KEEP_TTL)));
            assertEquals(T0 + 1000, deadline("k"));
        }

        @Test
        void getExSetsOrClearsTheDeadline() {
            set("k", "v");
            assertEquals("v", str(ks.getEx(b("k"), T0 + 500)));
            assertEquals(T0 + 500, deadline("k"));
            assertEquals("v", str(ks.getEx(b("k"), NO_EXPIRY)));
            assertEquals(Keyspace.NO_TTL, deadline("k"));
        }

        @Test
        void getExWithPastDeadlineReturnsThenDeletes() {
            set("k", "v");
            assertEquals("v", str(ks.getEx(b("k"), T0 - 1)));
            assertFalse(ks.exists(b("k")));
            assertEquals(0, ks.size());

            set("now", "v");
            assertEquals("v", str(ks.getEx(b("now"), T0)), "GETEX PXAT now");
            assertFalse(ks.exists(b("now")), "a deadline equal to now deletes, as in Redis");
            assertEquals(0, ks.size());
        }

        @Test
        void getExOnMissingKey() {
            assertNull(ks.getEx(b("k"), T0 + 500));
            assertFalse(ks.exists(b("k")));
        }
    }

    // ------------------------------------------------------------------ keys

    @Nested
    class Keys {
        @Test
        void delExistsType() {
            set("k", "v");
            assertTrue(ks.exists(b("k")));
            assertEquals("string", ks.type(b("k")));
            assertTrue(ks.del(b("k")));
            assertFalse(ks.del(b("k")));
            assertFalse(ks.exists(b("k")));
            assertEquals("none", ks.type(b("k")));
            assertEquals(0, ks.size());
        }

        @Test
        void renameMovesValueAndTtl() {
            setWithDeadline("src", "v", T0 + 1000);
            assertEquals(OpStatus.OK, ks.rename(b("src"), b("dst"), false));
            assertFalse(ks.exists(b("src")));
            assertEquals("v", get("dst"));
            assertEquals(T0 + 1000, deadline("dst"));
            assertEquals(1, ks.size());
            clock.advance(1000);
            assertEquals("v", get("dst"), "alive at its deadline");
            clock.advance(1);
            assertNull(ks.get(b("dst")), "the TTL moved with the key");
        }

        @Test
        void renameReplacesTheDestinationAndItsTtl() {
            set("src", "new");
            setWithDeadline("dst", "old", T0 + 1000);
            assertEquals(OpStatus.OK, ks.rename(b("src"), b("dst"), false));
            assertEquals("new", get("dst"));
            assertEquals(Keyspace.NO_TTL, deadline("dst"));
            assertEquals(1, ks.size());
        }

        @Test
        void renameMissingSource() {
            assertEquals(OpStatus.NOT_FOUND, ks.rename(b("src"), b("dst"), false));
            assertEquals(OpStatus.NOT_FOUND, ks.rename(b("src"), b("dst"), true));
            assertEquals(OpStatus.NOT_FOUND, ks.rename(b("src"), b("src"), false));
            setWithDeadline("gone", "v", T0 + 10);
            clock.advance(11);
            assertEquals(OpStatus.NOT_FOUND, ks.rename(b("gone"), b("dst"), false));
            assertFalse(ks.exists(b("dst")));
        }

        @Test
        void renameNxLeavesBothAlone() {
            set("src", "a");
            set("dst", "b");
            assertEquals(OpStatus.NOT_APPLIED, ks.rename(b("src"), b("dst"), true));
            assertEquals("a", get("src"));
            assertEquals("b", get("dst"));
            assertEquals(OpStatus.OK, ks.rename(b("src"), b("other"), true));
            assertEquals("a", get("other"));
            assertEquals(2, ks.size());
        }

        @Test
        void renameOntoItself() {
            setWithDeadline("k", "v", T0 + 1000);
            assertEquals(OpStatus.OK, ks.rename(b("k"), b("k"), false));
            assertEquals("v", get("k"));
            assertEquals(T0 + 1000, deadline("k"));
            assertEquals(OpStatus.NOT_APPLIED, ks.rename(b("k"), b("k"), true));
            assertEquals("v", get("k"));
            assertEquals(1, ks.size());
        }

        @Test
        void copyWithinAKeyspace() {
            setWithDeadline("src", "v", T0 + 1000);
            assertEquals(OpStatus.OK, ks.copy(b("src"), ks, b("dst"), false));
            assertEquals("v", get("src"));
            assertEquals("v", get("dst"));
            assertEquals(T0 + 1000, deadline("dst"));
            assertEquals(2, ks.size());
            ks.append(b("dst"), b("2"));
            assertEquals("v", get("src"), "the copy is independent");
        }

        @Test
        void copyRespectsReplace() {
            set("src", "a");
            set("dst", "b");
            assertEquals(OpStatus.NOT_APPLIED, ks.copy(b("src"), ks, b("dst"), false));
            assertEquals("b", get("dst"));
            assertEquals(OpStatus.OK, ks.copy(b("src"), ks, b("dst"), true));
            assertEquals("a", get("dst"));
            assertEquals(2, ks.size());
            assertEquals(OpStatus.NOT_FOUND, ks.copy(b("missing"), ks, b("dst"), true));
            assertEquals("a", get("dst"));
        }

        @Test
        void copyAcrossKeyspaces() {
            Keyspace db1 = store.keyspace(Store.DEFAULT_APP, 1);
            setWithDeadline("src", "v", T0 + 1000);
            db1.set(b("taken"), b("old"), SetCondition.ALWAYS, NO_EXPIRY, false);

            assertEquals(OpStatus.OK, ks.copy(b("src"), db1, b("dst"), false));
            assertEquals("v", str(db1.get(b("dst"))));
            assertEquals(T0 + 1000, db1.deadline(b("dst")));
            assertEquals(2, db1.size());
            assertEquals(1, ks.size());
            assertFalse(ks.exists(b("dst")));

            assertEquals(OpStatus.NOT_APPLIED, ks.copy(b("src"), db1, b("taken"), false));
            assertEquals("old", str(db1.get(b("taken"))));
            assertEquals(OpStatus.OK, ks.copy(b("src"), db1, b("taken"), true));
            assertEquals("v", str(db1.get(b("taken"))));
            assertEquals(OpStatus.NOT_FOUND, ks.copy(b("missing"), db1, b("x"), true));

            ks.del(b("src"));
            assertEquals("v", str(db1.get(b("dst"))), "the copy survives its source");
        }

        @Test
        void randomKeyOfAnEmptyKeyspace() {
            assertNull(ks.randomKey());
        }

        @Test
        void randomKeyReturnsLiveKeys() {
            Set<String> keys = Set.of("a", "b", "c");
            keys.forEach(k -> set(k, "v"));
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < 300; i++) {
                byte[] k = ks.randomKey();
                assertNotNull(k);
                seen.add(new String(k, StandardCharsets.UTF_8));
            }
            assertEquals(keys, seen, "every key can come up");
        }

        @Test
        void randomKeySkipsExpiredKeys() {
            for (int i = 0; i < 200; i++) {
                setWithDeadline("dead" + i, "v", T0 + 10);
            }
            set("alive", "v");
            clock.advance(11);
            for (int i = 0; i < 20; i++) {
                assertEquals("alive", new String(ks.randomKey(), StandardCharsets.UTF_8));
            }
            ks.del(b("alive"));
            assertNull(ks.randomKey(), "only expired keys left");
        }

        @Test
        void msetSetsEveryPairAndClearsTtls() {
            setWithDeadline("a", "old", T0 + 1000);
            ks.mset(new byte[][] {b("a"), b("1"), b("b"), b("2"), b("c"), b("3")});
            assertEquals("1", get("a"));
            assertEquals("2", get("b"));
            assertEquals("3", get("c"));
            assertEquals(Keyspace.NO_TTL, deadline("a"));
            assertEquals(3, ks.size());
        }

        @Test
        void msetWithARepeatedKeyKeepsTheLast() {
            ks.mset(new byte[][] {b("a"), b("1"), b("a"), b("2")});
            assertEquals("2", get("a"));
            assertEquals(1, ks.size());
        }

        @Test
        void msetnxIsAllOrNothing() {
            set("b", "old");
            assertFalse(ks.msetnx(new byte[][] {b("a"), b("1"), b("b"), b("2")}));
            assertFalse(ks.exists(b("a")));
            assertEquals("old", get("b"));
            assertTrue(ks.msetnx(new byte[][] {b("a"), b("1"), b("c"), b("3"), b("a"), b("4")}));
            assertEquals("4", get("a"));
            assertEquals("3", get("c"));
            assertEquals(3, ks.size());
        }

        @Test
        void flushRemovesEverything() {
            set("a", "1");
            ks.set(b("big"), new byte[Keyspace.BLOB_THRESHOLD * 2], SetCondition.ALWAYS, NO_EXPIRY, false);
            ks.flush();
            assertEquals(0, ks.size());
            assertNull(ks.get(b("a")));
            assertNull(ks.randomKey());
            assertEquals(List.of(), TestData.list(TestData.blobDir(store, 0)));
            set("a", "2");
            assertEquals("2", get("a"));
        }

        @Test
        void forEachLiveKeySkipsExpiredKeys() {
            set("a", "1");
            setWithDeadline("b", "2", T0 + 1000);
            setWithDeadline("c", "3", T0 + 10);
            clock.advance(10);
            Set<String> atDeadline = new java.util.TreeSet<>();
            ks.forEachLiveKey(k -> atDeadline.add(new String(k, StandardCharsets.UTF_8)));
            assertEquals(Set.of("a", "b", "c"), atDeadline, "c lives through its deadline");
            clock.advance(1);
            Set<String> seen = new java.util.TreeSet<>();
            ks.forEachLiveKey(k -> seen.add(new String(k, StandardCharsets.UTF_8)));
            assertEquals(Set.of("a", "b"), seen);
        }

        private List<String> scanAll(int count) {
            List<String> out = new java.util.ArrayList<>();
            long cursor = 0;
            int calls = 0;
            do {
                cursor = ks.scan(cursor, count, k -> out.add(new String(k, StandardCharsets.UTF_8)));
                assertTrue(++calls < 100_000, "scan terminates");
            } while (cursor != 0);
            return out;
        }

        @Test
        void scanVisitsEveryLiveKeyOnce() {
            assertEquals(List.of(), scanAll(10));
            for (int i = 0; i < 5000; i++) {
                set("k" + i, "v");
            }
            setWithDeadline("dead", "v", T0 + 1);
            clock.advance(2);
            for (int count : new int[] {1, 10, 1000, 100_000}) {
                List<String> seen = scanAll(count);
                assertEquals(5000, seen.size(), "count " + count);
                assertEquals(5000, new HashSet<>(seen).size(), "no duplicates without growth, count " + count);
                assertFalse(seen.contains("dead"));
            }
        }

        @Test
        void scanAcrossGrowthMissesNoKey() {
            for (int i = 0; i < 10_000; i++) {
                set("old" + i, "v");
            }
            Set<String> seen = new HashSet<>();
            long cursor = ks.scan(0, 100, k -> seen.add(new String(k, StandardCharsets.UTF_8)));
            assertTrue(cursor != 0);
            int gen = ks.generation();
            for (int i = 0; i < 30_000; i++) {
                set("new" + i, "v");
            }
            assertTrue(ks.generation() > gen, "the map was replaced mid-scan");
            while (cursor != 0) {
                cursor = ks.scan(cursor, 100, k -> seen.add(new String(k, StandardCharsets.UTF_8)));
            }
            for (int i = 0; i < 10_000; i++) {
                assertTrue(seen.contains("old" + i), "old" + i);
            }
        }

        @Test
        void aCursorFromBeforeAFlushRestarts() {
            for (int i = 0; i < 3000; i++) {
                set("k" + i, "v");
            }
            long cursor = ks.scan(0, 10, k -> { });
            assertTrue(cursor != 0);
            ks.flush();
            set("after", "v");
            List<String> seen = new java.util.ArrayList<>();
            while (cursor != 0) {
                cursor = ks.scan(cursor, 10, k -> seen.add(new String(k, StandardCharsets.UTF_8)));
            }
            assertEquals(List.of("after"), seen);
        }
    }

    // ------------------------------------------------------------------ binary safety

    @Nested
    class BinarySafety {
        private byte[] allBytes() {
            byte[] out = new byte[256];
            for (int i = 0; i < 256; i++) {
                out[i] = (byte) i;
            }
            return out;
        }

        @Test
        void everyByteValueInKeyAndValue() {
            byte[] key = allBytes();
            byte[] value = allBytes();
            ks.set(key, value, SetCondition.ALWAYS, NO_EXPIRY, false);
            assertArrayEquals(value, ks.get(key).toBytes());
            assertArrayEquals(value, ks.get(allBytes()).toBytes(), "looked up by content, not identity");
            assertEquals(256, ks.strlen(key));
            assertArrayEquals(key, ks.randomKey());
        }

        @Test
        void eachSingleByteKeyIsDistinct() {
            for (int i = 0; i < 256; i++) {
                ks.set(new byte[] {(byte) i}, new byte[] {(byte) i, (byte) ~i}, SetCondition.ALWAYS, NO_EXPIRY, false);
            }
            assertEquals(256, ks.size());
            for (int i = 0; i < 256; i++) {
                assertArrayEquals(new byte[] {(byte) i, (byte) ~i}, ks.get(new byte[] {(byte) i}).toBytes());
            }
        }

        @Test
        void emptyKeyAndEmptyValue() {
            ks.set(new byte[0], b("empty key"), SetCondition.ALWAYS, NO_EXPIRY, false);
            ks.set(b("empty value"), new byte[0], SetCondition.ALWAYS, NO_EXPIRY, false);
            assertEquals("empty key", str(ks.get(new byte[0])));
            StringValue v = ks.get(b("empty value"));
            assertNotNull(v, "an empty string is a value, not an absent key");
            assertEquals(0, v.length());
            assertArrayEquals(new byte[0], v.toBytes());
            assertEquals(2, ks.size());
            assertEquals(OpStatus.NOT_INTEGER, ks.incrBy(b("empty value"), 1).status());
            assertEquals(new LengthResult(OpStatus.OK, 3), ks.append(b("empty value"), b("abc")));
            assertEquals("abc", str(ks.get(b("empty value"))));
            assertTrue(ks.del(new byte[0]));
            assertFalse(ks.exists(new byte[0]));
        }

        @Test
        void binaryValuesSurviveAppendAndSetRange() {
            byte[] v = allBytes();
            ks.append(b("k"), v);
            ks.append(b("k"), v);
            ks.setRange(b("k"), 510, new byte[] {(byte) 0xFF, 0, (byte) 0x80});
            byte[] expected = new byte[513];
            System.arraycopy(v, 0, expected, 0, 256);
            System.arraycopy(v, 0, expected, 256, 256);
            expected[510] = (byte) 0xFF;
            expected[511] = 0;
            expected[512] = (byte) 0x80;
            assertArrayEquals(expected, ks.get(b("k")).toBytes());
        }
    }
}
