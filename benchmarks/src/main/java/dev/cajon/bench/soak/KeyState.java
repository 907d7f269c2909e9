package dev.cajon.bench.soak;

/**
 * What one key holds as far as the client knows: a value (null: absent) and the bounds of its
 * deadline in wall-clock ms ({@link #NONE}: no TTL). A deadline is known only within bounds: the
 * server adds the TTL to its own clock when the command runs, somewhere between the moment the
 * client sent it ({@code lo}) and the moment the reply came back, or the kill ({@code hi}).
 *
 * @param origin the write that left this state ("SET r3", "DEL r7"), for messages
 * @param unknown true after a reply the model did not predict: the next check takes what it finds
 */
record KeyState(Value value, long lo, long hi, String origin, boolean unknown) {

    static final long NONE = Long.MAX_VALUE;

    static KeyState absent(String origin) {
        return new KeyState(null, NONE, NONE, origin, false);
    }

    static KeyState of(Value v, String origin) {
        return new KeyState(v, NONE, NONE, origin, false);
    }

    static KeyState unknown(String origin) {
        return new KeyState(null, NONE, NONE, origin, true);
    }

    boolean present() {
        return value != null;
    }

    boolean hasTtl() {
        return lo != NONE;
    }

    KeyState withValue(Value v, String why) {
        return new KeyState(v, lo, hi, why, false);
    }

    KeyState withDeadline(long lo, long hi, String why) {
        return new KeyState(value, lo, hi, why, false);
    }

    String describe() {
        if (unknown) {
            return "unknown (after " + origin + ")";
        }
        if (value == null) {
            return "absent (" + origin + ")";
        }
        String ttl = hasTtl() ? ", deadline in [" + lo + ", " + hi + "] ms" : ", no TTL";
        return value.describe() + ttl + " (" + origin + ")";
    }
}
