package dev.cajon.storage;

/**
 * EXPIRE's NX / XX / GT / LT options as bit flags (XX and GT/LT may be combined), with Redis's
 * meaning: a key without a TTL counts as having an infinite one.
 */
public final class ExpireCondition {
    public static final int NONE = 0;
    public static final int NX = 1;
    public static final int XX = 2;
    public static final int GT = 4;
    public static final int LT = 8;

    private ExpireCondition() {
    }
}
