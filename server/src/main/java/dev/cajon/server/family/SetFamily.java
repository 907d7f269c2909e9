package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.cmd;
import static dev.cajon.server.family.HashFamily.typed;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.storage.Numbers;
import dev.cajon.storage.SetOps;
import java.util.List;

/**
 * Sets (SADD, SMEMBERS, SINTERSTORE ...), on {@link SetOps}. Arguments are checked in Redis
 * 7.0's order and every error text is the catalogue's. Replies say what they mean: SMEMBERS,
 * SPOP with a count and the algebra commands answer a set (RESP3 {@code ~}); SRANDMEMBER with a
 * count, which may repeat members, an array.
 */
public final class SetFamily {
    private SetFamily() {
    }

    private static SetOps ops(Ctx c) {
        return c.keyspace().sets();
    }

    private static byte[][] args(Ctx c, int from, int to) {
        byte[][] out = new byte[to - from][];
        for (int i = from; i < to; i++) {
            out[i - from] = c.arg(i);
        }
        return out;
    }

    private static void members(Ctx c, List<byte[]> ms) {
        c.setHeader(ms.size());
        ms.forEach(c::bulk);
    }

    static void sadd(Ctx c) {
        c.integer(typed(() -> ops(c).add(c.arg(1), args(c, 2, c.argc()))));
    }

    static void srem(Ctx c) {
        c.integer(typed(() -> ops(c).remove(c.arg(1), args(c, 2, c.argc()))));
    }

    static void smembers(Ctx c) {
        members(c, typed(() -> ops(c).members(c.arg(1))));
    }

    static void sismember(Ctx c) {
        c.bool(typed(() -> ops(c).isMember(c.arg(1), c.arg(2))));
    }

    static void smismember(Ctx c) {
        boolean[] r = typed(() -> ops(c).areMembers(c.arg(1), args(c, 2, c.argc())));
        c.arrayHeader(r.length);
        for (boolean b : r) {
            c.bool(b);
        }
    }

    static void scard(Ctx c) {
        c.integer(typed(() -> ops(c).cardinality(c.arg(1))));
    }

    /** SPOP key [count]. */
    static void spop(Ctx c) {
        if (c.argc() > 3) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        if (c.argc() == 2) {
            byte[] m = typed(() -> ops(c).pop(c.arg(1)));
            if (m == null) {
                c.nullBulk();
            } else {
                c.bulk(m);
            }
            return;
        }
        byte[] a = c.arg(2);
        // getPositiveLongFromObjectOrReply: anything but a non-negative integer is "must be positive"
        if (!Numbers.isLong(a, 0, a.length) || Numbers.parseLong(a, 0, a.length) < 0) {
            throw new CommandError(RedisErrors.NOT_POSITIVE);
        }
        long count = Numbers.parseLong(a, 0, a.length);
        members(c, typed(() -> ops(c).pop(c.arg(1), count)));
    }

    /** SRANDMEMBER key [count]. */
    static void srandmember(Ctx c) {
        if (c.argc() > 3) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        if (c.argc() == 2) {
            byte[] m = typed(() -> ops(c).randomMember(c.arg(1)));
            if (m == null) {
                c.nullBulk();
            } else {
                c.bulk(m);
            }
            return;
        }
        long count = HashFamily.randomCount(c.arg(2));
        List<byte[]> ms = typed(() -> ops(c).randomMembers(c.arg(1), count));
        c.arrayHeader(ms.size());
        ms.forEach(c::bulk);
    }

    static void smove(Ctx c) {
        SetOps.MoveResult r = typed(() -> ops(c).move(c.arg(1), c.arg(2), c.arg(3)));
        if (r == SetOps.MoveResult.WRONG_TYPE) {
            throw new CommandError(RedisErrors.WRONG_TYPE);
        }
        c.bool(r == SetOps.MoveResult.MOVED);
    }

    private static void algebra(Ctx c, SetOps.Algebra op) {
        members(c, typed(() -> ops(c).algebra(op, args(c, 1, c.argc()))));
    }

    private static void store(Ctx c, SetOps.Algebra op) {
        c.integer(typed(() -> ops(c).store(op, c.arg(1), args(c, 2, c.argc()))));
    }

    static void sinter(Ctx c) {
        algebra(c, SetOps.Algebra.INTER);
    }

    static void sunion(Ctx c) {
        algebra(c, SetOps.Algebra.UNION);
    }

    static void sdiff(Ctx c) {
        algebra(c, SetOps.Algebra.DIFF);
    }

    static void sinterstore(Ctx c) {
        store(c, SetOps.Algebra.INTER);
    }

    static void sunionstore(Ctx c) {
        store(c, SetOps.Algebra.UNION);
    }

    static void sdiffstore(Ctx c) {
        store(c, SetOps.Algebra.DIFF);
    }

    /** SINTERCARD numkeys key [key ...] [LIMIT limit]. */
    static void sintercard(Ctx c) {
        long numkeys = ArgCursor.parseLong(c.arg(1), RedisErrors.NUMKEYS_NOT_POSITIVE);
        if (numkeys < 1) {
            throw new CommandError(RedisErrors.NUMKEYS_NOT_POSITIVE);
        }
        if (numkeys > c.argc() - 2) {
            throw new CommandError(RedisErrors.NUMKEYS_TOO_MANY);
        }
        long limit = 0;
        for (int j = 2 + (int) numkeys; j < c.argc(); j++) {
            int more = c.argc() - 1 - j;
            if (ArgCursor.is(c.arg(j), "limit") && more > 0) {
                j++;
                limit = ArgCursor.parseLong(c.arg(j), RedisErrors.LIMIT_NEGATIVE);
                if (limit < 0) {
                    throw new CommandError(RedisErrors.LIMIT_NEGATIVE);
                }
            } else {
                throw new CommandError(RedisErrors.SYNTAX);
            }
        }
        long lim = limit;
        c.integer(typed(() -> ops(c).interCard(args(c, 2, 2 + (int) numkeys), lim)));
    }

    /** SSCAN key cursor [MATCH pattern] [COUNT count]. */
    static void sscan(Ctx c) {
        long cursor = KeyFamily.parseCursor(c.arg(2));
        Object opts = HashFamily.scanOptions(c, 3);
        if (opts instanceof CommandError e) {
            if (typed(() -> ops(c).cardinality(c.arg(1))) == 0) {
                HashFamily.emptyScan(c);
                return;
            }
            throw e;
        }
        HashFamily.ScanOptions o = (HashFamily.ScanOptions) opts;
        SetOps.ScanResult r = typed(() -> ops(c).scan(c.arg(1), cursor, o.count(), o.match()));
        c.arrayHeader(2);
        c.bulk(Long.toUnsignedString(r.next()));
        c.arrayHeader(r.members().size());
        r.members().forEach(c::bulk);
    }

    public static void register(CommandTable t) {
        t.register(cmd("sadd", -3, "write denyoom fast", 1, 1, 1, "set", "1.0.0", "Add one or more members to a set", SetFamily::sadd));
        t.register(cmd("srem", -3, "write fast", 1, 1, 1, "set", "1.0.0", "Remove one or more members from a set", SetFamily::srem));
        t.register(cmd("smembers", 2, "readonly", 1, 1, 1, "set", "1.0.0", "Get all the members in a set", SetFamily::smembers));
        t.register(cmd("sismember", 3, "readonly fast", 1, 1, 1, "set", "1.0.0", "Determine if a given value is a member of a set", SetFamily::sismember));
        t.register(cmd("smismember", -3, "readonly fast", 1, 1, 1, "set", "6.2.0", "Returns the membership associated with the given elements for a set", SetFamily::smismember));
        t.register(cmd("scard", 2, "readonly fast", 1, 1, 1, "set", "1.0.0", "Get the number of members in a set", SetFamily::scard));
        t.register(cmd("spop", -2, "write fast", 1, 1, 1, "set", "1.0.0", "Remove and return one or multiple random members from a set", SetFamily::spop));
        t.register(cmd("srandmember", -2, "readonly", 1, 1, 1, "set", "1.0.0", "Get one or multiple random members from a set", SetFamily::srandmember));
        t.register(cmd("smove", 4, "write fast", 1, 2, 1, "set", "1.0.0", "Move a member from one set to another", SetFamily::smove));
        t.register(cmd("sinter", -2, "readonly", 1, -1, 1, "set", "1.0.0", "Intersect multiple sets", SetFamily::sinter));
        t.register(cmd("sunion", -2, "readonly", 1, -1, 1, "set", "1.0.0", "Add multiple sets", SetFamily::sunion));
        t.register(cmd("sdiff", -2, "readonly", 1, -1, 1, "set", "1.0.0", "Subtract multiple sets", SetFamily::sdiff));
        t.register(cmd("sinterstore", -3, "write denyoom", 1, -1, 1, "set", "1.0.0", "Intersect multiple sets and store the resulting set in a key", SetFamily::sinterstore));
        t.register(cmd("sunionstore", -3, "write denyoom", 1, -1, 1, "set", "1.0.0", "Add multiple sets and store the resulting set in a key", SetFamily::sunionstore));
        t.register(cmd("sdiffstore", -3, "write denyoom", 1, -1, 1, "set", "1.0.0", "Subtract multiple sets and store the resulting set in a key", SetFamily::sdiffstore));
        // movablekeys in Redis (COMMAND INFO says 0 0 0): the keys follow numkeys
        t.register(cmd("sintercard", -3, "readonly", 0, 0, 0, "set", "7.0.0", "Intersect multiple sets and return the cardinality of the result", SetFamily::sintercard));
        t.register(cmd("sscan", -3, "readonly", 1, 1, 1, "set", "2.8.0", "Incrementally iterate Set elements", SetFamily::sscan));
    }
}
