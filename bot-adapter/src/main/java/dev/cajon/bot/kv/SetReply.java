package dev.cajon.bot.kv;

/**
 * What SET answered: whether it wrote, and (with GET) the value the key held before, or null.
 */
public record SetReply(boolean applied, String old) {
    static final SetReply APPLIED = new SetReply(true, null);
    static final SetReply NOT_APPLIED = new SetReply(false, null);
}
