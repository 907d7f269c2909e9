package dev.cajon.server.session;

import dev.cajon.storage.Keyspace;
import dev.cajon.storage.Store;

/**
 * The state of one client connection: its id and name, the app and db it works in, whether it
 * has authenticated, and what CLIENT LIST shows. Owned by the connection's event loop thread; the
 * fields other threads read (CLIENT LIST, INFO) are volatile.
 */
public final class ClientSession {
    private final long id;
    private final String addr;
    private final String laddr;
    private final long createdMillis;
    private volatile String app = Store.DEFAULT_APP;
    private volatile int db;
    private volatile String name = "";
    private volatile String libName = "";
    private volatile String libVersion = "";
    private volatile boolean authenticated = true;
    private volatile String lastCommand = "NULL";
    private volatile long lastInteractionMillis;
    private boolean closeAfterReply;
    /** RESP2 until HELLO 3; CLIENT LIST reads it from other threads. */
    private volatile dev.cajon.protocol.RespProtocol protocol = dev.cajon.protocol.RespProtocol.RESP2;
    private final Transaction transaction = new Transaction();
    /** The keyspace of (app, db), cached so the hot path does no map lookup per command. */
    private Keyspace keyspace;
    /** The store's SWAPDB epoch when {@link #keyspace} was looked up. */
    private long keyspaceEpoch;

    public ClientSession(long id, String addr, String laddr, long createdMillis) {
        this.id = id;
        this.addr = addr;
        this.laddr = laddr;
        this.createdMillis = createdMillis;
        this.lastInteractionMillis = createdMillis;
    }

    public long id() {
        return id;
    }

    public String addr() {
        return addr;
    }

    public String laddr() {
        return laddr;
    }

    public long createdMillis() {
        return createdMillis;
    }

    public String app() {
        return app;
    }

    public void app(String app) {
        this.app = app;
        this.keyspace = null;
    }

    public int db() {
        return db;
    }

    public void db(int db) {
        this.db = db;
        this.keyspace = null;
    }

    /**
     * The cached keyspace of the current (app, db), or null: also when a SWAPDB happened since it
     * was cached ({@code swapEpoch}, the store's now, differs). Only the connection's thread uses it.
     */
    public Keyspace cachedKeyspace(long swapEpoch) {
        Keyspace k = keyspace;
        return k == null || k.isClosed() || keyspaceEpoch != swapEpoch ? null : k;
    }

    public void cacheKeyspace(Keyspace k, long swapEpoch) {
        this.keyspace = k;
        this.keyspaceEpoch = swapEpoch;
    }

    public String name() {
        return name;
    }

    public void name(String name) {
        this.name = name;
    }

    public String libName() {
        return libName;
    }

    public void libName(String v) {
        this.libName = v;
    }

    public String libVersion() {
        return libVersion;
    }

    public void libVersion(String v) {
        this.libVersion = v;
    }

    public boolean authenticated() {
        return authenticated;
    }

    public void authenticated(boolean v) {
        this.authenticated = v;
    }

    public String lastCommand() {
        return lastCommand;
    }

    public void touched(String command, long now) {
        this.lastCommand = command;
        this.lastInteractionMillis = now;
    }

    public long lastInteractionMillis() {
        return lastInteractionMillis;
    }

    public dev.cajon.protocol.RespProtocol protocol() {
        return protocol;
    }

    public void protocol(dev.cajon.protocol.RespProtocol p) {
        this.protocol = p;
    }

    /** MULTI, the queued commands and the WATCHed keys. */
    public Transaction transaction() {
        return transaction;
    }

    /** QUIT: reply, then close the connection. */
    public void closeAfterReply() {
        this.closeAfterReply = true;
    }

    public boolean shouldClose() {
        return closeAfterReply;
    }

    // ------------------------------------------------------------------ CLIENT KILL, PAUSE, REPLY, NO-EVICT, NO-TOUCH

    private final java.util.concurrent.atomic.AtomicBoolean killed = new java.util.concurrent.atomic.AtomicBoolean();
    /** How the connection closes itself when killed; set by the connection, run from any thread. */
    private volatile Runnable onKill;
    /** A command of this client waits for CLIENT PAUSE to end (CLIENT LIST flag 'b'). */
    private volatile boolean postponed;
    private volatile boolean noEvict;
    private volatile boolean noTouch;
    // CLIENT REPLY, as Redis's CLIENT_REPLY_OFF, CLIENT_REPLY_SKIP and CLIENT_REPLY_SKIP_NEXT;
    // only the connection's thread uses them
    private boolean replyOff;
    private boolean replySkip;
    private boolean replySkipNext;

    /** The connection's output not yet taken by the socket, and its input decoded but not run (any thread). */
    private volatile java.util.function.LongSupplier output = () -> 0;
    private volatile java.util.function.LongSupplier input = () -> 0;

    /** Set by the connection: what CLIENT LIST's omem and qbuf read, from any thread. */
    public void buffers(java.util.function.LongSupplier output, java.util.function.LongSupplier input) {
        this.output = output;
        this.input = input;
    }

    /** Bytes of replies written to the connection that the socket has not taken yet (omem). */
    public long outputBytes() {
        return output.getAsLong();
    }

    /** Bytes of commands received and decoded that wait to run (qbuf). */
    public long inputBytes() {
        return input.getAsLong();
    }

    /** The connection's way to close itself, from any thread (it moves onto its own event loop). */
    public void onKill(Runnable closer) {
        this.onKill = closer;
    }

    /**
     * CLIENT KILL of another client: marks this session killed and asks its connection to close.
     * Returns false when it was already killed.
     */
    public boolean kill() {
        if (!killed.compareAndSet(false, true)) {
            return false;
        }
        Runnable r = onKill;
        if (r != null) {
            r.run();
        }
        return true;
    }

    /** Whether CLIENT KILL closed this client: its connection runs no further command. */
    public boolean killed() {
        return killed.get();
    }

    public boolean postponed() {
        return postponed;
    }

    public void postponed(boolean v) {
        this.postponed = v;
    }

    /** CLIENT NO-EVICT (Cajon never evicts clients; recorded and shown as CLIENT LIST flag 'e'). */
    public boolean noEvict() {
        return noEvict;
    }

    public void noEvict(boolean v) {
        this.noEvict = v;
    }

    /** CLIENT NO-TOUCH: this client's reads do not count as access to a key (CLIENT LIST flag 'T'). */
    public boolean noTouch() {
        return noTouch;
    }

    public void noTouch(boolean v) {
        this.noTouch = v;
    }

    /** CLIENT REPLY ON: replies again, this command's +OK included. */
    public void replyOn() {
        replyOff = false;
        replySkip = false;
    }

    /** CLIENT REPLY OFF: no reply at all until CLIENT REPLY ON. */
    public void replyOff() {
        replyOff = true;
    }

    /** CLIENT REPLY SKIP: no reply to the next command (nothing changes while replies are off). */
    public void replySkip() {
        if (!replyOff) {
            replySkipNext = true;
        }
    }

    /** Whether the reply being written now is to be dropped (REPLY OFF, or the command after SKIP). */
    public boolean repliesSuppressed() {
        return replyOff || replySkip;
    }

    /**
     * Called by the connection after every command it ran (as Redis's resetClient): the skip of
     * this command is over, and a SKIP this command asked for applies to the next one.
     */
    public void replyCommandDone() {
        replySkip = replySkipNext;
        replySkipNext = false;
    }

    // ------------------------------------------------------------------ ACL: the user this connection is authenticated as

    /**
     * The connection's user is an app, not the admin ({@code default}): commands that act beyond
     * the app's drawer answer NOPERM ({@link AppPermissions}). Only the connection's thread uses it.
     */
    private boolean appUser;

    public boolean appUser() {
        return appUser;
    }

    /**
     * AUTH or HELLO AUTH succeeded as {@code user}: the connection works in that user's app (its
     * keyspaces, its clients) from now on, in the same db. {@code isApp} is false for the admin.
     */
    public void authenticatedAs(String user, boolean isApp) {
        app(user);
        appUser = isApp;
        authenticated(true);
    }

    // ------------------------------------------------------------------ metrics

    /**
     * What this session's commands record into, found on its first command and again when its
     * app changes (see {@code Metering}); null before. Only the connection's thread uses it.
     */
    private dev.cajon.server.metrics.SessionMetrics metrics;

    public dev.cajon.server.metrics.SessionMetrics metrics() {
        return metrics;
    }

    public void metrics(dev.cajon.server.metrics.SessionMetrics m) {
        this.metrics = m;
    }
}
