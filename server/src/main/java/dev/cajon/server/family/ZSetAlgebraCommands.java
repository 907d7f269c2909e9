package dev.cajon.server.family;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.Ctx;
import dev.cajon.storage.ZSetOps;
import dev.cajon.storage.ZSetOps.Member;
import java.util.Arrays;
import java.util.List;

/**
 * ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD, with Redis 7.0.15's parsing order and
 * errors (t_zset.c's zunionInterDiffGenericCommand): one body, {@link #combineGeneric}, parses
 * numkeys, WEIGHTS, AGGREGATE and WITHSCORES; {@link ZSetOps} combines the inputs (sorted sets, or
 * plain sets whose members score 1).
 */
final class ZSetAlgebraCommands {
    private ZSetAlgebraCommands() {
    }

    private static void combineGeneric(Ctx c, byte[] dst, int numkeysIdx, ZSetOps.SetOp op, boolean cardOnly) {
        long setnum = ArgCursor.parseLong(c.arg(numkeysIdx));
        if (setnum < 1) {
            throw new CommandError(RedisErrors.atLeastOneInputKey(c.spec().name()));
        }
        if (setnum > c.argc() - (numkeysIdx + 1)) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        int n = (int) setnum;
        byte[][] keys = new byte[n][];
        for (int i = 0; i < n; i++) {
            keys[i] = c.arg(numkeysIdx + 1 + i);
        }
        double[] weights = new double[n];
        Arrays.fill(weights, 1.0);
        ZSetOps.Aggregate agg = ZSetOps.Aggregate.SUM;
        boolean withScores = false;
        long limit = 0;
        try {
            int j = numkeysIdx + 1 + n;
            int remaining = c.argc() - j;
            while (remaining > 0) {
                byte[] a = c.arg(j);
                if (op != ZSetOps.SetOp.DIFF && !cardOnly && remaining >= n + 1 && ArgCursor.is(a, "weights")) {
                    j++;
                    remaining--;
                    for (int i = 0; i < n; i++, j++, remaining--) {
                        weights[i] = ZSetArgs.parseScore(c.arg(j), RedisErrors.ZSET_WEIGHT_NOT_FLOAT);
                    }
                } else if (op != ZSetOps.SetOp.DIFF && !cardOnly && remaining >= 2 && ArgCursor.is(a, "aggregate")) {
                    j++;
                    byte[] how = c.arg(j);
                    if (ArgCursor.is(how, "sum")) {
                        agg = ZSetOps.Aggregate.SUM;
                    } else if (ArgCursor.is(how, "min")) {
                        agg = ZSetOps.Aggregate.MIN;
                    } else if (ArgCursor.is(how, "max")) {
                        agg = ZSetOps.Aggregate.MAX;
                    } else {
                        throw new CommandError(RedisErrors.SYNTAX);
                    }
                    j++;
                    remaining -= 2;
                } else if (remaining >= 1 && dst == null && !cardOnly && ArgCursor.is(a, "withscores")) {
                    j++;
                    remaining--;
                    withScores = true;
                } else if (cardOnly && remaining >= 2 && ArgCursor.is(a, "limit")) {
                    j++;
                    limit = SortedSetFamily.atLeast(c.arg(j), 0, RedisErrors.LIMIT_NEGATIVE);
                    j++;
                    remaining -= 2;
                } else {
                    throw new CommandError(RedisErrors.SYNTAX);
                }
            }
        } catch (CommandError e) {
            SortedSetFamily.zsets(c).checkInputs(keys); // Redis looks the inputs up (WRONGTYPE) before it parses the options
            throw e;
        }
        if (cardOnly) {
            c.integer(SortedSetFamily.zsets(c).interCard(keys, limit));
            return;
        }
        List<Member> result = SortedSetFamily.zsets(c).combine(op, keys, weights, agg, dst);
        if (dst != null) {
            if (!result.isEmpty()) {
                BlockingSortedSets.signal(c, dst);
            }
            c.integer(result.size());
        } else {
            SortedSetFamily.members(c, result, withScores);
        }
    }

    static void zunion(Ctx c) {
        combineGeneric(c, null, 1, ZSetOps.SetOp.UNION, false);
    }

    static void zinter(Ctx c) {
        combineGeneric(c, null, 1, ZSetOps.SetOp.INTER, false);
    }

    static void zdiff(Ctx c) {
        combineGeneric(c, null, 1, ZSetOps.SetOp.DIFF, false);
    }

    static void zunionstore(Ctx c) {
        combineGeneric(c, c.arg(1), 2, ZSetOps.SetOp.UNION, false);
    }

    static void zinterstore(Ctx c) {
        combineGeneric(c, c.arg(1), 2, ZSetOps.SetOp.INTER, false);
    }

    static void zdiffstore(Ctx c) {
        combineGeneric(c, c.arg(1), 2, ZSetOps.SetOp.DIFF, false);
    }

    static void zintercard(Ctx c) {
        combineGeneric(c, null, 1, ZSetOps.SetOp.INTER, true);
    }
}
