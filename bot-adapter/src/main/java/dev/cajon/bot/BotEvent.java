package dev.cajon.bot;

/** Something an operator should hear about, passed to the builder's event listener. */
public record BotEvent(Type type, String ref, String detail) {
    public enum Type { INBOUND_DEAD, OUTBOUND_DEAD, OUTBOUND_AMBIGUOUS, STALE_LEASE, OUTBOUND_BYPASSED }
}
