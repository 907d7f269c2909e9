package dev.cajon.protocol;

import static dev.cajon.protocol.DecoderHarness.assertDecodesUnderAllSplits;
import static dev.cajon.protocol.DecoderHarness.chunked;
import static dev.cajon.protocol.DecoderHarness.concat;
import static dev.cajon.protocol.DecoderHarness.describeAll;
import static dev.cajon.protocol.DecoderHarness.err;
import static dev.cajon.protocol.DecoderHarness.inl;
import static dev.cajon.protocol.DecoderHarness.latin1;
import static dev.cajon.protocol.DecoderHarness.mb;
import static dev.cajon.protocol.DecoderHarness.resp;
import static dev.cajon.protocol.DecoderHarness.run;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Valid client input: whatever way the bytes are cut into reads (one read, every two-read split,
 * one byte per read), the decoder must produce the same commands as for the whole input, and those
 * must be what Redis 7 would execute. The "ignored" cases ({@code *0}, {@code *-1}, {@code *-5}) and
 * the top-level {@code $ + : -} lines read as inline commands were checked against redis-server 7.0.15.
 */
@ExtendWith(LeakCheck.class)
class RequestDecoderTest {

    private static Arguments c(String name, byte[] input, String... expected) {
        return Arguments.of(name, input, List.of(expected));
    }

    static Stream<Arguments> validInputs() {
        byte[] all256 = new byte[256];
        for (int i = 0; i < 256; i++) {
            all256[i] = (byte) i;
        }
        byte[] bin20k = new byte[20_000];
        new Random(7).nextBytes(bin20k);
        return Stream.of(
                c("single command", resp("PING"), mb("PING")),
                c("three arguments", resp("SET", "key", "hello"), mb("SET", "key", "hello")),
                c("pipelined commands",
                        concat(resp("SET", "k", "v"), resp("GET", "k"), resp("INCRBY", "n", "-12")),
                        mb("SET", "k", "v"), mb("GET", "k"), mb("INCRBY", "n", "-12")),
                c("empty bulk arguments", latin1("*3\r\n$3\r\nSET\r\n$0\r\n\r\n$0\r\n\r\n"), mb("SET", "", "")),
                c("CRLF inside bulk payloads", resp("SET", "\r\n", "a\r\nb\r\n\r\n", "\n\n\r\r"),
                        mb("SET", "\r\n", "a\r\nb\r\n\r\n", "\n\n\r\r")),
                c("bulk payload that looks like RESP", resp("SET", "*1\r\n$4\r\nPING\r\n", "$-1\r\n", "*0\r\n"),
                        mb("SET", "*1\r\n$4\r\nPING\r\n", "$-1\r\n", "*0\r\n")),
                c("every byte value in one argument", resp(latin1("ECHO"), all256), mb(latin1("ECHO"), all256)),
                c("inline, LF", latin1("PING\n"), inl("PING")),
                c("inline, CRLF", latin1("SET k v\r\n"), inl("SET", "k", "v")),
                c("inline, quoted arguments", latin1("SET \"a b\" 'c d' \"\\x41\\r\\n\"\r\n"),
                        inl("SET", "a b", "c d", "A\r\n")),
                c("inline, pipelined LF and CRLF", latin1("PING\nECHO hi\r\nGET k\n"),
                        inl("PING"), inl("ECHO", "hi"), inl("GET", "k")),
                c("blank inline lines are skipped", latin1("\r\n\n   \r\n\tPING\r\n"), inl("PING")),
                c("inline and multibulk mixed in one buffer",
                        concat(latin1("PING\r\n"), resp("ECHO", "a"), latin1("ECHO b\n"), resp("GET", "k"),
                                latin1("QUIT\r\n")),
                        inl("PING"), mb("ECHO", "a"), inl("ECHO", "b"), mb("GET", "k"), inl("QUIT")),
                c("multibulk, inline, multibulk", concat(resp("PING"), latin1("PING\r\n"), resp("PING")),
                        mb("PING"), inl("PING"), mb("PING")),
                c("*0 is ignored", concat(latin1("*0\r\n"), resp("PING")), mb("PING")),
                c("*-1 is ignored", latin1("*-1\r\nPING\r\n"), inl("PING")),
                c("*-5 is ignored", concat(latin1("*-5\r\n"), resp("PING")), mb("PING")),
                c("a huge negative count is ignored", latin1("*-9999999999999\r\nPING\r\n"), inl("PING")),
                c("ignored counts between commands",
                        concat(resp("GET", "a"), latin1("*0\r\n*-1\r\n*-3\r\n"), resp("GET", "b")),
                        mb("GET", "a"), mb("GET", "b")),
                c("a top-level $ line is an inline command", latin1("$4\r\nPING\r\n"), inl("$4"), inl("PING")),
                c("top-level + : - lines are inline commands", latin1("+PING\r\n:1\r\n-ERR x\r\n"),
                        inl("+PING"), inl(":1"), inl("-ERR", "x")),
                c("a top-level $ line after a multibulk command",
                        concat(resp("PING"), latin1("$5\r\nhello\r\n"), resp("PING")),
                        mb("PING"), inl("$5"), inl("hello"), mb("PING")),
                c("inline arguments may start with *", latin1("ECHO *\r\n  *1\r\n"), inl("ECHO", "*"), inl("*1")),
                c("incomplete trailing multibulk command is held back",
                        concat(resp("PING"), latin1("*2\r\n$4\r\nECHO\r\n$3\r\nab")), mb("PING")),
                c("incomplete trailing inline command is held back", latin1("PING\r\nECHO abc"), inl("PING")),
                c("a 20000-byte binary argument", concat(resp(latin1("SET"), latin1("k"), bin20k), resp("PING")),
                        mb(latin1("SET"), latin1("k"), bin20k), mb("PING")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validInputs")
    void decodesTheSameUnderEverySplit(String name, byte[] input, List<String> expected) {
        assertDecodesUnderAllSplits(input, expected);
    }

    @Test
    void moreThan1024Arguments() {
        // the decoder starts with room for 1024 arguments and grows; fewer reads than the generic
        // splits because every argument costs the leak detector two stack traces (retain, release)
        byte[][] many = new byte[1500][];
        many[0] = latin1("RPUSH");
        for (int i = 1; i < many.length; i++) {
            many[i] = latin1(Integer.toString(i % 10));
        }
        byte[] input = concat(resp(many), resp("PING"));
        List<DecoderHarness.Split> splits = new ArrayList<>();
        splits.add(new DecoderHarness.Split("whole", List.of(input)));
        splits.add(new DecoderHarness.Split("one byte per read", chunked(input, 1)));
        splits.add(new DecoderHarness.Split("seven bytes per read", chunked(input, 7)));
        for (int i = 1; i < 32; i++) {
            int at = input.length * i / 32;
            splits.add(new DecoderHarness.Split("split at " + at, DecoderHarness.cut(input, at)));
        }
        DecoderHarness.assertDecodesUnderSplits(input, splits, List.of(mb(many), mb("PING")));
    }

    @Test
    void oneMebibyteBulkUnderSplits() {
        byte[] big = new byte[1 << 20];
        new Random(42).nextBytes(big);
        byte[] input = concat(resp(latin1("SET"), latin1("big"), big), resp("PING"));

        List<Object> whole = run(input);
        assertEquals(2, whole.size(), describeAll(whole).toString());
        Argv set = assertInstanceOf(Argv.class, whole.get(0));
        assertEquals(3, set.argc());
        assertArrayEquals(big, set.arg(2));

        assertDecodesUnderAllSplits(input, List.of(mb(latin1("SET"), latin1("big"), big), mb("PING")));
    }

    @Test
    void inlineLineOfExactly64KibIsAccepted() {
        // Redis only refuses once more than 64 KiB is buffered without a newline: a 65536-byte line
        // is a command as long as no read leaves more than 65536 bytes without '\n' (checked
        // against redis-server 7.0.15: the line, then CRLF in the next read, is echoed back).
        byte[] line = concat(latin1("ECHO "), filled(RequestDecoder.INLINE_MAX - 5, 'a'));
        byte[] input = concat(line, latin1("\r\n"));
        List<String> expected = List.of(inl("ECHO", new String(filled(RequestDecoder.INLINE_MAX - 5, 'a'),
                java.nio.charset.StandardCharsets.ISO_8859_1)));
        List<DecoderHarness.Split> splits = new ArrayList<>();
        splits.add(new DecoderHarness.Split("whole", List.of(input)));
        // (not "split at 1": Redis reads at most 16 KiB at a time, and 1 + 4 * 16 KiB would leave
        // 65537 bytes without '\n' in its buffer)
        for (int at : new int[] {5, 4096, 65535, 65536}) {
            splits.add(new DecoderHarness.Split("split at " + at, DecoderHarness.cut(input, at)));
        }
        splits.add(new DecoderHarness.Split("16 KiB reads", chunked(input, 16 * 1024)));
        DecoderHarness.assertDecodesUnderSplits(input, splits, expected);
    }

    // ------------------------------------------------------------------ cumulation shifting

    /** Malformed tails, each after 30 pipelined commands, with Redis's error for each. */
    static Stream<Arguments> tailsAfterManyReads() {
        return Stream.of(
                Arguments.of(latin1("*2\r\n$3\r\nGET\r\nx\r\n"), err("expected '$', got 'x'")),
                Arguments.of(latin1("*2\r\n$3\r\nGET\r\n:1\r\n"), err("expected '$', got ':'")),
                Arguments.of(latin1("*2\r\n$3\r\nGET\r\n*1\r\n"), err("expected '$', got '*'")),
                Arguments.of(latin1("*2\r\n$3\r\nGET\r\n$1x\r\n"), err("invalid bulk length")),
                Arguments.of(latin1("*2\r\n$3\r\nGET\r\n$-1\r\n"), err("invalid bulk length")),
                Arguments.of(latin1("*2x\r\n"), err("invalid multibulk length")),
                Arguments.of(latin1("GET \"k\r\n"), err("unbalanced quotes in request")));
    }

    /**
     * Many small reads, none ending on a command boundary, so the decoder's cumulation is kept,
     * compacted (ByteToMessageDecoder discards read bytes on every read complete and after 16 reads)
     * and reallocated as it grows. Positions the decoder remembers across reads must survive that:
     * the error must still name the right byte.
     */
    @ParameterizedTest
    @MethodSource("tailsAfterManyReads")
    void errorsSurviveCumulationShiftingOverManyReads(byte[] tail, String error) {
        List<byte[]> commands = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        // a long inline line first: it stays in the cumulation until its newline, so the
        // cumulation grows (and is copied) while the reads come in
        byte[] longValue = filled(8_000, 'v');
        commands.add(concat(latin1("SET long "), longValue, latin1("\r\n")));
        expected.add(DecoderHarness.describeAll(List.of(new Argv(
                new byte[][] {latin1("SET"), latin1("long"), longValue}, true))).get(0));
        for (int i = 0; i < 30; i++) {
            commands.add(resp("SET", "key:" + i, "value-" + i));
            expected.add(mb("SET", "key:" + i, "value-" + i));
        }
        commands.add(tail);
        expected.add(error);
        byte[] input = concat(commands.toArray(new byte[0][]));

        List<String> failures = new ArrayList<>();
        for (int size : new int[] {1, 2, 3, 5, 7, 13, 64, 500}) {
            List<byte[]> chunks = chunked(input, size);
            assertFalse(chunks.size() <= 16, "needs more than 16 reads");
            List<String> got = describeAll(run(chunks));
            if (!got.equals(expected)) {
                failures.add(size + "-byte reads: ..." + got.subList(Math.max(0, got.size() - 2), got.size()));
            }
        }
        assertEquals(List.of(), failures, "expected ..." + expected.subList(expected.size() - 2, expected.size()));
    }

    @Test
    void decoderStaysUsableAcrossManyReadsOfWholeCommands() {
        List<byte[]> reads = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            byte[] cmd = i % 3 == 0 ? latin1("GET k" + i + "\r\n") : resp("GET", "k" + i);
            reads.add(cmd);
            expected.add(i % 3 == 0 ? inl("GET", "k" + i) : mb("GET", "k" + i));
        }
        assertEquals(expected, describeAll(run(reads)));
    }

    static byte[] filled(int n, char c) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) c);
        return b;
    }
}
