package dev.cajon.server.compat;


/**
 * String commands against Redis: GET, SET with every option, SETNX, SETEX, PSETEX, GETSET, GETDEL,
 * GETEX, MGET, MSET, MSETNX, APPEND, STRLEN, GETRANGE, SUBSTR, SETRANGE. TTLs are compared only
 * where they are deterministic (or within a second).
 */
class StringComparisonTest extends ComparisonTestBase {

    @BothProtocols
    void getAndSet() throws Exception {
        scenario("GET, SET")
                .cmd("GET", "k")
                .cmd("SET", "k", "v")
                .cmd("GET", "k")
                .cmd("SET", "k", "")
                .cmd("GET", "k")
                .cmd("SET", "k", "12345")
                .cmd("GET", "k")
                .cmd("SET", "k", "v", "x")
                .cmd("GET")
                .cmd("GET", "a", "b")
                .cmd("SET", "k")
                .cmd("SET")
                .run();
    }

    @BothProtocols
    void setConditionsAndGet() throws Exception {
        scenario("SET NX/XX/GET")
                .cmd("SET", "k", "v1", "XX")
                .cmd("EXISTS", "k")
                .cmd("SET", "k", "v1", "NX")
                .cmd("SET", "k", "v2", "NX")
                .cmd("GET", "k")
                .cmd("SET", "k", "v2", "XX")
                .cmd("GET", "k")
                .cmd("SET", "k", "v3", "GET")
                .cmd("SET", "new", "v", "GET")
                .cmd("GET", "new")
                .cmd("SET", "k", "v4", "NX", "GET")
                .cmd("GET", "k")
                .cmd("SET", "k2", "v", "NX", "GET")
                .cmd("GET", "k2")
                .cmd("SET", "k", "v5", "XX", "GET")
                .cmd("SET", "k3", "v", "XX", "GET")
                .cmd("EXISTS", "k3")
                .cmd("SET", "k", "v6", "nx")
                .cmd("SET", "k", "v6", "xx", "get")
                .cmd("SET", "k", "v7", "NX", "NX")
                .cmd("SET", "k", "v7", "GET", "GET")
                .run();
    }

    @BothProtocols
    void setConflictingAndBadOptions() throws Exception {
        scenario("SET conflicting options")
                .cmd("SET", "k", "v", "NX", "XX")
                .cmd("SET", "k", "v", "XX", "NX")
                .cmd("SET", "k", "v", "EX", "10", "PX", "10000")
                .cmd("SET", "k", "v", "PX", "10000", "EX", "10")
                .cmd("SET", "k", "v", "EX", "10", "EXAT", "9999999999")
                .cmd("SET", "k", "v", "EXAT", "9999999999", "PXAT", "9999999999000")
                .cmd("SET", "k", "v", "PX", "10", "PXAT", "9999999999000")
                .cmd("SET", "k", "v", "EX", "10", "KEEPTTL")
                .cmd("SET", "k", "v", "KEEPTTL", "EX", "10")
                .cmd("SET", "k", "v", "KEEPTTL", "PXAT", "9999999999000")
                .cmd("SET", "k", "v", "PERSIST")
                .cmd("SET", "k", "v", "EX")
                .cmd("SET", "k", "v", "PX")
                .cmd("SET", "k", "v", "EXAT")
                .cmd("SET", "k", "v", "PXAT")
                .cmd("SET", "k", "v", "NX", "EX")
                .cmd("SET", "k", "v", "FOO")
                .cmd("SET", "k", "v", "EX", "10", "FOO")
                .cmd("SET", "k", "v", "EXX", "10")
                .cmd("SET", "k", "v", "")
                .cmd("EXISTS", "k")
                .run();
    }

    /** Every ordered pair of SET options (a repeated option included), as Redis's parser sees them. */
    @BothProtocols
    void everyPairOfSetOptions() throws Exception {
        long at = nowSeconds() + 1000;
        String[][] options = {
            {"NX"}, {"XX"}, {"GET"}, {"KEEPTTL"}, {"EX", "100"}, {"PX", "100000"},
            {"EXAT", Long.toString(at)}, {"PXAT", at + "000"},
        };
        Scenario s = scenario("SET option pairs");
        int n = 0;
        for (String[] a : options) {
            for (String[] b : options) {
                String[] argv = new String[3 + a.length + b.length];
                argv[0] = "SET";
                argv[1] = n % 3 == 0 ? "other" : "k";
                argv[2] = "v" + n++;
                System.arraycopy(a, 0, argv, 3, a.length);
                System.arraycopy(b, 0, argv, 3 + a.length, b.length);
                s.cmd(argv);
            }
        }
        s.cmd("MGET", "k", "other").run();
    }

    /** Every ordered pair of GETEX options. */
    @BothProtocols
    void everyPairOfGetexOptions() throws Exception {
        long at = nowSeconds() + 1000;
        String[][] options = {
            {"PERSIST"}, {"EX", "100"}, {"PX", "100000"}, {"EXAT", Long.toString(at)}, {"PXAT", at + "000"},
        };
        Scenario s = scenario("GETEX option pairs").cmd("SET", "k", "v");
        for (String[] a : options) {
            for (String[] b : options) {
                String[] argv = new String[2 + a.length + b.length];
                argv[0] = "GETEX";
                argv[1] = "k";
                System.arraycopy(a, 0, argv, 2, a.length);
                System.arraycopy(b, 0, argv, 2 + a.length, b.length);
                s.cmd(argv);
            }
        }
        s.run();
    }

    @BothProtocols
    void setBadExpireTimes() throws Exception {
        scenario("SET bad expire times")
                .cmd("SET", "k", "v", "EX", "0")
                .cmd("SET", "k", "v", "EX", "-1")
                .cmd("SET", "k", "v", "PX", "0")
                .cmd("SET", "k", "v", "PX", "-1")
                .cmd("SET", "k", "v", "EXAT", "0")
                .cmd("SET", "k", "v", "EXAT", "-1")
                .cmd("SET", "k", "v", "PXAT", "0")
                .cmd("SET", "k", "v", "PXAT", "-5")
                .cmd("SET", "k", "v", "EX", "abc")
                .cmd("SET", "k", "v", "EX", "")
                .cmd("SET", "k", "v", "EX", "1.5")
                .cmd("SET", "k", "v", "EX", " 10")
                .cmd("SET", "k", "v", "EX", "10 ")
                .cmd("SET", "k", "v", "EX", "9223372036854775808")
                .cmd("SET", "k", "v", "PX", LLONG_MAX)
                .cmd("SET", "k", "v", "EX", LLONG_MAX)
                .cmd("SET", "k", "v", "EX", "9223372036854775")
                .cmd("SET", "k", "v", "EX", "9223372036854776")
                .cmd("SET", "k", "v", "EX", LLONG_MIN)
                .cmd("SET", "k", "v", "EXAT", "9223372036854776")
                .cmd("SET", "k", "v", "NX", "EX", "0")
                .cmd("SET", "k", "v", "XX", "EX", "abc")
                .cmd("EXISTS", "k")
                .cmd("SETEX", "k", "0", "v")
                .cmd("SETEX", "k", "-1", "v")
                .cmd("SETEX", "k", "abc", "v")
                .cmd("SETEX", "k", LLONG_MAX, "v")
                .cmd("SETEX", "k", "9223372036854775", "v")
                .cmd("PSETEX", "k", "0", "v")
                .cmd("PSETEX", "k", "-1", "v")
                .cmd("PSETEX", "k", "abc", "v")
                .cmd("PSETEX", "k", LLONG_MAX, "v")
                .cmd("EXISTS", "k")
                .run();
    }

    @BothProtocols
    void setWithExpiry() throws Exception {
        long at = nowSeconds() + 1000;
        scenario("SET with EX/PX/EXAT/PXAT/KEEPTTL")
                .cmd("SET", "k", "v", "EX", "100")
                .check(Check.within(100, 1), "TTL", "k")
                .check(Check.within(100_000, 1_000), "PTTL", "k")
                .cmd("SET", "k", "v", "PX", "100000")
                .check(Check.within(100, 1), "TTL", "k")
                .cmd("SET", "k", "v", "EXAT", Long.toString(at))
                .cmd("EXPIRETIME", "k")
                .cmd("PEXPIRETIME", "k")
                .cmd("SET", "k", "v", "PXAT", at + "123")
                .cmd("PEXPIRETIME", "k")
                .cmd("SET", "k", "v", "PXAT", at + "500")
                .cmd("PEXPIRETIME", "k")
                .cmd("SET", "k", "v2", "KEEPTTL")
                .cmd("PEXPIRETIME", "k")
                .cmd("GET", "k")
                .cmd("SET", "k", "v3", "KEEPTTL", "GET")
                .cmd("PEXPIRETIME", "k")
                .cmd("SET", "k", "v4", "XX", "KEEPTTL")
                .cmd("PEXPIRETIME", "k")
                .cmd("SET", "k", "v5")
                .cmd("TTL", "k")
                .cmd("SET", "k", "v", "ex", "100", "ex", "200")
                .check(Check.within(200, 1), "TTL", "k")
                .cmd("SET", "k", "v", "EX", "100", "GET", "NX")
                .check(Check.within(200, 1), "TTL", "k")
                .cmd("SET", "k", "v", "EXAT", "9223372036854775")
                .cmd("EXPIRETIME", "k")
                .cmd("SET", "k", "v", "PXAT", LLONG_MAX)
                .cmd("PEXPIRETIME", "k")
                .cmd("SET", "k", "v", "KEEPTTL")
                .cmd("PEXPIRETIME", "k")
                .cmd("SET", "new", "v", "KEEPTTL")
                .cmd("TTL", "new")
                .run();
    }

    @BothProtocols
    void setWithPastAbsoluteTimeLeavesNoKey() throws Exception {
        scenario("SET EXAT/PXAT in the past")
                .cmd("SET", "k", "v", "EXAT", "1")
                .cmd("GET", "k")
                .cmd("EXISTS", "k")
                .cmd("SET", "k", "v", "PXAT", "1000")
                .cmd("GET", "k")
                .cmd("SET", "k", "old")
                .cmd("SET", "k", "v", "EXAT", "1", "GET")
                .cmd("GET", "k")
                .cmd("DBSIZE")
                .run();
    }

    @BothProtocols
    void setnxSetexPsetexGetset() throws Exception {
        scenario("SETNX, SETEX, PSETEX, GETSET")
                .cmd("SETNX", "k", "v1")
                .cmd("SETNX", "k", "v2")
                .cmd("GET", "k")
                .cmd("SETNX", "k")
                .cmd("SETNX", "k", "v", "x")
                .cmd("SETEX", "k", "100", "v")
                .check(Check.within(100, 1), "TTL", "k")
                .cmd("GET", "k")
                .cmd("SETEX", "k", "100")
                .cmd("SETEX", "k", "100", "v", "x")
                .cmd("PSETEX", "k", "100000", "pv")
                .check(Check.within(100, 1), "TTL", "k")
                .cmd("GET", "k")
                .cmd("PSETEX", "k", "100")
                .cmd("GETSET", "k", "g1")
                .cmd("TTL", "k")
                .cmd("GETSET", "missing", "g2")
                .cmd("GET", "missing")
                .cmd("GETSET", "k")
                .cmd("GETSET", "k", "a", "b")
                .run();
    }

    @BothProtocols
    void getdel() throws Exception {
        scenario("GETDEL")
                .cmd("GETDEL", "k")
                .cmd("SET", "k", "v")
                .cmd("GETDEL", "k")
                .cmd("EXISTS", "k")
                .cmd("GETDEL", "k")
                .cmd("SET", "k", "v", "EX", "100")
                .cmd("GETDEL", "k")
                .cmd("TTL", "k")
                .cmd("GETDEL")
                .cmd("GETDEL", "a", "b")
                .run();
    }

    @BothProtocols
    void getex() throws Exception {
        long at = nowSeconds() + 1000;
        scenario("GETEX")
                .cmd("GETEX", "k")
                .cmd("SET", "k", "v")
                .cmd("GETEX", "k")
                .cmd("TTL", "k")
                .cmd("GETEX", "k", "EX", "100")
                .check(Check.within(100, 1), "TTL", "k")
                .cmd("GETEX", "k")
                .check(Check.within(100, 1), "TTL", "k")
                .cmd("GETEX", "k", "PX", "200000")
                .check(Check.within(200, 1), "TTL", "k")
                .cmd("GETEX", "k", "EXAT", Long.toString(at))
                .cmd("EXPIRETIME", "k")
                .cmd("GETEX", "k", "PXAT", at + "250")
                .cmd("PEXPIRETIME", "k")
                .cmd("GETEX", "k", "PERSIST")
                .cmd("TTL", "k")
                .cmd("GETEX", "k", "persist")
                .cmd("GETEX", "k", "ex", "100")
                .check(Check.within(100, 1), "TTL", "k")
                .cmd("GETEX", "k", "EXAT", "1")
                .cmd("EXISTS", "k")
                .cmd("GETEX")
                .run();
    }

    @BothProtocols
    void getexErrors() throws Exception {
        scenario("GETEX errors")
                .cmd("SET", "k", "v")
                .cmd("GETEX", "k", "EX", "10", "PX", "10000")
                .cmd("GETEX", "k", "EX", "10", "PERSIST")
                .cmd("GETEX", "k", "PERSIST", "EX", "10")
                .cmd("GETEX", "k", "PERSIST", "PXAT", "10")
                .cmd("GETEX", "k", "EXAT", "10", "PXAT", "10")
                .cmd("GETEX", "k", "KEEPTTL")
                .cmd("GETEX", "k", "NX")
                .cmd("GETEX", "k", "XX")
                .cmd("GETEX", "k", "GET")
                .cmd("GETEX", "k", "FOO")
                .cmd("GETEX", "k", "EX")
                .cmd("GETEX", "k", "PERSIST", "PERSIST")
                .cmd("GETEX", "k", "EX", "0")
                .cmd("GETEX", "k", "EX", "-1")
                .cmd("GETEX", "k", "PX", "0")
                .cmd("GETEX", "k", "EXAT", "0")
                .cmd("GETEX", "k", "PXAT", "-1")
                .cmd("GETEX", "k", "EX", "abc")
                .cmd("GETEX", "k", "EX", LLONG_MAX)
                .cmd("GETEX", "k", "PX", LLONG_MAX)
                .cmd("GETEX", "k", "EX", "9223372036854775")
                .cmd("TTL", "k")
                // a missing key answers nil before the time is validated
                .cmd("GETEX", "missing", "EX", "0")
                .cmd("GETEX", "missing", "EX", "abc")
                .cmd("GETEX", "missing", "PX", LLONG_MAX)
                // but the option syntax is checked first
                .cmd("GETEX", "missing", "EX", "10", "PX", "10")
                .cmd("GETEX", "missing", "FOO")
                .run();
    }

    @BothProtocols
    void mgetMsetMsetnx() throws Exception {
        scenario("MGET, MSET, MSETNX")
                .cmd("MGET", "a", "b", "c")
                .cmd("MSET", "a", "1", "b", "2")
                .cmd("MGET", "a", "b", "c", "a")
                .cmd("MSET", "a", "x", "a", "y")
                .cmd("GET", "a")
                .cmd("MSET", "a")
                .cmd("MSET", "a", "1", "b")
                .cmd("MSET")
                .cmd("MGET")
                .cmd("MSETNX", "a", "1", "c", "3")
                .cmd("EXISTS", "c")
                .cmd("MSETNX", "c", "3", "d", "4")
                .cmd("MGET", "c", "d")
                .cmd("MSETNX", "e", "1", "e", "2")
                .cmd("GET", "e")
                .cmd("MSETNX", "f")
                .cmd("MSETNX", "f", "1", "g")
                .cmd("SET", "t", "v", "EX", "100")
                .cmd("MSET", "t", "w")
                .cmd("TTL", "t")
                .run();
    }

    @BothProtocols
    void appendAndStrlen() throws Exception {
        scenario("APPEND, STRLEN")
                .cmd("STRLEN", "k")
                .cmd("APPEND", "k", "Hello")
                .cmd("APPEND", "k", " World")
                .cmd("APPEND", "k", "")
                .cmd("GET", "k")
                .cmd("STRLEN", "k")
                .cmd("APPEND", "empty", "")
                .cmd("EXISTS", "empty")
                .cmd("STRLEN", "empty")
                .cmd("SET", "n", "10")
                .cmd("APPEND", "n", "5")
                .cmd("INCR", "n")
                .cmd("SET", "t", "v", "EX", "100")
                .cmd("APPEND", "t", "w")
                .check(Check.within(100, 1), "TTL", "t")
                .cmd("APPEND", "k")
                .cmd("APPEND", "k", "a", "b")
                .cmd("STRLEN")
                .cmd("STRLEN", "a", "b")
                .run();
    }

    @BothProtocols
    void getrangeAndSubstr() throws Exception {
        String[][] ranges = {
            {"0", "4"}, {"0", "-1"}, {"-5", "-1"}, {"-1", "-5"}, {"5", "3"}, {"0", "100"}, {"100", "200"},
            {"-100", "-50"}, {"-100", "2"}, {"3", "-100"}, {"0", "0"}, {"-1", "-1"}, {"10", "10"},
            {"11", "11"}, {"-11", "-11"}, {"-12", "-12"}, {"6", "-1"}, {"-100", "100"}, {"2", "-9"},
            {"2", "-10"}, {LLONG_MIN, LLONG_MAX}, {LLONG_MAX, LLONG_MAX}, {LLONG_MIN, LLONG_MIN},
            {"0", LLONG_MIN}, {LLONG_MAX, "0"},
        };
        Scenario s = scenario("GETRANGE, SUBSTR")
                .cmd("GETRANGE", "missing", "0", "-1")
                .cmd("GETRANGE", "missing", "5", "1")
                .cmd("SET", "k", "Hello World");
        for (String[] r : ranges) {
            s.cmd("GETRANGE", "k", r[0], r[1]);
        }
        s.cmd("SUBSTR", "k", "0", "4")
                .cmd("SUBSTR", "k", "-5", "-1")
                .cmd("SUBSTR", "missing", "0", "-1")
                .cmd("SET", "e", "")
                .cmd("GETRANGE", "e", "0", "-1")
                .cmd("GETRANGE", "e", "0", "0")
                .cmd("GETRANGE", "e", "-1", "-1")
                .cmd("GETRANGE", "k", "a", "1")
                .cmd("GETRANGE", "k", "1", "b")
                .cmd("GETRANGE", "k", "1.5", "2")
                .cmd("GETRANGE", "k", "9223372036854775808", "2")
                .cmd("GETRANGE", "missing", "a", "1")
                .cmd("SUBSTR", "k", "x", "1")
                .cmd("GETRANGE", "k", "0")
                .cmd("GETRANGE", "k", "0", "1", "2")
                .cmd("SUBSTR", "k", "0")
                .run();
    }

    /** Redis keeps "12345" as an integer internally; string commands must not notice. */
    @BothProtocols
    void integerLookingValues() throws Exception {
        scenario("integer-looking values")
                .cmd("SET", "n", "12345")
                .cmd("GETRANGE", "n", "1", "3")
                .cmd("STRLEN", "n")
                .cmd("APPEND", "n", "6")
                .cmd("INCR", "n")
                .cmd("SETRANGE", "n", "0", "9")
                .cmd("GET", "n")
                .cmd("SET", "m", "-0")
                .cmd("STRLEN", "m")
                .cmd("SET", "big", "123456789012345678901234567890")
                .cmd("STRLEN", "big")
                .cmd("GETRANGE", "big", "-3", "-1")
                .cmd("INCR", "c")
                .cmd("INCRBY", "c", "99")
                .cmd("GETRANGE", "c", "0", "0")
                .cmd("APPEND", "c", "x")
                .cmd("GET", "c")
                .run();
    }

    @BothProtocols
    void setrange() throws Exception {
        scenario("SETRANGE")
                .cmd("SET", "k", "Hello World")
                .cmd("SETRANGE", "k", "6", "Redis")
                .cmd("GET", "k")
                .cmd("SETRANGE", "k", "0", "")
                .cmd("SETRANGE", "k", "100", "")
                .cmd("GET", "k")
                .cmd("SETRANGE", "k", "13", "!")
                .cmd("GET", "k")
                .cmd("SETRANGE", "k", "0", "J")
                .cmd("GET", "k")
                .cmd("SETRANGE", "pad", "5", "x")
                .cmd("GET", "pad")
                .cmd("SETRANGE", "empty", "0", "")
                .cmd("SETRANGE", "empty", "10", "")
                .cmd("EXISTS", "empty")
                .cmd("SETRANGE", "k", "-1", "x")
                .cmd("SETRANGE", "missing", "-1", "x")
                .cmd("SETRANGE", "missing", "-1", "")
                .cmd("SETRANGE", "k", "abc", "x")
                .cmd("SETRANGE", "k", "1.5", "x")
                .cmd("SETRANGE", "k", "536870912", "x")
                .cmd("SETRANGE", "missing", "536870912", "x")
                .cmd("SETRANGE", "missing", "536870912", "")
                .cmd("SETRANGE", "k", "536870912", "")
                .cmd("SETRANGE", "k", "536870911", "xx")
                .cmd("SETRANGE", "k", LLONG_MAX, "x")
                .cmd("EXISTS", "missing")
                .cmd("SET", "t", "v", "EX", "100")
                .cmd("SETRANGE", "t", "1", "w")
                .check(Check.within(100, 1), "TTL", "t")
                .cmd("SETRANGE", "k", "0")
                .cmd("SETRANGE", "k", "0", "a", "b")
                .run();
    }
}
