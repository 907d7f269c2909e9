package dev.cajon.bot;

/** What {@link BotAdapter#handle} did with one delivery. */
public record HandleResult(Status status, InboundId id, String detail) {
    public enum Status {
        /** Journaled, handled and marked done. */
        DONE,
        /** The same provider message id was already journaled: nothing ran. */
        DUPLICATE,
        /** Journaled; the chat is busy elsewhere, so the sweeper hands it to a worker later. */
        QUEUED,
        /** Journaled; the handler failed and a retry is scheduled. */
        RETRYING,
        /** Journaled; the handler failed for the last time: on the inbound dead-letter list. */
        DEAD,
        /** The lease was lost while the handler ran: its commit was rejected (see staleLeases). */
        STALE,
        /** The store could not journal and {@code failOpen} is on: handled without durability. */
        FAIL_OPEN
    }
}
