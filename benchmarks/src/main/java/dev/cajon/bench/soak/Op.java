package dev.cajon.bench.soak;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One write (or read) of the load as the server sees it: a single command, or a MULTI/EXEC of
 * several. A thread has at most one op in flight, so after a kill each key a thread owns is either
 * as acknowledged or, for the keys of its one op in flight, as acknowledged or as that op leaves
 * it, with all of the op's keys in the same one of those two worlds.
 */
final class Op {

    enum Kind {
        /** One command. */
        PLAIN,
        /** MULTI, the steps, EXEC: applied whole. */
        EXEC,
        /** WATCH, a write to a watched key from another connection, MULTI ... EXEC: must abort. */
        EXEC_ABORT
    }

    final Kind kind;
    final String name;
    final List<Step> steps;
    final String origin;
    /** Wall-clock ms just before the op was written. */
    long sent;
    /** The replies the steps must get, from the model when the op was planned. */
    List<Object> expected;

    Op(Kind kind, String name, List<Step> steps, String origin) {
        this.kind = kind;
        this.name = name;
        this.steps = steps;
        this.origin = origin;
    }

    /** Plans the replies against the acknowledged state (deadlines do not matter for replies). */
    Op plan(Map<String, KeyState> base, long now) {
        sent = now;
        Step.Overlay o = new Step.Overlay(base);
        expected = new java.util.ArrayList<>(steps.size());
        for (Step s : steps) {
            expected.add(s.apply(o, now, now, origin));
        }
        return this;
    }

    /**
     * The states of the op's keys once it has run, its deadlines bounded by {@code t1} (the reply or
     * the kill). An EXEC that must abort leaves everything as it was.
     */
    Map<String, KeyState> after(Map<String, KeyState> base, long t1) {
        Step.Overlay o = new Step.Overlay(base);
        if (kind != Kind.EXEC_ABORT) {
            for (Step s : steps) {
                s.apply(o, sent, t1, origin);
            }
        }
        return o.changes;
    }

    Set<String> keys() {
        Set<String> k = new LinkedHashSet<>();
        steps.forEach(s -> k.addAll(s.keys()));
        return k;
    }

    boolean writes() {
        return steps.stream().anyMatch(s -> !(s instanceof Step.Get));
    }

    boolean multiKey() {
        return kind != Kind.PLAIN || keys().size() > 1;
    }
}
