package dev.cajon.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Redis's number rules: {@code string2ll} for integers, and x87 long double rounding and
 * {@code %.17Lf} printing for INCRBYFLOAT. Expected long double values were computed with an
 * 80-bit long double and glibc's printf.
 */
class NumbersTest {

    // ------------------------------------------------------------------ string2ll

    /**
     * A line-by-line port of Redis's {@code string2ll} (util.c), unsigned arithmetic included.
     * Returns null where Redis returns 0.
     */
    static Long string2ll(byte[] s) {
        int slen = s.length;
        int p = 0;
        if (slen == 0 || slen >= 21) { // LONG_STR_SIZE
            return null;
        }
        if (slen == 1 && s[0] == '0') {
            return 0L;
        }
        boolean negative = false;
        if (s[0] == '-') {
            negative = true;
            p++;
            if (p == slen) {
                return null;
            }
        }
        long v;
        if (s[p] >= '1' && s[p] <= '9') {
            v = s[p] - '0';
            p++;
        } else {
            return null;
        }
        final long ullongMax = -1L;
        while (p < slen && s[p] >= '0' && s[p] <= '9') {
            if (Long.compareUnsigned(v, Long.divideUnsigned(ullongMax, 10)) > 0) {
                return null;
            }
            v *= 10;
            int d = s[p] - '0';
            if (Long.compareUnsigned(v, ullongMax - d) > 0) {
                return null;
            }
            v += d;
            p++;
        }
        if (p < slen) {
            return null;
        }
        if (negative) {
            if (Long.compareUnsigned(v, Long.MIN_VALUE) > 0) { // (ull)(-(LLONG_MIN+1))+1
                return null;
            }
            return -v;
        }
        if (Long.compareUnsigned(v, Long.MAX_VALUE) > 0) {
            return null;
        }
        return v;
    }

    private static void assertAgreesWithRedis(byte[] s) {
        Long expected = string2ll(s);
        String shown = new String(s, StandardCharsets.ISO_8859_1);
        assertEquals(expected != null, Numbers.isLong(s, 0, s.length), () -> "isLong(\"" + shown + "\")");
        if (expected != null) {
            assertEquals(expected, Numbers.parseLong(s, 0, s.length), () -> "parseLong(\"" + shown + "\")");
        }
    }

    @Provide
    Arbitrary<String> numberish() {
        BigInteger min = BigInteger.valueOf(Long.MIN_VALUE);
        BigInteger max = BigInteger.valueOf(Long.MAX_VALUE);
        return Arbitraries.oneOf(
                Arbitraries.strings().withChars("0123456789-+ .x").ofMaxLength(23),
                Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(22),
                Arbitraries.longs().map(l -> Long.toString(l)),
                Arbitraries.bigIntegers().between(max.subtract(BigInteger.valueOf(50)), max.add(BigInteger.valueOf(50)))
                        .map(BigInteger::toString),
                Arbitraries.bigIntegers().between(min.subtract(BigInteger.valueOf(50)), min.add(BigInteger.valueOf(50)))
                        .map(BigInteger::toString),
                Arbitraries.bigIntegers().between(BigInteger.ONE.shiftLeft(64).subtract(BigInteger.valueOf(50)),
                        BigInteger.ONE.shiftLeft(64).add(BigInteger.valueOf(50))).map(BigInteger::toString),
                Arbitraries.longs().map(l -> "0" + l),
                Arbitraries.longs().map(l -> "+" + l),
                Arbitraries.longs().map(l -> " " + l),
                Arbitraries.longs().map(l -> l + " "),
                Arbitraries.longs().map(l -> "-" + l));
    }

    @Property(tries = 3000)
    void isLongAgreesWithRedisOnNumberLikeStrings(@ForAll("numberish") String s) {
        assertAgreesWithRedis(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Property(tries = 2000)
    void isLongAgreesWithRedisOnArbitraryBytes(@ForAll @Size(max = 22) byte[] s) {
        assertAgreesWithRedis(s);
    }

    @Property(tries = 2000)
    void everyLongRoundTrips(@ForAll long v) {
        byte[] s = Numbers.toBytes(v);
        assertEquals(Long.toString(v), new String(s, StandardCharsets.US_ASCII));
        assertTrue(Numbers.isLong(s, 0, s.length));
        assertEquals(v, Numbers.parseLong(s, 0, s.length));
    }

    @ParameterizedTest
    @ValueSource(strings = {"01", "+1", " 1", "1 ", "", "-0", "-", "-00", "00", "0x1", "1e3", "1.0",
            "9223372036854775808", "-9223372036854775809", "18446744073709551616", "123456789012345678901"})
    void notIntegers(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        assertFalse(Numbers.isLong(b, 0, b.length), s);
        assertNull(string2ll(b), "the reference agrees: " + s);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "1", "-1", "10", "9223372036854775807", "-9223372036854775808", "-9223372036854775807"})
    void integers(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        assertTrue(Numbers.isLong(b, 0, b.length), s);
        assertEquals(Long.parseLong(s), Numbers.parseLong(b, 0, b.length));
    }

    @Test
    void isLongReadsOnlyItsSlice() {
        byte[] b = "x-12y".getBytes(StandardCharsets.US_ASCII);
        assertTrue(Numbers.isLong(b, 1, 3));
        assertEquals(-12, Numbers.parseLong(b, 1, 3));
        assertFalse(Numbers.isLong(b, 0, 4));
    }

    // ------------------------------------------------------------------ long double

    private static BigDecimal ld(String s) {
        return Numbers.roundToLongDouble(new BigDecimal(s));
    }

    private static String fmt(BigDecimal v) {
        return new String(Numbers.formatLongDouble(v), StandardCharsets.US_ASCII);
    }

    @ParameterizedTest
    @CsvSource({
        "0.1, 0.1000000000000000000013552527156068805425093160010874271392822265625",
        "-0.1, -0.1000000000000000000013552527156068805425093160010874271392822265625",
        "1.1, 1.100000000000000000021684043449710088680149056017398834228515625",
        "0.333333333333333333333, 0.33333333333333333334236835143737920361672877334058284759521484375",
        "123456789012345678901234567890, 123456789012345678899921813504",
        "9223372036854775807, 9223372036854775807",
        "18446744073709551615, 18446744073709551615",
        "18446744073709551617, 18446744073709551616",
        "18446744073709551619, 18446744073709551620",
        "1.5, 1.5",
        "3000, 3000",
        "0, 0",
    })
    void roundsToTheNearestX87Value(String in, String exact) {
        assertEquals(0, new BigDecimal(exact).compareTo(ld(in)), () -> in + " rounded to " + ld(in));
    }

    @Test
    void hugeValuesAndOverflowToInfinity() {
        BigDecimal ld1e4932 = new BigDecimal(new BigInteger("15504964057600816845").shiftLeft(16320));
        assertEquals(0, ld1e4932.compareTo(ld("1e4932")));
        BigDecimal largest = new BigDecimal(BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE).shiftLeft(16320));
        assertEquals(0, largest.compareTo(Numbers.roundToLongDouble(largest)), "the largest finite long double");
        assertNull(ld("1.2e4932"));
        assertNull(ld("-1.2e4932"));
        assertNull(Numbers.roundToLongDouble(new BigDecimal(BigInteger.ONE.shiftLeft(16384))));
    }

    @ParameterizedTest
    @CsvSource({
        "0.1, 0.1",
        "1.1, 1.1",
        "3.0e3, 3000",
        "1.5, 1.5",
        "-1.25, -1.25",
        "0.333333333333333333333, 0.33333333333333333",
        "123456789012345678901234567890, 123456789012345678899921813504",
        "1e-18, 0",
        "-1e-18, 0",
        "-0.0, 0",
        "1e-17, 0.00000000000000001",
        "100000000000000001, 100000000000000001",
    })
    void formatsLikePercent17LfTrimmed(String in, String printed) {
        assertEquals(printed, fmt(ld(in)));
    }

    @Test
    void aDoubleWouldPrintDifferently() {
        // why INCRBYFLOAT needs long double: the double nearest 0.1 prints with a tail at %.17f
        assertEquals("0.10000000000000001", fmt(new BigDecimal(0.1)));
        assertEquals("0.1", fmt(ld("0.1")));
    }

    @ParameterizedTest
    @CsvSource({
        "1.5, 1.5",
        "+1.5, 1.5",
        "-2, -2",
        "3.0e3, 3000",
        "5.0E3, 5000",
        ".5, 0.5",
        "1., 1",
        "10.50, 10.5",
    })
    void parsesWhatRedisParses(String in, String value) {
        byte[] b = in.getBytes(StandardCharsets.US_ASCII);
        BigDecimal v = Numbers.parseLongDouble(b, 0, b.length);
        assertEquals(0, new BigDecimal(value).compareTo(v), in);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " 1", "1 ", "\t1", "1\n", "abc", "1.5.5", "nan", "NaN", "1e5000", "-1e5000", "1,5", "--1"})
    void refusesWhatRedisRefuses(String in) {
        byte[] b = in.getBytes(StandardCharsets.US_ASCII);
        assertNull(Numbers.parseLongDouble(b, 0, b.length), in);
    }

    @Test
    void refusesInputOfMaxLongDoubleCharsOrMore() {
        // Redis copies into a 5 KiB buffer: 5119 characters are fine, 5120 are refused
        byte[] b = new byte[5 * 1024];
        java.util.Arrays.fill(b, (byte) '3');
        b[0] = '0';
        b[1] = '.';
        assertNull(Numbers.parseLongDouble(b, 0, b.length));
        assertEquals("0.33333333333333333", fmt(Numbers.parseLongDouble(b, 0, b.length - 1)));
    }
}
