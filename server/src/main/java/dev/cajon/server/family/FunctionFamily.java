package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.container;
import static dev.cajon.server.command.Specs.sub;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * FUNCTION, as far as it goes without a script engine: Cajon runs no Lua, so it never holds a
 * function library, and the two subcommands that only look at or empty the libraries answer
 * truthfully, as Redis 7.0 does with none loaded: FLUSH empties nothing and answers OK, LIST
 * answers an empty list. Both check their arguments as Redis does. Tools and test harnesses send
 * {@code FUNCTION FLUSH} before they start (Redis's own test suite does, against any server).
 * LOAD, DELETE, DUMP, RESTORE, STATS and KILL are not here: they answer Redis's unknown-subcommand
 * error.
 */
public final class FunctionFamily {
    private FunctionFamily() {
    }

    static void flush(Ctx c) {
        if (c.argc() > 3) {
            throw new CommandError(RedisErrors.subcommandSyntax(c.arg(1), "function"));
        }
        if (c.argc() == 3) {
            String mode = new String(c.arg(2), StandardCharsets.ISO_8859_1);
            if (!mode.equalsIgnoreCase("sync") && !mode.equalsIgnoreCase("async")) {
                throw new CommandError(RedisErrors.FUNCTION_FLUSH_MODE);
            }
        }
        c.ok();
    }

    /** FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE]: no library, whatever the filter. */
    static void list(Ctx c) {
        for (int i = 2; i < c.argc(); i++) {
            String a = new String(c.arg(i), StandardCharsets.ISO_8859_1);
            if (a.equalsIgnoreCase("withcode")) {
                continue;
            }
            if (a.equalsIgnoreCase("libraryname")) {
                if (++i >= c.argc()) {
                    throw new CommandError(RedisErrors.FUNCTION_LIBRARY_NAME_MISSING);
                }
                continue;
            }
            throw new CommandError(RedisErrors.functionUnknownArgument(a));
        }
        c.arrayHeader(0);
    }

    static void help(Ctx c) {
        c.helpLines(List.of(
                "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
                "    Return general information on all the libraries:",
                "    * Library name",
                "    * The engine used to run the Library",
                "    * Library description",
                "    * Functions list",
                "    * Library code (if WITHCODE is given)",
                "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
                "FLUSH [ASYNC|SYNC]",
                "    Delete all the libraries.",
                "    When called without the optional mode argument, the behavior is determined by the",
                "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
                "    * ASYNC: Asynchronously flush the libraries.",
                "    * SYNC: Synchronously flush the libraries.",
                "HELP",
                "    Prints this help."));
    }

    public static void register(CommandTable t) {
        t.register(container("function", -2, "", "scripting", "7.0.0", "A container for function commands", null, List.of(
                sub("function", "flush", -2, "write noscript", "7.0.0", "Deleting all functions", FunctionFamily::flush),
                sub("function", "list", -2, "noscript", "7.0.0", "List information about all the functions", FunctionFamily::list),
                sub("function", "help", 2, "loading stale", "7.0.0", "Show helpful text about the different subcommands",
                        FunctionFamily::help))));
    }
}
