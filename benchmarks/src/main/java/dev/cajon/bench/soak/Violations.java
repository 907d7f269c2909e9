package dev.cajon.bench.soak;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Every violation the soak found, by kind, with the first ones in full; and notes that are not failures. */
final class Violations {

    enum Kind {
        /** An acknowledged write is not there after the restart (absent or an older value). */
        LOST_WRITE,
        /** A key whose acknowledged DEL (or RENAME away) came back. */
        DEL_CAME_BACK,
        /** A key present after its acknowledged deadline. */
        OUTLIVED_TTL,
        /** A TTL lost, gained or moved. */
        WRONG_TTL,
        /** A value that neither an acknowledged nor the in-flight write left. */
        WRONG_VALUE,
        /** The other app's value, or an app key seen by another user. */
        ISOLATION,
        /** An MSET, RENAME or EXEC found half applied. */
        NOT_ATOMIC,
        /** More keys than the model allows (DBSIZE). */
        PHANTOM_KEYS,
        /** A reply during the load that the model did not predict. */
        REPLY,
        /** The server did not come back, or the soak itself failed. */
        HARNESS
    }

    record Violation(Kind kind, int round, String detail) {
    }

    private static final int KEEP = 50;

    private final List<Violation> first = new ArrayList<>();
    private final Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
    private final List<String> notes = new ArrayList<>();
    private int noteCount;
    private int total;

    synchronized void add(Kind kind, int round, String detail) {
        total++;
        counts.merge(kind, 1, Integer::sum);
        if (first.size() < KEEP) {
            first.add(new Violation(kind, round, detail));
        }
    }

    synchronized void note(int round, String text) {
        noteCount++;
        if (notes.size() < 20) {
            notes.add("round " + round + ": " + text);
        }
    }

    synchronized int total() {
        return total;
    }

    synchronized int noteCount() {
        return noteCount;
    }

    synchronized List<Violation> first() {
        return List.copyOf(first);
    }

    synchronized List<String> notes() {
        return List.copyOf(notes);
    }

    synchronized Map<Kind, Integer> counts() {
        return new EnumMap<>(counts);
    }
}
