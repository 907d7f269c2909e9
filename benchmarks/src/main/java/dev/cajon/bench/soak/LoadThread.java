package dev.cajon.bench.soak;

import dev.cajon.bench.storm.RespConn;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One client of the load: its two partitions (one per app), two connections per app (the second
 * writes a watched key, to prove WATCH aborts the EXEC), and one op at a time until the server
 * dies under it. An op whose reply arrived is committed to the model at once; the op whose reply
 * did not arrive stays {@link Partition#pending}.
 */
final class LoadThread extends Thread {

    private final Partition[] parts;
    private final String[] passwords;
    private final int port;
    private final int round;
    private final Random rnd;
    private final Planner planner;
    private final long bigIntervalMillis;
    private final Violations violations;
    private final CountDownLatch ready;
    private final AtomicBoolean stop;
    long acked;
    long lastBig;
    /** Why the thread stopped (the kill, normally). */
    String end = "running";

    LoadThread(Partition[] parts, String[] passwords, int port, int round, long seed, Planner planner,
               long bigIntervalMillis, Violations violations, CountDownLatch ready, AtomicBoolean stop) {
        super("soak-load-" + parts[0].thread);
        setDaemon(true);
        this.parts = parts;
        this.passwords = passwords;
        this.port = port;
        this.round = round;
        this.rnd = new Random(seed);
        this.planner = planner;
        this.bigIntervalMillis = bigIntervalMillis;
        this.violations = violations;
        this.ready = ready;
        this.stop = stop;
    }

    @Override
    public void run() {
        List<RespConn> opened = new ArrayList<>();
        try {
            RespConn[] main = new RespConn[parts.length];
            RespConn[] side = new RespConn[parts.length];
            for (int a = 0; a < parts.length; a++) {
                main[a] = Kill9Soak.connect(port, parts[a].app, passwords[a]);
                opened.add(main[a]);
                side[a] = Kill9Soak.connect(port, parts[a].app, passwords[a]);
                opened.add(side[a]);
            }
            ready.countDown();
            while (!stop.get()) {
                int a = rnd.nextInt(parts.length);
                Partition p = parts[a];
                long now = System.currentTimeMillis();
                boolean big = now - lastBig >= bigIntervalMillis;
                Op op = planner.next(p, rnd, round, big);
                if (op.name.equals("SET-big")) {
                    lastBig = now;
                }
                if (op.kind == Op.Kind.PLAIN) {
                    plain(p, main[a], op);
                } else {
                    transaction(p, main[a], side[a], op);
                }
            }
            end = "stopped";
        } catch (IOException e) {
            end = e.getClass().getSimpleName() + ": " + e.getMessage();
        } catch (RuntimeException e) {
            end = "bug: " + e;
            violations.add(Violations.Kind.HARNESS, round, "load thread " + getName() + " failed: " + e);
        } finally {
            ready.countDown();
            for (RespConn c : opened) {
                try {
                    c.close();
                } catch (IOException ignored) {
                    // the server is dead
                }
            }
        }
    }

    private void plain(Partition p, RespConn c, Op op) throws IOException {
        op.plan(p.state, System.currentTimeMillis());
        if (op.writes()) {
            p.pending = op;
        }
        op.steps.get(0).write(c);
        c.flush();
        Object got = c.read();
        long ack = System.currentTimeMillis();
        p.pending = null;
        acked++;
        if (!Kill9Soak.sameReply(op.expected.get(0), got)) {
            surprise(p, op, "replied " + Kill9Soak.describe(got) + ", the model expected "
                    + Kill9Soak.describe(op.expected.get(0)));
            return;
        }
        p.state.putAll(op.after(p.state, ack));
    }

    /**
     * MULTI/EXEC, half of the time under WATCH of its first key. A third of the watched ones get a
     * SET of that key from the other connection first, and their EXEC must answer nil and change
     * nothing.
     */
    private void transaction(Partition p, RespConn c, RespConn side, Op planned) throws IOException {
        Op op = planned;
        if (rnd.nextBoolean()) {
            String watched = op.keys().iterator().next();
            expectOk(p, c.call("WATCH", watched), "WATCH");
            Op read = new Op(Op.Kind.PLAIN, "GET", List.of(new Step.Get(watched)), "GET r" + round);
            plain(p, c, read);
            if (rnd.nextInt(3) == 0) {
                // a counter stays a counter, a text key text
                Step write = watched.startsWith("c:") ? new Step.IncrBy(watched, 1)
                        : new Step.Set(watched, new Value.Text(p.text(rnd, 8)), 0);
                Op spoil = new Op(Op.Kind.PLAIN, "SPOIL", List.of(write), "write spoiling WATCH r" + round);
                plain(p, side, spoil);
                op = new Op(Op.Kind.EXEC_ABORT, "EXEC-aborted", planned.steps, "EXEC (aborted) r" + round);
            }
        }
        op.plan(p.state, System.currentTimeMillis());
        p.pending = op;
        c.array(1).bulk("MULTI".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        for (Step s : op.steps) {
            s.write(c);
        }
        c.array(1).bulk("EXEC".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        c.flush();
        Object multi = c.read();
        List<Object> queued = new ArrayList<>();
        for (int i = 0; i < op.steps.size(); i++) {
            queued.add(c.read());
        }
        Object exec = c.read();
        long ack = System.currentTimeMillis();
        p.pending = null;
        acked++;
        if (!"OK".equals(multi) || queued.stream().anyMatch(q -> !"QUEUED".equals(q))) {
            surprise(p, op, "MULTI answered " + Kill9Soak.describe(multi) + ", queueing " + queued);
            return;
        }
        if (op.kind == Op.Kind.EXEC_ABORT) {
            if (exec != null) {
                surprise(p, op, "EXEC under a spoiled WATCH answered " + Kill9Soak.describe(exec) + ", not nil");
                return;
            }
            p.abortsSinceCheck++;
            return;
        }
        if (exec == null) {
            // nobody else wrote the watched key: Redis would have run it. Not a durability matter,
            // but counted and reported.
            violations.note(round, "EXEC answered nil although no other client wrote its watched key ("
                    + op.keys() + ")");
            return;
        }
        if (!(exec instanceof List<?> replies) || replies.size() != op.steps.size()) {
            surprise(p, op, "EXEC answered " + Kill9Soak.describe(exec));
            return;
        }
        for (int i = 0; i < replies.size(); i++) {
            if (!Kill9Soak.sameReply(op.expected.get(i), replies.get(i))) {
                surprise(p, op, "EXEC reply " + i + " was " + Kill9Soak.describe(replies.get(i))
                        + ", the model expected " + Kill9Soak.describe(op.expected.get(i)));
                return;
            }
        }
        p.state.putAll(op.after(p.state, ack));
        p.execsSinceCheck++;
    }

    private void expectOk(Partition p, Object got, String what) {
        if (!"OK".equals(got)) {
            violations.add(Violations.Kind.REPLY, round, p.app + ": " + what + " answered " + Kill9Soak.describe(got));
        }
    }

    /** A reply the model did not predict: a violation; its keys are taken as found at the next check. */
    private void surprise(Partition p, Op op, String what) {
        violations.add(Violations.Kind.REPLY, round, p.app + " " + op.origin + " on " + op.keys() + ": " + what
                + "; before it: " + describeKeys(p, op));
        for (String k : op.keys()) {
            p.state.put(k, KeyState.unknown(op.origin));
        }
    }

    private static String describeKeys(Partition p, Op op) {
        StringBuilder sb = new StringBuilder();
        for (String k : op.keys()) {
            sb.append(k).append('=').append(p.get(k).describe()).append("; ");
        }
        return sb.toString();
    }
}
