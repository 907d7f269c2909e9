package dev.cajon.protocol;

import dev.cajon.protocol.fuzz.Fuzz;
import org.junit.jupiter.api.Test;

/**
 * The decoder fuzzer for minutes: {@code bin/fuzz [minutes]} runs it (its name keeps it out of the
 * unit suite). {@code -Dcajon.fuzz.seconds} sets the time, {@code -Dcajon.fuzz.seed} replays a run.
 */
class DecoderFuzzLongRun {
    static {
        LeakCheck.init();
    }

    @Test
    void decoderForMinutes() {
        Fuzz.Stats s = Fuzz.runFor(DecoderFuzz.TARGET, Fuzz.seconds(60), Fuzz.seed(), DecoderFuzzCase::generate,
                DecoderFuzz::checkOnce, DecoderFuzzCase::smaller, DecoderFuzzCase::toString,
                LeakCheck::assertNoLeaksReported);
        System.out.println(s);
    }
}
