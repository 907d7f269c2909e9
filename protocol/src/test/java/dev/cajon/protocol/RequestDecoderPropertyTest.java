package dev.cajon.protocol;

import static dev.cajon.protocol.DecoderHarness.concat;
import static dev.cajon.protocol.DecoderHarness.describeAll;
import static dev.cajon.protocol.DecoderHarness.latin1;
import static dev.cajon.protocol.DecoderHarness.mb;
import static dev.cajon.protocol.DecoderHarness.resp;
import static dev.cajon.protocol.DecoderHarness.run;
import static dev.cajon.protocol.DecoderHarness.show;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;

/**
 * Properties of {@link RequestDecoder} over generated input, each run through
 * {@link DecoderHarness#run} (which asserts that nothing escapes the channel, that only Argv and at
 * most one final ProtocolError come out, that nothing follows an error, and that every buffer is
 * released), with Netty's leak detector on PARANOID ({@link LeakCheck}).
 */
class RequestDecoderPropertyTest {
    static {
        LeakCheck.init();
    }

    @AfterProperty
    void noLeakReported() {
        LeakCheck.assertNoLeaksReported();
    }

    // ------------------------------------------------------------------ random bytes

    /** Random bytes, biased towards the pieces of RESP and inline syntax that steer the decoder. */
    @Provide
    Arbitrary<byte[]> noise() {
        Arbitrary<byte[]> token = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.of("*", "$", ":", "+", "-", "\r\n", "\r", "\n", "\"", "'",
                        "\\", "\\x4", " ", "\t", "\u0000", "0", "1", "2", "3", "-1", "10", "a", "x", "PING")
                        .map(DecoderHarness::latin1)),
                net.jqwik.api.Tuple.of(3, Arbitraries.bytes().map(b -> new byte[] {b})),
                net.jqwik.api.Tuple.of(1, Arbitraries.of(resp("PING"), resp("SET", "k", "v"), latin1("PING\r\n"),
                        latin1("*1\r\n"), latin1("$4\r\n"), latin1("*0\r\n"), latin1("*-1\r\n"))));
        return token.list().ofMaxSize(60).map(parts -> concat(parts.toArray(new byte[0][])));
    }

    /** Read sizes, used in turn until the input is consumed. */
    @Provide
    Arbitrary<List<Integer>> reads() {
        return Arbitraries.integers().between(1, 40).list().ofMinSize(1).ofMaxSize(6);
    }

    static List<byte[]> chunk(byte[] in, List<Integer> sizes) {
        return dev.cajon.protocol.fuzz.Fuzz.chunk(in, sizes);
    }

    @Property(tries = 400)
    void randomBytesOnlyEverYieldArgvOrOneFinalError(@ForAll("noise") byte[] input,
            @ForAll("reads") List<Integer> reads) {
        run(chunk(input, reads)); // the harness asserts the rest
    }

    @Property(tries = 400)
    void randomBytesDecodeTheSameHoweverTheyAreRead(@ForAll("noise") byte[] input,
            @ForAll("reads") List<Integer> reads) {
        assertEquals(describeAll(run(input)), describeAll(run(chunk(input, reads))),
                "input " + show(input, 400) + " read as " + reads);
    }

    // ------------------------------------------------------------------ valid commands

    /** How a generated command is sent: RESP multibulk, or inline (hex-escaped quotes) ended by CRLF or LF. */
    enum Form { MULTIBULK, INLINE_CRLF, INLINE_LF }

    record Command(List<byte[]> args, Form form) {
        /** Inline lines are kept far below Redis's 64 KiB inline limit; longer ones go as RESP. */
        static final int INLINE_LIMIT = 16 * 1024;

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder(form.name()).append(' ');
            for (byte[] a : args) {
                sb.append(show(a, 40)).append(' ');
            }
            return sb.toString();
        }

        byte[] encode() {
            byte[] line = form == Form.MULTIBULK ? null : inlineLine();
            return line != null ? line : resp(args.toArray(new byte[0][]));
        }

        String expected() {
            byte[][] a = args.toArray(new byte[0][]);
            boolean inline = form != Form.MULTIBULK && inlineLine() != null;
            return inline ? mb(a).replaceFirst("^multibulk", "inline") : mb(a);
        }

        /** Words as they are, anything else in double quotes with every byte as \xHH; null if too long. */
        private byte[] inlineLine() {
            ByteArrayOutputStream o = new ByteArrayOutputStream();
            for (int i = 0; i < args.size(); i++) {
                if (i > 0) {
                    o.write(i % 2 == 0 ? ' ' : '\t');
                }
                byte[] a = args.get(i);
                if (a.length > 0 && isWord(a)) {
                    o.writeBytes(a);
                } else {
                    o.write('"');
                    for (byte b : a) {
                        o.writeBytes(latin1(String.format("\\x%02x", b & 0xFF)));
                    }
                    o.write('"');
                }
            }
            o.writeBytes(latin1(form == Form.INLINE_CRLF ? "\r\n" : "\n"));
            return o.size() <= INLINE_LIMIT ? o.toByteArray() : null;
        }

        private static boolean isWord(byte[] a) {
            for (byte b : a) {
                if (!(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9')) {
                    return false;
                }
            }
            return true;
        }
    }

    @Provide
    Arbitrary<List<Command>> commands() {
        Arbitrary<byte[]> small = Arbitraries.bytes().array(byte[].class).ofMaxSize(24);
        Arbitrary<byte[]> word = Arbitraries.strings().alpha().numeric().ofMinLength(1).ofMaxLength(10)
                .map(DecoderHarness::latin1);
        Arbitrary<byte[]> respLike = Arbitraries.of("*1\r\n$4\r\nPING\r\n", "\r\n", "$-1\r\n", "\"", "'", "\\", "")
                .map(DecoderHarness::latin1);
        Arbitrary<byte[]> large = Arbitraries.bytes().array(byte[].class).ofMinSize(100).ofMaxSize(3000);
        Arbitrary<byte[]> arg = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, small),
                net.jqwik.api.Tuple.of(4, word),
                net.jqwik.api.Tuple.of(2, respLike),
                net.jqwik.api.Tuple.of(1, large));
        Arbitrary<Command> command = Combinators.combine(arg.list().ofMinSize(1).ofMaxSize(6),
                Arbitraries.of(Form.class)).as(Command::new);
        return command.list().ofMinSize(1).ofMaxSize(6);
    }

    @Property(tries = 300)
    void validCommandsDecodeToTheirArgumentsHoweverTheyAreRead(@ForAll("commands") List<Command> commands,
            @ForAll("reads") List<Integer> reads) {
        List<byte[]> parts = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (Command c : commands) {
            parts.add(c.encode());
            expected.add(c.expected());
        }
        byte[] input = concat(parts.toArray(new byte[0][]));
        assertEquals(expected, describeAll(run(chunk(input, reads))), "read as " + reads);
    }
}
