package dev.cajon.protocol;

import static dev.cajon.protocol.DecoderHarness.assertDecodesUnderAllSplits;
import static dev.cajon.protocol.DecoderHarness.err;
import static dev.cajon.protocol.DecoderHarness.latin1;
import static dev.cajon.protocol.DecoderHarness.mb;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Inputs the decoder fuzzer ({@link DecoderFuzzTest}) found, shrunk, each with what
 * redis-server 7.0.15 answers to the same bytes over a socket.
 */
@ExtendWith(LeakCheck.class)
class DecoderFuzzRegressionTest {

    @Test
    void multibulkCountOfLlongMinIsIgnoredLikeAnyNegativeCount() {
        // Redis's string2ll accepts -9223372036854775808 and a count <= 0 is skipped: "+PONG".
        // The decoder used to overflow on it and answer "invalid multibulk length".
        assertDecodesUnderAllSplits(latin1("*-9223372036854775808\r\n*1\r\n$4\r\nPING\r\n"), List.of(mb("PING")));
    }

    @Test
    void oneBelowLlongMinIsAnInvalidCount() {
        assertDecodesUnderAllSplits(latin1("*-9223372036854775809\r\n*1\r\n$4\r\nPING\r\n"),
                List.of(err("invalid multibulk length")));
    }

    @Test
    void bulkLengthOfLlongMinIsInvalid() {
        assertDecodesUnderAllSplits(latin1("*1\r\n$-9223372036854775808\r\n"), List.of(err("invalid bulk length")));
    }

    @Test
    void elementNotStartingWithDollarIsRefusedOnceItsLineHasCrAndOneMoreByte() {
        // redis-server 7.0.15 answers "*1\r\n-\r-" with "expected '$', got '-'" at once; the decoder
        // used to wait for a CRLF (netty's codec reads "-" lines to their end), leaving the client
        // without an answer
        assertDecodesUnderAllSplits(latin1("*1\r\n-\r-"), List.of(err("expected '$', got '-'")));
        assertDecodesUnderAllSplits(latin1("*2\r\n$4\r\nECHO\r\n:1\rx"), List.of(err("expected '$', got ':'")));
    }

    @Test
    void invalidBulkLengthIsRefusedBeforeItsPayload() {
        // redis-server 7.0.15 answers "*1\r\n$-0\r\n" with "invalid bulk length" at once; netty's
        // codec reads "-0" and "00" as 0 and waited for the empty payload's CRLF
        assertDecodesUnderAllSplits(latin1("*1\r\n$-0\r\n"), List.of(err("invalid bulk length")));
        assertDecodesUnderAllSplits(latin1("*2\r\n$4\r\nECHO\r\n$00\r\n"), List.of(err("invalid bulk length")));
    }
}
