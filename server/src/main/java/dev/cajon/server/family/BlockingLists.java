package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.cmd;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.blocking.BlockingKeys;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.ListOps;
import dev.cajon.storage.Numbers;
import dev.cajon.storage.collection.CollectionAccess;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * BLPOP, BRPOP, BLMPOP, BLMOVE and BRPOPLPUSH: each first does what its non-blocking form does
 * (in Redis's order: the keys in argument order, a key of another type met before a non-empty
 * list answers WRONGTYPE); when every key is empty it blocks on {@link BlockingKeys}, unless it
 * runs inside MULTI (then, as Redis's CLIENT_DENY_BLOCKING, it answers the timeout's null at
 * once). The timeout follows Redis's getTimeoutFromObjectOrReply: seconds as a long double,
 * truncated to milliseconds, 0 for ever.
 */
final class BlockingLists {
    private BlockingLists() {
    }

    /** {@code key} got new elements: clients blocked on it are served after this command. */
    static void signal(Ctx c, byte[] key) {
        c.readyKey(key);
    }

    /**
     * A blocking timeout in milliseconds from now (0: for ever), rounded up to the millisecond.
     * Non-numbers and NaN: "timeout is not a float or out of range"; a negative value, an
     * infinity, and a value whose milliseconds do not fit in a long (which Redis's cast turns into
     * LLONG_MIN): "timeout is negative".
     */
    static long timeoutMillis(byte[] arg) {
        BigDecimal v = Numbers.parseLongDouble(arg, 0, arg.length);
        if (v == null) {
            throw new CommandError(RedisErrors.TIMEOUT_NOT_FLOAT);
        }
        if (Numbers.isInfinite(v)) {
            throw new CommandError(RedisErrors.TIMEOUT_NEGATIVE);
        }
        // Redis 7.0.15: ceill of the long double product, so that 0.001 (just under a thousandth
        // as a long double, and so just under 1 ms once multiplied) is 1 ms, not 0 (for ever);
        // a small negative value rounds up to 0, which blocks for ever there too
        BigDecimal ms = Numbers.roundToLongDouble(v.multiply(BigDecimal.valueOf(1000)));
        if (ms == null) {
            throw new CommandError(RedisErrors.TIMEOUT_NEGATIVE);
        }
        java.math.BigInteger whole = ms.setScale(0, java.math.RoundingMode.CEILING).toBigInteger();
        if (whole.bitLength() > 63 || whole.signum() < 0) {
            throw new CommandError(RedisErrors.TIMEOUT_NEGATIVE);
        }
        return whole.longValue();
    }

    private static boolean mayBlock(Ctx c) {
        return !c.session().transaction().inMulti() && c.blockingHost() != null;
    }

    /**
     * The shared tail of every blocking command: {@code attempt} found nothing on any key, so
     * block (or answer {@code cannotBlock} at once inside MULTI). A client that blocked and timed
     * out gets a null array whatever the command, as from Redis 7.0's
     * replyToBlockedClientTimedOut: BLMOVE and BRPOPLPUSH too, whose reply inside MULTI is a null
     * bulk.
     */
    private static void block(Ctx c, byte[][] keys, long timeoutMs,
                              java.util.function.Function<Keyspace, BlockingKeys.Attempt> attempt,
                              Consumer<Ctx> cannotBlock) {
        if (!mayBlock(c)) {
            cannotBlock.accept(c);
            return;
        }
        long deadline = timeoutMs == 0 ? 0 : c.server().clock().nowMillis() + timeoutMs;
        BlockingKeys.Waiter w = new BlockingKeys.Waiter(c.keyspace(), keys, deadline,
                ks -> attempt.apply((Keyspace) ks), Ctx::nullArray, c.blockingHost(), c.session().id());
        BlockingKeys.Served s = c.server().blocking().block(w);
        if (s != null) {
            answer(c, s);
        }
    }

    private static void answer(Ctx c, BlockingKeys.Served s) {
        s.reply().accept(c);
        if (s.pushedTo() != null) {
            signal(c, s.pushedTo());
        }
    }

    private static byte[][] keys(Ctx c, int from, int to) {
        return Arrays.copyOfRange(c.argv().args(), from, to);
    }

    // ------------------------------------------------------------------ BLPOP, BRPOP, BLMPOP

    /**
     * Pops from the first non-empty key; {@code count} -1 for BLPOP's [key, value] reply, else
     * BLMPOP's [key, [values]]. Null when nothing was there.
     */
    private static BlockingKeys.Served popFrom(ListOps ops, byte[] key, boolean left, long count) {
        List<byte[]> got = ops.pop(key, left, count < 0 ? 1 : count);
        if (got == null) {
            return null;
        }
        if (count < 0) {
            byte[] v = got.get(0);
            return BlockingKeys.Served.of(c -> {
                c.arrayHeader(2);
                c.bulk(key);
                c.bulk(v);
            });
        }
        return BlockingKeys.Served.of(c -> ListFamily.keyValues(c, new ListOps.KeyValues(key, got)));
    }

    private static void blockingPop(Ctx c, byte[][] keys, boolean left, long count, long timeoutMs) {
        ListOps ops = ListFamily.lists(c);
        for (byte[] k : keys) {
            BlockingKeys.Served s = popFrom(ops, k, left, count);
            if (s != null) {
                answer(c, s);
                return;
            }
        }
        block(c, keys, timeoutMs, ks -> k -> popFrom(ks.lists(), k, left, count), Ctx::nullArray);
    }

    static void blpop(Ctx c) {
        long t = timeoutMillis(c.arg(c.argc() - 1));
        blockingPop(c, keys(c, 1, c.argc() - 1), true, -1, t);
    }

    static void brpop(Ctx c) {
        long t = timeoutMillis(c.arg(c.argc() - 1));
        blockingPop(c, keys(c, 1, c.argc() - 1), false, -1, t);
    }

    static void blmpop(Ctx c) {
        ListFamily.MpopArgs a = ListFamily.MpopArgs.parse(c, 2);
        long t = timeoutMillis(c.arg(1));
        blockingPop(c, keys(c, a.firstKey(), a.endKey()), a.left(), a.count(), t);
    }

    // ------------------------------------------------------------------ BLMOVE, BRPOPLPUSH

    private static BlockingKeys.Served moveFrom(Object keyspace, ListOps ops, byte[] src, byte[] dst, boolean from, boolean to) {
        byte[] v;
        try {
            v = ops.move(src, dst, from, to);
        } catch (CollectionAccess.WrongType e) {
            // the destination holds another type: Redis answers WRONGTYPE and unblocks (nothing moved)
            return BlockingKeys.Served.of(x -> x.error(RedisErrors.WRONG_TYPE));
        }
        if (v == null) {
            return null;
        }
        return new BlockingKeys.Served(x -> x.bulk(v), keyspace, dst);
    }

    private static void blockingMove(Ctx c, boolean from, boolean to, long timeoutMs) {
        byte[] src = c.arg(1);
        byte[] dst = c.arg(2);
        ListOps ops = ListFamily.lists(c);
        if (ops.exists(src)) { // the source's type first, as Redis
            ListFamily.move(c, src, dst, from, to);
            return;
        }
        block(c, new byte[][] {src}, timeoutMs, ks -> k -> moveFrom(ks, ks.lists(), src, dst, from, to), Ctx::nullBulk);
    }

    static void blmove(Ctx c) {
        boolean from = ListFamily.leftOrRight(c.arg(3));
        boolean to = ListFamily.leftOrRight(c.arg(4));
        blockingMove(c, from, to, timeoutMillis(c.arg(5)));
    }

    static void brpoplpush(Ctx c) {
        blockingMove(c, false, true, timeoutMillis(c.arg(3)));
    }

    static void register(CommandTable t) {
        t.register(cmd("blpop", -3, "write noscript blocking", 1, -2, 1, "list", "2.0.0", "Remove and get the first element in a list, or block until one is available", ListFamily.typed(BlockingLists::blpop)));
        t.register(cmd("brpop", -3, "write noscript blocking", 1, -2, 1, "list", "2.0.0", "Remove and get the last element in a list, or block until one is available", ListFamily.typed(BlockingLists::brpop)));
        t.register(cmd("blmove", 6, "write denyoom noscript blocking", 1, 2, 1, "list", "6.2.0", "Pop an element from a list, push it to another list and return it; or block until one is available", ListFamily.typed(BlockingLists::blmove)));
        t.register(cmd("brpoplpush", 4, "write denyoom noscript blocking", 1, 2, 1, "list", "2.2.0", "Pop an element from a list, push it to another list and return it; or block until one is available", ListFamily.typed(BlockingLists::brpoplpush)));
        t.register(cmd("blmpop", -5, "write blocking movablekeys", 0, 0, 0, "list", "7.0.0", "Pop elements from a list, or block until one is available", ListFamily.typed(BlockingLists::blmpop)));
    }
}
