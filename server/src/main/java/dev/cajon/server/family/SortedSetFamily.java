package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.cmd;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.protocol.Resp;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.command.Glob;
import dev.cajon.server.command.Handler;
import dev.cajon.storage.ZSetOps;
import dev.cajon.storage.ZSetOps.AddOptions;
import dev.cajon.storage.ZSetOps.AddResult;
import dev.cajon.storage.ZSetOps.LexRange;
import dev.cajon.storage.ZSetOps.Member;
import dev.cajon.storage.ZSetOps.ScoreRange;
import dev.cajon.storage.collection.CollectionAccess;
import java.util.ArrayList;
import java.util.List;

/**
 * Sorted sets (ZADD, ZRANGE, ZUNIONSTORE, ZSCAN ...), with Redis 7.0.15's parsing order, error
 * texts and reply shapes (t_zset.c): the handlers parse and reply, {@link ZSetOps} does the work.
 * Variants share one body as in Redis: ZADD and ZINCRBY ({@link #zaddGeneric}), the whole ZRANGE
 * family and ZRANGESTORE ({@link #zrangeGeneric}), ZPOPMIN/ZPOPMAX/ZMPOP ({@link #popReply}).
 * ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD are {@link ZSetAlgebraCommands}'s, the
 * arguments' parsing {@link ZSetArgs}'s.
 *
 * <p>Scores are doubles in replies ({@code ,} in RESP3, a bulk string in RESP2); WITHSCORES gives
 * a flat member, score list in RESP2 and [member, score] pairs in RESP3, as Redis 7.0 does.
 */
public final class SortedSetFamily {
    private SortedSetFamily() {
    }

    /** A key of another type becomes the catalogue's WRONGTYPE error. */
    private static Handler w(Handler h) {
        return c -> {
            try {
                h.handle(c);
            } catch (CollectionAccess.WrongType e) {
                throw new CommandError(RedisErrors.WRONG_TYPE);
            }
        };
    }

    static ZSetOps zsets(Ctx c) {
        return c.keyspace().zsets();
    }

    // ------------------------------------------------------------------ replies

    /** Members, with scores as RESP2's flat list or RESP3's pairs. */
    static void members(Ctx c, List<Member> list, boolean withScores) {
        boolean pairs = withScores && c.protocol().isResp3();
        c.arrayHeader(withScores && !pairs ? list.size() * 2L : list.size());
        for (Member m : list) {
            if (pairs) {
                c.arrayHeader(2);
            }
            c.bulk(m.member());
            if (withScores) {
                c.doubleValue(m.score());
            }
        }
    }

    // ------------------------------------------------------------------ ZADD, ZINCRBY

    private static void zaddGeneric(Ctx c, boolean incrCommand) {
        boolean nx = false;
        boolean xx = false;
        boolean gt = false;
        boolean lt = false;
        boolean ch = false;
        boolean incr = incrCommand;
        int idx = 2;
        for (; idx < c.argc(); idx++) {
            byte[] a = c.arg(idx);
            if (ArgCursor.is(a, "nx")) {
                nx = true;
            } else if (ArgCursor.is(a, "xx")) {
                xx = true;
            } else if (ArgCursor.is(a, "ch")) {
                ch = true;
            } else if (ArgCursor.is(a, "incr")) {
                incr = true;
            } else if (ArgCursor.is(a, "gt")) {
                gt = true;
            } else if (ArgCursor.is(a, "lt")) {
                lt = true;
            } else {
                break;
            }
        }
        int elements = c.argc() - idx;
        if (elements % 2 != 0 || elements == 0) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        int pairs = elements / 2;
        if (nx && xx) {
            throw new CommandError(RedisErrors.ZADD_XX_AND_NX);
        }
        if (gt && nx || lt && nx || gt && lt) {
            throw new CommandError(RedisErrors.ZADD_GT_LT_NX);
        }
        if (incr && pairs > 1) {
            throw new CommandError(RedisErrors.ZADD_INCR_SINGLE_PAIR);
        }
        double[] scores = new double[pairs];
        byte[][] members = new byte[pairs][];
        for (int j = 0; j < pairs; j++) {
            scores[j] = ZSetArgs.parseScore(c.arg(idx + j * 2), RedisErrors.NOT_FLOAT);
            members[j] = c.arg(idx + j * 2 + 1);
        }
        AddResult r = zsets(c).add(c.arg(1), new AddOptions(nx, xx, gt, lt, incr), scores, members);
        if (r.nan()) {
            throw new CommandError(RedisErrors.ZSCORE_NAN);
        }
        if (r.added() > 0) {
            BlockingSortedSets.signal(c, c.arg(1));
        }
        if (incr) {
            if (r.processed() > 0) {
                c.doubleValue(r.score());
            } else {
                c.nullBulk();
            }
        } else {
            c.integer(ch ? r.added() + r.updated() : r.added());
        }
    }

    static void zadd(Ctx c) {
        zaddGeneric(c, false);
    }

    static void zincrby(Ctx c) {
        zaddGeneric(c, true);
    }

    // ------------------------------------------------------------------ simple reads and removals

    static void zrem(Ctx c) {
        byte[][] members = new byte[c.argc() - 2][];
        for (int i = 2; i < c.argc(); i++) {
            members[i - 2] = c.arg(i);
        }
        c.integer(zsets(c).remove(c.arg(1), members));
    }

    static void zscore(Ctx c) {
        Double s = zsets(c).score(c.arg(1), c.arg(2));
        if (s == null) {
            c.nullBulk();
        } else {
            c.doubleValue(s);
        }
    }

    static void zmscore(Ctx c) {
        byte[][] members = new byte[c.argc() - 2][];
        for (int i = 2; i < c.argc(); i++) {
            members[i - 2] = c.arg(i);
        }
        Double[] s = zsets(c).scores(c.arg(1), members);
        c.arrayHeader(s.length);
        for (Double d : s) {
            if (d == null) {
                c.nullBulk();
            } else {
                c.doubleValue(d);
            }
        }
    }

    static void zcard(Ctx c) {
        c.integer(zsets(c).card(c.arg(1)));
    }

    static void zcount(Ctx c) {
        ScoreRange r = ZSetArgs.scoreRange(c.arg(2), c.arg(3));
        c.integer(zsets(c).count(c.arg(1), r));
    }

    static void zlexcount(Ctx c) {
        LexRange r = ZSetArgs.lexRange(c.arg(2), c.arg(3));
        c.integer(zsets(c).lexCount(c.arg(1), r));
    }

    private static void rank(Ctx c, boolean reverse) {
        Long r = zsets(c).rank(c.arg(1), c.arg(2), reverse);
        if (r == null) {
            c.nullBulk();
        } else {
            c.integer(r);
        }
    }

    static void zrank(Ctx c) {
        rank(c, false);
    }

    static void zrevrank(Ctx c) {
        rank(c, true);
    }

    static void zremrangebyrank(Ctx c) {
        long start = ArgCursor.parseLong(c.arg(2));
        long end = ArgCursor.parseLong(c.arg(3));
        c.integer(zsets(c).removeByRank(c.arg(1), start, end));
    }

    static void zremrangebyscore(Ctx c) {
        ScoreRange r = ZSetArgs.scoreRange(c.arg(2), c.arg(3));
        c.integer(zsets(c).removeByScore(c.arg(1), r));
    }

    static void zremrangebylex(Ctx c) {
        LexRange r = ZSetArgs.lexRange(c.arg(2), c.arg(3));
        c.integer(zsets(c).removeByLex(c.arg(1), r));
    }

    // ------------------------------------------------------------------ the ZRANGE family

    private enum By { AUTO, RANK, SCORE, LEX }

    private enum Dir { AUTO, FORWARD, REVERSE }

    /** Redis's zrangeGenericCommand: {@code first} is the source key's position; {@code store}: ZRANGESTORE. */
    private static void zrangeGeneric(Ctx c, int first, boolean store, By by, Dir dir) {
        byte[] key = c.arg(first);
        int minIdx = first + 1;
        int maxIdx = first + 2;
        boolean withScores = false;
        long offset = 0;
        long limit = -1;
        boolean limitGiven = false;
        for (int j = first + 3; j < c.argc(); j++) {
            int left = c.argc() - j - 1;
            byte[] a = c.arg(j);
            if (!store && ArgCursor.is(a, "withscores")) {
                withScores = true;
            } else if (ArgCursor.is(a, "limit") && left >= 2) {
                offset = ArgCursor.parseLong(c.arg(j + 1));
                limit = ArgCursor.parseLong(c.arg(j + 2));
                limitGiven = true;
                j += 2;
            } else if (dir == Dir.AUTO && ArgCursor.is(a, "rev")) {
                dir = Dir.REVERSE;
            } else if (by == By.AUTO && ArgCursor.is(a, "bylex")) {
                by = By.LEX;
            } else if (by == By.AUTO && ArgCursor.is(a, "byscore")) {
                by = By.SCORE;
            } else {
                throw new CommandError(RedisErrors.SYNTAX);
            }
        }
        if (dir == Dir.AUTO) {
            dir = Dir.FORWARD;
        }
        if (by == By.AUTO) {
            by = By.RANK;
        }
        if (limit != -1 && by == By.RANK) {
            throw new CommandError(RedisErrors.ZRANGE_LIMIT_NEEDS_BY);
        }
        if (withScores && by == By.LEX) {
            throw new CommandError(RedisErrors.ZRANGE_WITHSCORES_BYLEX);
        }
        boolean reverse = dir == Dir.REVERSE;
        if (reverse && by != By.RANK) {
            int t = maxIdx;
            maxIdx = minIdx;
            minIdx = t;
        }
        ZSetOps.Range range;
        switch (by) {
            case RANK -> range = new ZSetOps.RankRange(ArgCursor.parseLong(c.arg(minIdx)), ArgCursor.parseLong(c.arg(maxIdx)));
            case SCORE -> range = new ZSetOps.ScoreSpan(ZSetArgs.scoreRange(c.arg(minIdx), c.arg(maxIdx)), offset, limit);
            default -> range = new ZSetOps.LexSpan(ZSetArgs.lexRange(c.arg(minIdx), c.arg(maxIdx)), offset, limit);
        }
        if (store) {
            long stored = zsets(c).rangeStore(c.arg(1), key, range, reverse);
            if (stored > 0) {
                BlockingSortedSets.signal(c, c.arg(1));
            }
            c.integer(stored);
            return;
        }
        List<Member> got;
        if (range instanceof ZSetOps.RankRange r) {
            got = zsets(c).rangeByRank(key, r.start(), r.end(), reverse);
        } else if (range instanceof ZSetOps.ScoreSpan s) {
            got = zsets(c).rangeByScore(key, s.range(), reverse, s.offset(), s.limit());
        } else {
            ZSetOps.LexSpan l = (ZSetOps.LexSpan) range;
            got = zsets(c).rangeByLex(key, l.range(), reverse, l.offset(), l.limit());
        }
        members(c, got, withScores);
    }

    static void zrange(Ctx c) {
        zrangeGeneric(c, 1, false, By.AUTO, Dir.AUTO);
    }

    static void zrangestore(Ctx c) {
        zrangeGeneric(c, 2, true, By.AUTO, Dir.AUTO);
    }

    static void zrevrange(Ctx c) {
        zrangeGeneric(c, 1, false, By.RANK, Dir.REVERSE);
    }

    static void zrangebyscore(Ctx c) {
        zrangeGeneric(c, 1, false, By.SCORE, Dir.FORWARD);
    }

    static void zrevrangebyscore(Ctx c) {
        zrangeGeneric(c, 1, false, By.SCORE, Dir.REVERSE);
    }

    static void zrangebylex(Ctx c) {
        zrangeGeneric(c, 1, false, By.LEX, Dir.FORWARD);
    }

    static void zrevrangebylex(Ctx c) {
        zrangeGeneric(c, 1, false, By.LEX, Dir.REVERSE);
    }

    // ------------------------------------------------------------------ pops

    /**
     * A pop's reply, as Redis's genericZpopCommand: RESP2 (or a single pop) a flat member, score
     * list; RESP3 with a count, pairs; ZMPOP the key and pairs in both protocols.
     */
    private static void popReply(Ctx c, List<Member> got, boolean nested) {
        c.arrayHeader(nested ? got.size() : got.size() * 2L);
        for (Member m : got) {
            if (nested) {
                c.arrayHeader(2);
            }
            c.bulk(m.member());
            c.doubleValue(m.score());
        }
    }

    private static void zpop(Ctx c, boolean max) {
        if (c.argc() > 3) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        long count = -1;
        if (c.argc() == 3) {
            count = ArgCursor.parseLong(c.arg(2), RedisErrors.NOT_POSITIVE);
            if (count < 0) {
                throw new CommandError(RedisErrors.NOT_POSITIVE);
            }
        }
        boolean nested = c.protocol().isResp3() && count != -1;
        ZSetOps.PopResult r = zsets(c).pop(new byte[][] {c.arg(1)}, max, count == -1 ? 1 : count);
        popReply(c, r.members(), nested);
    }

    static void zpopmin(Ctx c) {
        zpop(c, false);
    }

    static void zpopmax(Ctx c) {
        zpop(c, true);
    }

    /** Redis's getRangeLongFromObjectOrReply with a message of its own: [min, LONG_MAX]. */
    static long atLeast(byte[] b, long min, String error) {
        long v = ArgCursor.parseLong(b, error);
        if (v < min) {
            throw new CommandError(error);
        }
        return v;
    }

    /**
     * ZMPOP's and BZMPOP's arguments from {@code numkeysIdx} on, in Redis's order (numkeys, the
     * keys, MIN|MAX, COUNT): count 1 when not given.
     */
    record MpopArgs(byte[][] keys, boolean max, long count) {
        static MpopArgs parse(Ctx c, int numkeysIdx) {
            long numkeys = atLeast(c.arg(numkeysIdx), 1, RedisErrors.NUMKEYS_NOT_POSITIVE);
            if (numkeys >= c.argc() - numkeysIdx - 1) {
                throw new CommandError(RedisErrors.SYNTAX);
            }
            int whereIdx = (int) (numkeysIdx + 1 + numkeys);
            boolean max;
            if (ArgCursor.is(c.arg(whereIdx), "min")) {
                max = false;
            } else if (ArgCursor.is(c.arg(whereIdx), "max")) {
                max = true;
            } else {
                throw new CommandError(RedisErrors.SYNTAX);
            }
            long count = -1;
            for (int j = whereIdx + 1; j < c.argc(); j++) {
                int more = c.argc() - 1 - j;
                if (count == -1 && ArgCursor.is(c.arg(j), "count") && more > 0) {
                    j++;
                    count = atLeast(c.arg(j), 1, RedisErrors.COUNT_NOT_POSITIVE);
                } else {
                    throw new CommandError(RedisErrors.SYNTAX);
                }
            }
            byte[][] keys = new byte[(int) numkeys][];
            for (int i = 0; i < numkeys; i++) {
                keys[i] = c.arg(numkeysIdx + 1 + i);
            }
            return new MpopArgs(keys, max, count == -1 ? 1 : count);
        }
    }

    /** ZMPOP's (and BZMPOP's) reply: the key and [member, score] pairs in both protocols. */
    static void keyAndMembers(Ctx c, byte[] key, List<Member> got) {
        c.arrayHeader(2);
        c.bulk(key);
        popReply(c, got, true);
    }

    static void zmpop(Ctx c) {
        MpopArgs a = MpopArgs.parse(c, 1);
        ZSetOps.PopResult r = zsets(c).pop(a.keys(), a.max(), a.count());
        if (r.key() == null) {
            c.nullArray();
            return;
        }
        keyAndMembers(c, r.key(), r.members());
    }

    // ------------------------------------------------------------------ ZRANDMEMBER, ZSCAN

    static void zrandmember(Ctx c) {
        if (c.argc() >= 3) {
            long l = ArgCursor.parseLong(c.arg(2));
            if (l == Long.MIN_VALUE) {
                throw new CommandError(RedisErrors.outOfRangeBetween(-Long.MAX_VALUE, Long.MAX_VALUE));
            }
            if (c.argc() > 4 || c.argc() == 4 && !ArgCursor.is(c.arg(3), "withscores")) {
                throw new CommandError(RedisErrors.SYNTAX);
            }
            boolean withScores = c.argc() == 4;
            if (withScores && (l < -Long.MAX_VALUE / 2 || l > Long.MAX_VALUE / 2)) {
                throw new CommandError(RedisErrors.OUT_OF_RANGE);
            }
            List<Member> got = zsets(c).randomMembers(c.arg(1), l);
            members(c, got, withScores);
            return;
        }
        byte[] m = zsets(c).randomMember(c.arg(1));
        if (m == null) {
            c.nullBulk();
        } else {
            c.bulk(m);
        }
    }

    /** ZSCAN key cursor [MATCH pattern] [COUNT count]: scores as bulk strings in both protocols. */
    static void zscan(Ctx c) {
        long cursor = KeyFamily.parseCursor(c.arg(2));
        long count = 10;
        byte[] pattern = null;
        CommandError bad = null;
        for (int i = 3; i < c.argc() && bad == null; ) {
            int left = c.argc() - i;
            if (ArgCursor.is(c.arg(i), "count") && left >= 2) {
                try {
                    count = ArgCursor.parseLong(c.arg(i + 1));
                    if (count < 1) {
                        bad = new CommandError(RedisErrors.SYNTAX);
                    }
                } catch (CommandError e) {
                    bad = e;
                }
                i += 2;
            } else if (ArgCursor.is(c.arg(i), "match") && left >= 2) {
                pattern = c.arg(i + 1);
                if (pattern.length == 1 && pattern[0] == '*') {
                    pattern = null;
                }
                i += 2;
            } else {
                bad = new CommandError(RedisErrors.SYNTAX);
            }
        }
        if (bad != null) {
            if (zsets(c).card(c.arg(1)) == 0) { // a missing key answers the empty scan first, as Redis
                emptyScan(c);
                return;
            }
            throw bad;
        }
        ZSetOps.ScanResult r = zsets(c).scan(c.arg(1), cursor, count);
        List<Member> shown = new ArrayList<>();
        for (Member m : r.members()) {
            if (pattern == null || Glob.matches(pattern, m.member())) {
                shown.add(m);
            }
        }
        c.arrayHeader(2);
        c.bulk(Long.toUnsignedString(r.cursor()));
        c.arrayHeader(shown.size() * 2L);
        for (Member m : shown) {
            c.bulk(m.member());
            c.bulk(Resp.formatDouble(m.score()));
        }
    }

    private static void emptyScan(Ctx c) {
        c.arrayHeader(2);
        c.bulk("0");
        c.arrayHeader(0);
    }

    public static void register(CommandTable t) {
        t.register(cmd("zadd", -4, "write denyoom fast", 1, 1, 1, "sorted-set", "1.2.0", "Add one or more members to a sorted set, or update its score if it already exists", w(SortedSetFamily::zadd)));
        t.register(cmd("zincrby", 4, "write denyoom fast", 1, 1, 1, "sorted-set", "1.2.0", "Increment the score of a member in a sorted set", w(SortedSetFamily::zincrby)));
        t.register(cmd("zrem", -3, "write fast", 1, 1, 1, "sorted-set", "1.2.0", "Remove one or more members from a sorted set", w(SortedSetFamily::zrem)));
        t.register(cmd("zscore", 3, "readonly fast", 1, 1, 1, "sorted-set", "1.2.0", "Get the score associated with the given member in a sorted set", w(SortedSetFamily::zscore)));
        t.register(cmd("zmscore", -3, "readonly fast", 1, 1, 1, "sorted-set", "6.2.0", "Get the score associated with the given members in a sorted set", w(SortedSetFamily::zmscore)));
        t.register(cmd("zcard", 2, "readonly fast", 1, 1, 1, "sorted-set", "1.2.0", "Get the number of members in a sorted set", w(SortedSetFamily::zcard)));
        t.register(cmd("zcount", 4, "readonly fast", 1, 1, 1, "sorted-set", "2.0.0", "Count the members in a sorted set with scores within the given values", w(SortedSetFamily::zcount)));
        t.register(cmd("zlexcount", 4, "readonly fast", 1, 1, 1, "sorted-set", "2.8.9", "Count the number of members in a sorted set between a given lexicographical range", w(SortedSetFamily::zlexcount)));
        t.register(cmd("zrange", -4, "readonly", 1, 1, 1, "sorted-set", "1.2.0", "Return a range of members in a sorted set", w(SortedSetFamily::zrange)));
        t.register(cmd("zrangestore", -5, "write denyoom", 1, 2, 1, "sorted-set", "6.2.0", "Store a range of members from sorted set into another key", w(SortedSetFamily::zrangestore)));
        t.register(cmd("zrangebyscore", -4, "readonly", 1, 1, 1, "sorted-set", "1.0.5", "Return a range of members in a sorted set, by score", w(SortedSetFamily::zrangebyscore)));
        t.register(cmd("zrevrangebyscore", -4, "readonly", 1, 1, 1, "sorted-set", "2.2.0", "Return a range of members in a sorted set, by score, with scores ordered from high to low", w(SortedSetFamily::zrevrangebyscore)));
        t.register(cmd("zrangebylex", -4, "readonly", 1, 1, 1, "sorted-set", "2.8.9", "Return a range of members in a sorted set, by lexicographical range", w(SortedSetFamily::zrangebylex)));
        t.register(cmd("zrevrangebylex", -4, "readonly", 1, 1, 1, "sorted-set", "2.8.9", "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings.", w(SortedSetFamily::zrevrangebylex)));
        t.register(cmd("zrevrange", -4, "readonly", 1, 1, 1, "sorted-set", "1.2.0", "Return a range of members in a sorted set, by index, with scores ordered from high to low", w(SortedSetFamily::zrevrange)));
        t.register(cmd("zrank", 3, "readonly fast", 1, 1, 1, "sorted-set", "2.0.0", "Determine the index of a member in a sorted set", w(SortedSetFamily::zrank)));
        t.register(cmd("zrevrank", 3, "readonly fast", 1, 1, 1, "sorted-set", "2.0.0", "Determine the index of a member in a sorted set, with scores ordered from high to low", w(SortedSetFamily::zrevrank)));
        t.register(cmd("zpopmin", -2, "write fast", 1, 1, 1, "sorted-set", "5.0.0", "Remove and return members with the lowest scores in a sorted set", w(SortedSetFamily::zpopmin)));
        t.register(cmd("zpopmax", -2, "write fast", 1, 1, 1, "sorted-set", "5.0.0", "Remove and return members with the highest scores in a sorted set", w(SortedSetFamily::zpopmax)));
        t.register(cmd("zmpop", -4, "write movablekeys", 0, 0, 0, "sorted-set", "7.0.0", "Remove and return members with scores in a sorted set", w(SortedSetFamily::zmpop)));
        t.register(cmd("bzpopmin", -3, "write noscript blocking fast", 1, -2, 1, "sorted-set", "5.0.0", "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available", w(BlockingSortedSets::bzpopmin)));
        t.register(cmd("bzpopmax", -3, "write noscript blocking fast", 1, -2, 1, "sorted-set", "5.0.0", "Remove and return the member with the highest score from one or more sorted sets, or block until one is available", w(BlockingSortedSets::bzpopmax)));
        t.register(cmd("bzmpop", -5, "write blocking movablekeys", 0, 0, 0, "sorted-set", "7.0.0", "Remove and return members with scores in a sorted set or block until one is available", w(BlockingSortedSets::bzmpop)));
        t.register(cmd("zremrangebyrank", 4, "write", 1, 1, 1, "sorted-set", "2.0.0", "Remove all members in a sorted set within the given indexes", w(SortedSetFamily::zremrangebyrank)));
        t.register(cmd("zremrangebyscore", 4, "write", 1, 1, 1, "sorted-set", "1.2.0", "Remove all members in a sorted set within the given scores", w(SortedSetFamily::zremrangebyscore)));
        t.register(cmd("zremrangebylex", 4, "write", 1, 1, 1, "sorted-set", "2.8.9", "Remove all members in a sorted set between the given lexicographical range", w(SortedSetFamily::zremrangebylex)));
        t.register(cmd("zunion", -3, "readonly movablekeys", 0, 0, 0, "sorted-set", "6.2.0", "Add multiple sorted sets", w(ZSetAlgebraCommands::zunion)));
        t.register(cmd("zinter", -3, "readonly movablekeys", 0, 0, 0, "sorted-set", "6.2.0", "Intersect multiple sorted sets", w(ZSetAlgebraCommands::zinter)));
        t.register(cmd("zdiff", -3, "readonly movablekeys", 0, 0, 0, "sorted-set", "6.2.0", "Subtract multiple sorted sets", w(ZSetAlgebraCommands::zdiff)));
        t.register(cmd("zunionstore", -4, "write denyoom movablekeys", 1, 1, 1, "sorted-set", "2.0.0", "Add multiple sorted sets and store the resulting sorted set in a new key", w(ZSetAlgebraCommands::zunionstore)));
        t.register(cmd("zinterstore", -4, "write denyoom movablekeys", 1, 1, 1, "sorted-set", "2.0.0", "Intersect multiple sorted sets and store the resulting sorted set in a new key", w(ZSetAlgebraCommands::zinterstore)));
        t.register(cmd("zdiffstore", -4, "write denyoom movablekeys", 1, 1, 1, "sorted-set", "6.2.0", "Subtract multiple sorted sets and store the resulting sorted set in a new key", w(ZSetAlgebraCommands::zdiffstore)));
        t.register(cmd("zintercard", -3, "readonly movablekeys", 0, 0, 0, "sorted-set", "7.0.0", "Intersect multiple sorted sets and return the cardinality of the result", w(ZSetAlgebraCommands::zintercard)));
        t.register(cmd("zrandmember", -2, "readonly", 1, 1, 1, "sorted-set", "6.2.0", "Get one or multiple random elements from a sorted set", w(SortedSetFamily::zrandmember)));
        t.register(cmd("zscan", -3, "readonly", 1, 1, 1, "sorted-set", "2.8.0", "Incrementally iterate sorted sets elements and associated scores", w(SortedSetFamily::zscan)));
    }
}
