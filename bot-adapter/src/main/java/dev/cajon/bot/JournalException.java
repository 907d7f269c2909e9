package dev.cajon.bot;

/** The store could not journal a message (fail-closed): nothing was dispatched or sent. */
public class JournalException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public JournalException(String message, Throwable cause) {
        super(message, cause);
    }
}
