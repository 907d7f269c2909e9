package dev.cajon.server.command;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.storage.OpStatus;

/** The one place where a storage status that is an error becomes its Redis error text. */
public final class StatusReplies {
    private StatusReplies() {
    }

    /** The error text for {@code status}, or null when it is not an error. */
    public static String errorFor(OpStatus status) {
        switch (status) {
            case WRONG_TYPE:
                return RedisErrors.WRONG_TYPE;
            case NOT_INTEGER:
                return RedisErrors.NOT_INTEGER;
            case NOT_FLOAT:
                return RedisErrors.NOT_FLOAT;
            case OVERFLOW:
                return RedisErrors.OVERFLOW;
            case NAN_OR_INFINITY:
                return RedisErrors.NAN_OR_INFINITY;
            case TOO_LARGE:
                return RedisErrors.STRING_TOO_LONG;
            case OOM:
                return RedisErrors.OOM;
            case NOT_FOUND:
                return RedisErrors.NO_SUCH_KEY;
            default:
                return null;
        }
    }

    /** Throws the error reply for an error status; returns normally otherwise. */
    public static void check(OpStatus status) {
        String e = errorFor(status);
        if (e != null) {
            throw new CommandError(e);
        }
    }
}
