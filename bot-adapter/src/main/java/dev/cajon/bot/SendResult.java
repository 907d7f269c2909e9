package dev.cajon.bot;

/** What a send did; {@code providerMessageId} is set when the message is known to be sent. */
public record SendResult(Status status, String key, String providerMessageId) {
    public enum Status {
        /** Sent now by the provider. */
        SENT,
        /** The key was already sent: the stored id is returned, the provider was not called. */
        DEDUPED,
        /** Recorded and waiting: deferred, or failed and scheduled for a retry. */
        PENDING,
        /** Another worker is sending it right now. */
        IN_FLIGHT,
        /** It may or may not have been sent before a crash; held for an operator. */
        AMBIGUOUS,
        /** Every retry failed: on the outbound dead-letter list. */
        DEAD,
        DISCARDED,
        /** Larger than maxPayloadBytes: sent straight through, not recorded. */
        BYPASSED,
        /** The store was down and failOpen is on: sent straight through, not recorded. */
        FAIL_OPEN
    }
}
