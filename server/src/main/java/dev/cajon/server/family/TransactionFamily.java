package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.cmd;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import dev.cajon.server.command.ReplyOutput;
import dev.cajon.server.session.Transaction;
import dev.cajon.storage.Keyspace;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.function.Supplier;

/**
 * Transactions: MULTI, EXEC, DISCARD, WATCH and UNWATCH, with Redis 7's semantics.
 *
 * <p>The dispatcher queues commands between MULTI and EXEC (see {@code Dispatcher}). EXEC runs
 * them as one atomic section of the storage ({@link Keyspace#atomically}) over exactly the keys
 * they name, found from the command table's key positions by {@link TxFootprint}: no command on
 * another event loop sees part of the transaction, and after a crash it is there whole or not at
 * all. The WATCHed keys are checked inside the same section, so nothing can change them between
 * the check and the commands. Replies are collected in a buffer of their own, because a section
 * may run again from the start after the map grows.
 */
public final class TransactionFamily {
    private TransactionFamily() {
    }

    static void multi(Ctx c) {
        Transaction tx = c.session().transaction();
        if (tx.inMulti()) {
            throw new CommandError(RedisErrors.MULTI_NESTED);
        }
        tx.begin();
        c.ok();
    }

    static void discard(Ctx c) {
        Transaction tx = c.session().transaction();
        if (!tx.inMulti()) {
            throw new CommandError(RedisErrors.DISCARD_WITHOUT_MULTI);
        }
        tx.reset();
        c.ok();
    }

    static void watch(Ctx c) {
        Transaction tx = c.session().transaction();
        if (tx.inMulti()) {
            throw new CommandError(RedisErrors.WATCH_INSIDE_MULTI);
        }
        int db = c.session().db();
        Keyspace ks = c.keyspace();
        for (int i = 1; i < c.argc(); i++) {
            byte[] key = c.arg(i);
            if (!tx.watches(db, key)) {
                tx.watch(db, key, ks, ks.watch(key));
            }
        }
        c.ok();
    }

    static void unwatch(Ctx c) {
        c.session().transaction().unwatchAll();
        c.ok();
    }

    static void exec(Ctx c) {
        Transaction tx = c.session().transaction();
        if (!tx.inMulti()) {
            throw new CommandError(RedisErrors.EXEC_WITHOUT_MULTI);
        }
        if (tx.failed()) {
            tx.reset();
            throw new CommandError(RedisErrors.EXECABORT);
        }
        // the dbs' keyspaces stay what the footprint looks up until the EXEC ends; one that swaps
        // dbs holds them exclusively, and the blocked clients' registry first (lock order:
        // registry, db gate, stripes), so its waiters move with the swap and are served after it
        boolean swaps = false;
        for (Transaction.Queued q : tx.queued()) {
            swaps |= q.spec().name().equals("swapdb");
        }
        boolean swapping = swaps;
        Supplier<Void> held = () -> c.server().store().holdingDbs(swapping, () -> {
            execHeld(c, tx);
            return null;
        });
        if (swapping) {
            c.server().blocking().holding(held);
        } else {
            held.get();
        }
    }

    private static void execHeld(Ctx c, Transaction tx) {
        TxFootprint fp = TxFootprint.of(c, tx);
        List<Transaction.Queued> queued = List.copyOf(tx.queued());
        int startDb = c.session().db();
        TxOutput replies = new TxOutput();
        ReplyOutput connection = c.redirect(replies);
        try {
            Supplier<Boolean> body = () -> {
                replies.restart();
                c.session().db(startDb);
                for (Transaction.Watched w : tx.watched()) {
                    if (w.keyspace().changed(w.watch())) {
                        return false;
                    }
                }
                c.arrayHeader(queued.size());
                for (Transaction.Queued q : queued) {
                    c.server().dispatcher().execute(c, q.argv(), q.spec());
                }
                return true;
            };
            boolean ran = fp.run(body);
            c.redirect(connection);
            if (ran) {
                c.out().writeBytes(replies.buffer());
            } else {
                c.nullArray();
            }
        } finally {
            c.redirect(connection);
            tx.reset();
            replies.release();
        }
    }

    /**
     * EXEC's replies, collected on the heap until the transaction is done. A large value is read
     * into the buffer instead of being streamed from its file (a transaction may run again).
     */
    private static final class TxOutput implements ReplyOutput {
        private final ByteBuf buf = Unpooled.buffer(256);

        @Override
        public ByteBuf buffer() {
            return buf;
        }

        @Override
        public void streamFile(FileChannel file, long position, long length) {
            try (FileChannel f = file) {
                long done = 0;
                while (done < length) {
                    int n = buf.writeBytes(f, position + done, (int) Math.min(length - done, 1 << 20));
                    if (n < 0) {
                        throw new IOException("blob file ended early");
                    }
                    done += n;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void restart() {
            buf.clear();
        }

        void release() {
            buf.release();
        }
    }

    public static void register(CommandTable t) {
        t.register(cmd("multi", 1, "noscript loading stale fast allow_busy", 0, 0, 0, "transactions", "1.2.0", "Mark the start of a transaction block", TransactionFamily::multi));
        t.register(cmd("exec", 1, "noscript loading stale skip_slowlog", 0, 0, 0, "transactions", "1.2.0", "Execute all commands issued after MULTI", TransactionFamily::exec));
        t.register(cmd("discard", 1, "noscript loading stale fast allow_busy", 0, 0, 0, "transactions", "2.0.0", "Discard all commands issued after MULTI", TransactionFamily::discard));
        t.register(cmd("watch", -2, "noscript loading stale fast allow_busy", 1, -1, 1, "transactions", "2.2.0", "Watch the given keys to determine execution of the MULTI/EXEC block", TransactionFamily::watch));
        t.register(cmd("unwatch", 1, "noscript loading stale fast allow_busy", 0, 0, 0, "transactions", "2.2.0", "Forget about all watched keys", TransactionFamily::unwatch));
    }
}
