package dev.cajon.server.family;

import dev.cajon.server.command.CommandTable;

/** Hashes (HSET, HGET, HSCAN ...). (Being written.) */
public final class HashFamily {
    private HashFamily() {
    }

    public static void register(CommandTable t) {
    }
}
