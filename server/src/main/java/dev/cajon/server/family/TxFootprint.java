package dev.cajon.server.family;

import dev.cajon.protocol.Argv;
import dev.cajon.server.ServerContext;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandFlag;
import dev.cajon.server.command.CommandSpec;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.session.Transaction;
import dev.cajon.storage.Keyspace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * What a transaction will touch, worked out before it runs: for each db, the keys its queued
 * commands name (the command table's firstKey, lastKey and step, as Redis's getKeysFromCommand)
 * and its WATCHed keys, or the whole keyspace when a command works on all of it (FLUSHDB, DBSIZE,
 * KEYS, SCAN and the other keyless commands of the server and generic groups).
 *
 * <p>What must stay true: every key a queued command can touch is listed, since the section
 * holds only those keys' stripes. SELECT inside the transaction is followed (a valid index
 * changes the db of the commands after it, as it will when it runs), COPY ... DB adds its target,
 * FLUSHALL takes every open db. A transaction over several dbs holds each whole, in db order.
 */
final class TxFootprint {
    private record Part(Keyspace keyspace, byte[][] keys, boolean whole) {
    }

    private final List<Part> parts;
    private final boolean undo;

    private TxFootprint(List<Part> parts, boolean undo) {
        this.parts = parts;
        this.undo = undo;
    }

    private static final class Db {
        final List<byte[]> keys = new ArrayList<>();
        boolean whole;
    }

    static TxFootprint of(Ctx c, Transaction tx) {
        Map<Integer, Db> dbs = new TreeMap<>();
        int db = c.session().db();
        int writes = 0;
        String app = c.session().app();
        for (Transaction.Queued q : tx.queued()) {
            CommandSpec s = q.spec();
            Argv a = q.argv();
            if (s.has(CommandFlag.WRITE)) {
                writes++;
            }
            switch (s.name()) {
                case "select" -> {
                    int to = selectTarget(a);
                    if (to >= 0) {
                        db = to;
                    }
                    continue;
                }
                case "swapdb" -> { // both dbs whole (the swap holds every stripe of each)
                    int x = selectTarget(a);
                    int y = a.argc() > 2 ? dbArg(a.arg(2)) : -1;
                    if (x >= 0 && y >= 0) {
                        dbs.computeIfAbsent(x, k -> new Db()).whole = true;
                        dbs.computeIfAbsent(y, k -> new Db()).whole = true;
                    }
                    continue;
                }
                case "flushall" -> {
                    int current = db;
                    c.server().store().forEachKeyspace(app, (n, ks) -> dbs.computeIfAbsent(n, k -> new Db()).whole = true);
                    dbs.computeIfAbsent(current, k -> new Db()).whole = true;
                    continue;
                }
                case "copy" -> {
                    int to = copyTarget(a);
                    if (to >= 0 && to != db) {
                        dbs.computeIfAbsent(db, k -> new Db()).keys.add(a.arg(1));
                        dbs.computeIfAbsent(to, k -> new Db()).keys.add(a.arg(2));
                        continue;
                    }
                }
                default -> {
                }
            }
            if (s.firstKey() > 0) {
                Db d = dbs.computeIfAbsent(db, k -> new Db());
                int last = s.lastKey() < 0 ? a.argc() + s.lastKey() : s.lastKey();
                for (int i = s.firstKey(); i <= last && i < a.argc(); i += Math.max(1, s.step())) {
                    d.keys.add(a.arg(i));
                }
            } else if (keyspaceWide(s)) {
                dbs.computeIfAbsent(db, k -> new Db()).whole = true;
            }
        }
        for (Transaction.Watched w : tx.watched()) {
            dbs.computeIfAbsent(w.db(), k -> new Db()).keys.add(w.key());
        }
        boolean several = dbs.size() > 1;
        List<Part> parts = new ArrayList<>();
        for (Map.Entry<Integer, Db> e : dbs.entrySet()) {
            Keyspace ks = c.server().store().keyspace(app, e.getKey());
            parts.add(new Part(ks, e.getValue().keys.toArray(new byte[0][]), several || e.getValue().whole));
        }
        // a single write is atomic by itself; two or more need the undo record
        return new TxFootprint(parts, writes >= 2);
    }

    /** Keyless commands that read or change the whole keyspace (the server and generic groups). */
    private static boolean keyspaceWide(CommandSpec s) {
        return s.group().equals("server") || s.group().equals("generic");
    }

    private static int selectTarget(Argv a) {
        return dbArg(a.arg(1));
    }

    /** A db index argument, or -1 when it is not one (the command will fail). */
    private static int dbArg(byte[] arg) {
        try {
            int n = ArgCursor.parseInt(arg);
            return n >= 0 && n < ServerContext.DATABASES ? n : -1;
        } catch (CommandError e) {
            return -1;
        }
    }

    /** COPY src dst [DB n] [REPLACE]: the target db, or -1 (none, or the command will fail). */
    private static int copyTarget(Argv a) {
        for (int j = 3; j + 1 < a.argc(); j++) {
            if (ArgCursor.is(a.arg(j), "db")) {
                return dbArg(a.arg(j + 1));
            }
        }
        return -1;
    }

    /** Runs {@code body} inside the atomic sections of every part, taken in db order. */
    boolean run(Supplier<Boolean> body) {
        return run(0, body);
    }

    private boolean run(int i, Supplier<Boolean> body) {
        if (i == parts.size()) {
            return body.get();
        }
        Part p = parts.get(i);
        return p.keyspace().atomically(p.keys(), p.whole(), undo, () -> run(i + 1, body));
    }
}
