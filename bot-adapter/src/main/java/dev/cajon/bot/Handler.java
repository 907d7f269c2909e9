package dev.cajon.bot;

/**
 * The bot's code for one inbound message. It runs after the message was journaled, holding the
 * chat's lease, so no other message of the same chat is handled meanwhile. It may run again for
 * the same message (after a crash or a failure): sends made through {@code ctx} are keyed by
 * the message and their position, so a re-run does not send them twice. A thrown exception is a
 * failure, retried with backoff, then the message goes to the inbound dead-letter list.
 */
@FunctionalInterface
public interface Handler {
    void handle(InboundMessage message, HandlerContext ctx) throws Exception;
}
