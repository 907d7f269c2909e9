package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.cmd;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.storage.ExpireCondition;
import dev.cajon.storage.Keyspace;

/**
 * TTL commands. The four EXPIRE forms share {@link #expireGeneric} and the four TTL forms share
 * {@link #ttlGeneric}, as in Redis's expire.c. Deadlines are absolute epoch milliseconds; "now"
 * comes from the injected clock.
 */
public final class ExpiryFamily {
    private ExpiryFamily() {
    }

    /** Redis's parseExtendedExpireArgumentsOrReply: any of NX XX GT LT, then compatibility. */
    private static int parseConditions(Ctx c) {
        int flags = 0;
        for (int j = 3; j < c.argc(); j++) {
            byte[] opt = c.arg(j);
            if (ArgCursor.is(opt, "nx")) {
                flags |= ExpireCondition.NX;
            } else if (ArgCursor.is(opt, "xx")) {
                flags |= ExpireCondition.XX;
            } else if (ArgCursor.is(opt, "gt")) {
                flags |= ExpireCondition.GT;
            } else if (ArgCursor.is(opt, "lt")) {
                flags |= ExpireCondition.LT;
            } else {
                throw new CommandError(RedisErrors.unsupportedOption(opt));
            }
        }
        if ((flags & ExpireCondition.NX) != 0
                && (flags & (ExpireCondition.XX | ExpireCondition.GT | ExpireCondition.LT)) != 0) {
            throw new CommandError(RedisErrors.NX_XX_GT_LT);
        }
        if ((flags & ExpireCondition.GT) != 0 && (flags & ExpireCondition.LT) != 0) {
            throw new CommandError(RedisErrors.GT_AND_LT);
        }
        return flags;
    }

    /**
     * EXPIRE allows negative numbers (they delete the key); only overflow of the unit conversion
     * or of adding the base time is an error.
     */
    private static void expireGeneric(Ctx c, long basetime, boolean seconds) {
        int flags = parseConditions(c);
        long when = ArgCursor.parseLong(c.arg(2));
        String invalid = RedisErrors.invalidExpireTime(c.spec().name());
        if (seconds) {
            if (when > Long.MAX_VALUE / 1000 || when < Long.MIN_VALUE / 1000) {
                throw new CommandError(invalid);
            }
            when *= 1000;
        }
        if (when > Long.MAX_VALUE - basetime) {
            throw new CommandError(invalid);
        }
        when += basetime;
        c.bool(c.keyspace().expireAt(c.arg(1), when, flags));
    }

    static void expire(Ctx c) {
        expireGeneric(c, c.server().clock().nowMillis(), true);
    }

    static void pexpire(Ctx c) {
        expireGeneric(c, c.server().clock().nowMillis(), false);
    }

    static void expireat(Ctx c) {
        expireGeneric(c, 0, true);
    }

    static void pexpireat(Ctx c) {
        expireGeneric(c, 0, false);
    }

    /**
     * @param ms       reply in milliseconds rather than seconds
     * @param absolute reply with the deadline (EXPIRETIME) rather than the time left (TTL)
     */
    private static void ttlGeneric(Ctx c, boolean ms, boolean absolute) {
        long at = c.keyspace().deadline(c.arg(1));
        c.lookedUp(at != Keyspace.NO_KEY);
        if (at == Keyspace.NO_KEY || at == Keyspace.NO_TTL) {
            c.integer(at);
            return;
        }
        if (absolute) {
            // Redis rounds to the nearest second, written so that it cannot overflow
            c.integer(ms ? at : at / 1000 + (at % 1000 >= 500 ? 1 : 0));
            return;
        }
        long ttl = Math.max(0, at - c.server().clock().nowMillis());
        c.integer(ms ? ttl : (ttl + 500) / 1000);
    }

    static void ttl(Ctx c) {
        ttlGeneric(c, false, false);
    }

    static void pttl(Ctx c) {
        ttlGeneric(c, true, false);
    }

    static void expiretime(Ctx c) {
        ttlGeneric(c, false, true);
    }

    static void pexpiretime(Ctx c) {
        ttlGeneric(c, true, true);
    }

    static void persist(Ctx c) {
        c.bool(c.keyspace().persist(c.arg(1)));
    }

    public static void register(CommandTable t) {
        t.register(cmd("expire", -3, "write fast", 1, 1, 1, "generic", "1.0.0", "Set a key's time to live in seconds", ExpiryFamily::expire));
        t.register(cmd("pexpire", -3, "write fast", 1, 1, 1, "generic", "2.6.0", "Set a key's time to live in milliseconds", ExpiryFamily::pexpire));
        t.register(cmd("expireat", -3, "write fast", 1, 1, 1, "generic", "1.2.0", "Set the expiration for a key as a UNIX timestamp", ExpiryFamily::expireat));
        t.register(cmd("pexpireat", -3, "write fast", 1, 1, 1, "generic", "2.6.0", "Set the expiration for a key as a UNIX timestamp specified in milliseconds", ExpiryFamily::pexpireat));
        t.register(cmd("ttl", 2, "readonly fast", 1, 1, 1, "generic", "1.0.0", "Get the time to live for a key in seconds", ExpiryFamily::ttl));
        t.register(cmd("pttl", 2, "readonly fast", 1, 1, 1, "generic", "2.6.0", "Get the time to live for a key in milliseconds", ExpiryFamily::pttl));
        t.register(cmd("expiretime", 2, "readonly fast", 1, 1, 1, "generic", "7.0.0", "Get the expiration Unix timestamp for a key", ExpiryFamily::expiretime));
        t.register(cmd("pexpiretime", 2, "readonly fast", 1, 1, 1, "generic", "7.0.0", "Get the expiration Unix timestamp for a key in milliseconds", ExpiryFamily::pexpiretime));
        t.register(cmd("persist", 2, "write fast", 1, 1, 1, "generic", "2.2.0", "Remove the expiration from a key", ExpiryFamily::persist));
    }
}
