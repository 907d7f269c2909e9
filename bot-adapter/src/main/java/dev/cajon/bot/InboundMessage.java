package dev.cajon.bot;

/** An inbound message or interaction as the provider delivered it. */
public record InboundMessage(String chat, String messageId, String payload) {
    public InboundId id() {
        return new InboundId(chat, messageId);
    }
}
