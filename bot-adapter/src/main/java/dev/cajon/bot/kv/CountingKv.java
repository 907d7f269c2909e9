package dev.cajon.bot.kv;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts what goes through the port: commands (as Redis counts them: MULTI, each queued write and
 * EXEC are three or more) and round trips (what a remote backend waits for: every single command
 * is one, WATCH with the GETs of the watched keys (and the ops sent ahead of it) is one, any other
 * GET inside a transaction is one, MULTI ... EXEC is one, and a {@link #pipeline} is one, all as
 * JedisKv pipelines them off a cluster). The costs in docs/BOT-ADAPTER.md were measured with it.
 */
public final class CountingKv implements Kv {
    private final Kv kv;
    private final LongAdder commands = new LongAdder();
    private final LongAdder roundTrips = new LongAdder();

    public CountingKv(Kv kv) {
        this.kv = kv;
    }

    public long commands() {
        return commands.sum();
    }

    public long roundTrips() {
        return roundTrips.sum();
    }

    public void reset() {
        commands.reset();
        roundTrips.reset();
    }

    private void one() {
        commands.increment();
        roundTrips.increment();
    }

    @Override
    public String get(String key) {
        one();
        return kv.get(key);
    }

    @Override
    public SetReply set(String key, String value, SetOptions options) {
        one();
        return kv.set(key, value, options);
    }

    @Override
    public Long incr(String key) {
        one();
        return kv.incr(key);
    }

    @Override
    public boolean pexpire(String key, long millis) {
        one();
        return kv.pexpire(key, millis);
    }

    @Override
    public boolean del(String key) {
        one();
        return kv.del(key);
    }

    @Override
    public List<Object> pipeline(List<Op> ops) {
        if (!ops.isEmpty()) {
            roundTrips.increment();
            commands.add(ops.size());
        }
        return kv.pipeline(ops);
    }

    @Override
    public Tx watch(List<String> keys) {
        return watch(keys, List.of());
    }

    @Override
    public Tx watch(List<String> keys, List<Op> before) {
        one(); // the ops ahead, WATCH and the GET of each watched key, pipelined
        commands.add(keys.size() + before.size());
        return new Counted(kv.watch(keys, before), keys);
    }

    /** A transaction whose commands and round trips are counted. */
    private final class Counted implements Tx {
        private final Tx tx;
        private final List<String> keys;
        private boolean executed;

        Counted(Tx tx, List<String> keys) {
            this.tx = tx;
            this.keys = keys;
        }

        @Override
        public List<Object> before() {
            return tx.before();
        }

        @Override
        public String get(String key) {
            if (!keys.contains(key)) {
                one();
            }
            return tx.get(key);
        }

        @Override
        public List<Object> exec(List<Op> ops) {
            executed = true;
            commands.add(ops.size() + 2);
            roundTrips.increment();
            return tx.exec(ops);
        }

        @Override
        public Chained execThenWatch(List<Op> ops, List<String> watchKeys) {
            executed = true;
            commands.add(ops.size() + 2 + 1 + watchKeys.size()); // MULTI ops EXEC, WATCH, the GETs
            roundTrips.increment();
            Chained c = tx.execThenWatch(ops, watchKeys);
            return c.next() == null ? c : new Chained(c.results(), new Counted(c.next(), watchKeys));
        }

        @Override
        public void close() {
            if (!executed) {
                executed = true;
                one(); // UNWATCH
            }
            tx.close();
        }
    }

    @Override
    public void close() {
        kv.close();
    }
}
