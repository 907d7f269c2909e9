package dev.cajon.server.command;

import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One row of the command table: Redis's own metadata for the command (from its
 * {@code src/commands/*.json}) plus the handler. COMMAND, COMMAND DOCS, the dispatcher's generic
 * checks and per-command metrics all read these rows.
 *
 * @param name       lower-case command name ("get"), or "parent|sub" for a subcommand
 * @param arity      argc including the name; negative means "at least -arity"
 * @param firstKey   position of the first key argument, 0 if none
 * @param lastKey    position of the last key, negative counts from the end (-1 = last argument)
 * @param step       distance between keys
 * @param group      Redis's documentation group ("string", "generic", "connection", "server")
 * @param since      Redis version that introduced the command
 * @param summary    one-line description (COMMAND DOCS)
 * @param subcommands rows of a container command such as CLIENT; empty otherwise
 * @param index      the row's number in its {@link CommandTable}, given at registration (every row,
 *                   subcommands included, has its own, from 0 up to {@link CommandTable#indexCount()}),
 *                   so per-command state such as metrics lives in arrays indexed by it; -1 for a
 *                   row that was never registered
 */
public record CommandSpec(String name, int arity, Set<CommandFlag> flags, int firstKey, int lastKey, int step,
                          String group, String since, String summary, Handler handler,
                          List<CommandSpec> subcommands, int index) {

    public CommandSpec {
        name = name.toLowerCase(Locale.ROOT);
        flags = flags.isEmpty() ? EnumSet.noneOf(CommandFlag.class) : EnumSet.copyOf(flags);
        subcommands = List.copyOf(subcommands);
    }

    /** A row not registered yet ({@link #index} -1); {@link CommandTable#register} numbers it. */
    public CommandSpec(String name, int arity, Set<CommandFlag> flags, int firstKey, int lastKey, int step,
                       String group, String since, String summary, Handler handler, List<CommandSpec> subcommands) {
        this(name, arity, flags, firstKey, lastKey, step, group, since, summary, handler, subcommands, -1);
    }

    /** A plain command. */
    public static CommandSpec of(String name, int arity, Set<CommandFlag> flags, int firstKey, int lastKey, int step,
                                 String group, String since, String summary, Handler handler) {
        return new CommandSpec(name, arity, flags, firstKey, lastKey, step, group, since, summary, handler, List.of());
    }

    /** A container command (CLIENT, COMMAND) whose second argument picks a subcommand. */
    public static CommandSpec container(String name, int arity, Set<CommandFlag> flags, String group, String since,
                                        String summary, Handler whenNoSubcommand, List<CommandSpec> subs) {
        return new CommandSpec(name, arity, flags, 0, 0, 0, group, since, summary, whenNoSubcommand, subs);
    }

    public boolean has(CommandFlag f) {
        return flags.contains(f);
    }

    /** Whether {@code argc} satisfies the arity. */
    public boolean arityOk(int argc) {
        return arity >= 0 ? argc == arity : argc >= -arity;
    }

    public boolean isContainer() {
        return !subcommands.isEmpty();
    }

    /** The name after the '|', for subcommands. */
    public String shortName() {
        int bar = name.indexOf('|');
        return bar < 0 ? name : name.substring(bar + 1);
    }
}
