package dev.cajon.bot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cajon.bot.kv.Kv;
import dev.cajon.bot.kv.Op;
import dev.cajon.bot.store.Keys;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The claims log's cursor: a sweep moves it over resolved claims, never over an entry that is
 * numbered and not yet written (a request thread is logging it, and its claim follows), so a
 * restart always finds every claim of a life that died; an entry still missing a lease after it
 * was numbered was never written (its write failed, and so did its claim) and is passed.
 */
class ClaimsCursorTest {
    private static final long LEASE = 60_000;

    @TempDir
    Path dir;

    @Test
    void theCursorWaitsForAnEntryThatIsNumberedAndNotWrittenYet() {
        try (EmbeddedFixture fx = new EmbeddedFixture(dir)) {
            Kv kv = fx.kv;
            Keys keys = new Keys("bot");
            Claims claims = new Claims(kv, keys, "bot-1", "bot-1#1", 3_600_000, fx.clock::nowMillis, LEASE);
            Op a = claims.appendOp("in:a");
            Op b = claims.appendOp("in:b"); // taken by a thread that has not sent it yet
            Op c = claims.appendOp("in:c");
            kv.pipeline(List.of(a, c));
            assertEquals(1, claims.compact(100, (ref, owner) -> true), "passed 1, stopped at 2");
            assertEquals("1", kv.get(keys.logLow("claims:bot-1#1")), "the cursor stops before the missing entry");
            kv.pipeline(List.of(b));
            claims.compact(100, (ref, owner) -> true);
            assertEquals("3", kv.get(keys.logLow("claims:bot-1#1")), "written: passed, with the rest");
            claims.compact(100, (ref, owner) -> ref.equals("in:e")); // nothing new: nothing read
            Op d = claims.appendOp("in:d"); // its write failed: never sent
            Op e = claims.appendOp("in:e");
            kv.pipeline(List.of(e));
            claims.compact(100, (ref, owner) -> true);
            assertEquals("3", kv.get(keys.logLow("claims:bot-1#1")));
            fx.clock.advance(LEASE);
            claims.compact(100, (ref, owner) -> true);
            assertEquals("5", kv.get(keys.logLow("claims:bot-1#1")), "a lease later the hole is passed");
            assertEquals(d.key(), keys.logEntry("claims:bot-1#1", 4));
        }
    }
}
