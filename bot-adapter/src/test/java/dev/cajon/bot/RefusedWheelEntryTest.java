package dev.cajon.bot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cajon.bot.kv.Kv;
import dev.cajon.bot.kv.Op;
import dev.cajon.bot.kv.SetOptions;
import dev.cajon.bot.kv.SetReply;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal sends its wheel entry's SET NX ahead of the claim's WATCH. When a sweeper has
 * tombstoned that slot meanwhile (the SET NX is refused), the claim must not be written until the
 * entry is in a later bucket: a journaled record is never unindexed.
 */
class RefusedWheelEntryTest {
    @TempDir
    Path dir;

    @Test
    void aRefusedEntryGoesToTheNextBucketBeforeTheRecordIsWritten() {
        try (EmbeddedFixture fx = new EmbeddedFixture(dir)) {
            String record = "bot:{c:c}:in:m1";
            List<String> rescheduled = new ArrayList<>();
            boolean[] tombstoned = {false};
            Kv kv = new Forwarding(fx.kv) {
                @Override
                public Tx watch(List<String> keys, List<Op> before) {
                    for (Op op : before) {
                        if (!tombstoned[0] && op instanceof Op.SetNx s && s.key().contains(":{w:")) {
                            tombstoned[0] = true;
                            fx.kv.set(s.key(), "-"); // the sweeper got to this slot first
                        }
                    }
                    return super.watch(keys, before);
                }

                @Override
                public Long incr(String key) {
                    if (tombstoned[0] && key.contains(":{w:")) {
                        rescheduled.add(key + (fx.kv.get(record) == null ? " before the record" : " after the record"));
                    }
                    return super.incr(key);
                }
            };
            try (BotAdapter bot = fx.builder("a").backend(kv).handler((m, ctx) -> ctx.send("ok")).build()) {
                assertEquals(HandleResult.Status.DONE, bot.handle(new InboundMessage("c", "m1", "x")).status());
                assertEquals("SENT", bot.outbound("c/m1:1").state());
            }
            assertEquals(1, rescheduled.size(), "one entry refused, scheduled again: " + rescheduled);
            assertEquals(" before the record", rescheduled.get(0).substring(rescheduled.get(0).indexOf(' ')));
            String counter = rescheduled.get(0).substring(0, rescheduled.get(0).indexOf(' ')); // ns:{w:B+1}:n
            String entry = counter.substring(0, counter.length() - 1) + "1";
            assertEquals(Refs.inbound(new InboundId("c", "m1")), fx.kv.get(entry), entry);
        }
    }

    /** A backend that passes every call on. */
    private static class Forwarding implements Kv {
        private final Kv kv;

        Forwarding(Kv kv) {
            this.kv = kv;
        }

        public String get(String key) {
            return kv.get(key);
        }

        public SetReply set(String key, String value, SetOptions options) {
            return kv.set(key, value, options);
        }

        public Long incr(String key) {
            return kv.incr(key);
        }

        public boolean pexpire(String key, long millis) {
            return kv.pexpire(key, millis);
        }

        public boolean del(String key) {
            return kv.del(key);
        }

        public List<Object> pipeline(List<Op> ops) {
            return kv.pipeline(ops);
        }

        public Tx watch(List<String> keys) {
            return kv.watch(keys);
        }

        public Tx watch(List<String> keys, List<Op> before) {
            return kv.watch(keys, before);
        }

        public void close() {
        }
    }
}
