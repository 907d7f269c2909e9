package dev.cajon.bot;

/** An inbound record's identity: the chat and the provider's message id. */
public record InboundId(String chat, String messageId) {
    /** {@code chat/messageId}: the prefix of the idempotency keys of the sends it makes. */
    @Override
    public String toString() {
        return chat + "/" + messageId;
    }
}
