package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.cmd;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.Saves;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import java.io.IOException;

/**
 * SAVE, BGSAVE and LASTSAVE with Redis's replies and errors. There is no snapshot to write:
 * every acknowledged write is already in the map files, so a save syncs them (and the journals,
 * blobs and directories) to the disk ({@link Saves}). SAVE waits for it, on its connection's
 * event loop, as Redis's SAVE blocks; BGSAVE returns at once.
 */
public final class SaveFamily {
    private SaveFamily() {
    }

    static void save(Ctx c) {
        try {
            if (!c.server().saves().saveNow()) {
                throw new CommandError(RedisErrors.BGSAVE_IN_PROGRESS);
            }
        } catch (IOException e) {
            throw new CommandError("ERR " + e.getMessage());
        }
        c.ok();
    }

    /** BGSAVE [SCHEDULE]. */
    static void bgsave(Ctx c) {
        boolean schedule = false;
        if (c.argc() == 2 && ArgCursor.is(c.arg(1), "schedule")) {
            schedule = true;
        } else if (c.argc() > 1) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        if (c.server().saves().background(schedule)) {
            c.simple("Background saving started");
        } else if (schedule) {
            c.simple("Background saving scheduled");
        } else {
            throw new CommandError(RedisErrors.BGSAVE_IN_PROGRESS);
        }
    }

    static void lastsave(Ctx c) {
        c.integer(c.server().saves().lastSave());
    }

    public static void register(CommandTable t) {
        t.register(cmd("save", 1, "admin noscript no_async_loading no_multi", 0, 0, 0, "server", "1.0.0",
                "Synchronously save the dataset to disk", SaveFamily::save));
        t.register(cmd("bgsave", -1, "admin noscript no_async_loading", 0, 0, 0, "server", "1.0.0",
                "Asynchronously save the dataset to disk", SaveFamily::bgsave));
        t.register(cmd("lastsave", 1, "loading stale fast", 0, 0, 0, "server", "1.0.0",
                "Get the UNIX time stamp of the last successful save to disk", SaveFamily::lastsave));
    }
}
