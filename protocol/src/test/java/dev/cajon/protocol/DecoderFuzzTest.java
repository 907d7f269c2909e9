package dev.cajon.protocol;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterProperty;

/**
 * The decoder fuzzer within the unit suite's budget: generated and mutated RESP and inline input
 * ({@link DecoderFuzzCase}), checked by {@link DecoderFuzz} against the reference parser under
 * several ways of reading it, with a watchdog per input and Netty's leak detector on PARANOID.
 * {@code bin/fuzz} runs the same for minutes ({@link DecoderFuzzLongRun}).
 *
 * <p>jqwik picks a new seed each run and prints it on failure; the failing input, shrunk, is in
 * the failure message and in {@code target/fuzz-findings/}.
 */
class DecoderFuzzTest {
    static {
        LeakCheck.init();
    }

    @AfterProperty
    void noLeakReported() {
        LeakCheck.assertNoLeaksReported();
    }

    @Provide
    Arbitrary<DecoderFuzzCase> cases() {
        return Arbitraries.randomValue(r -> DecoderFuzzCase.generate(new java.util.SplittableRandom(r.nextLong())));
    }

    @Property(tries = 3000, shrinking = ShrinkingMode.OFF)
    void decoderAgreesWithTheReferenceParserAndNeverCrashesHangsOrLeaks(@ForAll("cases") DecoderFuzzCase c) {
        DecoderFuzz.check(c);
    }
}
