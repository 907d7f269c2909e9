package dev.cajon.storage;

/**
 * A storage failure that has a Redis-visible meaning (for example {@link OpStatus#KEY_TOO_LARGE}),
 * thrown where returning a status through every call would obscure the code. The server maps its
 * status to an error reply in the same single place as returned statuses.
 */
public final class OpException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final OpStatus status;

    public OpException(OpStatus status) {
        super(status.name(), null, false, false);
        this.status = status;
    }

    public OpStatus status() {
        return status;
    }
}
