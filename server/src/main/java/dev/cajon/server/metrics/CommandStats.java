package dev.cajon.server.metrics;

import dev.cajon.server.command.CommandFlag;
import dev.cajon.server.command.CommandSpec;
import dev.cajon.server.command.CommandTable;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

/**
 * INFO commandstats and errorstats, with Redis's meaning and shape, always on (Redis has no way to
 * turn them off, and test suites and tools read them: {@code cmdstat_set:calls=1,...}).
 *
 * <ul>
 *   <li>{@code calls}: the command ran (a queued command counts when EXEC runs it, not when it
 *       is queued); {@code failed_calls}: it ran and answered an error; {@code rejected_calls}:
 *       it was refused before running (arity, NOAUTH, NOPERM, OOM, not allowed in MULTI). An
 *       unknown command has no row, only its error. Subcommands are rows of their own
 *       ({@code cmdstat_config|get}).</li>
 *   <li>{@code usec}: the time spent in the command. A command Redis flags {@code fast} is timed
 *       one time in {@value #SAMPLE} (two clock reads are about 4 % of a pipelined GET; see
 *       {@link CommandLatency}), and its {@code usec} is the timed total scaled by calls over timed
 *       calls; every other command is timed each time.</li>
 *   <li>errorstats: {@code errorstat_<PREFIX>:count=N} by the error's first word (ERR,
 *       WRONGTYPE, NOAUTH, EXECABORT ...), for every error reply, at most {@value #MAX_ERRORS}
 *       prefixes as in Redis (further ones are counted in total_error_replies only).</li>
 * </ul>
 *
 * <p>Each event loop counts into arrays of its own, indexed by the command table's row number,
 * with plain stores; INFO adds the threads' arrays up (a reading is not a snapshot of one instant,
 * as Redis's is, only of each counter). CONFIG RESETSTAT subtracts nothing: it moves a base line.
 */
public final class CommandStats {
    static final int SAMPLE = 16;
    static final int MAX_ERRORS = 128;

    /** One thread's counters: slots [4 * row] calls, nanos, failed, rejected; timed calls apart. */
    static final class Rec {
        final long[] c;
        final long[] timed;
        int tick;

        Rec(int rows) {
            c = new long[4 * rows];
            timed = new long[rows];
        }
    }

    private final int rows;
    private final CommandSpec[] byIndex;
    private final List<Rec> recs = new CopyOnWriteArrayList<>();
    private final FastThreadLocal<Rec> local = new FastThreadLocal<>() {
        @Override
        protected Rec initialValue() {
            Rec r = new Rec(rows);
            recs.add(r);
            return r;
        }
    };
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
    /** The sums at the last CONFIG RESETSTAT. */
    private volatile long[] base;
    private volatile long[] baseTimed;

    public CommandStats(CommandTable table) {
        rows = table.indexCount();
        byIndex = new CommandSpec[rows];
        for (CommandSpec s : table.all()) {
            put(s);
            for (CommandSpec sub : s.subcommands()) {
                put(sub);
            }
        }
        base = new long[4 * rows];
        baseTimed = new long[rows];
    }

    private void put(CommandSpec s) {
        if (s.index() >= 0 && s.index() < rows) {
            byIndex[s.index()] = s;
        }
    }

    private boolean counted(CommandSpec s) {
        int i = s.index();
        return i >= 0 && i < rows;
    }

    /** Before {@code spec} runs: a nanoTime when this run is timed, else -1. */
    public long start(CommandSpec spec) {
        if (!counted(spec)) {
            return -1;
        }
        if (spec.has(CommandFlag.FAST)) {
            Rec r = local.get();
            if ((++r.tick & (SAMPLE - 1)) != 0) {
                return -1;
            }
        }
        return System.nanoTime();
    }

    /** After it ran; {@code failed}: it answered an error. */
    public void end(CommandSpec spec, long start, boolean failed) {
        if (!counted(spec)) {
            return;
        }
        Rec r = local.get();
        int i = spec.index();
        r.c[4 * i]++;
        if (start != -1) {
            r.c[4 * i + 1] += System.nanoTime() - start;
            r.timed[i]++;
        }
        if (failed) {
            r.c[4 * i + 2]++;
        }
    }

    /** Refused before it ran. */
    public void rejected(CommandSpec spec) {
        if (counted(spec)) {
            local.get().c[4 * spec.index() + 3]++;
        }
    }

    /** An error reply, counted by its first word. */
    public void error(String message) {
        int sp = message.indexOf(' ');
        String prefix = sp < 0 ? message : message.substring(0, sp);
        LongAdder a = errors.get(prefix);
        if (a == null) {
            if (errors.size() >= MAX_ERRORS) {
                return;
            }
            a = errors.computeIfAbsent(prefix, k -> new LongAdder());
        }
        a.increment();
    }

    private long[][] sums() {
        long[] c = new long[4 * rows];
        long[] t = new long[rows];
        for (Rec r : recs) {
            for (int i = 0; i < c.length; i++) {
                c[i] += r.c[i];
            }
            for (int i = 0; i < rows; i++) {
                t[i] += r.timed[i];
            }
        }
        return new long[][] {c, t};
    }

    /** CONFIG RESETSTAT. */
    public void reset() {
        long[][] s = sums();
        base = s[0];
        baseTimed = s[1];
        errors.clear();
    }

    /** The {@code # Commandstats} section's lines, in the command table's order of names. */
    public void commandstats(StringBuilder sb) {
        long[][] s = sums();
        long[] b = base;
        long[] bt = baseTimed;
        sb.append("# Commandstats\r\n");
        TreeMap<String, Integer> names = new TreeMap<>();
        for (int i = 0; i < rows; i++) {
            if (byIndex[i] != null) {
                names.put(byIndex[i].name(), i);
            }
        }
        for (Map.Entry<String, Integer> e : names.entrySet()) {
            int i = e.getValue();
            long calls = s[0][4 * i] - b[4 * i];
            long nanos = s[0][4 * i + 1] - b[4 * i + 1];
            long failed = s[0][4 * i + 2] - b[4 * i + 2];
            long rejected = s[0][4 * i + 3] - b[4 * i + 3];
            long timed = s[1][i] - bt[i];
            if (calls <= 0 && rejected <= 0 && failed <= 0) {
                continue;
            }
            double usec = timed > 0 ? nanos / 1000.0 * calls / timed : 0;
            sb.append("cmdstat_").append(e.getKey()).append(":calls=").append(calls)
                    .append(",usec=").append(Math.round(usec))
                    .append(",usec_per_call=").append(String.format(Locale.ROOT, "%.2f", calls > 0 ? usec / calls : 0.0))
                    .append(",rejected_calls=").append(rejected)
                    .append(",failed_calls=").append(failed).append("\r\n");
        }
    }

    /** The {@code # Errorstats} section's lines, by prefix in name order. */
    public void errorstats(StringBuilder sb) {
        sb.append("# Errorstats\r\n");
        List<String> prefixes = new ArrayList<>(errors.keySet());
        prefixes.sort(null);
        for (String p : prefixes) {
            long n = errors.get(p).sum();
            if (n > 0) {
                sb.append("errorstat_").append(p).append(":count=").append(n).append("\r\n");
            }
        }
    }
}
