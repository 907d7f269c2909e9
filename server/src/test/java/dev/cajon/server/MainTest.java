package dev.cajon.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The launcher's quick option reader: a strict subset of picocli's parsing, with the same result. */
class MainTest {
    @Test
    void readsAnOrdinaryStartLikeTheLauncherWritesIt() {
        Main m = Main.quickParse(new String[] {"--bind", "0.0.0.0", "--port", "7000", "--dir", "/var/lib/cajon",
                "--io-threads=3", "--expiry-threads", "2"});
        assertNotNull(m);
        assertEquals("0.0.0.0", m.bind);
        assertEquals(7000, m.port);
        assertEquals(Path.of("/var/lib/cajon"), m.dir);
        assertEquals(3, m.ioThreads);
        assertEquals(2, m.expiryThreads);
        Main defaults = Main.quickParse(new String[0]);
        assertNotNull(defaults);
        assertEquals(ServerConfig.DEFAULT_BIND, defaults.bind);
        assertEquals(ServerConfig.DEFAULT_PORT, defaults.port);
        assertEquals(ServerConfig.DEFAULT_DIR, defaults.dir);
        assertNull(defaults.requirepass, "no password unless asked for");
        Main protectedStart = Main.quickParse(new String[] {"--port", "7000", "--requirepass", "s3cret!"});
        assertNotNull(protectedStart);
        assertEquals("s3cret!", protectedStart.requirepass);
        assertEquals("s3cret!", ServerConfig.defaults().withRequirepass("s3cret!").requirepass());
        assertFalse(ServerConfig.defaults().withRequirepass("s3cret!").toString().contains("s3cret"),
                "a logged config never shows the password");
    }

    @Test
    void metricsAreOffUnlessAPortIsGivenAndListenOnLoopbackUnlessTold() {
        Main defaults = Main.quickParse(new String[0]);
        assertEquals(ServerConfig.METRICS_OFF, defaults.metricsPort);
        assertEquals("127.0.0.1", defaults.metricsBind);
        Main full = new Main();
        new CommandLine(full).parseArgs();
        assertEquals(ServerConfig.METRICS_OFF, full.metricsPort);
        assertEquals("127.0.0.1", full.metricsBind);
        Main on = Main.quickParse(new String[] {"--metrics-port", "8379"});
        assertEquals(8379, on.metricsPort);
        assertEquals("127.0.0.1", on.metricsBind);
        Main open = Main.quickParse(new String[] {"--metrics-port=8379", "--metrics-bind", "0.0.0.0"});
        assertEquals(8379, open.metricsPort);
        assertEquals("0.0.0.0", open.metricsBind);
    }

    @Test
    void appQuotaDefaultsAreNoneUnlessGiven() {
        Main full = new Main();
        new CommandLine(full).parseArgs();
        assertEquals(0, full.appMaxKeys);
        assertEquals(0, full.appMaxBytes);
        Main set = new Main();
        new CommandLine(set).parseArgs("--app-max-keys", "10000", "--app-max-bytes", "52428800");
        assertEquals(10000, set.appMaxKeys);
        assertEquals(52428800, set.appMaxBytes);
        // the quick parser leaves them to picocli rather than misread them
        assertEquals(null, Main.quickParse(new String[] {"--app-max-keys", "5"}));
    }

    @Test
    void aConfigFileGoesThroughPicocli() {
        // picocli's parse result is what tells the file's values from the flags that override them
        assertEquals(null, Main.quickParse(new String[] {"--config", "cajon.conf"}));
        assertEquals(null, Main.quickParse(new String[] {"--port", "7000", "--config=cajon.conf"}));
        Main m = new Main();
        new CommandLine(m).parseArgs("--config", "cajon.conf");
        assertEquals(java.nio.file.Path.of("cajon.conf"), m.config);
    }

    @Test
    void theExpiryWarmupIsOnUnlessTurnedOff() {
        Main quick = Main.quickParse(new String[] {"--port", "7000"});
        assertNotNull(quick);
        assertEquals(true, quick.expiryWarmup);
        for (String[] args : new String[][] {{}, {"--expiry-warmup"}, {"--no-expiry-warmup"},
                {"--port", "7000", "--no-expiry-warmup"}}) {
            assertNull(args.length == 0 ? null : Main.quickParse(args), "a flag is left to picocli");
            Main full = new Main();
            new CommandLine(full).parseArgs(args);
            boolean off = Arrays.asList(args).contains("--no-expiry-warmup");
            assertEquals(!off, full.expiryWarmup, Arrays.toString(args));
        }
    }

    @Test
    void leavesEverythingElseToPicocli() {
        for (String[] args : new String[][] {
                {"-h"}, {"--help"}, {"-V"}, {"--version"}, {"--port"}, {"--port", "abc"}, {"--port", "010"},
                {"--port", "+5"}, {"--port", "1", "--port", "2"}, {"--bogus", "1"}, {"--dir", "-x"}, {"--bind="},
                {"positional"}, {"--port", "1234567890"}, {"@args.txt"}, {"--dir", "@data"}}) {
            assertNull(Main.quickParse(args), Arrays.toString(args));
        }
    }

    @Test
    void whateverItAcceptsPicocliAcceptsWithTheSameValues() {
        String[] names = {"--bind", "--port", "--dir", "--io-threads", "--expiry-threads", "--requirepass",
            "--metrics-port", "--metrics-bind", "--nope", "-h", "x"};
        String[] values = {"127.0.0.1", "0", "7", "6379", "007", "+5", "-1", "", "a=b", "data dir", "123456789",
                "1234567890", "0x10", "::1"};
        Random rnd = new Random(42);
        int accepted = 0;
        for (int round = 0; round < 5_000; round++) {
            List<String> args = new ArrayList<>();
            for (int k = rnd.nextInt(5); k > 0; k--) {
                String name = names[rnd.nextInt(names.length)];
                String value = values[rnd.nextInt(values.length)];
                if (rnd.nextBoolean()) {
                    args.add(name + "=" + value);
                } else {
                    args.add(name);
                    if (rnd.nextInt(8) != 0) {
                        args.add(value);
                    }
                }
            }
            String[] a = args.toArray(new String[0]);
            Main quick = Main.quickParse(a);
            if (quick == null) {
                continue;
            }
            accepted++;
            Main full = new Main();
            try {
                new CommandLine(full).parseArgs(a);
            } catch (CommandLine.ParameterException e) {
                fail("quick parse accepted what picocli refuses: " + args + ": " + e.getMessage());
            }
            String what = args.toString();
            assertEquals(full.bind, quick.bind, what);
            assertEquals(full.port, quick.port, what);
            assertEquals(full.dir, quick.dir, what);
            assertEquals(full.ioThreads, quick.ioThreads, what);
            assertEquals(full.expiryThreads, quick.expiryThreads, what);
            assertEquals(full.requirepass, quick.requirepass, what);
            assertEquals(full.metricsPort, quick.metricsPort, what);
            assertEquals(full.metricsBind, quick.metricsBind, what);
        }
        if (accepted < 200) {
            fail("only " + accepted + " generated argument lists were ordinary starts: the test checks too little");
        }
    }
}
