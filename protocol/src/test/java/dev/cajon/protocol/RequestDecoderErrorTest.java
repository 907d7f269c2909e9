package dev.cajon.protocol;

import static dev.cajon.protocol.DecoderHarness.assertDecodesUnderAllSplits;
import static dev.cajon.protocol.DecoderHarness.concat;
import static dev.cajon.protocol.DecoderHarness.describeAll;
import static dev.cajon.protocol.DecoderHarness.err;
import static dev.cajon.protocol.DecoderHarness.inl;
import static dev.cajon.protocol.DecoderHarness.latin1;
import static dev.cajon.protocol.DecoderHarness.mb;
import static dev.cajon.protocol.DecoderHarness.resp;
import static dev.cajon.protocol.DecoderHarness.run;
import static dev.cajon.protocol.RequestDecoderTest.filled;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed input: the decoder emits the commands before the fault, then exactly one
 * {@link ProtocolError} whose {@code message()} is Redis's reply text, then nothing more, whatever
 * the reads look like.
 *
 * <p>Every expected text here was obtained from redis-server 7.0.15 (the one installed on the
 * development machine) by sending the same bytes over a loopback socket and reading
 * {@code -ERR Protocol error: ...} before Redis closed the connection.
 *
 * <p>After the malformed part, each input carries more commands in the same buffer; Redis never
 * looks at them (it replies and closes), so neither may the decoder. The harness also sends one more
 * read after the error and checks that nothing comes out.
 */
@ExtendWith(LeakCheck.class)
class RequestDecoderErrorTest {
    /** Valid commands after the fault, in the same buffer: must never be decoded. */
    private static final byte[] TAIL = concat(latin1("PING\r\n"), resp("PING"));

    private static Arguments c(String input, String... expected) {
        return Arguments.of(latin1(input), List.of(expected));
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                // multibulk count
                c("*abc\r\n", err("invalid multibulk length")),
                c("*\r\n", err("invalid multibulk length")),
                c("*+1\r\n$4\r\nPING\r\n", err("invalid multibulk length")),
                c("*1 \r\n$4\r\nPING\r\n", err("invalid multibulk length")),
                c("*2147483648\r\n", err("invalid multibulk length")),
                c("*99999999999999999999999\r\n", err("invalid multibulk length")),
                c("*1\n$4\r\nPING\r\n", err("invalid multibulk length")),
                // Redis's string2ll refuses leading zeros and "-0"
                c("*01\r\n$4\r\nPING\r\n", err("invalid multibulk length")),
                c("*-0\r\n", err("invalid multibulk length")),
                // bulk length
                c("*1\r\n$abc\r\n", err("invalid bulk length")),
                c("*1\r\n$-1\r\n", err("invalid bulk length")),
                c("*1\r\n$-5\r\n", err("invalid bulk length")),
                c("*1\r\n$\r\n", err("invalid bulk length")),
                c("*1\r\n$+4\r\nPING\r\n", err("invalid bulk length")),
                c("*1\r\n$4 \r\nPING\r\n", err("invalid bulk length")),
                c("*1\r\n$4\nPING\r\n", err("invalid bulk length")),
                c("*1\r\n$536870913\r\n", err("invalid bulk length")),
                c("*1\r\n$99999999999999999999999\r\n", err("invalid bulk length")),
                c("*1\r\n$04\r\nPING\r\n", err("invalid bulk length")),
                c("*1\r\n$-0\r\n", err("invalid bulk length")),
                c("*2\r\n$4\r\nECHO\r\n$-0\r\n\r\n", err("invalid bulk length")),
                c("*2\r\n$4\r\nECHO\r\n$x\r\n", err("invalid bulk length")),
                // element type
                c("*1\r\n:5\r\n", err("expected '$', got ':'")),
                c("*2\r\n*1\r\n$4\r\nPING\r\n", err("expected '$', got '*'")),
                c("*1\r\n+OK\r\n", err("expected '$', got '+'")),
                c("*1\r\n-ERR\r\n", err("expected '$', got '-'")),
                c("*1\r\nx\r\n", err("expected '$', got 'x'")),
                c("*1\r\n5\r\n", err("expected '$', got '5'")),
                c("*1\r\n-x\n\r\n", err("expected '$', got '-'")),
                c("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n:1\r\n", err("expected '$', got ':'")),
                // inline quoting
                c("SET k \"abc\r\n", err("unbalanced quotes in request")),
                c("ECHO \"a\"b\r\n", err("unbalanced quotes in request")),
                c("ECHO 'a'b\r\n", err("unbalanced quotes in request")),
                // commands before the fault are still delivered
                c("*1\r\n$4\r\nPING\r\n*abc\r\n", mb("PING"), err("invalid multibulk length")),
                c("PING\r\n*1\r\n$abc\r\n", inl("PING"), err("invalid bulk length")),
                c("*1\r\n$4\r\nPING\r\nECHO \"abc\r\n", mb("PING"), err("unbalanced quotes in request")));
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("malformed")
    void redisErrorUnderEverySplitAndNothingAfter(byte[] input, List<String> expected) {
        assertDecodesUnderAllSplits(concat(input, TAIL), expected);
    }

    @Test
    void protocolErrorMessageIsRedisReplyText() {
        assertEquals("ERR Protocol error: invalid bulk length", new ProtocolError("invalid bulk length").message());
    }

    // ------------------------------------------------------------------ size limits

    @Test
    void inlineRequestOverInlineMaxWithoutNewline() {
        // Redis: more than 64 KiB buffered without '\n' -> "too big inline request" (65536 waits)
        byte[] input = concat(latin1("ECHO "), filled(RequestDecoder.INLINE_MAX + 1 - 5, 'a'));
        assertDecodesUnderAllSplits(input, List.of(err("too big inline request")));
        assertEquals(List.of(), describeAll(run(concat(latin1("ECHO "), filled(RequestDecoder.INLINE_MAX - 5, 'a')))));
    }

    @Test
    void inlineRequestOverInlineMaxWithoutNewlineAfterCommands() {
        byte[] input = concat(resp("PING"), latin1("PING\n"), filled(RequestDecoder.INLINE_MAX + 1, 'a'));
        assertDecodesUnderAllSplits(input, List.of(mb("PING"), inl("PING"), err("too big inline request")));
    }

    @Test
    void inlineLineOf100KibIsRefusedEvenWhenItsNewlineIsInTheSameRead() {
        // Redis reads at most 16 KiB at a time and checks the limit after each read, so a 100 KiB
        // line always exceeds 64 KiB before its newline is seen: "too big inline request".
        byte[] input = concat(latin1("ECHO "), filled(100 * 1024, 'a'), latin1("\r\n"), resp("PING"));
        assertDecodesUnderAllSplits(input, List.of(err("too big inline request")));
    }

    @Test
    void multibulkCountLineOver64KibWithoutCr() {
        // Redis: "*" followed by more than 64 KiB without '\r' -> "too big mbulk count string"
        byte[] input = concat(latin1("*"), filled(RequestDecoder.INLINE_MAX, '1'));
        assertDecodesUnderAllSplits(input, List.of(err("too big mbulk count string")));
    }

    @Test
    void bulkCountLineOver64KibWithoutCr() {
        // Redis: a "$" line of more than 64 KiB without '\r' -> "too big bulk count string"
        byte[] input = concat(latin1("*1\r\n$"), filled(RequestDecoder.INLINE_MAX, '1'));
        assertDecodesUnderAllSplits(input, List.of(err("too big bulk count string")));
    }
}
