package dev.cajon.bot;

/** An outbound record as the operations list it. */
public record OutboundRecord(String key, String chat, String state, int attempts, boolean ambiguous,
                             String providerMessageId, String lastError, String content) {
}
