package dev.cajon.server.compat;


/**
 * TTL commands against Redis: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT with NX/XX/GT/LT, negative and
 * past times, overflow; TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST.
 *
 * <p>Both servers run on the system clock, so relative TTLs are compared within a tolerance and
 * absolute deadlines (EXPIREAT, PEXPIREAT) exactly.
 */
class ExpiryComparisonTest extends ComparisonTestBase {

    @BothProtocols
    void expireAndTtl() throws Exception {
        long inAMinute = System.currentTimeMillis() + 60_000;
        scenario("EXPIRE, PEXPIRE, TTL, PTTL")
                .cmd("TTL", "k")
                .cmd("PTTL", "k")
                .cmd("EXPIRETIME", "k")
                .cmd("PEXPIRETIME", "k")
                .cmd("EXPIRE", "k", "100")
                .cmd("SET", "k", "v")
                .cmd("TTL", "k")
                .cmd("PTTL", "k")
                .cmd("EXPIRETIME", "k")
                .cmd("PEXPIRETIME", "k")
                .cmd("EXPIRE", "k", "100")
                .check(Check.within(100, 1), "TTL", "k")
                .check(Check.within(100_000, 1_000), "PTTL", "k")
                .check(Check.within(nowSeconds() + 100, 2), "EXPIRETIME", "k")
                .cmd("PEXPIRE", "k", "60000")
                .check(Check.within(60, 1), "TTL", "k")
                .check(Check.within(60_000, 1_000), "PTTL", "k")
                .check(Check.within(inAMinute, 2_000), "PEXPIRETIME", "k")
                .cmd("expire", "k", "50")
                .check(Check.within(50, 1), "TTL", "k")
                .cmd("EXPIRE", "k", "abc")
                .cmd("EXPIRE", "k", "1.5")
                .cmd("EXPIRE", "k", "")
                .cmd("EXPIRE", "k", "9223372036854775808")
                .cmd("PEXPIRE", "k", "abc")
                .cmd("EXPIREAT", "k", "abc")
                .cmd("PEXPIREAT", "k", "abc")
                .check(Check.within(50, 1), "TTL", "k")
                .cmd("EXPIRE", "missing", "abc")
                .cmd("EXPIRE", "k")
                .cmd("EXPIRE")
                .cmd("TTL")
                .cmd("TTL", "a", "b")
                .cmd("PTTL", "k", "x")
                .cmd("EXPIRETIME")
                .cmd("PEXPIRETIME", "a", "b")
                .run();
    }

    @BothProtocols
    void absoluteDeadlinesAreExact() throws Exception {
        long at = nowSeconds() + 1000;
        scenario("EXPIREAT, PEXPIREAT, EXPIRETIME, PEXPIRETIME")
                .cmd("SET", "k", "v")
                .cmd("EXPIREAT", "k", Long.toString(at))
                .cmd("EXPIRETIME", "k")
                .cmd("PEXPIRETIME", "k")
                .check(Check.within(1000, 2), "TTL", "k")
                .cmd("PEXPIREAT", "k", at + "123")
                .cmd("EXPIRETIME", "k")
                .cmd("PEXPIRETIME", "k")
                .cmd("PEXPIREAT", "k", at + "499")
                .cmd("EXPIRETIME", "k")
                .cmd("PEXPIREAT", "k", at + "500")
                .cmd("EXPIRETIME", "k")
                .cmd("PEXPIREAT", "k", at + "999")
                .cmd("EXPIRETIME", "k")
                .cmd("PEXPIRETIME", "k")
                .cmd("EXPIREAT", "missing", Long.toString(at))
                .cmd("PEXPIREAT", "missing", at + "000")
                .run();
    }

    @BothProtocols
    void negativeAndPastTimesDeleteTheKey() throws Exception {
        scenario("negative and past times")
                .cmd("SET", "k", "v")
                .cmd("EXPIRE", "k", "-1")
                .cmd("EXISTS", "k")
                .cmd("SET", "k", "v")
                .cmd("EXPIRE", "k", "0")
                .cmd("GET", "k")
                .cmd("SET", "k", "v")
                .cmd("PEXPIRE", "k", "-1000")
                .cmd("EXISTS", "k")
                .cmd("SET", "k", "v")
                .cmd("PEXPIRE", "k", "0")
                .cmd("EXISTS", "k")
                .cmd("SET", "k", "v")
                .cmd("EXPIREAT", "k", "1")
                .cmd("EXISTS", "k")
                .cmd("SET", "k", "v")
                .cmd("EXPIREAT", "k", "0")
                .cmd("EXISTS", "k")
                .cmd("SET", "k", "v")
                .cmd("PEXPIREAT", "k", "1")
                .cmd("TTL", "k")
                .cmd("SET", "k", "v")
                .cmd("EXPIREAT", "k", "-100")
                .cmd("EXISTS", "k")
                .cmd("SET", "k", "v")
                .cmd("PEXPIREAT", "k", LLONG_MIN)
                .cmd("EXISTS", "k")
                .cmd("EXPIRE", "missing", "-1")
                .cmd("EXPIREAT", "missing", "1")
                .cmd("DBSIZE")
                .run();
    }

    @BothProtocols
    void overflow() throws Exception {
        scenario("expire time overflow")
                .cmd("SET", "k", "v")
                .cmd("EXPIRE", "k", LLONG_MAX)
                .cmd("EXPIRE", "k", "9223372036854775")
                .cmd("EXPIRE", "k", "9223372036854776")
                .cmd("EXPIRE", "k", LLONG_MIN)
                .cmd("EXPIRE", "k", "-9223372036854776")
                .cmd("PEXPIRE", "k", LLONG_MAX)
                .cmd("EXPIREAT", "k", LLONG_MAX)
                .cmd("EXPIREAT", "k", "9223372036854776")
                .cmd("EXPIREAT", "k", LLONG_MIN)
                .cmd("TTL", "k")
                .cmd("EXPIRE", "missing", LLONG_MAX)
                .cmd("EXPIREAT", "k", "9223372036854775")
                .cmd("EXPIRETIME", "k")
                .cmd("PEXPIRETIME", "k")
                .cmd("PEXPIREAT", "k", LLONG_MAX)
                .cmd("PEXPIRETIME", "k")
                .cmd("EXPIRETIME", "k")
                .check(Check.near(2), "TTL", "k")
                .check(Check.near(2_000), "PTTL", "k")
                .cmd("PEXPIRE", "k", "9223372036854775000")
                .cmd("PEXPIRETIME", "k")
                .run();
    }

    @BothProtocols
    void conditionsOnAPersistentKey() throws Exception {
        scenario("NX/XX/GT/LT on a key without TTL")
                .cmd("SET", "k", "v")
                .cmd("EXPIRE", "k", "100", "XX")
                .cmd("TTL", "k")
                .cmd("EXPIRE", "k", "100", "GT")
                .cmd("TTL", "k")
                .cmd("EXPIRE", "k", "100", "XX", "LT")
                .cmd("TTL", "k")
                .cmd("EXPIRE", "k", "-1", "GT")
                .cmd("EXISTS", "k")
                .cmd("EXPIRE", "k", "100", "LT")
                .check(Check.within(100, 1), "TTL", "k")
                .cmd("PERSIST", "k")
                .cmd("EXPIRE", "k", "100", "NX")
                .check(Check.within(100, 1), "TTL", "k")
                .cmd("PERSIST", "k")
                .cmd("EXPIRE", "k", "-1", "LT")
                .cmd("EXISTS", "k")
                .cmd("EXPIRE", "missing", "100", "NX")
                .cmd("EXPIRE", "missing", "100", "LT")
                .run();
    }

    @BothProtocols
    void conditionsOnAVolatileKey() throws Exception {
        long at = nowSeconds() + 1000;
        String atS = Long.toString(at);
        scenario("NX/XX/GT/LT on a key with a TTL")
                .cmd("SET", "k", "v")
                .cmd("EXPIREAT", "k", atS)
                .cmd("EXPIREAT", "k", Long.toString(at + 10), "NX")
                .cmd("EXPIRETIME", "k")
                .cmd("EXPIREAT", "k", Long.toString(at + 10), "XX")
                .cmd("EXPIRETIME", "k")
                .cmd("EXPIREAT", "k", Long.toString(at + 5), "GT")
                .cmd("EXPIREAT", "k", Long.toString(at + 10), "GT")
                .cmd("EXPIREAT", "k", Long.toString(at + 20), "GT")
                .cmd("EXPIRETIME", "k")
                .cmd("EXPIREAT", "k", Long.toString(at + 30), "LT")
                .cmd("EXPIREAT", "k", Long.toString(at + 20), "LT")
                .cmd("EXPIREAT", "k", atS, "LT")
                .cmd("EXPIRETIME", "k")
                .cmd("EXPIREAT", "k", Long.toString(at + 10), "XX", "GT")
                .cmd("EXPIREAT", "k", atS, "xx", "lt")
                .cmd("EXPIRETIME", "k")
                .cmd("PEXPIREAT", "k", at + "000", "GT")
                .cmd("PEXPIREAT", "k", at + "001", "GT")
                .cmd("PEXPIRETIME", "k")
                .cmd("EXPIRE", "k", "-1", "GT")
                .cmd("EXISTS", "k")
                .cmd("EXPIRE", "k", "-1", "LT")
                .cmd("EXISTS", "k")
                .run();
    }

    /**
     * Every combination of NX, XX, GT, LT (each subset, in order), on a key alternately with and
     * without a TTL, with absolute times so that the comparisons are deterministic.
     */
    @BothProtocols
    void everyCombinationOfConditions() throws Exception {
        long at = nowSeconds() + 1000;
        String[] flags = {"NX", "XX", "GT", "LT"};
        Scenario s = scenario("EXPIREAT condition combinations").cmd("SET", "k", "v");
        for (int mask = 0; mask < 16; mask++) {
            for (int round = 0; round < 3; round++) {
                java.util.List<String> argv = new java.util.ArrayList<>(java.util.List.of(
                        "EXPIREAT", "k", Long.toString(at + (mask + round) % 3 * 10)));
                for (int f = 0; f < 4; f++) {
                    if ((mask & 1 << f) != 0) {
                        argv.add(flags[f]);
                    }
                }
                s.cmd(argv.toArray(new String[0])).cmd("EXPIRETIME", "k");
            }
            if (mask % 2 == 0) {
                s.cmd("PERSIST", "k");
            }
        }
        s.run();
    }

    @BothProtocols
    void conflictingAndUnsupportedOptions() throws Exception {
        scenario("EXPIRE option errors")
                .cmd("SET", "k", "v")
                .cmd("EXPIRE", "k", "100", "NX", "XX")
                .cmd("EXPIRE", "k", "100", "XX", "NX")
                .cmd("EXPIRE", "k", "100", "NX", "GT")
                .cmd("EXPIRE", "k", "100", "LT", "NX")
                .cmd("EXPIRE", "k", "100", "GT", "LT")
                .cmd("EXPIRE", "k", "100", "LT", "GT")
                .cmd("EXPIRE", "k", "100", "NX", "GT", "LT")
                .cmd("EXPIRE", "k", "100", "XX", "GT", "LT")
                .cmd("EXPIRE", "k", "100", "FOO")
                .cmd("EXPIRE", "k", "100", "nx", "foo")
                .cmd("EXPIRE", "k", "100", "")
                .cmd("EXPIRE", "k", "abc", "FOO")
                .cmd("EXPIRE", "k", "abc", "NX", "XX")
                .cmd("EXPIRE", "k", LLONG_MAX, "NX", "XX")
                .cmd("EXPIRE", "missing", "100", "FOO")
                .cmd("PEXPIRE", "k", "100", "GT", "LT")
                .cmd("EXPIREAT", "k", "100", "NX", "LT")
                .cmd("PEXPIREAT", "k", "100", "BAR")
                .cmd("EXPIRE", "k", "100", "NX", "NX")
                .cmd("TTL", "k")
                .run();
    }

    @BothProtocols
    void persist() throws Exception {
        scenario("PERSIST")
                .cmd("PERSIST", "missing")
                .cmd("SET", "k", "v")
                .cmd("PERSIST", "k")
                .cmd("EXPIRE", "k", "100")
                .cmd("PERSIST", "k")
                .cmd("TTL", "k")
                .cmd("PERSIST", "k")
                .cmd("GET", "k")
                .cmd("PERSIST")
                .cmd("PERSIST", "a", "b")
                .run();
    }
}
