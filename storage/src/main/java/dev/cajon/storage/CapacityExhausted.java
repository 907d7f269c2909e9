package dev.cajon.storage;

/**
 * Signals that the map ran out of room mid-operation; the engine retries the operation after
 * growth (see {@link KeyspaceEngine#locked}). Ops files let it through: an ops body that catches
 * it must throw it again.
 */
final class CapacityExhausted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A multi-key write that could not be taken back entirely: part of it stays applied, and
     * its retry must complete it rather than decide again (MSETNX).
     */
    boolean partlyApplied;

    CapacityExhausted(Throwable cause) {
        super(null, cause, false, false);
    }
}
