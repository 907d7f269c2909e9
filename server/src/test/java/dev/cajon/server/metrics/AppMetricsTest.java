package dev.cajon.server.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.testkit.Client;
import dev.cajon.server.testkit.InProcessServer;
import dev.cajon.server.testkit.Reply;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-app metrics, scraped over HTTP from an in-process server: each app's commands, errors,
 * keys, expired keys and quota refusals under its own {@code app} label, with the values the
 * commands it ran must have produced. Apps are set on the session directly (as AUTH will).
 */
class AppMetricsTest {
    @TempDir
    Path dir;
    private InProcessServer server;
    private MetricsEndpoint endpoint;

    private void open() {
        server = InProcessServer.open(dir);
        endpoint = MetricsEndpoint.start(server.context(), "127.0.0.1", 0);
    }

    @AfterEach
    void close() {
        if (endpoint != null) {
            endpoint.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private Client client(String app) {
        Client c = server.client();
        c.session().app(app);
        return c;
    }

    private Scrape scrape() throws Exception {
        return Scrape.get(endpoint.address());
    }

    private static double commands(Scrape s, String app, String command) {
        Double v = s.value("cajon_commands_total", "app", app, "command", command);
        assertNotNull(v, "no cajon_commands_total for " + app + " " + command + " in\n" + s.text);
        return v;
    }

    @Test
    void eachAppsCommandsErrorsAndKeysAreCountedUnderItsOwnLabel() throws Exception {
        open();
        Client a = client("a");
        Client b = client("b");
        assertEquals("OK", a.run("set", "k1", "v").asString());
        a.run("set", "k2", "v");
        a.run("get", "k1");
        assertTrue(a.run("incr", "k1") instanceof Reply.Error, "INCR of a non-number answers an error");
        b.run("set", "k1", "v"); // the same name in another app is another key
        for (int i = 0; i < 3; i++) {
            b.run("get", "missing" + i);
        }
        b.run("nosuchcommand"); // refused before it runs: no command row to count it under

        Scrape s = scrape();
        assertEquals(2, commands(s, "a", "set"));
        assertEquals(1, commands(s, "a", "get"));
        assertEquals(1, commands(s, "a", "incr"));
        assertEquals(1, commands(s, "b", "set"));
        assertEquals(3, commands(s, "b", "get"));
        assertNull(s.value("cajon_commands_total", "app", "b", "command", "incr"), "b never ran INCR");
        assertEquals(1, s.value("cajon_command_errors_total", "app", "a", "command", "incr"));
        assertNull(s.value("cajon_command_errors_total", "app", "a", "command", "set"), "SET never failed");
        assertNull(s.value("cajon_command_errors_total", "app", "b", "command", "get"),
                "a GET of a missing key is a nil reply, not an error");
        assertEquals(2, s.value("cajon_app_keys", "app", "a"));
        assertEquals(1, s.value("cajon_app_keys", "app", "b"));
        assertEquals(0, s.value("cajon_app_quota_rejected_total", "app", "a"));
    }

    @Test
    void latencyIsPerCommandOverEveryAppAndTimesEachRunOfAnExpensiveCommand() throws Exception {
        open();
        Client a = client("a");
        Client b = client("b");
        a.run("mset", "k1", "v", "k2", "v");
        b.run("mset", "k1", "v");
        b.run("keys", "*");
        a.run("del", "k1", "k2", "nope");
        int gets = 4_000;
        for (int i = 0; i < gets; i++) {
            (i % 2 == 0 ? a : b).run("get", "k1");
        }
        Scrape s = scrape();
        // not flagged fast and not single-key: every run is timed
        assertEquals(2, s.value("cajon_command_duration_seconds_count", "command", "mset"));
        assertEquals(2, s.value("cajon_command_duration_seconds_bucket", "command", "mset", "le", "+Inf"));
        assertEquals(1, s.value("cajon_command_duration_seconds_count", "command", "keys"));
        assertEquals(1, s.value("cajon_command_duration_seconds_count", "command", "del"));
        assertTrue(s.value("cajon_command_duration_seconds_sum", "command", "mset") > 0);
        assertEquals(CommandLatency.BUCKETS, s.all("cajon_command_duration_seconds_bucket", "command", "mset").size());
        // GET, flagged fast: one run in 8 at random, so about 500 of 4,000 (5 sigma: 402-598)
        double timed = s.value("cajon_command_duration_seconds_count", "command", "get");
        assertTrue(timed >= 402 && timed <= 598, "GETs timed: " + timed);
        assertEquals(gets / 2, commands(s, "a", "get"), "every GET is counted");
        assertEquals(gets / 2, commands(s, "b", "get"));
    }

    @Test
    void transactionsCountEachQueuedCommandAndTheExec() throws Exception {
        open();
        Client a = client("a");
        a.run("multi");
        a.run("set", "x", "1");
        a.run("incr", "x");
        a.run("append", "x", "z");
        a.run("incr", "x"); // "2z" is no integer: its reply inside EXEC is an error
        Reply exec = a.run("exec");
        assertEquals(4, exec.asArray().size());
        assertTrue(exec.asArray().get(3) instanceof Reply.Error);
        a.run("multi");
        a.run("incr", "x", "extra"); // wrong arity: refused while queueing, EXEC answers EXECABORT
        assertTrue(a.run("exec") instanceof Reply.Error);

        Scrape s = scrape();
        assertEquals(2, commands(s, "a", "multi"));
        assertEquals(2, commands(s, "a", "exec"));
        assertEquals(1, commands(s, "a", "set"));
        assertEquals(2, commands(s, "a", "incr"), "queued commands count when EXEC runs them, not when queued");
        assertEquals(1, s.value("cajon_command_errors_total", "app", "a", "command", "incr"));
        assertEquals(1, s.value("cajon_command_errors_total", "app", "a", "command", "exec"), "EXECABORT");
    }

    @Test
    void aSessionFindsItsMetersOnceAndAgainOnlyWhenItsAppChanges() {
        open();
        Client c = client("a");
        c.run("ping");
        SessionMetrics first = c.session().metrics();
        assertNotNull(first);
        for (int i = 0; i < 100; i++) {
            c.run("get", "k" + i);
        }
        assertTrue(first == c.session().metrics(), "the same meters, not looked up again");
        c.session().app("b");
        c.run("ping");
        SessionMetrics second = c.session().metrics();
        assertTrue(second != first, "a new app: looked up again");
        assertEquals("b", second.app().app());
        assertTrue(first.app() == Metering.app(server.context(), client("a").session()),
                "one AppMetrics per app, shared by its sessions");
    }

    @Test
    void aSessionThatChangesAppCountsUnderTheNewOne() throws Exception {
        open();
        Client c = client("a");
        c.run("ping");
        c.session().app("b"); // what AUTH does
        c.run("ping");
        c.run("ping");
        c.session().app(new String("a")); // an equal name in another String is the same app
        c.run("ping");

        Scrape s = scrape();
        assertEquals(2, commands(s, "a", "ping"));
        assertEquals(2, commands(s, "b", "ping"));
        assertNull(s.value("cajon_commands_total", "app", "default", "command", "ping"));
    }

    @Test
    void expiredKeysAndQuotaRefusalsAreTheApps() throws Exception {
        open();
        Client a = client("a");
        Client b = client("b");
        b.run("set", "t1", "v", "px", "100");
        b.run("set", "t2", "v", "px", "100");
        b.run("set", "kept", "v");
        a.run("set", "t1", "v", "px", "100");
        server.advance(200);
        assertTrue(b.run("get", "t1").isNil());
        assertTrue(b.run("get", "t2").isNil());
        AppMetrics meters = Metering.app(server.context(), a.session());
        assertNotNull(meters);
        meters.quotaRejected();
        meters.quotaRejected();

        Scrape s = scrape();
        assertEquals(2, s.value("cajon_app_expired_keys_total", "app", "b"));
        assertEquals(0, s.value("cajon_app_expired_keys_total", "app", "a"), "a's key has not been touched yet");
        assertEquals(1, s.value("cajon_app_keys", "app", "b"));
        assertEquals(1, s.value("cajon_app_keys", "app", "a"), "expired keys count until reclaimed, as in Redis");
        assertEquals(2, s.value("cajon_app_quota_rejected_total", "app", "a"));
        assertEquals(0, s.value("cajon_app_quota_rejected_total", "app", "b"));
        if (ServerMetrics.LIVE_BYTES == null) {
            assertTrue(!s.has("cajon_app_live_bytes"), "no figure until storage counts live bytes");
        } else {
            assertTrue(s.value("cajon_app_live_bytes", "app", "b") > 0);
        }
    }

    @Test
    void afterARestartAppsWithDataShowTheirKeysBeforeAnyCommand() throws Exception {
        open();
        client("a").run("mset", "k1", "v", "k2", "v", "k3", "v");
        Client b = client("b");
        b.run("select", "3");
        b.run("set", "k", "v");
        endpoint.close();
        endpoint = null;
        server.close();

        open();
        Scrape s = scrape();
        assertEquals(3, s.value("cajon_app_keys", "app", "a"));
        assertEquals(1, s.value("cajon_app_keys", "app", "b"), "keys of every db");
        assertEquals(List.of(), s.all("cajon_commands_total", "app", "a"), "no command since the restart");
    }

    @Test
    void aDeletedAppsMetersGo() throws Exception {
        open();
        client("gone").run("set", "k", "v");
        client("kept").run("set", "k", "v");
        assertEquals(1, commands(scrape(), "gone", "set"));
        endpoint.metrics().forget("gone");
        Scrape s = scrape();
        assertEquals(List.of(), s.all("cajon_commands_total", "app", "gone"));
        assertEquals(1, commands(s, "kept", "set"));
    }
}
