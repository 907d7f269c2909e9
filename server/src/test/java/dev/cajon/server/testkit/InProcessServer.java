package dev.cajon.server.testkit;

import dev.cajon.server.ServerConfig;
import dev.cajon.server.ServerContext;
import dev.cajon.storage.ManualClock;
import dev.cajon.storage.Store;
import dev.cajon.storage.expiry.ExpiryWheel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A Cajon server without sockets: a real {@link Store} on a temporary directory, a
 * {@link ManualClock}, and the same {@link ServerContext} (command table, dispatcher, counters)
 * the Netty server uses. Tests open {@link Client}s on it and move the clock instead of sleeping.
 *
 * <p>By default only lazy expiry runs (a key is reclaimed when a command touches it). With
 * {@link #openWithActiveExpiry} the store reports deadlines to an {@link ExpiryWheel}, as the real
 * server does, but no reaper thread runs: the test calls {@link #reap()} after moving the clock.
 */
public final class InProcessServer implements AutoCloseable {
    /** An arbitrary fixed "now" (2023-11-14T22:13:20Z), so deadlines are realistic epoch millis. */
    public static final long T0 = 1_700_000_000_000L;

    private final Path dir;
    private final ManualClock clock;
    private final Store store;
    private final ServerContext context;
    private final ExpiryWheel wheel;
    private final List<Client> clients = new ArrayList<>();
    private int nextPort = 50_000;

    private InProcessServer(Path dir, ManualClock clock, boolean activeExpiry) {
        this.dir = dir;
        this.clock = clock;
        this.wheel = activeExpiry ? new ExpiryWheel(clock) : null;
        this.store = wheel == null ? Store.open(dir, clock) : Store.open(dir, clock, wheel);
        try {
            this.context = new ServerContext(ServerConfig.defaults().withDir(dir).withClock(clock), store, wheel);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    public static InProcessServer open(Path dir) {
        return open(dir, T0);
    }

    public static InProcessServer open(Path dir, long startMillis) {
        return new InProcessServer(dir, new ManualClock(startMillis), false);
    }

    /** A server whose deadlines go to an expiry wheel; {@link #reap()} runs one reaper pass. */
    public static InProcessServer openWithActiveExpiry(Path dir) {
        return new InProcessServer(dir, new ManualClock(T0), true);
    }

    /** One pass of active expiry up to the clock's now; returns the number of keys reclaimed. */
    public int reap() {
        if (wheel == null) {
            throw new IllegalStateException("opened without active expiry");
        }
        return wheel.advance();
    }

    /** A new connection, with its own session (db 0, no name). */
    public synchronized Client client() {
        Client c = new Client(context, "127.0.0.1:" + nextPort++);
        clients.add(c);
        return c;
    }

    public ManualClock clock() {
        return clock;
    }

    public long now() {
        return clock.nowMillis();
    }

    public void advance(long millis) {
        clock.advance(millis);
    }

    public Store store() {
        return store;
    }

    public ServerContext context() {
        return context;
    }

    public Path dir() {
        return dir;
    }

    @Override
    public synchronized void close() {
        try {
            clients.forEach(Client::close);
        } finally {
            store.close();
        }
    }
}
