package dev.cajon.bot;

/** A snapshot of the adapter's counters (also registered as Micrometer meters). */
public record BotMetrics(long inboundJournaled, long inboundDuplicates, long inboundReplayed, long inboundDead,
                         long outboxJournaled, long outboxDeduped, long outboxRetried, long outboxDeferred,
                         long outboxDead, long outboxAmbiguous, long outboxBypassed, long staleLeases) {
}
