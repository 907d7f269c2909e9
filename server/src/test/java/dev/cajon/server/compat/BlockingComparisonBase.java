package dev.cajon.server.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cajon.server.CajonServer;
import dev.cajon.server.ServerConfig;
import dev.cajon.storage.ManualClock;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the blocking comparison tests share: real sockets to both servers, a bounded wait until a
 * server says its clients are blocked, and the comparison of what each client got.
 */
abstract class BlockingComparisonBase extends ComparisonTestBase {
    static final long T0 = 1_700_000_000_000L;

    /** A Cajon of this class's own on a manual clock, for the timeouts (Redis's are real time). */
    ManualClock clock;
    CajonServer manual;

    @BeforeAll
    void startManualServer(@TempDir Path dir) throws Exception {
        clock = new ManualClock(T0);
        manual = CajonServer.start(ServerConfig.defaults().withPort(0).withDir(dir).withClock(clock)
                .withExpiryWarmup(false).withIoThreads(2)); // blocked and waking clients on both loops
    }

    @AfterAll
    void stopManualServer() {
        if (manual != null) {
            manual.close();
        }
    }

    static String s(Reply r) {
        return new String(r.raw(), StandardCharsets.ISO_8859_1);
    }

    /** Waits (bounded) until INFO clients says {@code n} clients are blocked. */
    static void awaitBlocked(RespClient admin, int n) throws IOException {
        String want = "blocked_clients:" + n + "\r\n";
        long until = System.nanoTime() + 5_000_000_000L; // a bound, not a wait: it returns as soon as it sees it
        while (System.nanoTime() < until) {
            if (new String(admin.call("INFO", "clients").raw(), StandardCharsets.ISO_8859_1).contains(want)) {
                return;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
        fail("never saw " + want.trim());
    }

    /** A connection in this test's protocol. */
    RespClient open(int port) throws IOException {
        RespClient c = RespClient.connect(port);
        if (protocol == Protocol.RESP3) {
            c.call("HELLO", "3");
        }
        return c;
    }

    /** Runs the steps against one server and returns the transcript of what each client got. */
    interface Steps {
        List<String> run(int port) throws IOException;
    }

    void compare(String name, Steps steps) throws IOException {
        List<String> redis = steps.run(redisPort());
        List<String> cajon = steps.run(cajonPort());
        assertEquals(redis, cajon, name + " " + protocol.label() + ": Cajon's replies differ from Redis's");
    }
}
