package dev.cajon.server.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The dispatcher fuzzer within the unit suite's budget: random and mutated commands from the real
 * command table through the server's own pipeline ({@link PipelineFuzz} says what fails a case).
 * {@code bin/fuzz} runs the same for minutes ({@link DispatcherFuzzLongRun}).
 */
class DispatcherFuzzTest {
    private static Path dir;
    private static PipelineFuzz fuzz;

    @BeforeContainer
    static void open() throws IOException {
        dir = Files.createTempDirectory("cajon-fuzz");
        fuzz = new PipelineFuzz(dir);
    }

    @AfterContainer
    static void close() throws IOException {
        try {
            if (fuzz != null) {
                fuzz.close();
            }
        } finally {
            deleteTree(dir);
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    @AfterProperty
    void noLeakReported() {
        fuzz.assertNoLeaks();
    }

    @Provide
    Arbitrary<CommandFuzzCase> cases() {
        return Arbitraries.randomValue(r -> CommandFuzzCase.generate(new SplittableRandom(r.nextLong())));
    }

    @Property(tries = 1000, shrinking = ShrinkingMode.OFF)
    void everyReplyIsWellFormedAndTheConnectionStaysUsable(@ForAll("cases") CommandFuzzCase c) {
        fuzz.check(c);
    }
}
