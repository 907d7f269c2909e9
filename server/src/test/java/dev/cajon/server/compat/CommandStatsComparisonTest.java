package dev.cajon.server.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * INFO commandstats and errorstats against a real redis-server: the same commands (run, failed,
 * refused before running, queued and run by EXEC, aborted transactions) after CONFIG RESETSTAT
 * give the same calls, failed_calls and rejected_calls per command, and the same error counts
 * per prefix. The usec figures differ by nature and are only checked for their shape.
 */
class CommandStatsComparisonTest extends ComparisonTestBase {
    private static final Pattern CMDSTAT = Pattern.compile(
            "cmdstat_([^:]+):calls=(\\d+),usec=(\\d+),usec_per_call=(\\d+\\.\\d\\d),rejected_calls=(\\d+),failed_calls=(\\d+)");
    private static final Pattern ERRSTAT = Pattern.compile("errorstat_([^:]+):count=(\\d+)");

    private static String text(Reply r) {
        return new String(r.payload(), StandardCharsets.UTF_8);
    }

    /** The lines of INFO {@code section} under {@code header}, each matched against {@code shape}. */
    private static List<Matcher> lines(RespClient c, String section, String header, Pattern shape) throws IOException {
        String info = text(c.call("INFO", section));
        assertTrue(info.startsWith(header + "\r\n"), info);
        List<Matcher> out = new java.util.ArrayList<>();
        for (String line : info.split("\r\n")) {
            if (!line.isEmpty() && !line.startsWith("#")) {
                Matcher x = shape.matcher(line);
                assertTrue(x.matches(), "not Redis's shape: " + line);
                out.add(x);
            }
        }
        return out;
    }

    /** name -> "calls/rejected/failed", skipping the INFO and RESETSTAT of the test itself. */
    private static Map<String, String> cmdstats(RespClient c) throws IOException {
        Map<String, String> m = new TreeMap<>();
        for (Matcher x : lines(c, "commandstats", "# Commandstats", CMDSTAT)) {
            if (!x.group(1).equals("info") && !x.group(1).equals("config|resetstat")) {
                m.put(x.group(1), x.group(2) + "/" + x.group(5) + "/" + x.group(6));
            }
        }
        return m;
    }

    private static Map<String, String> errorstats(RespClient c) throws IOException {
        Map<String, String> m = new TreeMap<>();
        for (Matcher x : lines(c, "errorstats", "# Errorstats", ERRSTAT)) {
            m.put(x.group(1), x.group(2));
        }
        return m;
    }

    private static final List<String[]> SCRIPT = List.of(
            new String[] {"SET", "cs:a", "1"},
            new String[] {"SET", "cs:a", "2"},
            new String[] {"GET", "cs:a"},
            new String[] {"INCR", "cs:a"},
            new String[] {"SET", "cs:s", "text"},
            new String[] {"INCR", "cs:s"},                  // failed: not an integer
            new String[] {"GET"},                           // rejected: arity
            new String[] {"NOSUCHCOMMAND", "x"},            // no row, only the error
            new String[] {"CONFIG", "NOSUCH"},              // unknown subcommand: no row
            new String[] {"CONFIG", "GET", "maxmemory"},
            new String[] {"MULTI"},
            new String[] {"SET", "cs:b", "1"},
            new String[] {"INCR", "cs:s"},                  // queued, fails inside EXEC
            new String[] {"EXPIRE", "cs:b", "100"},
            new String[] {"EXEC"},
            new String[] {"MULTI"},
            new String[] {"SET", "cs:c"},                   // rejected at queueing: the EXEC aborts
            new String[] {"GET", "cs:c"},
            new String[] {"EXEC"},                          // failed: EXECABORT
            new String[] {"EXEC"},                          // failed: EXEC without MULTI
            new String[] {"WATCH", "cs:w"},
            new String[] {"UNWATCH"},
            new String[] {"DEL", "cs:a", "cs:b", "cs:s"});

    @Test
    void callsFailuresRejectionsAndErrorsCountAsInRedis() throws Exception {
        RespClient[] both = connectBoth();
        try {
            for (RespClient c : both) {
                c.call("CONFIG", "RESETSTAT");
                for (String[] cmd : SCRIPT) {
                    c.call(cmd);
                }
            }
            Map<String, String> redis = cmdstats(both[0]);
            Map<String, String> cajon = cmdstats(both[1]);
            assertTrue(redis.containsKey("exec") && redis.containsKey("incr"), "the script ran on Redis: " + redis);
            assertEquals(redis, cajon, "calls/rejected/failed per command");
            assertEquals(errorstats(both[0]), errorstats(both[1]), "error replies per prefix");

            // a reset starts every count again
            for (RespClient c : both) {
                c.call("CONFIG", "RESETSTAT");
                c.call("GET", "cs:none");
            }
            assertEquals(Map.of("get", "1/0/0"), cmdstats(both[1]));
            assertEquals(cmdstats(both[0]), cmdstats(both[1]));
            assertEquals(Map.of(), errorstats(both[1]));
        } finally {
            both[0].close();
            both[1].close();
        }
    }

    @Test
    void commandstatsIsNotInTheDefaultInfoButIsInAll() throws Exception {
        RespClient[] both = connectBoth();
        try {
            for (RespClient c : both) {
                c.call("GET", "cs:x");
            }
            for (int i = 0; i < 2; i++) {
                String dflt = text(both[i].call("INFO"));
                String all = text(both[i].call("INFO", "all"));
                String everything = text(both[i].call("INFO", "everything"));
                assertTrue(!dflt.contains("# Commandstats") && dflt.contains("# Errorstats"), "default INFO: " + dflt);
                assertTrue(all.contains("# Commandstats") && all.contains("cmdstat_get:calls="), "INFO all");
                assertTrue(everything.contains("# Commandstats"), "INFO everything");
            }
        } finally {
            both[0].close();
            both[1].close();
        }
    }
}
