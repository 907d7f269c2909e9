package dev.cajon.server.session;

import dev.cajon.protocol.Argv;
import dev.cajon.server.command.CommandSpec;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.tx.Watch;
import java.util.ArrayList;
import java.util.List;

/**
 * A connection's transaction state: whether it is inside MULTI, the commands queued since, whether
 * one of them failed to queue (EXEC then answers EXECABORT), and the keys it WATCHes. Owned by
 * the connection's event loop; the watches themselves are marked by writers on any thread (see
 * {@link Watch}).
 */
public final class Transaction {
    /** A queued command: its arguments and the (sub)command row they resolved to. */
    public record Queued(Argv argv, CommandSpec spec) {
    }

    /** A WATCH on one key of one db. */
    public record Watched(int db, byte[] key, Keyspace keyspace, Watch watch) {
    }

    /** What runs at once inside MULTI instead of being queued, as in Redis's processCommand. */
    private static final java.util.Set<String> RUN_IN_MULTI = java.util.Set.of("exec", "discard", "multi", "watch",
            "quit", "reset");

    public static boolean runsInMulti(String command) {
        return RUN_IN_MULTI.contains(command);
    }

    private volatile boolean inMulti;
    private boolean failed;
    private final List<Queued> queued = new ArrayList<>();
    /** Copy-on-write: CLIENT LIST reads it from other threads (the 'd' flag). */
    private final List<Watched> watched = new java.util.concurrent.CopyOnWriteArrayList<>();

    public boolean inMulti() {
        return inMulti;
    }

    /** MULTI. */
    public void begin() {
        inMulti = true;
        failed = false;
        queued.clear();
    }

    public void queue(Argv argv, CommandSpec spec) {
        queued.add(new Queued(argv, spec));
    }

    /** A command failed to queue (unknown, wrong arity, not allowed): EXEC will abort. */
    public void fail() {
        failed = true;
    }

    public boolean failed() {
        return failed;
    }

    public List<Queued> queued() {
        return queued;
    }

    /** Whether a queued command writes (CLIENT PAUSE WRITE holds such an EXEC). */
    public boolean queuedWrite() {
        for (Queued q : queued) {
            if (ClientPause.writes(q.spec())) {
                return true;
            }
        }
        return false;
    }

    /** Whether a queued command is flagged denyoom (a quota refuses such an EXEC). */
    public boolean queuedDenyoom() {
        for (Queued q : queued) {
            if (q.spec().has(dev.cajon.server.command.CommandFlag.DENYOOM)) {
                return true;
            }
        }
        return false;
    }

    /** The number of commands queued (CLIENT LIST's multi=, -1 outside MULTI). */
    public int multiCount() {
        return inMulti ? queued.size() : -1;
    }

    public void watch(int db, byte[] key, Keyspace ks, Watch w) {
        watched.add(new Watched(db, key, ks, w));
    }

    public List<Watched> watched() {
        return watched;
    }

    /** Whether {@code key} of {@code db} is watched already (a second WATCH of it adds nothing). */
    public boolean watches(int db, byte[] key) {
        for (Watched w : watched) {
            if (w.db() == db && java.util.Arrays.equals(w.key(), key)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a WATCHed key has changed (CLIENT LIST's 'd' flag: EXEC will fail). */
    public boolean dirtyCas() {
        for (Watched w : watched) {
            if (w.watch().dirty()) {
                return true;
            }
        }
        return false;
    }

    /** UNWATCH: every watch of the connection is dropped. */
    public void unwatchAll() {
        for (Watched w : watched) {
            if (!w.keyspace().isClosed()) {
                w.keyspace().unwatch(w.watch());
            }
        }
        watched.clear();
    }

    /** EXEC or DISCARD is done, or the connection closed: no MULTI, nothing queued, nothing watched. */
    public void reset() {
        inMulti = false;
        failed = false;
        queued.clear();
        unwatchAll();
    }
}
