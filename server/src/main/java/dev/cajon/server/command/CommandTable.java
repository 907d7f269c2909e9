package dev.cajon.server.command;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every command Cajon serves, filled by the families' {@code register} methods (one line per
 * command, no classpath scanning). Lookup is case-insensitive on the raw argument bytes and does
 * not allocate: an open-addressing table keyed by the ASCII-lower-cased bytes.
 */
public final class CommandTable {
    private final Map<String, CommandSpec> byName = new LinkedHashMap<>();
    private CommandSpec[] slots = new CommandSpec[256];
    private byte[][] slotNames = new byte[256][];
    /** The next {@link CommandSpec#index()} to give. */
    private int indexes;

    /** Adds the row, numbered: it and each of its subcommands get the next {@link CommandSpec#index()}. */
    public CommandTable register(CommandSpec spec) {
        if (byName.containsKey(spec.name())) {
            throw new IllegalArgumentException("command registered twice: " + spec.name());
        }
        byName.put(spec.name(), numbered(spec));
        rebuild();
        return this;
    }

    private CommandSpec numbered(CommandSpec s) {
        List<CommandSpec> subs = new ArrayList<>(s.subcommands().size());
        for (CommandSpec sub : s.subcommands()) {
            subs.add(new CommandSpec(sub.name(), sub.arity(), sub.flags(), sub.firstKey(), sub.lastKey(), sub.step(),
                    sub.group(), sub.since(), sub.summary(), sub.handler(), sub.subcommands(), indexes++));
        }
        return new CommandSpec(s.name(), s.arity(), s.flags(), s.firstKey(), s.lastKey(), s.step(), s.group(),
                s.since(), s.summary(), s.handler(), subs, indexes++);
    }

    /** Every registered row's {@link CommandSpec#index()} is below this: the size of an array indexed by it. */
    public int indexCount() {
        return indexes;
    }

    public CommandTable registerAll(List<CommandSpec> specs) {
        specs.forEach(this::register);
        return this;
    }

    private void rebuild() {
        int cap = Integer.highestOneBit(Math.max(16, byName.size() * 4) - 1) << 1;
        CommandSpec[] s = new CommandSpec[cap];
        byte[][] n = new byte[cap][];
        for (CommandSpec spec : byName.values()) {
            byte[] name = spec.name().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            int i = hash(name, name.length) & (cap - 1);
            while (s[i] != null) {
                i = (i + 1) & (cap - 1);
            }
            s[i] = spec;
            n[i] = name;
        }
        slots = s;
        slotNames = n;
    }

    private static int lower(byte b) {
        return b >= 'A' && b <= 'Z' ? b | 0x20 : b;
    }

    private static int hash(byte[] b, int len) {
        int h = 0;
        for (int i = 0; i < len; i++) {
            h = 31 * h + lower(b[i]);
        }
        return h ^ (h >>> 16);
    }

    /** The command named by {@code name} (any case), or null. */
    public CommandSpec lookup(byte[] name) {
        if (name.length > 32) {
            return null;
        }
        CommandSpec[] s = slots;
        byte[][] n = slotNames;
        int mask = s.length - 1;
        int i = hash(name, name.length) & mask;
        while (s[i] != null) {
            if (equalsIgnoreCase(n[i], name)) {
                return s[i];
            }
            i = (i + 1) & mask;
        }
        return null;
    }

    /** A subcommand of {@code container} by name (any case), or null. */
    public static CommandSpec lookupSub(CommandSpec container, byte[] sub) {
        for (CommandSpec s : container.subcommands()) {
            byte[] n = s.shortName().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            if (equalsIgnoreCase(n, sub)) {
                return s;
            }
        }
        return null;
    }

    private static boolean equalsIgnoreCase(byte[] lowerName, byte[] b) {
        if (lowerName.length != b.length) {
            return false;
        }
        for (int i = 0; i < b.length; i++) {
            if (lowerName[i] != lower(b[i])) {
                return false;
            }
        }
        return true;
    }

    public CommandSpec get(String name) {
        return byName.get(name.toLowerCase(Locale.ROOT));
    }

    public List<CommandSpec> all() {
        return Collections.unmodifiableList(new ArrayList<>(byName.values()));
    }

    public int size() {
        return byName.size();
    }
}
