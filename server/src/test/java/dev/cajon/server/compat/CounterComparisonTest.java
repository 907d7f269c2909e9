package dev.cajon.server.compat;

import static org.junit.jupiter.api.Assertions.assertAll;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.function.Executable;

/**
 * Counters against Redis: INCR, DECR, INCRBY, DECRBY, INCRBYFLOAT, with overflow at LLONG_MAX and
 * LLONG_MIN, values that are not integers, and the formatting of float results.
 */
class CounterComparisonTest extends ComparisonTestBase {

    @BothProtocols
    void incrDecr() throws Exception {
        scenario("INCR, DECR, INCRBY, DECRBY")
                .cmd("INCR", "n")
                .cmd("INCR", "n")
                .cmd("DECR", "n")
                .cmd("DECR", "m")
                .cmd("INCRBY", "n", "10")
                .cmd("INCRBY", "n", "-20")
                .cmd("DECRBY", "n", "5")
                .cmd("DECRBY", "n", "-100")
                .cmd("INCRBY", "n", "0")
                .cmd("GET", "n")
                .cmd("SET", "z", "0")
                .cmd("INCR", "z")
                .cmd("SET", "neg", "-5")
                .cmd("INCRBY", "neg", "5")
                .cmd("GET", "neg")
                .cmd("INCRBY", "fresh", LLONG_MIN)
                .cmd("DECRBY", "fresh2", LLONG_MAX)
                .cmd("INCRBY", "n", "abc")
                .cmd("INCRBY", "n", "1.5")
                .cmd("INCRBY", "n", "")
                .cmd("INCRBY", "n", "9223372036854775808")
                .cmd("DECRBY", "n", "x")
                .cmd("INCR")
                .cmd("INCR", "a", "b")
                .cmd("DECR")
                .cmd("INCRBY", "n")
                .cmd("DECRBY", "n", "1", "2")
                .run();
    }

    @BothProtocols
    void overflow() throws Exception {
        scenario("counter overflow")
                .cmd("SET", "max", LLONG_MAX)
                .cmd("INCR", "max")
                .cmd("INCRBY", "max", "1")
                .cmd("INCRBY", "max", "0")
                .cmd("DECR", "max")
                .cmd("INCR", "max")
                .cmd("GET", "max")
                .cmd("SET", "min", LLONG_MIN)
                .cmd("DECR", "min")
                .cmd("DECRBY", "min", "1")
                .cmd("INCRBY", "min", "-1")
                .cmd("INCR", "min")
                .cmd("GET", "min")
                .cmd("SET", "one", "1")
                .cmd("INCRBY", "one", LLONG_MAX)
                .cmd("SET", "m2", "-2")
                .cmd("DECRBY", "m2", LLONG_MAX)
                .cmd("INCRBY", "m2", LLONG_MIN)
                .cmd("DECRBY", "one", LLONG_MIN)
                .cmd("DECRBY", "missing", LLONG_MIN)
                .cmd("EXISTS", "missing")
                .cmd("SET", "zero", "0")
                .cmd("DECRBY", "zero", LLONG_MIN)
                .cmd("SET", "big", "9223372036854775808")
                .cmd("INCR", "big")
                .cmd("SET", "small", "-9223372036854775809")
                .cmd("DECR", "small")
                .run();
    }

    /** Values Redis's string2ll refuses; one at a time, each on INCR and on INCRBY. */
    @BothProtocols
    void valuesThatAreNotIntegers() throws Exception {
        String[] values = {"1 ", " 1", "01", "+1", "", "abc", "1.0", "1e3", "-0", "00", "0x10", "1\u0000",
            "--1", "-", "１"};
        Scenario s = scenario("non-integer values");
        for (String v : values) {
            s.cmd("SET", "k", v)
                    .cmd("INCR", "k")
                    .cmd("DECRBY", "k", "2")
                    .cmd("GET", "k");
        }
        s.run();
    }

    @BothProtocols
    void countersKeepTheTtl() throws Exception {
        scenario("counters keep the TTL")
                .cmd("SET", "n", "1", "EX", "100")
                .cmd("INCR", "n")
                .check(Check.within(100, 1), "TTL", "n")
                .cmd("INCRBYFLOAT", "n", "0.5")
                .check(Check.within(100, 1), "TTL", "n")
                .cmd("GET", "n")
                .run();
    }

    @BothProtocols
    void incrbyfloat() throws Exception {
        scenario("INCRBYFLOAT")
                .cmd("INCRBYFLOAT", "f", "10.5")
                .cmd("INCRBYFLOAT", "f", "0.1")
                .cmd("INCRBYFLOAT", "f", "-5")
                .cmd("INCRBYFLOAT", "f", "5.0e3")
                .cmd("GET", "f")
                .cmd("INCRBYFLOAT", "p", "0.1")
                .cmd("INCRBYFLOAT", "p", "0.2")
                .cmd("INCRBYFLOAT", "big", "1e20")
                .cmd("INCRBYFLOAT", "big", "0.1")
                .cmd("SET", "i", "5")
                .cmd("INCRBYFLOAT", "i", "1.5")
                .cmd("INCRBYFLOAT", "i", "-6.5")
                .cmd("GET", "i")
                .cmd("INCR", "i")
                .cmd("SET", "s", "abc")
                .cmd("INCRBYFLOAT", "s", "1")
                .cmd("INCRBYFLOAT", "s", "abc")
                .cmd("INCRBYFLOAT", "f", "abc")
                .cmd("INCRBYFLOAT", "f", "")
                .cmd("INCRBYFLOAT", "f", " 1")
                .cmd("INCRBYFLOAT", "f", "1 ")
                .cmd("INCRBYFLOAT", "f", "nan")
                .cmd("INCRBYFLOAT", "f", "inf")
                .cmd("INCRBYFLOAT", "f", "-inf")
                .cmd("INCRBYFLOAT", "f", "1e5000")
                .cmd("INCRBYFLOAT", "f", "1e-5000")
                .cmd("GET", "f")
                .cmd("INCRBYFLOAT", "f")
                .cmd("INCRBYFLOAT", "f", "1", "2")
                .cmd("INCRBYFLOAT")
                .run();
    }

    /**
     * How results are printed (Redis: "%.17Lf" of an x87 long double, trailing zeros removed);
     * one scenario per input so each difference is reported on its own.
     */
    @BothProtocols
    void incrbyfloatFormatting() {
        String[][] cases = {
            {"3.0"}, {"1.10"}, {"-1.5"}, {".5"}, {"5."}, {"-0"}, {"0"}, {"+1.5"}, {"1e3"}, {"1E3"},
            {"0.1", "0.2"}, {"1.1", "2.2"}, {"1e-17"}, {"1e-18"}, {"123456789012345678"},
            {"12345678901234567890"}, {"1e300"}, {"-1e300"}, {"3.4e38"}, {"1.7976931348623157e308"},
            {"1e400"}, {"0x10"}, {"0x1p3"}, {"1e20", "-1e20"}, {"0.1", "-0.1"}, {"9007199254740993"},
            {"9223372036854775807"}, {"9223372036854775807", "1"}, {"1.5e4000"}, {"1e4932"},
        };
        List<Executable> checks = new ArrayList<>();
        for (String[] c : cases) {
            Scenario s = scenario("INCRBYFLOAT " + String.join(" then ", c));
            for (String incr : c) {
                s.cmd("INCRBYFLOAT", "f", incr);
            }
            s.cmd("GET", "f");
            checks.add(s::run);
        }
        checks.add(() -> scenario("INCRBYFLOAT on stored values")
                .cmd("SET", "f", "1e3").cmd("INCRBYFLOAT", "f", "1")
                .cmd("SET", "f", " 1").cmd("INCRBYFLOAT", "f", "1")
                .cmd("SET", "f", "0x10").cmd("INCRBYFLOAT", "f", "1")
                .cmd("SET", "f", "inf").cmd("INCRBYFLOAT", "f", "1")
                .cmd("SET", "f", "1.5").cmd("INCR", "f")
                .run());
        assertAll(checks);
    }
}
