package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.cmd;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.command.StatusReplies;
import dev.cajon.storage.BytesResult;
import dev.cajon.storage.CounterResult;

/**
 * Atomic counters. INCR, DECR, INCRBY and DECRBY share one body ({@link #incrDecr}) as in
 * Redis; the atomicity comes from the keyspace's stripe lock around the read-modify-write.
 */
public final class CounterFamily {
    private CounterFamily() {
    }

    private static void incrDecr(Ctx c, long delta) {
        CounterResult r = c.keyspace().strings().incrBy(c.arg(1), delta);
        StatusReplies.check(r.status());
        c.integer(r.value());
    }

    static void incr(Ctx c) {
        incrDecr(c, 1);
    }

    static void decr(Ctx c) {
        incrDecr(c, -1);
    }

    static void incrby(Ctx c) {
        incrDecr(c, ArgCursor.parseLong(c.arg(2)));
    }

    static void decrby(Ctx c) {
        long d = ArgCursor.parseLong(c.arg(2));
        if (d == Long.MIN_VALUE) {
            // negating it would overflow: Redis's own check and wording
            throw new CommandError(RedisErrors.DECREMENT_OVERFLOW);
        }
        incrDecr(c, -d);
    }

    static void incrbyfloat(Ctx c) {
        BytesResult r = c.keyspace().strings().incrByFloat(c.arg(1), ArgCursor.parseLongDouble(c.arg(2)));
        StatusReplies.check(r.status());
        c.bulk(r.value());
    }

    public static void register(CommandTable t) {
        t.register(cmd("incr", 2, "write denyoom fast", 1, 1, 1, "string", "1.0.0", "Increment the integer value of a key by one", CounterFamily::incr));
        t.register(cmd("decr", 2, "write denyoom fast", 1, 1, 1, "string", "1.0.0", "Decrement the integer value of a key by one", CounterFamily::decr));
        t.register(cmd("incrby", 3, "write denyoom fast", 1, 1, 1, "string", "1.0.0", "Increment the integer value of a key by the given amount", CounterFamily::incrby));
        t.register(cmd("decrby", 3, "write denyoom fast", 1, 1, 1, "string", "1.0.0", "Decrement the integer value of a key by the given number", CounterFamily::decrby));
        t.register(cmd("incrbyfloat", 3, "write denyoom fast", 1, 1, 1, "string", "2.6.0", "Increment the float value of a key by the given amount", CounterFamily::incrbyfloat));
    }
}
