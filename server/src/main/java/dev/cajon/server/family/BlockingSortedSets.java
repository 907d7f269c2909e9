package dev.cajon.server.family;

import dev.cajon.server.blocking.BlockingKeys;
import dev.cajon.server.command.Ctx;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.ZSetOps;
import dev.cajon.storage.ZSetOps.Member;
import java.util.Arrays;

/**
 * BZPOPMIN, BZPOPMAX and BZMPOP, as Redis 7.0.15's blockingGenericZpopCommand: first what
 * ZPOPMIN/ZPOPMAX/ZMPOP do (the keys in argument order, a key of another type met before a
 * sorted set answers WRONGTYPE); when no key holds a sorted set, the client blocks on
 * {@link BlockingKeys} (the registry the blocking list commands use), unless it may not block
 * (inside MULTI/EXEC: then the null array at once, as CLIENT_DENY_BLOCKING).
 *
 * <p>Parsing order as Redis: BZPOPMIN/BZPOPMAX read the timeout (the last argument) before any
 * key; BZMPOP parses numkeys, MIN|MAX and COUNT first, then the timeout. Timeouts follow
 * {@link BlockingLists#timeoutMillis} (Redis's getTimeoutFromObjectOrReply in seconds).
 *
 * <p>A waiter is served when a command that gives a key members (ZADD, ZINCRBY, the STORE
 * commands) calls {@link #signal}; the served reply is the one the command would have given:
 * [key, member, score] for BZPOPMIN/BZPOPMAX, [key, [[member, score] ...]] for BZMPOP.
 */
final class BlockingSortedSets {
    private BlockingSortedSets() {
    }

    /** {@code key} got members: clients blocked on it are served after this command (or EXEC). */
    static void signal(Ctx c, byte[] key) {
        c.readyKey(key);
    }

    /** Pops from {@code keys} (in order); null when none holds a sorted set. {@code count} -1: BZPOPMIN's reply. */
    private static BlockingKeys.Served popFrom(ZSetOps ops, byte[][] keys, boolean max, long count) {
        ZSetOps.PopResult r = ops.pop(keys, max, count < 0 ? 1 : count);
        if (r.key() == null || r.members().isEmpty()) {
            return null;
        }
        byte[] key = r.key();
        if (count < 0) {
            Member m = r.members().get(0);
            return BlockingKeys.Served.of(c -> {
                c.arrayHeader(3);
                c.bulk(key);
                c.bulk(m.member());
                c.doubleValue(m.score());
            });
        }
        return BlockingKeys.Served.of(c -> SortedSetFamily.keyAndMembers(c, key, r.members()));
    }

    private static void blockingPop(Ctx c, byte[][] keys, boolean max, long count, long timeoutMs) {
        ZSetOps ops = SortedSetFamily.zsets(c);
        BlockingKeys.Served s = popFrom(ops, keys, max, count);
        if (s != null) {
            s.reply().accept(c);
            return;
        }
        if (c.session().transaction().inMulti() || c.blockingHost() == null) {
            c.nullArray(); // may not block: the timeout's reply at once, even for timeout 0
            return;
        }
        long deadline = timeoutMs == 0 ? 0 : c.server().clock().nowMillis() + timeoutMs;
        BlockingKeys.Waiter w = new BlockingKeys.Waiter(c.keyspace(), keys, deadline,
                ks -> k -> popFrom(((Keyspace) ks).zsets(), new byte[][] {k}, max, count), Ctx::nullArray,
                c.blockingHost(), c.session().id());
        s = c.server().blocking().block(w);
        if (s != null) {
            s.reply().accept(c);
        }
    }

    private static void bzpop(Ctx c, boolean max) {
        long t = BlockingLists.timeoutMillis(c.arg(c.argc() - 1));
        blockingPop(c, Arrays.copyOfRange(c.argv().args(), 1, c.argc() - 1), max, -1, t);
    }

    static void bzpopmin(Ctx c) {
        bzpop(c, false);
    }

    static void bzpopmax(Ctx c) {
        bzpop(c, true);
    }

    static void bzmpop(Ctx c) {
        SortedSetFamily.MpopArgs a = SortedSetFamily.MpopArgs.parse(c, 2);
        long t = BlockingLists.timeoutMillis(c.arg(1));
        blockingPop(c, a.keys(), a.max(), a.count(), t);
    }
}
