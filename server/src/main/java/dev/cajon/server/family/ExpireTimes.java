package dev.cajon.server.family;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.Ctx;

/**
 * Turns the expire argument of SET, SETEX, PSETEX and GETEX into an absolute deadline, with
 * Redis's {@code getExpireMillisecondsOrReply} rules: the number must be a positive integer, the
 * seconds-to-ms conversion and the addition of "now" must not overflow, and each failure names the
 * command ("invalid expire time in 'set' command").
 */
final class ExpireTimes {
    private ExpireTimes() {
    }

    /**
     * @param seconds  the unit is seconds (EX, EXAT, SETEX) rather than milliseconds
     * @param relative the value is a duration (EX, PX) rather than a Unix time (EXAT, PXAT)
     */
    static long deadline(Ctx c, byte[] arg, boolean seconds, boolean relative) {
        long v = ArgCursor.parseLong(arg);
        String invalid = RedisErrors.invalidExpireTime(c.spec().name());
        if (v <= 0 || seconds && v > Long.MAX_VALUE / 1000) {
            throw new CommandError(invalid);
        }
        if (seconds) {
            v *= 1000;
        }
        if (relative) {
            v += c.server().clock().nowMillis();
        }
        if (v <= 0) {
            throw new CommandError(invalid);
        }
        return v;
    }
}
