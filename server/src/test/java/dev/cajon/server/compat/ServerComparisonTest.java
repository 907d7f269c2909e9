package dev.cajon.server.compat;


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
        "command", "info", "dbsize", "flushdb", "flushall", "time", "shutdown", "config",
        "multi", "exec", "discard", "watch", "unwatch", "reset", "save", "bgsave", "lastsave", "function",
    };

    @BothProtocols
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
    @BothProtocols
    void commandTableMatchesRedis() throws Exception {
        Scenario s = scenario("COMMAND INFO <every command>");
        for (String c : COMMANDS) {
            s.check(Check.leadingFields(6), "COMMAND", "INFO", c);
        }
        s.check(Check.leadingFields(6), "COMMAND", "INFO", "client|setname", "client|getname", "client|id",
                "command|count", "command|info");
        s.run();
    }

    /** The ACL categories (COMMAND INFO's seventh field) come from each command's group and flags. */
    @BothProtocols
    void aclCategoriesMatchRedis() throws Exception {
        Scenario s = scenario("COMMAND INFO <every command>: ACL categories");
        for (String c : COMMANDS) {
            s.check(Check.field(6), "COMMAND", "INFO", c);
        }
        s.run();
    }

    /** SHUTDOWN's refusals (a successful SHUTDOWN stops the server: see ShutdownSystemTest). */
    @BothProtocols
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

    /**
     * CONFIG as clients and tools use it: the values both servers really run with here (the
     * Redis side is started with --save "" --appendonly no), Redis's errors for what cannot be
     * set, HELP, and REWRITE without a config file. bind, port and dir differ between the two by
     * nature: only their shape is compared.
     */
    /**
     * CONFIG SET requirepass at run time, as Redis's: the default user's passwords become this
     * one (the connection stays authenticated), GET shows it, an ACL SETUSER of default changes the
     * password but not what GET shows, and an empty one gives default nopass again. Ends with
     * no password, as both servers started.
     */
    @BothProtocols
    void configSetRequirepass() throws Exception {
        scenario("CONFIG SET requirepass")
                .cmd("CONFIG", "SET", "requirepass", "s3cret")
                .cmd("CONFIG", "GET", "requirepass")
                .cmd("PING")
                .cmd("AUTH", "wrong")
                .cmd("AUTH", "s3cret")
                .cmd("AUTH", "default", "s3cret")
                .cmd("ACL", "SETUSER", "default", ">other")
                .cmd("CONFIG", "GET", "requirepass")
                .cmd("AUTH", "other")
                .cmd("AUTH", "s3cret")
                .cmd("CONFIG", "SET", "requirepass", "")
                .cmd("CONFIG", "GET", "requirepass")
                .cmd("AUTH", "s3cret")
                .cmd("AUTH", "other")
                .cmd("PING")
                .run();
    }

    @BothProtocols
    void configGetSetAndErrors() throws Exception {
        scenario("CONFIG")
                .cmd("CONFIG", "GET", "maxmemory-policy")
                .cmd("CONFIG", "GET", "MAXMEMORY-POLICY")
                .cmd("CONFIG", "GET", "save")
                .cmd("CONFIG", "GET", "appendonly")
                .cmd("CONFIG", "GET", "databases")
                .cmd("CONFIG", "GET", "maxmemory")
                .cmd("CONFIG", "GET", "timeout")
                .cmd("CONFIG", "GET", "daemonize")
                .cmd("CONFIG", "GET", "proto-max-bulk-len")
                .cmd("CONFIG", "GET", "requirepass")
                .cmd("CONFIG", "GET", "maxmemory", "maxmemory", "MAXMEMORY")
                .cmd("CONFIG", "GET", "no-such-parameter")
                .cmd("CONFIG", "GET", "databa?es")
                .cmd("CONFIG", "GET", "DATABA[S]ES")
                .shape("CONFIG", "GET", "port")
                .shape("CONFIG", "GET", "dir")
                .shape("CONFIG", "GET", "bind")
                .cmd("CONFIG", "GET")
                .cmd("CONFIG", "SET", "no-such-parameter", "1")
                .cmd("CONFIG", "SET", "MAXCLIENTS", "abc")
                .cmd("CONFIG", "SET", "Timeout", "-5")
                .cmd("CONFIG", "SET", "PROTO-MAX-BULK-LEN", "1")
                .cmd("CONFIG", "SET", "databases", "3")
                .cmd("CONFIG", "SET", "DAEMONIZE", "no")
                .cmd("CONFIG", "SET", "databases", "3", "daemonize", "yes")
                .cmd("CONFIG", "SET", "save", "")
                .cmd("CONFIG", "SET", "appendonly", "no", "maxmemory-policy", "noeviction")
                .cmd("CONFIG", "SET", "daemonize", "no", "no-such-parameter", "1")
                .cmd("CONFIG", "SET", "databases")
                .cmd("CONFIG", "SET", "databases", "3", "daemonize")
                .cmd("CONFIG", "REWRITE")
                .cmd("CONFIG", "REWRITE", "x")
                .cmd("CONFIG", "RESETSTAT", "x")
                .cmd("CONFIG", "HELP")
                .cmd("CONFIG", "FOO")
                .cmd("CONFIG")
                .cmd("CONFIG", "RESETSTAT")
                .run();
    }

    /**
     * The data types' encoding parameters, which Redis's own test suite sets for each type unit:
     * GET under both names, SET with Redis's checks, and OBJECT ENCODING following the thresholds
     * from the next write. Ends with Redis's defaults again (the servers are shared).
     */
    @BothProtocols
    void configTypeParametersAndTheEncodingsTheyDecide() throws Exception {
        scenario("CONFIG of the encoding thresholds")
                .cmd("CONFIG", "GET", "hash-max-listpack-entries")
                .cmd("CONFIG", "GET", "hash-max-ziplist-value")
                .cmd("CONFIG", "GET", "set-max-intset-entries")
                .cmd("CONFIG", "GET", "zset-max-ziplist-entries")
                .cmd("CONFIG", "GET", "zset-max-listpack-value")
                .cmd("CONFIG", "GET", "list-max-listpack-size")
                .cmd("CONFIG", "GET", "list-compress-depth")
                .cmd("CONFIG", "GET", "sanitize-dump-payload")
                .cmd("CONFIG", "GET", "lazyfree-lazy-user-del")
                .cmd("CONFIG", "SET", "hash-max-listpack-entries", "abc")
                .cmd("CONFIG", "SET", "hash-max-listpack-entries", "-1")
                .cmd("CONFIG", "SET", "hash-max-ziplist-value", "-1")
                .cmd("CONFIG", "SET", "hash-max-ziplist-value", "abc")
                .cmd("CONFIG", "SET", "list-max-ziplist-size", "99999999999")
                .cmd("CONFIG", "SET", "list-compress-depth", "-1")
                .cmd("CONFIG", "SET", "sanitize-dump-payload", "maybe")
                .cmd("CONFIG", "SET", "lazyfree-lazy-user-del", "maybe")
                .cmd("CONFIG", "SET", "set-max-intset-entries", "1e3")
                .cmd("CONFIG", "SET", "hz", "-1")
                .cmd("CONFIG", "SET", "hz", "abc")
                .cmd("CONFIG", "SET", "hz", "1000")
                .cmd("CONFIG", "GET", "hz")
                .cmd("CONFIG", "SET", "hz", "0")
                .cmd("CONFIG", "GET", "hz")
                .cmd("CONFIG", "SET", "hz", "10")
                .cmd("CONFIG", "SET", "maxmemory-policy", "bogus")
                .cmd("CONFIG", "SET", "timeout", "5", "maxmemory-policy", "bogus")
                .cmd("CONFIG", "GET", "timeout")
                .cmd("CONFIG", "SET", "maxmemory", "bla")
                .cmd("CONFIG", "SET", "maxmemory", "0")
                .cmd("CONFIG", "SET", "maxmemory-policy", "noeviction")
                .cmd("CONFIG", "SET", "hash-max-ziplist-entries", "5", "hash-max-listpack-value", "1kb")
                .cmd("CONFIG", "GET", "hash-max-listpack-entries")
                .cmd("CONFIG", "GET", "hash-max-ziplist-value")
                .cmd("HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5")
                .cmd("OBJECT", "ENCODING", "h")
                .cmd("HSET", "h", "f", "6")
                .cmd("OBJECT", "ENCODING", "h")
                .cmd("CONFIG", "SET", "hash-max-listpack-value", "8")
                .cmd("HSET", "h2", "a", "123456789")
                .cmd("OBJECT", "ENCODING", "h2")
                .cmd("CONFIG", "SET", "set-max-intset-entries", "3")
                .cmd("SADD", "s", "1", "2", "3")
                .cmd("OBJECT", "ENCODING", "s")
                .cmd("SADD", "s", "4")
                .cmd("OBJECT", "ENCODING", "s")
                .cmd("CONFIG", "SET", "zset-max-listpack-entries", "2", "zset-max-ziplist-value", "4")
                .cmd("ZADD", "z", "1", "a", "2", "b")
                .cmd("OBJECT", "ENCODING", "z")
                .cmd("ZADD", "z", "3", "c")
                .cmd("OBJECT", "ENCODING", "z")
                .cmd("ZADD", "z2", "1", "abcde")
                .cmd("OBJECT", "ENCODING", "z2")
                .cmd("CONFIG", "SET", "list-max-listpack-size", "4", "list-compress-depth", "1",
                        "sanitize-dump-payload", "clients", "lazyfree-lazy-user-del", "yes")
                .cmd("CONFIG", "GET", "list-max-ziplist-size")
                .cmd("CONFIG", "GET", "sanitize-dump-payload")
                .cmd("CONFIG", "GET", "lazyfree-lazy-user-del")
                .cmd("CONFIG", "SET", "hash-max-listpack-entries", "512", "hash-max-listpack-value", "64",
                        "set-max-intset-entries", "512", "zset-max-listpack-entries", "128",
                        "zset-max-listpack-value", "64", "list-max-listpack-size", "-2", "list-compress-depth", "0",
                        "sanitize-dump-payload", "no", "lazyfree-lazy-user-del", "no")
                .cmd("CONFIG", "GET", "zset-max-ziplist-entries")
                .run();
    }

    /**
     * SAVE, BGSAVE and LASTSAVE: their replies and errors (a save is a sync of the map files in
     * Cajon). LASTSAVE is a time, so only its shape is compared; MULTI refuses SAVE as Redis does.
     */
    @BothProtocols
    void saveBgsaveAndLastsave() throws Exception {
        scenario("SAVE, BGSAVE, LASTSAVE")
                .cmd("SET", "k", "v")
                .cmd("SAVE")
                .cmd("SAVE", "x")
                .cmd("BGSAVE", "x")
                .cmd("BGSAVE", "SCHEDULE", "x")
                .shape("LASTSAVE")
                .cmd("LASTSAVE", "x")
                .cmd("MULTI")
                .cmd("SAVE")
                .cmd("EXEC")
                .run();
    }

    /** FUNCTION FLUSH and LIST with no library loaded (Cajon never has one), as test harnesses send them. */
    @BothProtocols
    void functionFlushAndListWithoutLibraries() throws Exception {
        scenario("FUNCTION FLUSH and LIST")
                .cmd("FUNCTION", "FLUSH")
                .cmd("FUNCTION", "FLUSH", "async")
                .cmd("FUNCTION", "FLUSH", "SYNC")
                .cmd("FUNCTION", "FLUSH", "x")
                .cmd("FUNCTION", "FLUSH", "sync", "async")
                .cmd("FUNCTION", "LIST")
                .cmd("FUNCTION", "LIST", "WITHCODE")
                .cmd("FUNCTION", "LIST", "LIBRARYNAME", "x*")
                .cmd("FUNCTION", "LIST", "libraryname", "x*", "withcode")
                .cmd("FUNCTION", "LIST", "LIBRARYNAME")
                .cmd("FUNCTION", "LIST", "x")
                .cmd("FUNCTION")
                .cmd("FUNCTION", "NOSUCH")
                .run();
    }

    @BothProtocols
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

    @BothProtocols
    void timeAndInfo() throws Exception {
        scenario("TIME, INFO")
                .shape("TIME")
                .cmd("TIME", "x")
                .shape("INFO")
                .shape("INFO", "server")
                .shape("INFO", "keyspace")
                .run();
    }

    /** INFO's section headers in Redis's order, and the field names of the sections tools read (role, cluster_enabled, CPU time). */
    @BothProtocols
    void infoSectionsAndTheirFields() throws Exception {
        scenario("INFO sections")
                .check(ServerComparisonTest::sameHeaders, "INFO")
                .check(ServerComparisonTest::sameHeaders, "INFO", "default")
                .check(ServerComparisonTest::sameFieldNames, "INFO", "replication")
                .check(ServerComparisonTest::sameFieldNames, "INFO", "cluster")
                .check(ServerComparisonTest::sameFieldNames, "INFO", "modules")
                .check((r, c) -> fields(c).containsAll(java.util.List.of("used_cpu_sys", "used_cpu_user",
                        "used_cpu_sys_children", "used_cpu_user_children")) ? null : "CPU fields: " + fields(c), "INFO", "cpu")
                .check((r, c) -> text(c).contains("role:master\r\n") && text(c).contains("cluster_enabled:0\r\n")
                        ? null : "role or cluster_enabled", "INFO", "replication", "cluster")
                .run();
    }

    private static String text(Reply r) {
        return new String(r.payload(), java.nio.charset.StandardCharsets.UTF_8);
    }

    private static java.util.List<String> lines(Reply r, boolean headers) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (String line : text(r).split("\r\n")) {
            if (line.startsWith("#") == headers && !line.isEmpty()) {
                out.add(headers ? line : line.substring(0, Math.max(0, line.indexOf(':'))));
            }
        }
        return out;
    }

    private static java.util.List<String> fields(Reply r) {
        return lines(r, false);
    }

    private static String sameHeaders(Reply redis, Reply cajon) {
        return lines(redis, true).equals(lines(cajon, true)) ? null
                : "redis " + lines(redis, true) + ", cajon " + lines(cajon, true);
    }

    private static String sameFieldNames(Reply redis, Reply cajon) {
        return fields(redis).equals(fields(cajon)) ? null : "redis " + fields(redis) + ", cajon " + fields(cajon);
    }
}
