package dev.cajon.bot.store;

import dev.cajon.bot.kv.Kv;
import dev.cajon.bot.kv.SetOptions;
import java.util.function.Predicate;

/**
 * An append-only log on strings: INCR of {@code :n} allocates the next sequence number, the
 * entry is SET under it, and {@code :low} is a low-water cursor below which every entry is known
 * to be resolved. Readers walk from {@code low + 1} to {@code n} and move {@code low} over the
 * resolved prefix, so a walk costs the unresolved entries plus those appended since the last
 * walk, never the whole history. Entries expire with the records they name.
 *
 * <p>Used for the lives of an instance (see {@code Claims}) and for the dead, failed and
 * ambiguous lists. An entry is only a pointer: the record it names says whether it still counts.
 */
public final class SeqLog {
    private final Kv kv;
    private final Keys keys;
    private final String name;
    private final long ttlMillis;

    public SeqLog(Kv kv, Keys keys, String name, long ttlMillis) {
        this.kv = kv;
        this.keys = keys;
        this.name = name;
        this.ttlMillis = ttlMillis;
    }

    /** Appends {@code ref}: two round trips. */
    public void append(String ref) {
        Long i = kv.incr(keys.logCount(name));
        if (i == null) {
            throw new IllegalStateException("log counter " + keys.logCount(name) + " is not a number");
        }
        kv.set(keys.logEntry(name, i), ref, SetOptions.px(ttlMillis));
    }

    /**
     * Visits the entries after the low-water cursor, at most {@code limit}, in order. The cursor
     * moves over every leading entry for which {@code resolved} is true (an expired entry counts
     * as resolved). Returns the number of entries visited.
     */
    public int walk(int limit, Predicate<String> resolved, java.util.function.Consumer<String> visit) {
        long low = parse(kv.get(keys.logLow(name)));
        long n = parse(kv.get(keys.logCount(name)));
        long newLow = low;
        boolean prefix = true;
        int seen = 0;
        for (long i = low + 1; i <= n && seen < limit; i++, seen++) {
            String ref = kv.get(keys.logEntry(name, i));
            boolean done = ref == null || resolved.test(ref);
            if (prefix && done) {
                newLow = i;
            } else {
                prefix = false;
            }
            if (ref != null && !done) {
                visit.accept(ref);
            }
        }
        if (newLow > low) {
            kv.set(keys.logLow(name), Long.toString(newLow));
        }
        return seen;
    }

    private static long parse(String v) {
        return v == null ? 0 : Long.parseLong(v);
    }
}
