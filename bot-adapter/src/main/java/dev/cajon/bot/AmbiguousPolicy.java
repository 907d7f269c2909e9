package dev.cajon.bot;

/** What to do with a send that crashed between the provider call and its record. */
public enum AmbiguousPolicy {
    /** Keep it, state AMBIGUOUS, for an operator ({@link BotAdapter#retrySend} or discard). */
    HOLD,
    /** Send it again (the channel tolerates a rare duplicate better than a lost message). */
    RESEND
}
