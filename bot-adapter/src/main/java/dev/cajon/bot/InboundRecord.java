package dev.cajon.bot;

/** An inbound record as the operations list it. */
public record InboundRecord(InboundId id, String state, int attempts, String lastError, String payload) {
}
