package dev.cajon.storage.expiry;

import static dev.cajon.storage.expiry.ExpiryFixture.DAY;
import static dev.cajon.storage.expiry.ExpiryFixture.NO_EXPIRY;
import static dev.cajon.storage.expiry.ExpiryFixture.T0;
import static dev.cajon.storage.expiry.ExpiryFixture.b;
import static dev.cajon.storage.expiry.ExpiryFixture.liveKeys;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cajon.storage.ExpireCondition;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.OpStatus;
import dev.cajon.storage.SetCondition;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random operations on two keyspaces that share one wheel, against a reference model (per db, a
 * map of key to deadline). The model follows Redis 7 exactly: a key is alive iff
 * {@code deadline >= now} (keyIsExpired is {@code now > when}, so a key lives through its deadline
 * millisecond), while a write that sets a deadline {@code <= now} deletes the key at once
 * (checkAlreadyExpired). The clock only moves in "advance" steps, each immediately followed by
 * {@code wheel.advance()}; after it returns, no key past its deadline may be held and a key at its
 * deadline must still be there: DBSIZE, the live key set, the volatile count and the expired counter must
 * all match the model exactly. Between advances the clock stands still, so a correct wheel leaves
 * reads nothing to reclaim lazily, and the expired counter counts only the wheel's work.
 *
 * <p>Deadlines are drawn at every level of the wheel and sometimes exactly on a slot boundary;
 * clock steps are sometimes exactly to the next pending deadline (the key must survive), 1 ms
 * past it (it must be reclaimed) or 1 ms before it. A failure
 * names the seed and the step; the last operations are printed.
 */
class ExpiryModelTest {
    private static final long NONE = Long.MAX_VALUE; // model: no deadline
    /**
     * Keyspace.set deletes a key when KEEPTTL carries over a deadline equal to now (a key at its
     * deadline millisecond), where Redis keeps it; the disabled
     * KeyspaceTest.SetAndGet#keepTtlAtTheDeadlineKeepsTheKeyAndItsDeadline pins the fix. Until
     * then the model does not issue SET KEEPTTL on a key at its deadline. Set this to true (and
     * enable that test) once Keyspace is fixed.
     */
    private static final boolean KEEPTTL_AT_THE_DEADLINE_FIXED = true;

    @TempDir
    Path dir;

    static Stream<Arguments> cases() {
        Stream<Arguments> small = LongStream.range(0, 12).mapToObj(s -> Arguments.of(s, 40, 3_000));
        Stream<Arguments> large = LongStream.range(100, 102).mapToObj(s -> Arguments.of(s, 3_000, 20_000));
        return Stream.concat(small, large);
    }

    @ParameterizedTest(name = "seed {0}, {1} key names, {2} steps")
    @MethodSource("cases")
    void theWheelMatchesAReferenceModel(long seed, int names, int steps) {
        Random rnd = new Random(seed);
        long start = T0 + (seed % 3 == 0 ? 0 : rnd.nextInt(1 << 20));
        ArrayDeque<String> trail = new ArrayDeque<>();
        try (ExpiryFixture f = new ExpiryFixture(dir, start)) {
            Keyspace[] dbs = {f.ks, f.db(1)};
            @SuppressWarnings("unchecked")
            Map<String, Long>[] model = new Map[] {new HashMap<>(), new HashMap<>()};
            long[] expired = new long[2];
            int advances = 0;
            for (int step = 0; step < steps; step++) {
                int d = rnd.nextInt(2);
                Keyspace ks = dbs[d];
                Map<String, Long> m = model[d];
                String k = "key:" + rnd.nextInt(names);
                long now = f.now();
                int op = rnd.nextInt(100);
                String what;
                if (op < 22) {
                    long at = rnd.nextInt(20) == 0 ? now - rnd.nextInt(3) : now + ttl(rnd, now);
                    what = "SET " + k + " PXAT +" + (at - now);
                    assertEquals(OpStatus.OK, ks.set(b(k), b("7"), SetCondition.ALWAYS, at, false).status(), what);
                    if (at <= now) {
                        m.remove(k); // a write with a deadline at or before now deletes
                    } else {
                        m.put(k, at);
                    }
                } else if (op < 30) {
                    what = "SET " + k;
                    ks.set(b(k), b("7"), SetCondition.ALWAYS, NO_EXPIRY, false);
                    m.put(k, NONE);
                } else if (op < 34) {
                    long at = now + ttl(rnd, now);
                    what = "SET " + k + " NX PXAT +" + (at - now);
                    OpStatus st = ks.set(b(k), b("7"), SetCondition.IF_ABSENT, at, false).status();
                    assertEquals(m.containsKey(k) ? OpStatus.NOT_APPLIED : OpStatus.OK, st, what);
                    m.putIfAbsent(k, at);
                } else if (op < 37) {
                    what = "SET " + k + " KEEPTTL";
                    Long cur = m.get(k);
                    if (!KEEPTTL_AT_THE_DEADLINE_FIXED && cur != null && cur == now) {
                        what += " (skipped: key at its deadline)";
                    } else {
                        // the key keeps its deadline, even one equal to now (it is live through it)
                        ks.set(b(k), b("7"), SetCondition.ALWAYS, Keyspace.KEEP_TTL, false);
                        m.putIfAbsent(k, NONE);
                    }
                } else if (op < 50) {
                    int[] conds = {ExpireCondition.NONE, ExpireCondition.NONE, ExpireCondition.NX, ExpireCondition.XX,
                        ExpireCondition.GT, ExpireCondition.LT};
                    int cond = conds[rnd.nextInt(conds.length)];
                    long at = rnd.nextInt(20) == 0 ? now - rnd.nextInt(3) : now + ttl(rnd, now);
                    what = "PEXPIREAT " + k + " +" + (at - now) + " cond " + cond;
                    Long cur = m.get(k);
                    boolean expect = cur != null && applies(cond, cur, at);
                    assertEquals(expect, ks.expireAt(b(k), at, cond), what);
                    if (expect) {
                        if (at <= now) {
                            m.remove(k);
                        } else {
                            m.put(k, at);
                        }
                    }
                } else if (op < 56) {
                    what = "PERSIST " + k;
                    Long cur = m.get(k);
                    boolean expect = cur != null && cur != NONE;
                    assertEquals(expect, ks.persist(b(k)), what);
                    if (expect) {
                        m.put(k, NONE);
                    }
                } else if (op < 63) {
                    what = "DEL " + k;
                    assertEquals(m.remove(k) != null, ks.del(b(k)), what);
                } else if (op < 68) {
                    int kind = rnd.nextInt(20);
                    long at = kind < 5 ? NO_EXPIRY : kind == 5 ? now - rnd.nextInt(2) : now + ttl(rnd, now);
                    what = "GETEX " + k + (at == NO_EXPIRY ? " PERSIST" : " PXAT +" + (at - now));
                    boolean present = ks.getEx(b(k), at) != null;
                    assertEquals(m.containsKey(k), present, what);
                    if (present) {
                        if (at != NO_EXPIRY && at <= now) {
                            m.remove(k); // returned, then deleted
                        } else {
                            m.put(k, at == NO_EXPIRY ? NONE : at);
                        }
                    }
                } else if (op < 71) {
                    what = "INCR " + k;
                    assertEquals(OpStatus.OK, ks.incrBy(b(k), 1).status(), what);
                    m.putIfAbsent(k, NONE);
                } else if (op < 74) {
                    String dst = "key:" + rnd.nextInt(names);
                    what = "RENAME " + k + " " + dst;
                    Long cur = m.get(k);
                    assertEquals(cur == null ? OpStatus.NOT_FOUND : OpStatus.OK, ks.rename(b(k), b(dst), false), what);
                    if (cur != null && !k.equals(dst)) {
                        m.remove(k);
                        m.put(dst, cur);
                    }
                } else if (op < 75 && rnd.nextInt(5) == 0) {
                    what = "FLUSHDB";
                    ks.flush();
                    m.clear();
                } else {
                    long to = nextTime(rnd, now, model);
                    what = "advance +" + (to - now) + " to " + (to - start);
                    f.clock.set(to);
                    f.wheel.advance();
                    advances++;
                    for (int i = 0; i < 2; i++) {
                        int before = model[i].size();
                        model[i].values().removeIf(at -> at < to); // alive iff deadline >= now
                        expired[i] += before - model[i].size();
                    }
                    remember(trail, what);
                    check(dbs, model, expired, names <= 100 || advances % 50 == 0,
                            "seed " + seed + " step " + step + " (" + what + "), recent ops: " + trail);
                    continue;
                }
                remember(trail, "db" + d + " " + what);
            }
            check(dbs, model, expired, true, "seed " + seed + " at the end");
        } catch (AssertionError e) {
            System.out.println("ExpiryModelTest: seed " + seed + " failed; last ops: " + trail);
            throw e;
        }
    }

    private static void remember(ArrayDeque<String> trail, String what) {
        trail.addLast(what);
        if (trail.size() > 12) {
            trail.removeFirst();
        }
    }

    private static boolean applies(int cond, long cur, long at) {
        boolean hasTtl = cur != NONE;
        return switch (cond) {
            case ExpireCondition.NX -> !hasTtl;
            case ExpireCondition.XX -> hasTtl;
            case ExpireCondition.GT -> hasTtl && at > cur;
            case ExpireCondition.LT -> !hasTtl || at < cur;
            default -> true;
        };
    }

    private static void check(Keyspace[] dbs, Map<String, Long>[] model, long[] expired, boolean full, String where) {
        for (int i = 0; i < dbs.length; i++) {
            Map<String, Long> m = model[i];
            long withTtl = m.values().stream().filter(at -> at != NONE).count();
            assertEquals(m.size(), dbs[i].size(), "db" + i + " DBSIZE after advance(), " + where);
            assertEquals(expired[i], dbs[i].expiredCount(), "db" + i + " expired_keys, " + where);
            assertEquals(withTtl, dbs[i].volatileSize(), "db" + i + " expires, " + where);
            if (full) {
                assertEquals(m.keySet(), liveKeys(dbs[i]), "db" + i + " live keys, " + where);
                for (Map.Entry<String, Long> e : m.entrySet()) {
                    long want = e.getValue() == NONE ? Keyspace.NO_TTL : e.getValue();
                    assertEquals(want, dbs[i].deadline(b(e.getKey())), "db" + i + " deadline of " + e.getKey() + ", "
                            + where);
                }
            }
        }
    }

    /** A TTL of at least 1 ms, at any level of the wheel, sometimes ending on a slot boundary. */
    private static long ttl(Random rnd, long now) {
        switch (rnd.nextInt(8)) {
            case 0:
                return 1 + rnd.nextInt(300);
            case 1:
                return 1 + rnd.nextInt(20_000);
            case 2:
                return 1 + rnd.nextInt(2_000_000);
            case 3:
                return 1 + (long) (rnd.nextDouble() * 3 * DAY);
            case 4:
            case 5: {
                long unit = 1L << (8 + 6 * rnd.nextInt(3)); // 256 ms, 16.4 s, 17.5 min
                long at = (now / unit + 1 + rnd.nextInt(3)) * unit;
                return at - now;
            }
            default:
                return 1 + rnd.nextInt(5_000);
        }
    }

    /**
     * Where the next clock step goes: nowhere, a little, a lot, or exactly to the next pending
     * deadline (which may be now itself), 1 ms past it, or 1 ms before it.
     */
    private static long nextTime(Random rnd, long now, Map<String, Long>[] model) {
        long next = Long.MAX_VALUE;
        for (Map<String, Long> m : model) {
            for (long at : m.values()) {
                if (at >= now && at < next) {
                    next = at;
                }
            }
        }
        int c = rnd.nextInt(10);
        if (next != Long.MAX_VALUE && next != NONE && c < 2) {
            return next + 1; // 1 ms past the next deadline: that key must go
        }
        if (next != Long.MAX_VALUE && next != NONE && c < 4) {
            return next; // exactly the next deadline: that key must stay
        }
        if (next != Long.MAX_VALUE && next != NONE && c < 5 && next - 1 > now) {
            return next - 1; // 1 ms before it
        }
        return switch (c) {
            case 5 -> now;
            case 6 -> now + 1;
            case 7 -> now + 1 + rnd.nextInt(300);
            case 8 -> now + 1 + rnd.nextInt(60_000);
            default -> now + 1 + (long) (rnd.nextDouble() * (rnd.nextBoolean() ? 2 * DAY : 20_000));
        };
    }
}
