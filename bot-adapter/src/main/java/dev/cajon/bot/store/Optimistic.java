package dev.cajon.bot.store;

import dev.cajon.bot.kv.Kv;
import dev.cajon.bot.kv.KvException;
import dev.cajon.bot.kv.Op;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The optimistic loop every read-modify-write of the adapter runs: WATCH the keys, read them,
 * decide, MULTI the writes EXEC, and start again when EXEC aborted because someone else changed
 * a watched key. Bounded: after {@link #MAX_ATTEMPTS} aborts it gives up with an error.
 */
public final class Optimistic {
    public static final int MAX_ATTEMPTS = 64;

    private Optimistic() {
    }

    /** What a decision yields: the writes (none for a read-only outcome) and the caller's result. */
    public record Plan<T>(List<Op> ops, T result) {
        public static <T> Plan<T> none(T result) {
            return new Plan<>(List.of(), result);
        }
    }

    /** Reads for {@link #run}: the watched values, in the order of the keys. */
    public interface Reads {
        String get(int i);
    }

    /**
     * Single commands to send ahead of the first WATCH, in its round trip, and what to do when
     * they did not do what the transaction needs: when {@code ok} is false on their results,
     * the transaction is dropped unwritten, {@code fix} runs, and the loop goes on without them.
     */
    public record Before(List<Op> ops, Predicate<List<Object>> ok, Runnable fix) {
        public static Before of(List<Op> ops) {
            return new Before(ops, r -> true, () -> { });
        }
    }

    public static <T> T run(Kv kv, List<String> keys, Function<Reads, Plan<T>> decide) {
        return run(kv, keys, null, decide);
    }

    public static <T> T run(Kv kv, List<String> keys, Before before, Function<Reads, Plan<T>> decide) {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            boolean ahead = attempt == 0 && before != null && !before.ops().isEmpty();
            boolean fix = false;
            try (Kv.Tx tx = ahead ? kv.watch(keys, before.ops()) : kv.watch(keys)) {
                if (ahead && !before.ok().test(tx.before())) {
                    fix = true;
                }
                String[] values = new String[keys.size()];
                for (int i = 0; i < values.length; i++) {
                    values[i] = tx.get(keys.get(i));
                }
                if (!fix) {
                    Plan<T> plan = decide.apply(i -> values[i]);
                    if (plan.ops().isEmpty()) {
                        return plan.result();
                    }
                    if (tx.exec(plan.ops()) != null) {
                        return plan.result();
                    }
                }
            }
            if (fix) {
                before.fix().run(); // with the transaction given back: it may take connections of its own
            }
        }
        throw new KvException("gave up after " + MAX_ATTEMPTS + " aborted transactions on " + keys);
    }
}
