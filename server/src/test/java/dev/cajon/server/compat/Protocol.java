package dev.cajon.server.compat;

/**
 * The protocol a comparison runs in. A RESP3 run starts every connection it opens (the
 * scenario's own, the second one of {@link Scenario#other}, and each {@link Scenario#fresh} one)
 * with {@code HELLO 3} on both servers; a RESP2 run sends nothing extra.
 */
enum Protocol {
    RESP2,
    RESP3;

    /** The suffix that names a run in scenario reports and JUnit: {@code [RESP3]}. */
    String label() {
        return "[" + name() + "]";
    }
}
