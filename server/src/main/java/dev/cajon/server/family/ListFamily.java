package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.cmd;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.command.Handler;
import dev.cajon.storage.ListOps;
import dev.cajon.storage.collection.CollectionAccess;
import java.util.List;

/**
 * Lists (LPUSH, LRANGE, LMOVE ...) on {@link ListOps}, and the blocking pops (BLPOP, BLMOVE ...)
 * on {@link BlockingLists}. Variants share one body: the four pushes call {@link #push}, the two
 * pops {@link #pop}, LMOVE and RPOPLPUSH {@link #move}.
 *
 * <p>Each handler parses its arguments in the order Redis's t_list.c does, since that order
 * decides which error a command with several bad arguments answers (LRANGE parses its indexes
 * before it looks at the key; LINDEX looks at the key first).
 */
public final class ListFamily {
    private ListFamily() {
    }

    /** A key of another type answers WRONGTYPE (storage throws it from CollectionAccess). */
    static Handler typed(Handler h) {
        return c -> {
            try {
                h.handle(c);
            } catch (CollectionAccess.WrongType e) {
                throw new CommandError(RedisErrors.WRONG_TYPE);
            }
        };
    }

    static ListOps lists(Ctx c) {
        return c.keyspace().lists();
    }

    /** An array of bulk values. */
    static void values(Ctx c, List<byte[]> vs) {
        c.arrayHeader(vs.size());
        for (byte[] v : vs) {
            c.bulk(v);
        }
    }

    /** LEFT or RIGHT: true for LEFT; "syntax error" otherwise (Redis's getListPositionFromObjectOrReply). */
    static boolean leftOrRight(byte[] arg) {
        if (ArgCursor.is(arg, "left")) {
            return true;
        }
        if (ArgCursor.is(arg, "right")) {
            return false;
        }
        throw new CommandError(RedisErrors.SYNTAX);
    }

    /** A count that must be positive, with Redis's getPositiveLongFromObjectOrReply message. */
    static long positive(byte[] arg, String error) {
        long v = ArgCursor.parseLong(arg, error);
        if (v < 0) {
            throw new CommandError(error);
        }
        return v;
    }

    /** A value in 1..LONG_MAX, else {@code error} (getRangeLongFromObjectOrReply(1, LONG_MAX)). */
    static long atLeastOne(byte[] arg, String error) {
        long v = ArgCursor.parseLong(arg, error);
        if (v < 1) {
            throw new CommandError(error);
        }
        return v;
    }

    // ------------------------------------------------------------------ pushes and pops

    private static void push(Ctx c, boolean left, boolean onlyIfExists) {
        byte[] key = c.arg(1);
        long n = lists(c).push(key, c.argv().args(), 2, left, onlyIfExists);
        if (n > 0) {
            BlockingLists.signal(c, key);
        }
        c.integer(n);
    }

    static void lpush(Ctx c) {
        push(c, true, false);
    }

    static void rpush(Ctx c) {
        push(c, false, false);
    }

    static void lpushx(Ctx c) {
        push(c, true, true);
    }

    static void rpushx(Ctx c) {
        push(c, false, true);
    }

    private static void pop(Ctx c, boolean left) {
        if (c.argc() > 3) {
            throw new CommandError(RedisErrors.wrongArity(c.spec().name()));
        }
        boolean hasCount = c.argc() == 3;
        long count = hasCount ? positive(c.arg(2), RedisErrors.MUST_BE_POSITIVE) : 1;
        List<byte[]> got = lists(c).pop(c.arg(1), left, count);
        if (got == null) {
            if (hasCount) {
                c.nullArray();
            } else {
                c.nullBulk();
            }
            return;
        }
        if (hasCount) {
            values(c, got);
        } else {
            c.bulk(got.get(0));
        }
    }

    static void lpop(Ctx c) {
        pop(c, true);
    }

    static void rpop(Ctx c) {
        pop(c, false);
    }

    // ------------------------------------------------------------------ reads

    static void lrange(Ctx c) {
        long start = ArgCursor.parseLong(c.arg(2));
        long stop = ArgCursor.parseLong(c.arg(3));
        values(c, lists(c).range(c.arg(1), start, stop));
    }

    static void lindex(Ctx c) {
        byte[] key = c.arg(1);
        if (!lists(c).exists(key)) {
            c.nullBulk();
            return;
        }
        byte[] v = lists(c).index(key, ArgCursor.parseLong(c.arg(2)));
        if (v == null) {
            c.nullBulk();
        } else {
            c.bulk(v);
        }
    }

    static void llen(Ctx c) {
        c.integer(lists(c).length(c.arg(1)));
    }

    static void lpos(Ctx c) {
        long rank = 1;
        long count = -1;
        long maxlen = 0;
        for (int j = 3; j < c.argc(); j++) {
            byte[] opt = c.arg(j);
            boolean more = j + 1 < c.argc();
            if (more && ArgCursor.is(opt, "rank")) {
                rank = ArgCursor.parseLong(c.arg(++j));
                if (rank == 0) {
                    throw new CommandError(RedisErrors.LPOS_RANK_ZERO);
                }
            } else if (more && ArgCursor.is(opt, "count")) {
                count = positive(c.arg(++j), RedisErrors.LPOS_COUNT_NEGATIVE);
            } else if (more && ArgCursor.is(opt, "maxlen")) {
                maxlen = positive(c.arg(++j), RedisErrors.LPOS_MAXLEN_NEGATIVE);
            } else {
                throw new CommandError(RedisErrors.SYNTAX);
            }
        }
        List<Long> at = lists(c).positions(c.arg(1), c.arg(2), rank, count < 0 ? 1 : count, maxlen);
        if (count >= 0) {
            if (at == null) {
                c.arrayHeader(0);
                return;
            }
            c.arrayHeader(at.size());
            at.forEach(c::integer);
        } else if (at == null || at.isEmpty()) {
            c.nullBulk();
        } else {
            c.integer(at.get(0));
        }
    }

    // ------------------------------------------------------------------ other writes

    static void lset(Ctx c) {
        if (!lists(c).exists(c.arg(1))) {
            throw new CommandError(RedisErrors.NO_SUCH_KEY); // before the index is parsed, as Redis
        }
        long index = ArgCursor.parseLong(c.arg(2));
        switch (lists(c).set(c.arg(1), index, c.arg(3))) {
            case NO_SUCH_KEY -> throw new CommandError(RedisErrors.NO_SUCH_KEY);
            case OUT_OF_RANGE -> throw new CommandError(RedisErrors.INDEX_OUT_OF_RANGE);
            default -> c.ok();
        }
    }

    static void lrem(Ctx c) {
        long count = ArgCursor.parseLong(c.arg(2));
        c.integer(lists(c).remove(c.arg(1), count, c.arg(3)));
    }

    static void ltrim(Ctx c) {
        long start = ArgCursor.parseLong(c.arg(2));
        long stop = ArgCursor.parseLong(c.arg(3));
        lists(c).trim(c.arg(1), start, stop);
        c.ok();
    }

    static void linsert(Ctx c) {
        boolean before;
        if (ArgCursor.is(c.arg(2), "before")) {
            before = true;
        } else if (ArgCursor.is(c.arg(2), "after")) {
            before = false;
        } else {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        long n = lists(c).insert(c.arg(1), before, c.arg(3), c.arg(4));
        if (n > 0) {
            BlockingLists.signal(c, c.arg(1));
        }
        c.integer(n);
    }

    /** LMOVE and RPOPLPUSH (and a served BLMOVE): the moved value, or nil. */
    static void move(Ctx c, byte[] src, byte[] dst, boolean fromLeft, boolean toLeft) {
        byte[] v = lists(c).move(src, dst, fromLeft, toLeft);
        if (v == null) {
            c.nullBulk();
            return;
        }
        BlockingLists.signal(c, dst);
        c.bulk(v);
    }

    static void lmove(Ctx c) {
        boolean from = leftOrRight(c.arg(3));
        boolean to = leftOrRight(c.arg(4));
        move(c, c.arg(1), c.arg(2), from, to);
    }

    static void rpoplpush(Ctx c) {
        move(c, c.arg(1), c.arg(2), false, true);
    }

    /** LMPOP's and BLMPOP's arguments from {@code numkeysAt}: numkeys key... LEFT|RIGHT [COUNT n]. */
    record MpopArgs(int firstKey, int endKey, boolean left, long count) {
        static MpopArgs parse(Ctx c, int numkeysAt) {
            long numkeys = atLeastOne(c.arg(numkeysAt), RedisErrors.NUMKEYS_NOT_POSITIVE);
            long whereAt = numkeysAt + numkeys + 1;
            if (whereAt >= c.argc()) {
                throw new CommandError(RedisErrors.SYNTAX);
            }
            boolean left = leftOrRight(c.arg((int) whereAt));
            long count = -1;
            for (int j = (int) whereAt + 1; j < c.argc(); j++) {
                if (count == -1 && ArgCursor.is(c.arg(j), "count") && j + 1 < c.argc()) {
                    count = atLeastOne(c.arg(++j), RedisErrors.COUNT_NOT_POSITIVE);
                } else {
                    throw new CommandError(RedisErrors.SYNTAX);
                }
            }
            return new MpopArgs(numkeysAt + 1, (int) whereAt, left, count == -1 ? 1 : count);
        }
    }

    /** The [key, [values...]] reply of LMPOP and BLMPOP. */
    static void keyValues(Ctx c, ListOps.KeyValues kv) {
        c.arrayHeader(2);
        c.bulk(kv.key());
        values(c, kv.values());
    }

    static void lmpop(Ctx c) {
        MpopArgs a = MpopArgs.parse(c, 1);
        ListOps.KeyValues kv = lists(c).popFirst(c.argv().args(), a.firstKey(), a.endKey(), a.left(), a.count());
        if (kv == null) {
            c.nullArray();
        } else {
            keyValues(c, kv);
        }
    }

    public static void register(CommandTable t) {
        t.register(cmd("lpush", -3, "write denyoom fast", 1, 1, 1, "list", "1.0.0", "Prepend one or multiple elements to a list", typed(ListFamily::lpush)));
        t.register(cmd("rpush", -3, "write denyoom fast", 1, 1, 1, "list", "1.0.0", "Append one or multiple elements to a list", typed(ListFamily::rpush)));
        t.register(cmd("lpushx", -3, "write denyoom fast", 1, 1, 1, "list", "2.2.0", "Prepend an element to a list, only if the list exists", typed(ListFamily::lpushx)));
        t.register(cmd("rpushx", -3, "write denyoom fast", 1, 1, 1, "list", "2.2.0", "Append an element to a list, only if the list exists", typed(ListFamily::rpushx)));
        t.register(cmd("lpop", -2, "write fast", 1, 1, 1, "list", "1.0.0", "Remove and get the first elements in a list", typed(ListFamily::lpop)));
        t.register(cmd("rpop", -2, "write fast", 1, 1, 1, "list", "1.0.0", "Remove and get the last elements in a list", typed(ListFamily::rpop)));
        t.register(cmd("lrange", 4, "readonly", 1, 1, 1, "list", "1.0.0", "Get a range of elements from a list", typed(ListFamily::lrange)));
        t.register(cmd("lindex", 3, "readonly", 1, 1, 1, "list", "1.0.0", "Get an element from a list by its index", typed(ListFamily::lindex)));
        t.register(cmd("lset", 4, "write denyoom", 1, 1, 1, "list", "1.0.0", "Set the value of an element in a list by its index", typed(ListFamily::lset)));
        t.register(cmd("llen", 2, "readonly fast", 1, 1, 1, "list", "1.0.0", "Get the length of a list", typed(ListFamily::llen)));
        t.register(cmd("lrem", 4, "write", 1, 1, 1, "list", "1.0.0", "Remove elements from a list", typed(ListFamily::lrem)));
        t.register(cmd("ltrim", 4, "write", 1, 1, 1, "list", "1.0.0", "Trim a list to the specified range", typed(ListFamily::ltrim)));
        t.register(cmd("linsert", 5, "write denyoom", 1, 1, 1, "list", "2.2.0", "Insert an element before or after another element in a list", typed(ListFamily::linsert)));
        t.register(cmd("lpos", -3, "readonly", 1, 1, 1, "list", "6.0.6", "Return the index of matching elements on a list", typed(ListFamily::lpos)));
        t.register(cmd("lmove", 5, "write denyoom", 1, 2, 1, "list", "6.2.0", "Pop an element from a list, push it to another list and return it", typed(ListFamily::lmove)));
        t.register(cmd("rpoplpush", 3, "write denyoom", 1, 2, 1, "list", "1.2.0", "Remove the last element in a list, prepend it to another list and return it", typed(ListFamily::rpoplpush)));
        t.register(cmd("lmpop", -4, "write movablekeys", 0, 0, 0, "list", "7.0.0", "Pop elements from a list", typed(ListFamily::lmpop)));
        BlockingLists.register(t);
    }
}
