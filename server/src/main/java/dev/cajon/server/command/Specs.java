package dev.cajon.server.command;

import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Short forms for the families' registration tables. */
public final class Specs {
    private Specs() {
    }

    /** Parses "write denyoom fast" into flags. */
    public static Set<CommandFlag> flags(String spaceSeparated) {
        EnumSet<CommandFlag> s = EnumSet.noneOf(CommandFlag.class);
        for (String f : spaceSeparated.trim().split("\\s+")) {
            if (!f.isEmpty()) {
                s.add(CommandFlag.valueOf(f.toUpperCase(Locale.ROOT)));
            }
        }
        return s;
    }

    public static CommandSpec cmd(String name, int arity, String flags, int first, int last, int step,
                                  String group, String since, String summary, Handler h) {
        return CommandSpec.of(name, arity, flags(flags), first, last, step, group, since, summary, h);
    }

    /** A subcommand row; its name becomes "parent|sub". */
    public static CommandSpec sub(String parent, String name, int arity, String flags, String since, String summary,
                                  Handler h) {
        return CommandSpec.of(parent + "|" + name, arity, flags(flags), 0, 0, 0, "connection", since, summary, h);
    }

    /** A container command; its subcommands take the container's documentation group. */
    public static CommandSpec container(String name, int arity, String flags, String group, String since,
                                        String summary, Handler bare, List<CommandSpec> subs) {
        List<CommandSpec> grouped = subs.stream()
                .map(s -> CommandSpec.of(s.name(), s.arity(), s.flags(), s.firstKey(), s.lastKey(), s.step(), group,
                        s.since(), s.summary(), s.handler()))
                .toList();
        return CommandSpec.container(name, arity, flags(flags), group, since, summary, bare, grouped);
    }
}
