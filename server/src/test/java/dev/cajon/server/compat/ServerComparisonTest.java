package dev.cajon.server.compat;

import org.junit.jupiter.api.Test;

/** Server commands against Redis: COMMAND COUNT and INFO, DBSIZE, FLUSHDB, FLUSHALL, TIME, INFO. */
class ServerComparisonTest extends ComparisonTestBase {

    /** Every command Cajon serves, for COMMAND INFO. */
    private static final String[] COMMANDS = {
        "get", "set", "setnx", "setex", "psetex", "getset", "getdel", "getex", "mget", "mset", "msetnx",
        "append", "strlen", "getrange", "substr", "setrange",
        "incr", "decr", "incrby", "decrby", "incrbyfloat",
        "del", "unlink", "exists", "touch", "type", "rename", "renamenx", "copy", "randomkey",
        "expire", "pexpire", "expireat", "pexpireat", "ttl", "pttl", "expiretime", "pexpiretime", "persist",
        "ping", "echo", "quit", "select", "auth", "hello", "client",
        "command", "info", "dbsize", "flushdb", "flushall", "time", "shutdown",
    };

    @Test
    void commandCountAndInfo() throws Exception {
        scenario("COMMAND COUNT / INFO get")
                .shape("COMMAND", "COUNT")
                .check(Check.leadingFields(6), "COMMAND", "INFO", "get")
                .check(Check.leadingFields(6), "COMMAND", "INFO", "GET")
                .cmd("COMMAND", "INFO", "nosuchcommand")
                .check(Check.leadingFields(6), "COMMAND", "INFO", "get", "nosuchcommand", "set")
                .cmd("COMMAND", "FOO")
                .run();
    }

    /** The first six fields of COMMAND INFO are Cajon's command table: it must match Redis's. */
    @Test
    void commandTableMatchesRedis() throws Exception {
        Scenario s = scenario("COMMAND INFO <every command>");
        for (String c : COMMANDS) {
            s.check(Check.leadingFields(6), "COMMAND", "INFO", c);
        }
        s.check(Check.leadingFields(6), "COMMAND", "INFO", "client|setname", "client|getname", "client|id",
                "command|count", "command|info");
        s.run();
    }

    /** SHUTDOWN's refusals (a successful SHUTDOWN stops the server: see ShutdownSystemTest). */
    @Test
    void shutdownArgumentErrors() throws Exception {
        scenario("SHUTDOWN errors")
                .cmd("SHUTDOWN", "FOO")
                .cmd("SHUTDOWN", "SAVE", "NOSAVE")
                .cmd("SHUTDOWN", "nosave", "save", "now")
                .cmd("SHUTDOWN", "ABORT", "NOW")
                .cmd("SHUTDOWN", "FORCE", "ABORT")
                .cmd("SHUTDOWN", "ABORT")
                .cmd("SHUTDOWN", "abort")
                .cmd("PING")
                .run();
    }

    @Test
    void dbsizeAndFlush() throws Exception {
        scenario("DBSIZE, FLUSHDB, FLUSHALL")
                .cmd("DBSIZE")
                .cmd("MSET", "a", "1", "b", "2", "c", "3")
                .cmd("DBSIZE")
                .cmd("DBSIZE", "x")
                .cmd("SELECT", "1")
                .cmd("SET", "d", "4")
                .cmd("DBSIZE")
                .cmd("FLUSHDB")
                .cmd("DBSIZE")
                .cmd("SELECT", "0")
                .cmd("DBSIZE")
                .cmd("FLUSHDB", "ASYNC")
                .cmd("DBSIZE")
                .cmd("SET", "a", "1")
                .cmd("FLUSHDB", "sync")
                .cmd("DBSIZE")
                .cmd("SET", "a", "1")
                .cmd("FLUSHDB", "BAD")
                .cmd("FLUSHDB", "SYNC", "ASYNC")
                .cmd("FLUSHDB", "")
                .cmd("DBSIZE")
                .cmd("SELECT", "2")
                .cmd("SET", "x", "1")
                .cmd("FLUSHALL", "BAD")
                .cmd("FLUSHALL", "ASYNC", "x")
                .cmd("DBSIZE")
                .cmd("FLUSHALL")
                .cmd("DBSIZE")
                .cmd("SELECT", "0")
                .cmd("DBSIZE")
                .cmd("SET", "a", "1")
                .cmd("FLUSHALL", "ASYNC")
                .cmd("DBSIZE")
                .cmd("SET", "a", "1")
                .cmd("FLUSHALL", "SYNC")
                .cmd("DBSIZE")
                .run();
    }

    @Test
    void timeAndInfo() throws Exception {
        scenario("TIME, INFO")
                .shape("TIME")
                .cmd("TIME", "x")
                .shape("INFO")
                .shape("INFO", "server")
                .shape("INFO", "keyspace")
                .run();
    }
}
