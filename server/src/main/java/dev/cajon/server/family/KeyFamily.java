package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.cmd;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.ServerContext;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.command.Glob;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.OpStatus;
import java.util.Arrays;

/** Generic key commands: DEL, UNLINK, EXISTS, TYPE, RENAME, RENAMENX, COPY, TOUCH, RANDOMKEY. */
public final class KeyFamily {
    private KeyFamily() {
    }

    /**
     * DEL and UNLINK: the keys go together, no other command sees part of it. UNLINK frees a big
     * collection's pages on the lazyfree thread (blob files are plain unlinks either way).
     */
    static void del(Ctx c) {
        del(c, dev.cajon.server.config.TypeParameters.lazyUserDel());
    }

    static void unlink(Ctx c) {
        del(c, true);
    }

    private static void del(Ctx c, boolean lazy) {
        if (c.argc() == 2) {
            c.integer(c.keyspace().del(c.arg(1), lazy) ? 1 : 0);
            return;
        }
        c.integer(c.keyspace().delAll(c.argv().args(), 1, lazy));
    }

    /** EXISTS and TOUCH: repeated keys count each time, as in Redis. */
    static void exists(Ctx c) {
        long n = 0;
        for (boolean hit : c.keyspace().existsAll(c.argv().args(), 1)) {
            c.lookedUp(hit);
            if (hit) {
                n++;
            }
        }
        c.integer(n);
    }

    static void type(Ctx c) {
        String t = c.keyspace().type(c.arg(1));
        c.lookedUp(!t.equals("none"));
        c.simple(t);
    }

    private static void renameGeneric(Ctx c, boolean nx) {
        OpStatus st = c.keyspace().rename(c.arg(1), c.arg(2), nx);
        if (st == OpStatus.NOT_FOUND) {
            throw new CommandError(RedisErrors.NO_SUCH_KEY);
        }
        if (st == OpStatus.OK) {
            c.readyKey(c.arg(2)); // a list or sorted set renamed onto a key clients wait on
        }
        if (nx) {
            c.bool(st == OpStatus.OK);
        } else {
            c.ok();
        }
    }

    static void rename(Ctx c) {
        renameGeneric(c, false);
    }

    static void renamenx(Ctx c) {
        renameGeneric(c, true);
    }

    /** COPY source destination [DB destination-db] [REPLACE]. */
    static void copy(Ctx c) {
        int db = c.session().db();
        boolean replace = false;
        for (int j = 3; j < c.argc(); j++) {
            boolean additional = c.argc() - j - 1 > 0;
            if (ArgCursor.is(c.arg(j), "replace")) {
                replace = true;
            } else if (ArgCursor.is(c.arg(j), "db") && additional) {
                int d = ArgCursor.parseInt(c.arg(++j));
                if (d < 0 || d >= ServerContext.DATABASES) {
                    throw new CommandError(RedisErrors.DB_INDEX_OUT_OF_RANGE);
                }
                db = d;
            } else {
                throw new CommandError(RedisErrors.SYNTAX);
            }
        }
        if (db == c.session().db() && Arrays.equals(c.arg(1), c.arg(2))) {
            throw new CommandError(RedisErrors.SAME_OBJECT);
        }
        Keyspace target = c.server().store().keyspace(c.session().app(), db);
        boolean copied = c.keyspace().copy(c.arg(1), target, c.arg(2), replace) == OpStatus.OK;
        if (copied) {
            c.readyKey(target, c.arg(2));
        }
        c.bool(copied);
    }

    /** MOVE key db: 1 when moved, 0 when the key is absent or the target db has it. */
    static void move(Ctx c) {
        int db = ArgCursor.parseInt(c.arg(2));
        if (db < 0 || db >= ServerContext.DATABASES) {
            throw new CommandError(RedisErrors.DB_INDEX_OUT_OF_RANGE);
        }
        if (db == c.session().db()) {
            throw new CommandError(RedisErrors.SAME_OBJECT);
        }
        Keyspace target = c.server().store().keyspace(c.session().app(), db);
        boolean moved = c.keyspace().move(c.arg(1), target);
        if (moved) {
            c.readyKey(target, c.arg(1));
        }
        c.bool(moved);
    }

    static void randomkey(Ctx c) {
        byte[] k = c.keyspace().randomKey();
        if (k == null) {
            c.nullBulk();
        } else {
            c.bulk(k);
        }
    }

    /** Redis's parseScanCursorOrReply: an unsigned 64-bit decimal, as strtoul reads it. */
    static long parseCursor(byte[] b) {
        String s = new String(b, java.nio.charset.StandardCharsets.ISO_8859_1);
        if (s.isEmpty()) {
            return 0; // strtoul("") is 0 with nothing left over
        }
        boolean neg = s.charAt(0) == '-';
        String body = neg || s.charAt(0) == '+' ? s.substring(1) : s;
        if (body.isEmpty() || body.charAt(0) < '0' || body.charAt(0) > '9') {
            throw new CommandError(RedisErrors.INVALID_CURSOR);
        }
        try {
            long v = Long.parseUnsignedLong(body);
            return neg ? -v : v;
        } catch (NumberFormatException e) {
            throw new CommandError(RedisErrors.INVALID_CURSOR);
        }
    }

    /** SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]. */
    static void scan(Ctx c) {
        long cursor = parseCursor(c.arg(1));
        long count = 10;
        byte[] pattern = null;
        byte[] type = null;
        for (int i = 2; i < c.argc(); ) {
            int left = c.argc() - i;
            if (ArgCursor.is(c.arg(i), "count") && left >= 2) {
                count = ArgCursor.parseLong(c.arg(i + 1));
                if (count < 1) {
                    throw new CommandError(RedisErrors.SYNTAX);
                }
                i += 2;
            } else if (ArgCursor.is(c.arg(i), "match") && left >= 2) {
                pattern = c.arg(i + 1);
                if (pattern.length == 1 && pattern[0] == '*') {
                    pattern = null;
                }
                i += 2;
            } else if (ArgCursor.is(c.arg(i), "type") && left >= 2) {
                type = c.arg(i + 1);
                i += 2;
            } else {
                throw new CommandError(RedisErrors.SYNTAX);
            }
        }
        // an unknown type name matches no key (Redis 7.0 answers no error for it)
        byte code = type == null ? 0 : Keyspace.typeCode(new String(type, java.nio.charset.StandardCharsets.ISO_8859_1));
        java.util.List<byte[]> keys = new java.util.ArrayList<>();
        byte[] pat = pattern;
        long next = c.keyspace().scan(cursor, (int) Math.min(count, Integer.MAX_VALUE), code, k -> {
            if (pat == null || Glob.matches(pat, k)) {
                keys.add(k);
            }
        });
        c.arrayHeader(2);
        c.bulk(Long.toUnsignedString(next));
        c.arrayHeader(keys.size());
        keys.forEach(c::bulk);
    }

    /** KEYS pattern: every live key matching the glob. */
    static void keys(Ctx c) {
        byte[] pattern = c.arg(1);
        boolean all = pattern.length == 1 && pattern[0] == '*';
        java.util.List<byte[]> keys = new java.util.ArrayList<>();
        c.keyspace().forEachLiveKey(k -> {
            if (all || Glob.matches(pattern, k)) {
                keys.add(k);
            }
        });
        c.arrayHeader(keys.size());
        keys.forEach(c::bulk);
    }

    public static void register(CommandTable t) {
        t.register(cmd("del", -2, "write", 1, -1, 1, "generic", "1.0.0", "Delete a key", KeyFamily::del));
        t.register(cmd("unlink", -2, "write fast", 1, -1, 1, "generic", "4.0.0", "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non blocking.", KeyFamily::unlink));
        t.register(cmd("exists", -2, "readonly fast", 1, -1, 1, "generic", "1.0.0", "Determine if a key exists", KeyFamily::exists));
        t.register(cmd("touch", -2, "readonly fast", 1, -1, 1, "generic", "3.2.1", "Alters the last access time of a key(s). Returns the number of existing keys specified.", KeyFamily::exists));
        t.register(cmd("type", 2, "readonly fast", 1, 1, 1, "generic", "1.0.0", "Determine the type stored at key", KeyFamily::type));
        t.register(cmd("rename", 3, "write", 1, 2, 1, "generic", "1.0.0", "Rename a key", KeyFamily::rename));
        t.register(cmd("renamenx", 3, "write fast", 1, 2, 1, "generic", "1.0.0", "Rename a key, only if the new key does not exist", KeyFamily::renamenx));
        t.register(cmd("move", 3, "write fast", 1, 1, 1, "generic", "1.0.0", "Move a key to another database", KeyFamily::move));
        t.register(cmd("copy", -3, "write denyoom", 1, 2, 1, "generic", "6.2.0", "Copy a key", KeyFamily::copy));
        t.register(cmd("scan", -2, "readonly", 0, 0, 0, "generic", "2.8.0", "Incrementally iterate the keys space", KeyFamily::scan));
        t.register(cmd("keys", 2, "readonly", 0, 0, 0, "generic", "1.0.0", "Find all keys matching the given pattern", KeyFamily::keys));
        t.register(cmd("randomkey", 1, "readonly", 0, 0, 0, "generic", "1.0.0", "Return a random key from the keyspace", KeyFamily::randomkey));
    }
}
