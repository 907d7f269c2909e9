package dev.cajon.server.testkit;

import dev.cajon.storage.ManualClock;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fixture of every family test: a fresh {@link InProcessServer} per test on its own
 * temporary directory, one default {@link Client}, and Dragonfly-style {@code run("incr", "k")}.
 */
public abstract class FamilyTestBase {
    @TempDir
    protected Path dir;
    protected InProcessServer server;
    protected ManualClock clock;
    /** The default connection {@link #run} uses. */
    protected Client client;

    @BeforeEach
    public void startServer() {
        server = InProcessServer.open(dir);
        clock = server.clock();
        client = server.client();
    }

    @AfterEach
    public void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    /** Runs one command on the default client. */
    protected Reply run(Object... args) {
        return client.run(args);
    }

    /** Moves the manual clock forward. */
    protected void advance(long millis) {
        clock.advance(millis);
    }

    protected long now() {
        return clock.nowMillis();
    }

    /** A line "name:value" of an INFO reply, or null when absent. */
    public static String infoField(Reply info, String name) {
        for (String line : info.asString().split("\r\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1);
            }
        }
        return null;
    }
}
