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

    /** The cached keyspace of the current (app, db), or null. Only the connection's thread uses it. */
    public Keyspace cachedKeyspace() {
        Keyspace k = keyspace;
        return k == null || k.isClosed() ? null : k;
    }

    public void cacheKeyspace(Keyspace k) {
        this.keyspace = k;
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
}
