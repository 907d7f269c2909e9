package dev.cajon.server.command;

/**
 * Thrown by argument parsing and handlers to answer with an error reply; the dispatcher writes
 * the message. Carries no stack trace, so it is cheap enough for ordinary validation failures.
 */
public final class CommandError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CommandError(String redisMessage) {
        super(redisMessage, null, false, false);
    }
}
