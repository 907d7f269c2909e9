package dev.cajon.server.family;

import dev.cajon.server.command.CommandTable;

/** Lists (LPUSH, LRANGE, LMOVE ...). (Being written.) */
public final class ListFamily {
    private ListFamily() {
    }

    public static void register(CommandTable t) {
    }
}
