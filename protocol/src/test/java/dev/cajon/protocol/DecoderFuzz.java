package dev.cajon.protocol;

import static dev.cajon.protocol.DecoderHarness.describeAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.protocol.fuzz.Fuzz;
import java.util.List;

/**
 * The decoder fuzzer's check of one {@link DecoderFuzzCase}. Each input is decoded in one read,
 * in the case's reads, and (when small) one byte per read, each in its own {@link DecoderHarness}
 * channel, which fails on anything escaping the pipeline, on a message other than Argv or one final
 * ProtocolError (with Redis's {@code ERR Protocol error: } text), on anything decoded after an error,
 * and on a buffer not released. Then:
 * <ul>
 *   <li>the three decodings are the same (unless a small client-query-buffer-limit makes the reads
 *       matter);</li>
 *   <li>they equal {@link RespModel}'s, the reference parser's (up to the point the model says
 *       depends on the reads).</li>
 * </ul>
 * The leak detector's reports are checked by the callers, every few seconds ({@link LeakCheck}).
 */
final class DecoderFuzz {
    static final String TARGET = "decoder";

    private DecoderFuzz() {
    }

    static void check(DecoderFuzzCase c) {
        Fuzz.check(TARGET, c, DecoderFuzz::checkOnce, DecoderFuzzCase::smaller, DecoderFuzzCase::toString);
    }

    static void checkOnce(DecoderFuzzCase c) {
        DecoderLimits limits = c.limits();
        List<String> whole = describeAll(DecoderHarness.run(limits, List.of(c.input())));
        List<String> chunked = describeAll(DecoderHarness.run(limits, c.chunks()));
        List<String> bytewise = c.input().length <= 512
                ? describeAll(DecoderHarness.run(limits, DecoderHarness.chunked(c.input(), 1)))
                : null;
        if (c.smallQueryBuffer()) {
            return; // the harness's checks above are all that holds whatever the reads
        }
        RespModel.Result model = RespModel.parse(c.input(), limits);
        if (model.tail() != RespModel.Tail.READS_MATTER) {
            assertEquals(whole, chunked, "one read against the case's reads");
            if (bytewise != null) {
                assertEquals(whole, bytewise, "one read against one byte per read");
            }
        }
        if (model.tail() == RespModel.Tail.COMPLETE || model.tail() == RespModel.Tail.ERROR) {
            assertEquals(model.events(), whole, "the decoder against the reference parser");
            return;
        }
        List<String> expected = model.events();
        for (List<String> got : List.of(whole, chunked)) {
            assertTrue(got.size() >= expected.size() && got.subList(0, expected.size()).equals(expected),
                    "the decoder against the reference parser, up to where it is specified (" + model.tail()
                    + "): expected " + expected + " first, got " + got);
        }
    }
}
