package dev.cajon.server.session;

import dev.cajon.server.command.CommandFlag;
import dev.cajon.server.command.CommandSpec;
import dev.cajon.storage.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The state of CLIENT PAUSE, shared by every connection, and the connections whose next command
 * waits for it to end.
 *
 * <p>Redis 7.0's rules, which this follows (checked against redis-server 7.0.15):
 * <ul>
 *   <li>A pause has a mode and an end time. {@code ALL} postpones every command of every client,
 *       the one that sent CLIENT PAUSE included, and CLIENT UNPAUSE too: an ALL pause can only
 *       run out. {@code WRITE} postpones the commands flagged {@code write} or
 *       {@code may_replicate}; everything else runs, CLIENT UNPAUSE included.</li>
 *   <li>A command is looked at only once the generic checks have passed: an unknown command, a
 *       wrong arity or NOAUTH is answered at once even during a pause.</li>
 *   <li>A postponed command is neither run nor rejected: it and every command the client sent
 *       after it wait, in order, until the pause ends (by its end time or CLIENT UNPAUSE).</li>
 *   <li>A second CLIENT PAUSE while one is in effect keeps the more restrictive mode and the later
 *       end time (Redis's per-purpose max; WRITE after ALL stays ALL).</li>
 *   <li>The pause lasts through its end millisecond ({@code end < now} means over), and a timeout
 *       of 0 (or one whose end overflows, as in C) ends it before it starts.</li>
 * </ul>
 *
 * <p>Threads: any event loop may pause, check or unpause. The mode is volatile so the check costs
 * one read while no pause is on; everything else is under this object's lock, and a connection
 * registers itself as a {@link Waiter} under the same lock as the check, so an UNPAUSE can never
 * slip in between and leave it waiting. Waiters are resumed outside the lock.
 */
public final class ClientPause {
    /** From least to most restrictive (the order the max of two pauses uses). */
    public enum Mode {
        OFF, WRITE, ALL
    }

    /** A connection holding a postponed command. */
    public interface Waiter {
        /**
         * The pause is over: run the postponed commands. Called from any thread; the connection
         * moves onto its own event loop to do it.
         */
        void resume();
    }

    private final Clock clock;
    private volatile Mode mode = Mode.OFF;
    /** The last millisecond of the pause; guarded by this. */
    private long end;
    /** Guarded by this; in the order the commands were postponed. */
    private final Set<Waiter> waiters = new LinkedHashSet<>();

    public ClientPause(Clock clock) {
        this.clock = clock;
    }

    /** CLIENT PAUSE: pauses until {@code endMillis} (inclusive), merged with a pause in effect. */
    public void pause(Mode m, long endMillis) {
        if (m == Mode.OFF) {
            throw new IllegalArgumentException("pause mode OFF");
        }
        List<Waiter> resume = List.of();
        synchronized (this) {
            long now = clock.nowMillis();
            if (onLocked(now)) {
                mode = m.compareTo(mode) > 0 ? m : mode;
                end = Math.max(end, endMillis);
            } else {
                mode = m;
                end = endMillis;
                if (!onLocked(now)) {
                    resume = offLocked(); // a timeout of 0: over before it starts
                }
            }
        }
        resume.forEach(Waiter::resume);
    }

    /** CLIENT UNPAUSE: ends the pause and resumes every waiting connection. */
    public void unpause() {
        List<Waiter> resume;
        synchronized (this) {
            resume = offLocked();
        }
        resume.forEach(Waiter::resume);
    }

    /** Whether a pause may be in effect (one volatile read): the fast path of every command. */
    public boolean mayBeActive() {
        return mode != Mode.OFF;
    }

    /** The mode in effect now (OFF once the end time has passed). */
    public synchronized Mode mode() {
        return onLocked(clock.nowMillis()) ? mode : Mode.OFF;
    }

    /** The last millisecond of the pause in effect; meaningless when {@link #mode()} is OFF. */
    public synchronized long endMillis() {
        return end;
    }

    /**
     * Whether a command of {@code spec} must wait now. If so, {@code w} is registered and will be
     * resumed when the pause ends by UNPAUSE; for the end time the waiter sets its own timer at
     * {@link #endMillis()} + 1 (and simply asks again when it fires).
     */
    public boolean postpone(CommandSpec spec, Waiter w) {
        return postpone(writes(spec), w);
    }

    /**
     * {@link #postpone(CommandSpec, Waiter)} for a command that {@code writes} (flagged write or
     * may_replicate, or an EXEC with such a command queued, as Redis's processCommand counts it).
     */
    public boolean postpone(boolean writes, Waiter w) {
        if (mode == Mode.OFF) {
            return false;
        }
        List<Waiter> resume;
        synchronized (this) {
            if (onLocked(clock.nowMillis())) {
                if (!postponesLocked(writes)) {
                    return false;
                }
                waiters.add(w);
                return true;
            }
            resume = offLocked(); // ran out just now: whoever still waits goes on
        }
        resume.forEach(Waiter::resume);
        return false;
    }

    /** Whether a command of {@code spec} would wait now (for tests and INFO; registers nothing). */
    public synchronized boolean wouldPostpone(CommandSpec spec) {
        return mode() != Mode.OFF && postponesLocked(writes(spec));
    }

    /** A waiter that resumed by its timer, or whose connection closed, leaves. */
    public synchronized void leave(Waiter w) {
        waiters.remove(w);
    }

    /** How many connections wait (INFO's blocked_clients counts them, as Redis does). */
    public synchronized int waiting() {
        return waiters.size();
    }

    public static boolean writes(CommandSpec spec) {
        return spec.has(CommandFlag.WRITE) || spec.has(CommandFlag.MAY_REPLICATE);
    }

    private boolean postponesLocked(boolean writes) {
        return mode == Mode.ALL || mode == Mode.WRITE && writes;
    }

    private boolean onLocked(long now) {
        return mode != Mode.OFF && end >= now;
    }

    /** Turns the pause off and hands back its waiters, to be resumed outside the lock. */
    private List<Waiter> offLocked() {
        mode = Mode.OFF;
        end = 0;
        return takeWaitersLocked();
    }

    private List<Waiter> takeWaitersLocked() {
        List<Waiter> w = new ArrayList<>(waiters);
        waiters.clear();
        return w;
    }
}
