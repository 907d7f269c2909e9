package dev.cajon.bench.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Picks the next op of the mixed load for one partition: SET (with and without TTL), GET, INCRBY,
 * APPEND (small, and growing a value past the 16 KiB blob threshold), MSET, EXPIRE (an hour, and
 * under three seconds), DEL, RENAME, large values and MULTI/EXEC with and without WATCH.
 *
 * <p>What must stay true for the model to be exact: an op only writes keys of its own partition;
 * no key that is still written has a TTL that can run out during the soak (short TTLs retire the
 * key, see {@link Partition#retire}); counters only ever hold integers and text keys only text.
 * The string population grows by {@code growth} keys per round, so the maps grow across rounds.
 */
final class Planner {

    static final long HOUR = 3_600_000;

    private final int growth;
    private final int minBig;
    private final int maxBig;

    Planner(int growth, int minBig, int maxBig) {
        this.growth = growth;
        this.minBig = minBig;
        this.maxBig = maxBig;
    }

    /** Ops whose keys are all known (none left unknown by an earlier surprise), tried a few times. */
    Op next(Partition p, Random r, int round, boolean bigAllowed) {
        for (int attempt = 0; attempt < 8; attempt++) {
            Op op = pick(p, r, round, bigAllowed);
            if (op != null && op.keys().stream().noneMatch(k -> p.get(k).unknown())) {
                return op;
            }
        }
        String k = p.newKey(p.strings);
        return plain(p, round, "SET", new Step.Set(k, new Value.Text(p.text(r, 8)), 0));
    }

    private Op pick(Partition p, Random r, int round, boolean bigAllowed) {
        int w = r.nextInt(100);
        if (w < 18) {
            String k = stringKey(p, r, round, true);
            long ttl = r.nextInt(6) == 0 ? HOUR : 0;
            return plain(p, round, "SET", new Step.Set(k, smallValue(p, r), ttl));
        }
        if (w < 22) {
            // a new key that expires soon, some while the server is down
            long ttl = r.nextInt(4) == 0 ? 1000L * (1 + r.nextInt(2)) : 100 + r.nextInt(2900);
            return plain(p, round, "SET-PX", new Step.Set(p.newRetiredKey(), smallValue(p, r), ttl));
        }
        if (w < 30) {
            String k = p.strings.random(r);
            return k == null ? null : plain(p, round, "GET", new Step.Get(k));
        }
        if (w < 44) {
            return plain(p, round, "INCRBY", new Step.IncrBy(counterKey(p, r, round), delta(r)));
        }
        if (w < 52) {
            String k = stringKey(p, r, round, false);
            KeyState s = p.get(k);
            if (s.present() && s.value().length() > 2000) {
                return plain(p, round, "SET", new Step.Set(k, smallValue(p, r), 0));
            }
            return plain(p, round, "APPEND", new Step.Append(k, "+" + p.text(r, r.nextInt(24))));
        }
        if (w < 55) {
            return grow(p, r, round);
        }
        if (w < 62) {
            int n = 2 + r.nextInt(4);
            List<String> keys = new ArrayList<>();
            List<Value> values = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String k = stringKey(p, r, round, true);
                if (!keys.contains(k)) {
                    keys.add(k);
                    values.add(smallValue(p, r));
                }
            }
            return plain(p, round, "MSET", new Step.Mset(keys, values));
        }
        if (w < 65) {
            String k = r.nextBoolean() ? p.strings.random(r) : p.counters.random(r);
            return k == null ? null : plain(p, round, "EXPIRE-1h", new Step.Expire(k, HOUR));
        }
        if (w < 68) {
            String k = p.strings.random(r);
            if (k == null || !p.get(k).present()) {
                return null;
            }
            p.retire(k);
            long ttl = r.nextInt(3) == 0 ? 1000 : 200 + r.nextInt(2300);
            return plain(p, round, "PEXPIRE-short", new Step.Expire(k, ttl));
        }
        if (w < 73) {
            List<String> keys = new ArrayList<>();
            int n = 1 + r.nextInt(3);
            for (int i = 0; i < n; i++) {
                int kind = r.nextInt(10);
                String k = kind < 6 ? p.strings.random(r) : kind < 9 ? p.counters.random(r) : p.bigs.random(r);
                if (k != null && !keys.contains(k)) {
                    keys.add(k);
                }
            }
            return keys.isEmpty() ? null : plain(p, round, "DEL", new Step.Del(keys));
        }
        if (w < 77) {
            return rename(p, r, round);
        }
        if (w < 82 && bigAllowed) {
            String k = p.bigs.size() < 3 ? p.newKey(p.bigs) : p.bigs.random(r);
            // log-uniform between the bounds: many of a few hundred KiB, some of several MiB
            double f = Math.exp(Math.log(minBig) + r.nextDouble() * (Math.log(maxBig) - Math.log(minBig)));
            String label = p.app + "|" + p.thread + "|" + p.seq++ + "|";
            return plain(p, round, "SET-big", new Step.Set(k, Value.Big.of(label, r.nextLong(), (int) f), 0));
        }
        if (w < 88) {
            return transaction(p, r, round);
        }
        String k = stringKey(p, r, round, true);
        return plain(p, round, "SET", new Step.Set(k, smallValue(p, r), 0));
    }

    /** An APPEND of 1-6 KiB to one of a few keys, which crosses the 16 KiB blob threshold and back. */
    private Op grow(Partition p, Random r, int round) {
        String k = p.growers.size() < 4 ? p.newKey(p.growers) : p.growers.random(r);
        KeyState s = p.get(k);
        if (s.present() && s.value().length() > 48 * 1024) {
            return plain(p, round, "SET", new Step.Set(k, smallValue(p, r), 0));
        }
        return plain(p, round, "APPEND-grow", new Step.Append(k, "+" + p.text(r, 1024 + r.nextInt(5 * 1024))));
    }

    private Op rename(Partition p, Random r, int round) {
        if (r.nextInt(5) == 0 && p.bigs.size() >= 2) {
            String src = p.bigs.random(r);
            String dst = p.bigs.random(r);
            if (!src.equals(dst) && p.get(src).present()) {
                return plain(p, round, "RENAME-big", new Step.Rename(src, dst));
            }
        }
        String src = p.strings.random(r);
        if (src == null || !p.get(src).present()) {
            return null;
        }
        String dst = r.nextBoolean() ? p.newKey(p.strings) : p.strings.random(r);
        return src.equals(dst) ? null : plain(p, round, "RENAME", new Step.Rename(src, dst));
    }

    /**
     * MULTI/EXEC of 2-4 writes; half of them under WATCH of their first keys. The WATCH itself, the
     * interfering write and the choice of whether to interfere are made by {@link LoadThread}.
     */
    private Op transaction(Partition p, Random r, int round) {
        int n = 2 + r.nextInt(3);
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            switch (r.nextInt(4)) {
                case 0 -> steps.add(new Step.Set(stringKey(p, r, round, true), smallValue(p, r), 0));
                case 1 -> steps.add(new Step.IncrBy(counterKey(p, r, round), delta(r)));
                case 2 -> steps.add(new Step.Append(stringKey(p, r, round, false), "+" + p.text(r, 4)));
                default -> {
                    String k = p.strings.random(r);
                    if (k != null) {
                        steps.add(new Step.Del(List.of(k)));
                    }
                }
            }
        }
        // a DEL finds no key before the first SET: then there may be nothing to run
        return steps.isEmpty() ? null : new Op(Op.Kind.EXEC, "EXEC", steps, "EXEC r" + round);
    }

    private static Op plain(Partition p, int round, String name, Step s) {
        return new Op(Op.Kind.PLAIN, name, List.of(s), name + " r" + round);
    }

    /** A new key while the population is under this round's target, else an existing one. */
    private String stringKey(Partition p, Random r, int round, boolean mayInsert) {
        int target = 64 + growth * round;
        if (p.strings.size() == 0 || (mayInsert && p.strings.size() < target)) {
            return p.newKey(p.strings);
        }
        return p.strings.random(r);
    }

    private String counterKey(Partition p, Random r, int round) {
        int target = 16 + round / 2;
        return p.counters.size() < target ? p.newKey(p.counters) : p.counters.random(r);
    }

    private static long delta(Random r) {
        return r.nextInt(10) == 0 ? -r.nextInt(100) : 1 + r.nextInt(1000);
    }

    private static Value smallValue(Partition p, Random r) {
        int pad = r.nextInt(10) == 0 ? 200 + r.nextInt(1800) : r.nextInt(64);
        return new Value.Text(p.text(r, pad));
    }
}
