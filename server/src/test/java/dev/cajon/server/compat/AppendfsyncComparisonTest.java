package dev.cajon.server.compat;

/**
 * CONFIG GET and SET of appendfsync against a real redis-server: the default, each of Redis's
 * three words in any case, and the refusals (a wrong word, an empty value, a pair missing its
 * value, a name given twice) byte for byte. Both servers end on the default again.
 */
class AppendfsyncComparisonTest extends ComparisonTestBase {
    @BothProtocols
    void configGetAndSetAppendfsync() throws Exception {
        scenario("CONFIG appendfsync")
                .cmd("CONFIG", "GET", "appendfsync")
                .cmd("CONFIG", "SET", "appendfsync", "bogus")
                .cmd("CONFIG", "SET", "appendfsync", "")
                .cmd("CONFIG", "SET", "APPENDFSYNC", "sometimes")
                .cmd("CONFIG", "SET", "appendfsync", "always")
                .cmd("CONFIG", "GET", "appendfsync")
                .cmd("CONFIG", "SET", "appendfsync", "NO")
                .cmd("CONFIG", "GET", "appendfsync")
                .cmd("CONFIG", "GET", "appendfs*")
                .cmd("CONFIG", "SET", "appendfsync", "always", "appendfsync", "bogus")
                .cmd("CONFIG", "SET", "appendfsync", "bogus", "timeout", "0", "APPENDFSYNC", "no")
                .cmd("CONFIG", "SET", "appendfsync", "always", "no-such-parameter", "1")
                .cmd("CONFIG", "SET", "appendfsync", "bogus", "daemonize", "yes")
                .cmd("CONFIG", "SET", "timeout", "abc", "TIMEOUT", "1")
                .cmd("CONFIG", "SET", "maxmemory", "0", "maxmemory", "0")
                .cmd("CONFIG", "GET", "appendfsync")
                .cmd("CONFIG", "SET", "appendfsync", "EverySec")
                .cmd("CONFIG", "GET", "appendfsync")
                .run();
    }
}
