package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.cmd;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.command.Glob;
import dev.cajon.storage.BytesResult;
import dev.cajon.storage.CounterResult;
import dev.cajon.storage.HashOps;
import dev.cajon.storage.OpStatus;
import dev.cajon.storage.collection.CollectionAccess;
import java.math.BigDecimal;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Hashes (HSET, HGET, HSCAN ...), on {@link HashOps}. Arguments are checked in Redis 7.0's order
 * (a count or increment before the key's type, the key's type before HSCAN's options), and every
 * error text is the catalogue's. Replies say what they mean: HGETALL a map, HRANDFIELD WITHVALUES
 * pairs (nested in RESP3), the rest arrays.
 */
public final class HashFamily {
    private HashFamily() {
    }

    /** Runs a storage call; a key of another type becomes WRONGTYPE. */
    static <T> T typed(Supplier<T> call) {
        try {
            return call.get();
        } catch (CollectionAccess.WrongType e) {
            throw new CommandError(RedisErrors.WRONG_TYPE);
        }
    }

    private static HashOps ops(Ctx c) {
        return c.keyspace().hashes();
    }

    private static byte[][] rest(Ctx c, int from) {
        byte[][] out = new byte[c.argc() - from][];
        for (int i = from; i < c.argc(); i++) {
            out[i - from] = c.arg(i);
        }
        return out;
    }

    static void hset(Ctx c) {
        if (c.argc() % 2 != 0) {
            throw new CommandError(RedisErrors.wrongArity(c.spec().name()));
        }
        long added = typed(() -> ops(c).set(c.arg(1), rest(c, 2)));
        c.integer(added);
    }

    static void hmset(Ctx c) {
        if (c.argc() % 2 != 0) {
            throw new CommandError(RedisErrors.wrongArity(c.spec().name()));
        }
        typed(() -> ops(c).set(c.arg(1), rest(c, 2)));
        c.ok();
    }

    static void hsetnx(Ctx c) {
        c.bool(typed(() -> ops(c).setIfAbsent(c.arg(1), c.arg(2), c.arg(3))));
    }

    static void hget(Ctx c) {
        byte[] v = typed(() -> ops(c).get(c.arg(1), c.arg(2)));
        if (v == null) {
            c.nullBulk();
        } else {
            c.bulk(v);
        }
    }

    static void hmget(Ctx c) {
        byte[][] vs = typed(() -> ops(c).getMany(c.arg(1), rest(c, 2)));
        c.arrayHeader(vs.length);
        for (byte[] v : vs) {
            if (v == null) {
                c.nullBulk();
            } else {
                c.bulk(v);
            }
        }
    }

    static void hgetall(Ctx c) {
        List<byte[][]> all = typed(() -> ops(c).getAll(c.arg(1)));
        c.mapHeader(all.size());
        for (byte[][] p : all) {
            c.bulk(p[0]);
            c.bulk(p[1]);
        }
    }

    private static void keysOrValues(Ctx c, int which) {
        List<byte[][]> all = typed(() -> ops(c).getAll(c.arg(1)));
        c.arrayHeader(all.size());
        for (byte[][] p : all) {
            c.bulk(p[which]);
        }
    }

    static void hkeys(Ctx c) {
        keysOrValues(c, 0);
    }

    static void hvals(Ctx c) {
        keysOrValues(c, 1);
    }

    static void hdel(Ctx c) {
        c.integer(typed(() -> ops(c).delete(c.arg(1), rest(c, 2))));
    }

    static void hlen(Ctx c) {
        c.integer(typed(() -> ops(c).length(c.arg(1))));
    }

    static void hexists(Ctx c) {
        c.bool(typed(() -> ops(c).exists(c.arg(1), c.arg(2))));
    }

    static void hstrlen(Ctx c) {
        c.integer(typed(() -> ops(c).valueLength(c.arg(1), c.arg(2))));
    }

    static void hincrby(Ctx c) {
        long delta = ArgCursor.parseLong(c.arg(3));
        CounterResult r = typed(() -> ops(c).incrBy(c.arg(1), c.arg(2), delta));
        if (r.status() == OpStatus.NOT_INTEGER) {
            throw new CommandError(RedisErrors.HASH_NOT_INTEGER);
        }
        if (r.status() == OpStatus.OVERFLOW) {
            throw new CommandError(RedisErrors.OVERFLOW);
        }
        c.integer(r.value());
    }

    static void hincrbyfloat(Ctx c) {
        BigDecimal incr = ArgCursor.parseLongDouble(c.arg(3));
        if (dev.cajon.storage.Numbers.isInfinite(incr)) {
            throw new CommandError(RedisErrors.VALUE_NAN_OR_INFINITY);
        }
        BytesResult r = typed(() -> ops(c).incrByFloat(c.arg(1), c.arg(2), incr));
        if (r.status() == OpStatus.NOT_FLOAT) {
            throw new CommandError(RedisErrors.HASH_NOT_FLOAT);
        }
        if (r.status() == OpStatus.NAN_OR_INFINITY) {
            throw new CommandError(RedisErrors.NAN_OR_INFINITY);
        }
        c.bulk(r.value());
    }

    /**
     * Redis's getRangeLongFromObjectOrReply(-LONG_MAX, LONG_MAX): a count for HRANDFIELD and
     * SRANDMEMBER; LLONG_MIN is refused since it has no positive counterpart.
     */
    static long randomCount(byte[] arg) {
        long l = ArgCursor.parseLong(arg);
        if (l == Long.MIN_VALUE) {
            throw new CommandError(RedisErrors.NOT_IN_LONG_RANGE);
        }
        return l;
    }

    /** HRANDFIELD key [count [WITHVALUES]]. */
    static void hrandfield(Ctx c) {
        if (c.argc() == 2) {
            byte[][] p = typed(() -> ops(c).randomField(c.arg(1)));
            if (p == null) {
                c.nullBulk();
            } else {
                c.bulk(p[0]);
            }
            return;
        }
        long count = randomCount(c.arg(2));
        boolean withValues = false;
        if (c.argc() > 4 || c.argc() == 4 && !ArgCursor.is(c.arg(3), "withvalues")) {
            throw new CommandError(RedisErrors.SYNTAX);
        } else if (c.argc() == 4) {
            withValues = true;
            if (count < -Long.MAX_VALUE / 2 || count > Long.MAX_VALUE / 2) {
                throw new CommandError(RedisErrors.OUT_OF_RANGE);
            }
        }
        List<byte[][]> picks = typed(() -> ops(c).randomFields(c.arg(1), count));
        if (!withValues) {
            c.arrayHeader(picks.size());
            picks.forEach(p -> c.bulk(p[0]));
            return;
        }
        boolean resp3 = c.protocol().isResp3();
        c.arrayHeader(resp3 ? picks.size() : 2L * picks.size());
        for (byte[][] p : picks) {
            if (resp3) {
                c.arrayHeader(2);
            }
            c.bulk(p[0]);
            c.bulk(p[1]);
        }
    }

    /** HSCAN's and SSCAN's options, parsed as Redis's scanGenericCommand does. */
    record ScanOptions(long count, Predicate<byte[]> match) {
    }

    /**
     * The options after the cursor, or the syntax/integer error they make (returned, not thrown:
     * Redis reports it only after the key was found to be of the right type).
     */
    static Object scanOptions(Ctx c, int from) {
        long count = 10;
        byte[] pattern = null;
        try {
            for (int i = from; i < c.argc(); ) {
                int left = c.argc() - i;
                if (ArgCursor.is(c.arg(i), "count") && left >= 2) {
                    count = ArgCursor.parseLong(c.arg(i + 1));
                    if (count < 1) {
                        throw new CommandError(RedisErrors.SYNTAX);
                    }
                    i += 2;
                } else if (ArgCursor.is(c.arg(i), "match") && left >= 2) {
                    pattern = c.arg(i + 1);
                    i += 2;
                } else {
                    throw new CommandError(RedisErrors.SYNTAX);
                }
            }
        } catch (CommandError e) {
            return e;
        }
        byte[] p = pattern;
        boolean all = p == null || p.length == 1 && p[0] == '*';
        return new ScanOptions(count, all ? m -> true : m -> Glob.matches(p, m));
    }

    /** Redis's shared.emptyscan. */
    static void emptyScan(Ctx c) {
        c.arrayHeader(2);
        c.bulk("0");
        c.arrayHeader(0);
    }

    /** HSCAN key cursor [MATCH pattern] [COUNT count]. */
    static void hscan(Ctx c) {
        long cursor = KeyFamily.parseCursor(c.arg(2));
        Object opts = scanOptions(c, 3);
        if (opts instanceof CommandError e) {
            if (typed(() -> ops(c).length(c.arg(1))) == 0) {
                emptyScan(c);
                return;
            }
            throw e;
        }
        ScanOptions o = (ScanOptions) opts;
        HashOps.ScanResult r = typed(() -> ops(c).scan(c.arg(1), cursor, o.count(), o.match()));
        c.arrayHeader(2);
        c.bulk(Long.toUnsignedString(r.next()));
        c.arrayHeader(2L * r.pairs().size());
        for (byte[][] p : r.pairs()) {
            c.bulk(p[0]);
            c.bulk(p[1]);
        }
    }

    public static void register(CommandTable t) {
        t.register(cmd("hset", -4, "write denyoom fast", 1, 1, 1, "hash", "2.0.0", "Set the string value of a hash field", HashFamily::hset));
        t.register(cmd("hsetnx", 4, "write denyoom fast", 1, 1, 1, "hash", "2.0.0", "Set the value of a hash field, only if the field does not exist", HashFamily::hsetnx));
        t.register(cmd("hget", 3, "readonly fast", 1, 1, 1, "hash", "2.0.0", "Get the value of a hash field", HashFamily::hget));
        t.register(cmd("hmget", -3, "readonly fast", 1, 1, 1, "hash", "2.0.0", "Get the values of all the given hash fields", HashFamily::hmget));
        t.register(cmd("hmset", -4, "write denyoom fast", 1, 1, 1, "hash", "2.0.0", "Set multiple hash fields to multiple values", HashFamily::hmset));
        t.register(cmd("hgetall", 2, "readonly", 1, 1, 1, "hash", "2.0.0", "Get all the fields and values in a hash", HashFamily::hgetall));
        t.register(cmd("hdel", -3, "write fast", 1, 1, 1, "hash", "2.0.0", "Delete one or more hash fields", HashFamily::hdel));
        t.register(cmd("hlen", 2, "readonly fast", 1, 1, 1, "hash", "2.0.0", "Get the number of fields in a hash", HashFamily::hlen));
        t.register(cmd("hexists", 3, "readonly fast", 1, 1, 1, "hash", "2.0.0", "Determine if a hash field exists", HashFamily::hexists));
        t.register(cmd("hkeys", 2, "readonly", 1, 1, 1, "hash", "2.0.0", "Get all the fields in a hash", HashFamily::hkeys));
        t.register(cmd("hvals", 2, "readonly", 1, 1, 1, "hash", "2.0.0", "Get all the values in a hash", HashFamily::hvals));
        t.register(cmd("hstrlen", 3, "readonly fast", 1, 1, 1, "hash", "3.2.0", "Get the length of the value of a hash field", HashFamily::hstrlen));
        t.register(cmd("hincrby", 4, "write denyoom fast", 1, 1, 1, "hash", "2.0.0", "Increment the integer value of a hash field by the given number", HashFamily::hincrby));
        t.register(cmd("hincrbyfloat", 4, "write denyoom fast", 1, 1, 1, "hash", "2.6.0", "Increment the float value of a hash field by the given amount", HashFamily::hincrbyfloat));
        t.register(cmd("hrandfield", -2, "readonly", 1, 1, 1, "hash", "6.2.0", "Get one or multiple random fields from a hash", HashFamily::hrandfield));
        t.register(cmd("hscan", -3, "readonly", 1, 1, 1, "hash", "2.8.0", "Incrementally iterate hash fields and associated values", HashFamily::hscan));
    }
}
