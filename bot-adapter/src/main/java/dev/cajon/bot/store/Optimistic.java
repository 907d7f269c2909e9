package dev.cajon.bot.store;

import dev.cajon.bot.kv.Kv;
import dev.cajon.bot.kv.KvException;
import dev.cajon.bot.kv.Op;
import java.util.List;
import java.util.function.Function;

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

    public static <T> T run(Kv kv, List<String> keys, Function<Reads, Plan<T>> decide) {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            try (Kv.Tx tx = kv.watch(keys)) {
                String[] values = new String[keys.size()];
                for (int i = 0; i < values.length; i++) {
                    values[i] = tx.get(keys.get(i));
                }
                Plan<T> plan = decide.apply(i -> values[i]);
                if (plan.ops().isEmpty()) {
                    return plan.result();
                }
                if (tx.exec(plan.ops()) != null) {
                    return plan.result();
                }
            }
        }
        throw new KvException("gave up after " + MAX_ATTEMPTS + " aborted transactions on " + keys);
    }
}
