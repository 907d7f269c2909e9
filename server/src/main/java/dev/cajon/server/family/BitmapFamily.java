package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.cmd;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.command.StatusReplies;
import dev.cajon.storage.BitOps;
import dev.cajon.storage.BitOps.BitResult;
import dev.cajon.storage.BitOps.FieldOp;
import dev.cajon.storage.BitOps.FieldResult;
import dev.cajon.storage.Lcs.LcsResult;
import dev.cajon.storage.OpStatus;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Bitmaps and the rest of the string family (Redis's bitops.c, and LCS from t_string.c): SETBIT,
 * GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD, BITFIELD_RO and LCS, on {@link BitOps}. This file
 * parses the arguments and writes the replies; the storage gets numbers and returns statuses.
 *
 * <p>Redis checks some commands' arguments only after it looked the key up: BITCOUNT and
 * BITPOS answer 0 (or -1) for a missing key and WRONGTYPE for another type whatever their range
 * arguments say, and LCS reports its keys' type before its options. Those handlers parse first
 * and, when the arguments are bad, ask {@link BitOps#probe} which answer Redis would have given
 * (a separate lookup: the answer is the same at any moment either read could have run).
 */
public final class BitmapFamily {
    private BitmapFamily() {
    }

    /** Redis's getBitOffsetFromArgument: {@code #n} (BITFIELD only) is n times the field width. */
    static long bitOffset(byte[] arg, boolean hash, int bits) {
        boolean useHash = hash && bits > 0 && arg.length > 0 && arg[0] == '#';
        byte[] digits = useHash ? Arrays.copyOfRange(arg, 1, arg.length) : arg;
        long off = ArgCursor.parseLong(digits, RedisErrors.BIT_OFFSET);
        if (useHash) {
            off *= bits; // wraps as C's long long does; a wrapped offset is refused below
        }
        if (off < 0 || (off >>> 3) >= dev.cajon.storage.Keyspace.MAX_STRING_LENGTH) {
            throw new CommandError(RedisErrors.BIT_OFFSET);
        }
        return off;
    }

    private static long value(BitResult r) {
        StatusReplies.check(r.status());
        return r.value();
    }

    /** A read command's result: its lookup counted in keyspace_hits or keyspace_misses, as Redis's lookupKeyRead. */
    private static long read(Ctx c, BitResult r) {
        c.lookedUp(r.found());
        return value(r);
    }

    static void setbit(Ctx c) {
        long offset = bitOffset(c.arg(2), false, 0);
        long on = ArgCursor.parseLong(c.arg(3), RedisErrors.BIT_VALUE);
        if ((on & ~1L) != 0) {
            throw new CommandError(RedisErrors.BIT_VALUE);
        }
        c.integer(value(c.keyspace().bits().setBit(c.arg(1), offset, on == 1)));
    }

    static void getbit(Ctx c) {
        long offset = bitOffset(c.arg(2), false, 0);
        c.integer(read(c, c.keyspace().bits().getBit(c.arg(1), offset)));
    }

    /** What a bad argument of BITCOUNT or BITPOS turns into, once the key's lookup came first. */
    private static void afterLookup(Ctx c, CommandError bad, long missingAnswer) {
        OpStatus st = c.keyspace().bits().probe(c.arg(1));
        c.lookedUp(st != OpStatus.NOT_FOUND);
        if (st == OpStatus.NOT_FOUND) {
            c.integer(missingAnswer);
            return;
        }
        StatusReplies.check(st);
        throw bad;
    }

    /** BITCOUNT key [start end [BYTE|BIT]]. */
    static void bitcount(Ctx c) {
        int argc = c.argc();
        long start = 0;
        long end = 0;
        boolean isBit = false;
        try {
            if (argc == 4 || argc == 5) {
                start = ArgCursor.parseLong(c.arg(2));
                end = ArgCursor.parseLong(c.arg(3));
                if (start < 0 && end < 0 && start > end) {
                    // Redis answers 0 here, before it reads the unit
                    if (c.keyspace().bits().probe(c.arg(1)) == OpStatus.WRONG_TYPE) {
                        throw new CommandError(RedisErrors.WRONG_TYPE);
                    }
                    c.integer(0);
                    return;
                }
                if (argc == 5) {
                    isBit = unit(c.arg(4));
                }
            } else if (argc != 2) {
                throw new CommandError(RedisErrors.SYNTAX);
            }
        } catch (CommandError bad) {
            afterLookup(c, bad, 0);
            return;
        }
        c.integer(read(c, c.keyspace().bits().bitCount(c.arg(1), argc > 2, start, end, isBit)));
    }

    /** BYTE or BIT: whether it is BIT. */
    private static boolean unit(byte[] arg) {
        if (ArgCursor.is(arg, "bit")) {
            return true;
        }
        if (ArgCursor.is(arg, "byte")) {
            return false;
        }
        throw new CommandError(RedisErrors.SYNTAX);
    }

    /** BITPOS key bit [start [end [BYTE|BIT]]]. */
    static void bitpos(Ctx c) {
        long bit = ArgCursor.parseLong(c.arg(2));
        if (bit != 0 && bit != 1) {
            throw new CommandError(RedisErrors.BITPOS_BIT);
        }
        int argc = c.argc();
        long start = 0;
        long end = 0;
        boolean isBit = false;
        try {
            if (argc >= 4 && argc <= 6) {
                start = ArgCursor.parseLong(c.arg(3));
                if (argc == 6) {
                    isBit = unit(c.arg(5));
                }
                if (argc >= 5) {
                    end = ArgCursor.parseLong(c.arg(4));
                }
            } else if (argc != 3) {
                throw new CommandError(RedisErrors.SYNTAX);
            }
        } catch (CommandError bad) {
            afterLookup(c, bad, bit == 1 ? -1 : 0);
            return;
        }
        c.integer(read(c, c.keyspace().bits().bitPos(c.arg(1), (int) bit, argc >= 4, start, argc >= 5, end, isBit)));
    }

    /** BITOP AND|OR|XOR|NOT destkey key [key ...]. */
    static void bitop(Ctx c) {
        byte[] name = c.arg(1);
        BitOps.BitOp op;
        if (ArgCursor.is(name, "and")) {
            op = BitOps.BitOp.AND;
        } else if (ArgCursor.is(name, "or")) {
            op = BitOps.BitOp.OR;
        } else if (ArgCursor.is(name, "xor")) {
            op = BitOps.BitOp.XOR;
        } else if (ArgCursor.is(name, "not")) {
            op = BitOps.BitOp.NOT;
        } else {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        if (op == BitOps.BitOp.NOT && c.argc() != 4) {
            throw new CommandError(RedisErrors.BITOP_NOT_ONE_KEY);
        }
        byte[][] sources = Arrays.copyOfRange(c.argv().args(), 3, c.argc());
        c.integer(value(c.keyspace().bits().bitOp(op, c.arg(2), sources)));
    }

    // ------------------------------------------------------------------ BITFIELD

    /** Redis's getBitfieldTypeFromArgument: i1..i64 or u1..u63; returns bits, negative for signed. */
    static int fieldType(byte[] arg) {
        int n = 0;
        while (n < arg.length && arg[n] != 0) {
            n++; // C's strlen
        }
        if (n == 0 || arg[0] != 'i' && arg[0] != 'u') { // lower case only, as in Redis 7.0
            throw new CommandError(RedisErrors.BITFIELD_TYPE);
        }
        boolean signed = arg[0] == 'i';
        byte[] digits = Arrays.copyOfRange(arg, 1, n);
        long bits = ArgCursor.parseLong(digits, RedisErrors.BITFIELD_TYPE);
        if (bits < 1 || signed && bits > 64 || !signed && bits > 63) {
            throw new CommandError(RedisErrors.BITFIELD_TYPE);
        }
        return signed ? -(int) bits : (int) bits;
    }

    private static void bitfieldGeneric(Ctx c, boolean readOnlyCommand) {
        List<FieldOp> ops = new ArrayList<>();
        BitOps.Overflow overflow = BitOps.Overflow.WRAP;
        boolean writes = false;
        int argc = c.argc();
        for (int j = 2; j < argc; j++) {
            byte[] sub = c.arg(j);
            int remaining = argc - j - 1;
            BitOps.FieldKind kind;
            if (ArgCursor.is(sub, "get") && remaining >= 2) {
                kind = BitOps.FieldKind.GET;
            } else if (ArgCursor.is(sub, "set") && remaining >= 3) {
                kind = BitOps.FieldKind.SET;
            } else if (ArgCursor.is(sub, "incrby") && remaining >= 3) {
                kind = BitOps.FieldKind.INCRBY;
            } else if (ArgCursor.is(sub, "overflow") && remaining >= 1) {
                byte[] t = c.arg(++j);
                if (ArgCursor.is(t, "wrap")) {
                    overflow = BitOps.Overflow.WRAP;
                } else if (ArgCursor.is(t, "sat")) {
                    overflow = BitOps.Overflow.SAT;
                } else if (ArgCursor.is(t, "fail")) {
                    overflow = BitOps.Overflow.FAIL;
                } else {
                    throw new CommandError(RedisErrors.BITFIELD_OVERFLOW);
                }
                continue;
            } else {
                throw new CommandError(RedisErrors.SYNTAX);
            }
            int type = fieldType(c.arg(j + 1));
            int bits = Math.abs(type);
            long offset = bitOffset(c.arg(j + 2), true, bits);
            long v = 0;
            if (kind != BitOps.FieldKind.GET) {
                writes = true;
                v = ArgCursor.parseLong(c.arg(j + 3));
            }
            ops.add(new FieldOp(kind, type < 0, bits, offset, v, overflow));
            j += kind == BitOps.FieldKind.GET ? 2 : 3;
        }
        if (writes && readOnlyCommand) {
            throw new CommandError(RedisErrors.BITFIELD_RO_GET_ONLY);
        }
        FieldResult r = c.keyspace().bits().bitField(c.arg(1), ops);
        if (!writes) {
            c.lookedUp(r.found()); // GETs only: Redis's read lookup
        }
        StatusReplies.check(r.status());
        c.arrayHeader(ops.size());
        for (int i = 0; i < ops.size(); i++) {
            if (r.failed()[i]) {
                c.nullBulk();
            } else {
                c.integer(r.values()[i]);
            }
        }
    }

    static void bitfield(Ctx c) {
        bitfieldGeneric(c, false);
    }

    static void bitfieldRo(Ctx c) {
        bitfieldGeneric(c, true);
    }

    // ------------------------------------------------------------------ LCS

    /** LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]. */
    static void lcs(Ctx c) {
        boolean idx = false;
        boolean len = false;
        boolean withMatchLen = false;
        long minMatchLen = 0;
        try {
            for (int j = 3; j < c.argc(); j++) {
                byte[] opt = c.arg(j);
                int more = c.argc() - 1 - j;
                if (ArgCursor.is(opt, "idx")) {
                    idx = true;
                } else if (ArgCursor.is(opt, "len")) {
                    len = true;
                } else if (ArgCursor.is(opt, "withmatchlen")) {
                    withMatchLen = true;
                } else if (ArgCursor.is(opt, "minmatchlen") && more > 0) {
                    minMatchLen = Math.max(0, ArgCursor.parseLong(c.arg(++j)));
                } else {
                    throw new CommandError(RedisErrors.SYNTAX);
                }
            }
            if (idx && len) {
                throw new CommandError(RedisErrors.LCS_LEN_AND_IDX);
            }
        } catch (CommandError bad) {
            // Redis looks both keys up first and reports their type before any option
            if (c.keyspace().bits().probe(c.arg(1)) == OpStatus.WRONG_TYPE
                    || c.keyspace().bits().probe(c.arg(2)) == OpStatus.WRONG_TYPE) {
                throw new CommandError(RedisErrors.LCS_WRONG_TYPE);
            }
            throw bad;
        }
        LcsResult r = c.keyspace().lcs().lcs(c.arg(1), c.arg(2), idx, len, minMatchLen);
        if (r.status() != OpStatus.WRONG_TYPE) {
            for (int i = 0; i < 2; i++) {
                c.lookedUp(i < r.found());
            }
        }
        switch (r.status()) {
            case WRONG_TYPE -> throw new CommandError(RedisErrors.LCS_WRONG_TYPE);
            case TOO_LARGE -> throw new CommandError(RedisErrors.LCS_TABLE_TOO_LARGE);
            case OOM -> throw new CommandError(RedisErrors.LCS_TABLE_ALLOCATION);
            default -> {
            }
        }
        if (idx) {
            c.mapHeader(2);
            c.bulk("matches");
            c.arrayHeader(r.matches().size());
            for (long[] m : r.matches()) {
                c.arrayHeader(withMatchLen ? 3 : 2);
                c.arrayHeader(2);
                c.integer(m[0]);
                c.integer(m[1]);
                c.arrayHeader(2);
                c.integer(m[2]);
                c.integer(m[3]);
                if (withMatchLen) {
                    c.integer(m[4]);
                }
            }
            c.bulk("len");
            c.integer(r.length());
        } else if (len) {
            c.integer(r.length());
        } else {
            c.bulk(r.lcs());
        }
    }

    public static void register(CommandTable t) {
        t.register(cmd("setbit", 4, "write denyoom", 1, 1, 1, "bitmap", "2.2.0", "Sets or clears the bit at offset in the string value stored at key", BitmapFamily::setbit));
        t.register(cmd("getbit", 3, "readonly fast", 1, 1, 1, "bitmap", "2.2.0", "Returns the bit value at offset in the string value stored at key", BitmapFamily::getbit));
        t.register(cmd("bitcount", -2, "readonly", 1, 1, 1, "bitmap", "2.6.0", "Count set bits in a string", BitmapFamily::bitcount));
        t.register(cmd("bitpos", -3, "readonly", 1, 1, 1, "bitmap", "2.8.7", "Find first bit set or clear in a string", BitmapFamily::bitpos));
        t.register(cmd("bitop", -4, "write denyoom", 2, -1, 1, "bitmap", "2.6.0", "Perform bitwise operations between strings", BitmapFamily::bitop));
        t.register(cmd("bitfield", -2, "write denyoom", 1, 1, 1, "bitmap", "3.2.0", "Perform arbitrary bitfield integer operations on strings", BitmapFamily::bitfield));
        t.register(cmd("bitfield_ro", -2, "readonly fast", 1, 1, 1, "bitmap", "6.0.0", "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD", BitmapFamily::bitfieldRo));
        t.register(cmd("lcs", -3, "readonly", 1, 2, 1, "string", "7.0.0", "Find longest common substring", BitmapFamily::lcs));
    }
}
