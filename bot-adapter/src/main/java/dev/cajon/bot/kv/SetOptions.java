package dev.cajon.bot.kv;

/**
 * SET's options as the port knows them: one existence condition (NX or XX), a relative TTL (PX,
 * 0 for none) and GET (return the old value).
 */
public record SetOptions(Condition condition, long pxMillis, boolean get) {
    public static final SetOptions PLAIN = new SetOptions(Condition.ALWAYS, 0, false);

    /** SET's existence condition. */
    public enum Condition { ALWAYS, NX, XX }

    public SetOptions {
        if (pxMillis < 0) {
            throw new IllegalArgumentException("PX must be positive, or 0 for no TTL: " + pxMillis);
        }
    }

    public static SetOptions px(long millis) {
        return new SetOptions(Condition.ALWAYS, millis, false);
    }

    public static SetOptions nx(long pxMillis) {
        return new SetOptions(Condition.NX, pxMillis, false);
    }

    public static SetOptions xx(long pxMillis) {
        return new SetOptions(Condition.XX, pxMillis, false);
    }

    public SetOptions withGet() {
        return new SetOptions(condition, pxMillis, true);
    }
}
