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

        /** These with {@code first} sent ahead of them, in the same round trip ({@code ok} looks at these only). */
        public Before after(List<Op> first) {
            if (first.isEmpty()) {
                return this;
            }
            List<Op> all = new java.util.ArrayList<>(first);
            all.addAll(ops);
            int n = first.size();
            return new Before(List.copyOf(all), r -> ok.test(r.subList(n, r.size())), fix);
        }
    }

    public static <T> T run(Kv kv, List<String> keys, Function<Reads, Plan<T>> decide) {
        return run(kv, keys, null, decide);
    }

    public static <T> T run(Kv kv, List<String> keys, Before before, Function<Reads, Plan<T>> decide) {
        return runHolding(kv, keys, before, List.of(), decide).result();
    }

    /**
     * What {@link #runHolding} gives: the caller's result and, when the plan was written and the
     * backend agreed, the transaction that WATCHes the keys asked for since right after the EXEC
     * (its {@link Kv.Tx#get} answers the values read then). The caller closes it.
     */
    public record Held<T>(T result, Kv.Tx held) {
    }

    /**
     * {@link #run}, and when the plan's writes are executed, WATCH {@code thenWatch} in the same
     * round trip ({@link Kv.Tx#execThenWatch}) and hand that transaction over.
     */
    public static <T> Held<T> runHolding(Kv kv, List<String> keys, Before before, List<String> thenWatch,
                                         Function<Reads, Plan<T>> decide) {
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
                        return new Held<>(plan.result(), null);
                    }
                    if (thenWatch.isEmpty()) {
                        if (tx.exec(plan.ops()) != null) {
                            return new Held<>(plan.result(), null);
                        }
                    } else {
                        Kv.Chained c = tx.execThenWatch(plan.ops(), thenWatch);
                        if (c.results() != null) {
                            return new Held<>(plan.result(), c.next());
                        }
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
