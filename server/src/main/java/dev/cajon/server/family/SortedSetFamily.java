package dev.cajon.server.family;

import dev.cajon.server.command.CommandTable;

/** Sorted sets (ZADD, ZRANGE, ZSCAN ...). (Being written.) */
public final class SortedSetFamily {
    private SortedSetFamily() {
    }

    public static void register(CommandTable t) {
    }
}
