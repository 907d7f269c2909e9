package dev.cajon.server.family;

import dev.cajon.server.command.CommandTable;

/** Sets (SADD, SMEMBERS, SSCAN ...). (Being written.) */
public final class SetFamily {
    private SetFamily() {
    }

    public static void register(CommandTable t) {
    }
}
