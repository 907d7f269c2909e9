package dev.cajon.bench.bot;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The bot adapter's full path (journal, lease, handler, outbox, sent, done) written the way a
 * bot on SQLite would write it, in WAL mode with synchronous=NORMAL (no fsync per commit, as
 * Cajon's embedded store does none either): the same records, the same fencing checks, the same
 * six commits per message with one reply. The indexes a sweeper would use (state, due) are kept.
 *
 * <p>Several workers each open their own instance on the same file, as a multi-threaded bot on
 * SQLite would (a connection is not shared between threads): the transactions begin IMMEDIATE,
 * taking the write lock up front (a deferred one that reads and then writes can fail with
 * SQLITE_BUSY at the upgrade instead of waiting), and a busy connection waits up to 10 s.
 */
final class SqlitePath implements AutoCloseable {
    private final Connection db;
    private final PreparedStatement journal;
    private final PreparedStatement readLease;
    private final PreparedStatement writeLease;
    private final PreparedStatement leaseInbound;
    private final PreparedStatement readState;
    private final PreparedStatement findOut;
    private final PreparedStatement journalOut;
    private final PreparedStatement markCalling;
    private final PreparedStatement markSent;
    private final PreparedStatement markDone;
    private final PreparedStatement writeState;
    private final PreparedStatement releaseLease;

    SqlitePath(Path file) throws SQLException {
        org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
        config.setTransactionMode(org.sqlite.SQLiteConfig.TransactionMode.IMMEDIATE);
        config.setBusyTimeout(10_000);
        db = DriverManager.getConnection("jdbc:sqlite:" + file, config.toProperties());
        try (Statement s = db.createStatement()) {
            s.execute("PRAGMA journal_mode=WAL");
            s.execute("PRAGMA synchronous=NORMAL");
            s.execute("CREATE TABLE IF NOT EXISTS inbound(chat TEXT, mid TEXT, state TEXT, payload TEXT, attempts INT, owner TEXT,"
                    + " fence INT, until INT, due INT, received INT, PRIMARY KEY(chat, mid))");
            s.execute("CREATE INDEX IF NOT EXISTS inbound_due ON inbound(state, due)");
            s.execute("CREATE TABLE IF NOT EXISTS lease(chat TEXT PRIMARY KEY, owner TEXT, fence INT, until INT)");
            s.execute("CREATE TABLE IF NOT EXISTS chat_state(chat TEXT PRIMARY KEY, state TEXT)");
            s.execute("CREATE TABLE IF NOT EXISTS outbound(k TEXT PRIMARY KEY, chat TEXT, content TEXT, state TEXT, attempts INT,"
                    + " owner TEXT, fence INT, until INT, due INT, pid TEXT)");
            s.execute("CREATE INDEX IF NOT EXISTS outbound_due ON outbound(state, due)");
        }
        journal = db.prepareStatement("INSERT OR IGNORE INTO inbound VALUES(?, ?, 'NEW', ?, 0, '', 0, 0, 0, ?)");
        readLease = db.prepareStatement("SELECT owner, fence, until FROM lease WHERE chat = ?");
        writeLease = db.prepareStatement("INSERT OR REPLACE INTO lease VALUES(?, ?, ?, ?)");
        leaseInbound = db.prepareStatement("UPDATE inbound SET state = 'LEASED', owner = ?, fence = ?, until = ?"
                + " WHERE chat = ? AND mid = ? AND state IN ('NEW', 'RETRY')");
        readState = db.prepareStatement("SELECT state FROM chat_state WHERE chat = ?");
        findOut = db.prepareStatement("SELECT state, pid FROM outbound WHERE k = ?");
        journalOut = db.prepareStatement("INSERT OR IGNORE INTO outbound VALUES(?, ?, ?, 'PENDING', 0, '', 0, 0, ?, NULL)");
        markCalling = db.prepareStatement("UPDATE outbound SET state = 'CALLING', owner = ?, fence = fence + 1, until = ?"
                + " WHERE k = ? AND state = 'PENDING' AND due <= ?");
        markSent = db.prepareStatement("UPDATE outbound SET state = 'SENT', pid = ?, owner = ''"
                + " WHERE k = ? AND state = 'CALLING' AND owner = ? AND fence = 1");
        markDone = db.prepareStatement("UPDATE inbound SET state = 'DONE', owner = ''"
                + " WHERE chat = ? AND mid = ? AND state = 'LEASED' AND owner = ? AND fence = ?");
        writeState = db.prepareStatement("INSERT OR REPLACE INTO chat_state VALUES(?, ?)");
        releaseLease = db.prepareStatement("UPDATE lease SET owner = '', until = 0 WHERE chat = ? AND owner = ? AND fence = ?");
    }

    /** One message with one reply; returns false when something refused (a duplicate, a lost lease). */
    boolean handle(String chat, String mid, String payload, long now) throws SQLException {
        String owner = "bench#" + Thread.currentThread().getId();
        db.setAutoCommit(true);
        journal.setString(1, chat);
        journal.setString(2, mid);
        journal.setString(3, payload);
        journal.setLong(4, now);
        if (journal.executeUpdate() != 1) {
            return false;
        }
        // claim: the lease and the record in one transaction
        db.setAutoCommit(false);
        long fence;
        String state;
        readLease.setString(1, chat);
        try (ResultSet r = readLease.executeQuery()) {
            boolean found = r.next();
            boolean held = found && !r.getString(1).isEmpty() && r.getLong(3) > now;
            fence = held ? -1 : found ? r.getLong(2) + 1 : 1;
        }
        if (fence < 0) {
            db.rollback();
            return false;
        }
        writeLease.setString(1, chat);
        writeLease.setString(2, owner);
        writeLease.setLong(3, fence);
        writeLease.setLong(4, now + 60_000);
        writeLease.executeUpdate();
        leaseInbound.setString(1, owner);
        leaseInbound.setLong(2, fence);
        leaseInbound.setLong(3, now + 60_000);
        leaseInbound.setString(4, chat);
        leaseInbound.setString(5, mid);
        leaseInbound.executeUpdate();
        readState.setString(1, chat);
        try (ResultSet r = readState.executeQuery()) {
            state = r.next() ? r.getString(1) : "";
        }
        db.commit();
        db.setAutoCommit(true);
        // the handler: one reply, the cart grows (kept short)
        String newState = (state + payload).substring(Math.max(0, state.length() + payload.length() - 64));
        String key = chat + "/" + mid + ":1";
        findOut.setString(1, key);
        try (ResultSet r = findOut.executeQuery()) {
            if (r.next()) {
                return false;
            }
        }
        journalOut.setString(1, key);
        journalOut.setString(2, chat);
        journalOut.setString(3, "reply to " + mid);
        journalOut.setLong(4, now);
        journalOut.executeUpdate();
        markCalling.setString(1, owner);
        markCalling.setLong(2, now + 60_000);
        markCalling.setString(3, key);
        markCalling.setLong(4, now);
        if (markCalling.executeUpdate() != 1) {
            return false;
        }
        String pid = "pid-" + mid; // the provider
        markSent.setString(1, pid);
        markSent.setString(2, key);
        markSent.setString(3, owner);
        markSent.executeUpdate();
        // done: fenced, with the chat's state and the lease's release, in one transaction
        db.setAutoCommit(false);
        markDone.setString(1, chat);
        markDone.setString(2, mid);
        markDone.setString(3, owner);
        markDone.setLong(4, fence);
        boolean ok = markDone.executeUpdate() == 1;
        if (ok) {
            writeState.setString(1, chat);
            writeState.setString(2, newState);
            writeState.executeUpdate();
            releaseLease.setString(1, chat);
            releaseLease.setString(2, owner);
            releaseLease.setLong(3, fence);
            releaseLease.executeUpdate();
        }
        db.commit();
        db.setAutoCommit(true);
        return ok;
    }

    @Override
    public void close() throws SQLException {
        db.close();
    }
}
