package dev.cajon.server.net;

import dev.cajon.storage.durability.Durability;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.ArrayList;

/**
 * The end of an event loop's turn, where replies that must wait for it leave: those of a
 * connection whose read ended with a collection view held ({@link dev.cajon.storage.HeldViews}:
 * the view is applied here, once for every connection that added to it), and those of
 * appendfsync always.
 *
 * <p>appendfsync always, per event loop: the connections that read and wrote in this turn of the
 * loop wait here with their replies, one sync runs once every connection's commands of the turn
 * have run, and then they all flush. This is Redis's beforeSleep (the AOF is fsynced once per
 * event-loop iteration, before the replies of every client served in it are written). Without it
 * each connection synced on its own before its replies: 50 clients on 2 loops made about 450
 * syncs a second, one per connection batch, about 400 SETs a second.
 *
 * <p>Netty runs a task queued from an I/O callback after the I/O events of the current turn,
 * so the task sees every connection of the turn. A connection that reads again before the task
 * runs just adds to its batch; its flush checks {@link Durability#beforeReply} again, so such
 * writes are synced before they are answered too.
 */
final class GroupCommit {
    private static final FastThreadLocal<GroupCommit> LOOP = new FastThreadLocal<>() {
        @Override
        protected GroupCommit initialValue() {
            return new GroupCommit();
        }
    };

    private ArrayList<ConnectionHandler> waiting = new ArrayList<>();
    private ArrayList<ConnectionHandler> spare = new ArrayList<>();
    private boolean scheduled;

    private GroupCommit() {
    }

    /** Called on {@code loop}: {@code h} flushes at the end of this turn (after its sync). */
    static void defer(ConnectionHandler h, EventExecutor loop, Durability durability) {
        GroupCommit g = LOOP.get();
        g.waiting.add(h);
        if (!g.scheduled) {
            g.scheduled = true;
            loop.execute(() -> g.run(durability));
        }
    }

    private void run(Durability durability) {
        scheduled = false;
        ArrayList<ConnectionHandler> now = waiting;
        waiting = spare;
        spare = now;
        try {
            dev.cajon.storage.HeldViews.release(); // the turn's held writes, then their sync
            durability.beforeReply();
        } finally {
            for (ConnectionHandler h : now) {
                h.flushDeferred();
            }
            now.clear();
        }
    }
}
