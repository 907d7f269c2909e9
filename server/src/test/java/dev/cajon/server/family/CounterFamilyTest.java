package dev.cajon.server.family;

import static dev.cajon.server.testkit.RespAssertions.assertError;
import static dev.cajon.server.testkit.RespAssertions.assertReply;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cajon.server.testkit.FamilyTestBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * INCR, DECR, INCRBY, DECRBY and INCRBYFLOAT: Redis's signed 64-bit rules (string2ll), its
 * overflow checks and its long double formatting. Atomicity under concurrent clients is in
 * {@link ConcurrencyFamilyTest}; TTL preservation in {@link ExpiryFamilyTest}.
 */
class CounterFamilyTest extends FamilyTestBase {
    private static final String NOT_INTEGER = "ERR value is not an integer or out of range";
    private static final String OVERFLOW = "ERR increment or decrement would overflow";
    private static final String NOT_FLOAT = "ERR value is not a valid float";

    @Test
    void incrAndDecrFromMissing() {
        assertReply(run("incr", "a"), 1);
        assertReply(run("incr", "a"), 2);
        assertReply(run("decr", "b"), -1);
        assertEquals(":-1\r\n", client.lastRawString());
        assertReply(run("decr", "a"), 1);
        assertReply(run("get", "a"), "1");
        assertReply(run("get", "b"), "-1");
    }

    @Test
    void incrbyAndDecrby() {
        assertReply(run("incrby", "k", "10"), 10);
        assertReply(run("incrby", "k", "-15"), -5);
        assertReply(run("decrby", "k", "5"), -10);
        assertReply(run("decrby", "k", "-20"), 10);
        assertReply(run("incrby", "k", "0"), 10);
        assertReply(run("get", "k"), "10");
    }

    @Test
    void incrOnAnExistingNumericString() {
        run("set", "k", "41");
        assertReply(run("incr", "k"), 42);
        run("set", "neg", "-9223372036854775807");
        assertReply(run("decr", "neg"), Long.MIN_VALUE);
        assertEquals(":-9223372036854775808\r\n", client.lastRawString());
    }

    @Test
    void overflowIsAnErrorAndLeavesTheValue() {
        run("set", "max", String.valueOf(Long.MAX_VALUE));
        assertError(run("incr", "max"), OVERFLOW);
        assertError(run("incrby", "max", "1"), OVERFLOW);
        assertReply(run("get", "max"), String.valueOf(Long.MAX_VALUE));
        run("set", "min", String.valueOf(Long.MIN_VALUE));
        assertError(run("decr", "min"), OVERFLOW);
        assertError(run("incrby", "min", "-1"), OVERFLOW);
        assertReply(run("decrby", "min", "-1"), Long.MIN_VALUE + 1);
        assertReply(run("incrby", "min", String.valueOf(Long.MAX_VALUE)), 0);
    }

    @Test
    void decrbyOfLongMinIsItsOwnError() {
        assertError(run("decrby", "k", "-9223372036854775808"), "ERR decrement would overflow");
        assertReply(run("exists", "k"), 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "", " 1", "1 ", "1.0", "010", "-0", "+1", "0x10", "9223372036854775808",
        "-9223372036854775809", "1e3", "12345678901234567890123"})
    void incrOnANonIntegerValue(String value) {
        run("set", "k", value);
        assertError(run("incr", "k"), NOT_INTEGER);
        assertError(run("decrby", "k", "1"), NOT_INTEGER);
        assertReply(run("get", "k"), value);
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "", " 1", "1.5", "010", "+1", "9223372036854775808"})
    void incrbyWithANonIntegerArgument(String arg) {
        assertError(run("incrby", "k", arg), NOT_INTEGER);
        assertError(run("decrby", "k", arg), NOT_INTEGER);
        assertReply(run("exists", "k"), 0);
    }

    @Test
    void zeroAndNegativeZero() {
        run("set", "z", "0");
        assertReply(run("incr", "z"), 1);
        run("set", "z", "-1");
        assertReply(run("incr", "z"), 0);
        assertReply(run("get", "z"), "0");
    }

    // ------------------------------------------------------------------ INCRBYFLOAT

    @Test
    void incrbyfloatRedisDocExamples() {
        run("set", "mykey", "10.50");
        assertReply(run("incrbyfloat", "mykey", "0.1"), "10.6");
        assertReply(run("incrbyfloat", "mykey", "-5"), "5.6");
        run("set", "mykey", "5.0e3");
        assertReply(run("incrbyfloat", "mykey", "2.0e2"), "5200");
        assertReply(run("get", "mykey"), "5200");
    }

    @ParameterizedTest
    @CsvSource({"1.5,1.5", "-2,-2", "0,0", "3.0,3", "1e2,100", "0.1,0.1", "-0.0,0", "1E-3,0.001",
        "100000000000000000000,100000000000000000000"})
    void incrbyfloatFromMissing(String incr, String expected) {
        assertReply(run("incrbyfloat", "k", incr), expected);
        assertReply(run("get", "k"), expected);
    }

    @Test
    void incrbyfloatOnAnIntegerCounterAndBack() {
        assertReply(run("incr", "k"), 1);
        assertReply(run("incrbyfloat", "k", "0.5"), "1.5");
        assertError(run("incr", "k"), NOT_INTEGER);
        assertReply(run("incrbyfloat", "k", "0.5"), "2");
        assertReply(run("incr", "k"), 3);
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "", " 1", "1 ", "nan", "1..2", "1e", "--1"})
    void incrbyfloatRejectsNonFloats(String bad) {
        assertError(run("incrbyfloat", "k", bad), NOT_FLOAT);
        run("set", "v", bad);
        assertError(run("incrbyfloat", "v", "1"), NOT_FLOAT);
        assertReply(run("exists", "k"), 0);
    }

    @Test
    void incrbyfloatToInfinityIsRefused() {
        // Redis's strtold accepts "inf"; the sum is then refused as infinite
        assertError(run("incrbyfloat", "k", "inf"), "ERR increment would produce NaN or Infinity");
        assertError(run("incrbyfloat", "k", "-inf"), "ERR increment would produce NaN or Infinity");
        assertReply(run("exists", "k"), 0);
    }

    @Test
    void incrbyfloatOverflowingLongDoubleIsRefused() {
        // long double tops out near 1.19e4932: twice 1.1e4932 is infinite
        run("set", "k", "1.1e4932");
        assertError(run("incrbyfloat", "k", "1.1e4932"), "ERR increment would produce NaN or Infinity");
        assertReply(run("get", "k"), "1.1e4932");
    }

    @Test
    void incrbyfloatAcceptsHexLikeStrtold() {
        // Redis parses the increment with strtold, which reads C99 hex floats
        assertReply(run("incrbyfloat", "k", "0x10"), "16");
    }

    @Test
    void arityErrorsNameTheCommand() {
        assertError(run("incr"), "ERR wrong number of arguments for 'incr' command");
        assertError(run("incr", "a", "b"), "ERR wrong number of arguments for 'incr' command");
        assertError(run("incrby", "a"), "ERR wrong number of arguments for 'incrby' command");
        assertError(run("incrbyfloat", "a"), "ERR wrong number of arguments for 'incrbyfloat' command");
        assertError(run("decrby", "a", "1", "2"), "ERR wrong number of arguments for 'decrby' command");
    }
}
