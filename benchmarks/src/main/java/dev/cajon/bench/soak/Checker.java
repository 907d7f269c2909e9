package dev.cajon.bench.soak;

import dev.cajon.bench.storm.RespConn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * After a restart: reads every key of one app's partitions (GET and PTTL, pipelined) and compares
 * it with the model, then makes what it found the new acknowledged state.
 *
 * <p>A key not written by the op in flight must be exactly as acknowledged: the value, and a TTL
 * within the bounds of the acknowledged deadline. The keys of the op in flight must all be as
 * acknowledged, or all as the op leaves them (an INCRBY in flight: the acknowledged count or that
 * plus its delta; an MSET or EXEC: whole or not at all). Deadlines are wall-clock and known only
 * within bounds (see {@link KeyState}), widened by {@code slack}: a key must be gone once the
 * latest possible deadline plus the slack has passed when its GET is sent, and must still be there
 * if the earliest possible deadline minus the slack is after its reply came back.
 */
final class Checker {

    /** What the server had for one key, read between {@code sent} and {@code received}. */
    record Obs(byte[] value, long pttl, long sent, long received) {
    }

    private static final int BATCH = 64;

    private final int round;
    private final long slack;
    private final Violations violations;
    private final Counts counts;

    Checker(int round, long slack, Violations violations, Counts counts) {
        this.round = round;
        this.slack = slack;
        this.violations = violations;
        this.counts = counts;
    }

    /** Checks the partitions of one app on {@code c} (authenticated as that app). */
    void check(RespConn c, List<Partition> parts, long killTime) throws IOException {
        for (Partition p : parts) {
            Map<String, KeyState> after = p.pending == null ? Map.of() : p.pending.after(p.state, killTime);
            List<String> keys = new ArrayList<>(p.state.keySet());
            for (String k : after.keySet()) {
                if (!p.state.containsKey(k)) {
                    keys.add(k);
                }
            }
            Map<String, Obs> obs = read(c, keys);
            resolve(p, after, obs);
            retire(p);
            counts.transactions += p.execsSinceCheck + p.abortsSinceCheck;
            p.execsSinceCheck = 0;
            p.abortsSinceCheck = 0;
        }
    }

    private static Map<String, Obs> read(RespConn c, List<String> keys) throws IOException {
        Map<String, Obs> out = new HashMap<>(keys.size() * 2);
        for (int i = 0; i < keys.size(); i += BATCH) {
            List<String> batch = keys.subList(i, Math.min(keys.size(), i + BATCH));
            long sent = System.currentTimeMillis();
            for (String k : batch) {
                byte[] kb = k.getBytes(StandardCharsets.US_ASCII);
                c.array(2).bulk("GET".getBytes(StandardCharsets.US_ASCII)).bulk(kb);
                c.array(2).bulk("PTTL".getBytes(StandardCharsets.US_ASCII)).bulk(kb);
            }
            c.flush();
            List<Object[]> replies = new ArrayList<>(batch.size());
            for (int j = 0; j < batch.size(); j++) {
                replies.add(new Object[] {c.read(), c.read()});
            }
            long received = System.currentTimeMillis();
            for (int j = 0; j < batch.size(); j++) {
                Object v = replies.get(j)[0];
                Object t = replies.get(j)[1];
                if (v != null && !(v instanceof byte[])) {
                    throw new IOException("GET " + batch.get(j) + " answered " + Kill9Soak.describe(v));
                }
                if (!(t instanceof Long)) {
                    throw new IOException("PTTL " + batch.get(j) + " answered " + Kill9Soak.describe(t));
                }
                out.put(batch.get(j), new Obs((byte[]) v, (Long) t, sent, received));
            }
        }
        return out;
    }

    /** Compares, reports, and sets each key's state to what was found. */
    private void resolve(Partition p, Map<String, KeyState> after, Map<String, Obs> obs) {
        Map<String, KeyState> chosen = new HashMap<>();
        Op op = p.pending;
        if (op != null) {
            counts.inflight++;
            if (op.multiKey()) {
                counts.inflightMultiKey++;
            }
            if (op.kind != Op.Kind.PLAIN) {
                counts.transactions++;
            }
            boolean okBefore = true;
            boolean okAfter = true;
            for (Map.Entry<String, KeyState> e : after.entrySet()) {
                Obs o = obs.get(e.getKey());
                okBefore &= mismatch(p, p.get(e.getKey()), o) == null;
                okAfter &= mismatch(p, e.getValue(), o) == null;
            }
            if (okAfter && !after.isEmpty()) {
                chosen.putAll(after);
                if (!okBefore) {
                    counts.inflightApplied++;
                }
            } else if (!okBefore) {
                // neither world: report each key against both
                StringBuilder sb = new StringBuilder();
                boolean eachFitsOne = true;
                for (Map.Entry<String, KeyState> e : after.entrySet()) {
                    Obs o = obs.get(e.getKey());
                    String b = mismatch(p, p.get(e.getKey()), o);
                    String a = mismatch(p, e.getValue(), o);
                    eachFitsOne &= a == null || b == null;
                    sb.append("\n    ").append(e.getKey()).append(": found ").append(Value.describe(o.value()))
                            .append(" pttl ").append(o.pttl()).append("; acknowledged ")
                            .append(p.get(e.getKey()).describe()).append(b == null ? " (fits)" : " (no: " + b + ")")
                            .append("; in flight ").append(e.getValue().describe())
                            .append(a == null ? " (fits)" : " (no: " + a + ")");
                }
                Violations.Kind kind = eachFitsOne ? Violations.Kind.NOT_ATOMIC : kindOf(p, after, obs);
                violations.add(kind, round, p.app + " " + op.origin + " on " + op.keys() + " in flight at the kill,"
                        + " found neither as acknowledged nor as it leaves them:" + sb);
                for (String k : after.keySet()) {
                    chosen.put(k, KeyState.unknown("resync"));
                }
            }
        }
        for (Map.Entry<String, Obs> e : obs.entrySet()) {
            String k = e.getKey();
            Obs o = e.getValue();
            KeyState s = chosen.containsKey(k) ? chosen.get(k) : p.get(k);
            counts.keys++;
            if (k.startsWith("c:")) {
                counts.counters++;
            }
            if (s.value() instanceof Value.Big) {
                counts.bigValues++;
            }
            if (!after.containsKey(k) || !chosen.containsKey(k)) {
                String why = mismatch(p, s, o);
                if (why != null) {
                    violations.add(kind(p, s, o), round, p.app + " key " + k + ": " + why + "; found "
                            + Value.describe(o.value()) + " pttl " + o.pttl() + " (read between " + o.sent() + " and "
                            + o.received() + " ms), acknowledged " + s.describe());
                    s = KeyState.unknown("resync");
                }
            }
            if (s.hasTtl() && !s.unknown()) {
                boolean mustBeGone = s.hi() + slack < o.sent();
                boolean mustBeThere = s.present() && s.lo() - slack > o.received();
                if (mustBeGone || mustBeThere) {
                    counts.ttls++;
                }
                if (mustBeGone) {
                    counts.expired++;
                }
            }
            p.state.put(k, settle(s, o));
        }
        p.pending = null;
    }

    /** The state to carry on with: as modelled if it fitted, else what the server has. */
    private static KeyState settle(KeyState s, Obs o) {
        if (o.value() == null) {
            return s.present() || s.unknown() ? KeyState.absent("expired or resync") : s;
        }
        if (!s.unknown()) {
            return s;
        }
        Value v = new Value.Text(new String(o.value(), StandardCharsets.ISO_8859_1));
        KeyState n = KeyState.of(v, "resync");
        return o.pttl() >= 0 ? n.withDeadline(o.sent() + o.pttl(), o.received() + o.pttl(), "resync") : n;
    }

    /** Null if the observation fits the state; else why not. */
    String mismatch(Partition p, KeyState s, Obs o) {
        if (s.unknown()) {
            return null;
        }
        if (!s.present()) {
            return o.value() == null ? null : "present, but its last acknowledged write removed it";
        }
        boolean mustBeGone = s.hasTtl() && s.hi() + slack < o.sent();
        boolean mayBeGone = s.hasTtl() && s.lo() - slack <= o.received();
        if (o.value() == null) {
            return mayBeGone ? null : "acknowledged value missing";
        }
        if (mustBeGone) {
            return "present " + (o.sent() - s.hi()) + " ms after its latest possible deadline";
        }
        if (!s.value().matches(o.value())) {
            return "value differs";
        }
        if (o.pttl() == -2) {
            return mayBeGone ? null : "GET found it but PTTL says it does not exist";
        }
        if (!s.hasTtl()) {
            return o.pttl() == -1 ? null : "has a TTL (" + o.pttl() + " ms) it was never given";
        }
        if (o.pttl() == -1) {
            return "lost its TTL";
        }
        long lo = o.sent() + o.pttl();
        long hi = o.received() + o.pttl();
        if (hi < s.lo() - slack || lo > s.hi() + slack) {
            return "deadline in [" + lo + ", " + hi + "], acknowledged in [" + s.lo() + ", " + s.hi() + "]";
        }
        return null;
    }

    private Violations.Kind kind(Partition p, KeyState s, Obs o) {
        if (o.value() != null && isOtherApp(p, o.value())) {
            return Violations.Kind.ISOLATION;
        }
        if (!s.present()) {
            return s.origin().startsWith("DEL") || s.origin().startsWith("RENAME") || s.origin().contains("EXEC")
                    ? Violations.Kind.DEL_CAME_BACK : Violations.Kind.WRONG_VALUE;
        }
        if (o.value() == null) {
            return Violations.Kind.LOST_WRITE;
        }
        if (s.hasTtl() && s.hi() + slack < o.sent()) {
            return Violations.Kind.OUTLIVED_TTL;
        }
        if (s.value().matches(o.value())) {
            return Violations.Kind.WRONG_TTL;
        }
        return Violations.Kind.LOST_WRITE;
    }

    private Violations.Kind kindOf(Partition p, Map<String, KeyState> after, Map<String, Obs> obs) {
        for (Map.Entry<String, KeyState> e : after.entrySet()) {
            Obs o = obs.get(e.getKey());
            if (mismatch(p, p.get(e.getKey()), o) != null && mismatch(p, e.getValue(), o) != null) {
                return kind(p, p.get(e.getKey()), o);
            }
        }
        return Violations.Kind.WRONG_VALUE;
    }

    /** Values begin with their app's name. */
    private static boolean isOtherApp(Partition p, byte[] v) {
        String head = new String(v, 0, Math.min(v.length, 32), StandardCharsets.ISO_8859_1);
        return !head.startsWith(p.app + "|") && head.contains("|");
    }

    /** Retired keys found gone at two checks are dropped, so the model stays the size of the live keys. */
    private static void retire(Partition p) {
        Iterator<Map.Entry<String, Integer>> it = p.retired.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, Integer> e = it.next();
            if (p.get(e.getKey()).present()) {
                continue;
            }
            if (e.getValue() >= 1) {
                p.state.remove(e.getKey());
                it.remove();
            } else {
                e.setValue(e.getValue() + 1);
            }
        }
    }

    /** How many keys the model says this app holds now (after {@link #check}). */
    static long present(List<Partition> parts) {
        long n = 0;
        for (Partition p : parts) {
            for (KeyState s : p.state.values()) {
                if (s.present()) {
                    n++;
                }
            }
        }
        return n;
    }

    /** Key names held in both apps by the same client, for the isolation count. */
    static long sharedNames(Partition a, Partition b) {
        long n = 0;
        Set<String> names = a.state.keySet();
        for (String k : names) {
            KeyState sa = a.get(k);
            KeyState sb = b.state.get(k);
            if (sb != null && (sa.present() || sb.present())) {
                n++;
            }
        }
        return n;
    }
}
