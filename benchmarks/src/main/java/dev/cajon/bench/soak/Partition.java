package dev.cajon.bench.soak;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The keys one client thread owns in one app, and what it knows of them. No other thread writes
 * them, so the model is exact: {@link #state} is what was acknowledged, {@link #pending} the one op
 * that may or may not have landed when the server was killed.
 *
 * <p>Names are the same in both apps ({@code s:<thread>:<n>} ...) and values name their app, so
 * every check of a key is also a check that the other app's write under the same name did not leak.
 */
final class Partition {

    /** The key names of one kind, for picking one at random. */
    static final class Pool {
        final String prefix;
        private final List<String> names = new ArrayList<>();
        private final Map<String, Integer> index = new HashMap<>();

        Pool(String prefix) {
            this.prefix = prefix;
        }

        void add(String k) {
            if (index.putIfAbsent(k, names.size()) == null) {
                names.add(k);
            }
        }

        void remove(String k) {
            Integer i = index.remove(k);
            if (i == null) {
                return;
            }
            String last = names.remove(names.size() - 1);
            if (i < names.size()) {
                names.set(i, last);
                index.put(last, i);
            }
        }

        int size() {
            return names.size();
        }

        String random(Random r) {
            return names.isEmpty() ? null : names.get(r.nextInt(names.size()));
        }
    }

    final String app;
    final int thread;
    final Map<String, KeyState> state = new HashMap<>();
    final Pool strings;
    final Pool counters;
    final Pool growers;
    final Pool bigs;
    /** Keys given a short TTL: no longer written, checked until found absent twice, then dropped. */
    final Map<String, Integer> retired = new HashMap<>();
    /** The op in flight at the kill, if any. */
    Op pending;
    long nextId;
    long seq;
    /** Transactions acknowledged since the last check (applied, and aborted by WATCH as they had to be). */
    long execsSinceCheck;
    long abortsSinceCheck;

    Partition(String app, int thread) {
        this.app = app;
        this.thread = thread;
        strings = new Pool("s:" + thread + ":");
        counters = new Pool("c:" + thread + ":");
        growers = new Pool("g:" + thread + ":");
        bigs = new Pool("b:" + thread + ":");
    }

    String newKey(Pool p) {
        String k = p.prefix + nextId++;
        p.add(k);
        return k;
    }

    String newRetiredKey() {
        String k = "x:" + thread + ":" + nextId++;
        retired.put(k, 0);
        return k;
    }

    void retire(String k) {
        strings.remove(k);
        counters.remove(k);
        retired.put(k, 0);
    }

    KeyState get(String k) {
        KeyState s = state.get(k);
        return s != null ? s : KeyState.absent("never written");
    }

    /** A value that names its app, thread and write, so no two writes are alike. */
    String text(Random r, int pad) {
        StringBuilder sb = new StringBuilder(32 + pad).append(app).append('|').append(thread).append('|')
                .append(seq++).append('|');
        for (int i = 0; i < pad; i++) {
            sb.append((char) ('a' + r.nextInt(26)));
        }
        return sb.toString();
    }
}
