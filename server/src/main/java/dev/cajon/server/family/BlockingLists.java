package dev.cajon.server.family;

import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;

/** The blocking list commands. (Being written.) */
final class BlockingLists {
    private BlockingLists() {
    }

    static void signal(Ctx c, byte[] key) {
    }

    static void register(CommandTable t) {
    }
}
