package dev.cajon.bot;

/** An unrecorded send (bypassed or fail-open) failed at the provider; nothing will retry it. */
public class SendFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SendFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
