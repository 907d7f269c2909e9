package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.cmd;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.protocol.Resp;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.command.StatusReplies;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.LengthResult;
import dev.cajon.storage.OpStatus;
import dev.cajon.storage.SetCondition;
import dev.cajon.storage.SetResult;
import dev.cajon.storage.StringValue;
import dev.cajon.storage.chronicle.ValueHeader;

/**
 * String commands: GET, SET and its variants, the multi-key forms, APPEND, STRLEN and ranges.
 * SET, SETNX, SETEX, PSETEX and GETSET share one body ({@link #setGeneric}), as in Redis's
 * t_string.c.
 */
public final class StringFamily {
    private StringFamily() {
    }

    // ---- SET's options, parsed as Redis's parseExtendedStringArgumentsOrReply does
    static final int NX = 1;
    static final int XX = 1 << 1;
    static final int GET = 1 << 2;
    static final int KEEPTTL = 1 << 3;
    static final int PERSIST = 1 << 4;
    static final int EX = 1 << 5;
    static final int PX = 1 << 6;
    static final int EXAT = 1 << 7;
    static final int PXAT = 1 << 8;

    /** Parsed options: flags plus the raw expire argument (validated later, as Redis does). */
    record Options(int flags, byte[] expire) {
        boolean has(int f) {
            return (flags & f) != 0;
        }

        boolean seconds() {
            return has(EX) || has(EXAT);
        }

        boolean relative() {
            return has(EX) || has(PX);
        }
    }

    /**
     * The options after the fixed arguments of SET ({@code forSet}) or GETEX. Note Redis's quirks,
     * kept on purpose: a repeated EX (or NX) is accepted and the last one wins.
     */
    static Options parseOptions(Ctx c, int from, boolean forSet) {
        int flags = 0;
        byte[] expire = null;
        int argc = c.argc();
        for (int j = from; j < argc; j++) {
            byte[] opt = c.arg(j);
            boolean hasNext = j < argc - 1;
            if (forSet && ArgCursor.is(opt, "nx") && (flags & XX) == 0) {
                flags |= NX;
            } else if (forSet && ArgCursor.is(opt, "xx") && (flags & NX) == 0) {
                flags |= XX;
            } else if (forSet && ArgCursor.is(opt, "get")) {
                flags |= GET;
            } else if (forSet && ArgCursor.is(opt, "keepttl")
                    && (flags & (PERSIST | EX | EXAT | PX | PXAT)) == 0) {
                flags |= KEEPTTL;
            } else if (!forSet && ArgCursor.is(opt, "persist")
                    && (flags & (EX | EXAT | PX | PXAT | KEEPTTL)) == 0) {
                flags |= PERSIST;
            } else if (ArgCursor.is(opt, "ex") && hasNext
                    && (flags & (KEEPTTL | PERSIST | EXAT | PX | PXAT)) == 0) {
                flags |= EX;
                expire = c.arg(++j);
            } else if (ArgCursor.is(opt, "px") && hasNext
                    && (flags & (KEEPTTL | PERSIST | EX | EXAT | PXAT)) == 0) {
                flags |= PX;
                expire = c.arg(++j);
            } else if (ArgCursor.is(opt, "exat") && hasNext
                    && (flags & (KEEPTTL | PERSIST | EX | PX | PXAT)) == 0) {
                flags |= EXAT;
                expire = c.arg(++j);
            } else if (ArgCursor.is(opt, "pxat") && hasNext
                    && (flags & (KEEPTTL | PERSIST | EX | EXAT | PX)) == 0) {
                flags |= PXAT;
                expire = c.arg(++j);
            } else {
                throw new CommandError(RedisErrors.SYNTAX);
            }
        }
        return new Options(flags, expire);
    }

    static void get(Ctx c) {
        // the common case copies the value from the map straight into the reply, allocating nothing
        int r = c.keyspace().strings().readInto(c.arg(1), c.bulkWriter());
        if (r == Keyspace.READ) {
            c.lookedUp(true);
        } else if (r == Keyspace.ABSENT) {
            c.lookedUp(false);
            c.nullBulk();
        } else {
            c.value(c.keyspace().strings().get(c.arg(1)));
        }
    }

    static void set(Ctx c) {
        Options o = parseOptions(c, 3, true);
        setGeneric(c, o, c.arg(1), c.arg(2), null, null);
    }

    /**
     * The shared body of SET, SETNX, SETEX, PSETEX. {@code okReply}/{@code abortReply} are the
     * replies for "written" and "condition failed" (SETNX answers 1 and 0; SET answers OK and nil).
     */
    private static void setGeneric(Ctx c, Options o, byte[] key, byte[] value, byte[] okReply, byte[] abortReply) {
        long deadline = ValueHeader.NO_EXPIRY;
        if (o.expire() != null) {
            deadline = ExpireTimes.deadline(c, o.expire(), o.seconds(), o.relative());
        } else if (o.has(KEEPTTL)) {
            deadline = Keyspace.KEEP_TTL;
        }
        SetCondition cond = o.has(NX) ? SetCondition.IF_ABSENT : o.has(XX) ? SetCondition.IF_PRESENT
                : SetCondition.ALWAYS;
        boolean wantOld = o.has(GET);
        SetResult r = c.keyspace().strings().set(key, value, cond, deadline, wantOld);
        StatusReplies.check(r.status());
        if (wantOld) {
            c.value(r.old());
            return;
        }
        if (r.status() == OpStatus.NOT_APPLIED) {
            if (abortReply != null) {
                c.raw(abortReply);
            } else {
                c.nullBulk();
            }
        } else {
            c.raw(okReply != null ? okReply : Resp.OK);
        }
    }

    static void setnx(Ctx c) {
        setGeneric(c, new Options(NX, null), c.arg(1), c.arg(2), Resp.ONE, Resp.ZERO);
    }

    static void setex(Ctx c) {
        setGeneric(c, new Options(EX, c.arg(2)), c.arg(1), c.arg(3), null, null);
    }

    static void psetex(Ctx c) {
        setGeneric(c, new Options(PX, c.arg(2)), c.arg(1), c.arg(3), null, null);
    }

    static void getset(Ctx c) {
        SetResult r = c.keyspace().strings().set(c.arg(1), c.arg(2), SetCondition.ALWAYS, ValueHeader.NO_EXPIRY, true);
        StatusReplies.check(r.status());
        c.value(r.old());
    }

    static void getdel(Ctx c) {
        c.value(c.keyspace().strings().getDel(c.arg(1)));
    }

    static void getex(Ctx c) {
        Options o = parseOptions(c, 2, false);
        Keyspace ks = c.keyspace();
        long deadline = Keyspace.KEEP_TTL;
        if (o.expire() != null) {
            try {
                deadline = ExpireTimes.deadline(c, o.expire(), o.seconds(), o.relative());
            } catch (CommandError e) {
                // Redis looks the key up before validating the time: a missing key answers nil
                if (!ks.exists(c.arg(1))) {
                    c.value(null);
                    return;
                }
                throw e;
            }
        } else if (o.has(PERSIST)) {
            deadline = ValueHeader.NO_EXPIRY;
        }
        c.value(ks.strings().getEx(c.arg(1), deadline));
    }

    /** MGET reads every key at one moment: no write (nor EXEC) lands between two of its keys. */
    static void mget(Ctx c) {
        StringValue[] values = c.keyspace().strings().getAll(c.argv().args(), 1);
        c.arrayHeader(values.length);
        for (StringValue v : values) {
            c.value(v);
        }
    }

    private static byte[][] pairs(Ctx c) {
        if (c.argc() % 2 == 0) {
            throw new CommandError(RedisErrors.wrongArity(c.spec().name()));
        }
        byte[][] kv = new byte[c.argc() - 1][];
        System.arraycopy(c.argv().args(), 1, kv, 0, kv.length);
        return kv;
    }

    static void mset(Ctx c) {
        c.keyspace().strings().mset(pairs(c));
        c.ok();
    }

    static void msetnx(Ctx c) {
        c.bool(c.keyspace().strings().msetnx(pairs(c)));
    }

    static void append(Ctx c) {
        LengthResult r = c.keyspace().strings().append(c.arg(1), c.arg(2));
        StatusReplies.check(r.status());
        c.integer(r.length());
    }

    static void strlen(Ctx c) {
        long len = c.keyspace().strings().strlenOrAbsent(c.arg(1));
        c.lookedUp(len >= 0);
        c.integer(Math.max(0, len));
    }

    /** GETRANGE and SUBSTR, with Redis's index clamping (a missing key is an empty string). */
    static void getrange(Ctx c) {
        long start = ArgCursor.parseLong(c.arg(2));
        long end = ArgCursor.parseLong(c.arg(3));
        StringValue v = c.keyspace().strings().get(c.arg(1));
        c.lookedUp(v != null);
        if (v == null) {
            c.raw(Resp.EMPTY_BULK);
            return;
        }
        long len = v.length();
        if (start < 0 && end < 0 && start > end) {
            v.release();
            c.raw(Resp.EMPTY_BULK);
            return;
        }
        if (start < 0) {
            start = len + start;
        }
        if (end < 0) {
            end = len + end;
        }
        if (start < 0) {
            start = 0;
        }
        if (end < 0) {
            end = 0;
        }
        if (end >= len) {
            end = len - 1;
        }
        if (start > end || len == 0) {
            v.release();
            c.raw(Resp.EMPTY_BULK);
            return;
        }
        c.valueNoStats(v.slice(start, end - start + 1));
    }

    static void setrange(Ctx c) {
        long offset = ArgCursor.parseLong(c.arg(2));
        if (offset < 0) {
            throw new CommandError(RedisErrors.OFFSET_OUT_OF_RANGE);
        }
        LengthResult r = c.keyspace().strings().setRange(c.arg(1), offset, c.arg(3));
        StatusReplies.check(r.status());
        c.integer(r.length());
    }

    public static void register(CommandTable t) {
        t.register(cmd("get", 2, "readonly fast", 1, 1, 1, "string", "1.0.0", "Get the value of a key", StringFamily::get));
        t.register(cmd("set", -3, "write denyoom", 1, 1, 1, "string", "1.0.0", "Set the string value of a key", StringFamily::set));
        t.register(cmd("setnx", 3, "write denyoom fast", 1, 1, 1, "string", "1.0.0", "Set the value of a key, only if the key does not exist", StringFamily::setnx));
        t.register(cmd("setex", 4, "write denyoom", 1, 1, 1, "string", "2.0.0", "Set the value and expiration of a key", StringFamily::setex));
        t.register(cmd("psetex", 4, "write denyoom", 1, 1, 1, "string", "2.6.0", "Set the value and expiration in milliseconds of a key", StringFamily::psetex));
        t.register(cmd("getset", 3, "write denyoom fast", 1, 1, 1, "string", "1.0.0", "Set the string value of a key and return its old value", StringFamily::getset));
        t.register(cmd("getdel", 2, "write fast", 1, 1, 1, "string", "6.2.0", "Get the value of a key and delete the key", StringFamily::getdel));
        t.register(cmd("getex", -2, "write fast", 1, 1, 1, "string", "6.2.0", "Get the value of a key and optionally set its expiration", StringFamily::getex));
        t.register(cmd("mget", -2, "readonly fast", 1, -1, 1, "string", "1.0.0", "Get the values of all the given keys", StringFamily::mget));
        t.register(cmd("mset", -3, "write denyoom", 1, -1, 2, "string", "1.0.1", "Set multiple keys to multiple values", StringFamily::mset));
        t.register(cmd("msetnx", -3, "write denyoom", 1, -1, 2, "string", "1.0.1", "Set multiple keys to multiple values, only if none of the keys exist", StringFamily::msetnx));
        t.register(cmd("append", 3, "write denyoom fast", 1, 1, 1, "string", "2.0.0", "Append a value to a key", StringFamily::append));
        t.register(cmd("strlen", 2, "readonly fast", 1, 1, 1, "string", "2.2.0", "Get the length of the value stored in a key", StringFamily::strlen));
        t.register(cmd("getrange", 4, "readonly", 1, 1, 1, "string", "2.4.0", "Get a substring of the string stored at a key", StringFamily::getrange));
        t.register(cmd("substr", 4, "readonly", 1, 1, 1, "string", "1.0.0", "Get a substring of the string stored at a key", StringFamily::getrange));
        t.register(cmd("setrange", 4, "write denyoom", 1, 1, 1, "string", "2.2.0", "Overwrite part of a string at key starting at the specified offset", StringFamily::setrange));
    }
}
