package dev.cajon.server.fuzz;

import dev.cajon.protocol.fuzz.Fuzz;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dispatcher fuzzer for minutes: {@code bin/fuzz [minutes]} runs it (its name keeps it out of
 * the unit suite). {@code -Dcajon.fuzz.seconds} sets the time, {@code -Dcajon.fuzz.seed} replays a run.
 */
class DispatcherFuzzLongRun {
    @TempDir
    Path dir;

    @Test
    void dispatcherForMinutes() {
        try (PipelineFuzz fuzz = new PipelineFuzz(dir)) {
            Fuzz.Stats s = Fuzz.runFor(PipelineFuzz.TARGET, Fuzz.seconds(60), Fuzz.seed(), CommandFuzzCase::generate,
                    fuzz::checkOnce, CommandFuzzCase::smaller, CommandFuzzCase::toString, fuzz::assertNoLeaks);
            System.out.println(s + " (" + CommandFuzzCase.rowCount() + " commands and subcommands in the table)");
        }
    }
}
