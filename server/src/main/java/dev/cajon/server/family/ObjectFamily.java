package dev.cajon.server.family;

import static dev.cajon.server.command.Specs.container;
import static dev.cajon.server.command.Specs.sub;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.command.CommandError;
import dev.cajon.server.command.CommandSpec;
import dev.cajon.server.command.CommandTable;
import dev.cajon.server.command.Ctx;
import java.util.List;

/**
 * OBJECT: what a key's value looks like inside. ENCODING answers Redis's names where Cajon's
 * layout has a fair equivalent (a string: int, embstr or raw by its content; a collection: what
 * its type says, "listpack" while it is kept inline in its key's entry, Redis's big encoding once
 * it has pages). REFCOUNT answers as Redis 7.0 does without an eviction policy (shared integers
 * 0-9999 count as 2147483647, everything else 1). FREQ answers Redis's error for a server without
 * an LFU policy, which is Cajon's case. IDLETIME is not here: Cajon keeps no access time per key.
 */
public final class ObjectFamily {
    private ObjectFamily() {
    }

    static void encoding(Ctx c) {
        String enc = c.keyspace().encoding(c.arg(2));
        c.lookedUp(enc != null);
        if (enc == null) {
            c.nullBulk();
        } else {
            c.bulk(enc.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }
    }

    static void refcount(Ctx c) {
        String enc = c.keyspace().encoding(c.arg(2));
        if (enc == null) {
            c.nullBulk();
            return;
        }
        c.integer(enc.equals("int") && sharedInteger(c.keyspace().strings().get(c.arg(2)))
                ? Integer.MAX_VALUE : 1);
    }

    /** Redis's OBJ_SHARED_INTEGERS: the values 0 to 9999 are one shared object each. */
    private static boolean sharedInteger(dev.cajon.storage.StringValue v) {
        if (v == null || v.isBlob() || v.length() == 0 || v.length() > 4) {
            return false;
        }
        byte[] a = v.array();
        int off = v.offset();
        int n = (int) v.length();
        for (int i = 0; i < n; i++) {
            if (a[off + i] < '0' || a[off + i] > '9') {
                return false;
            }
        }
        return n == 1 || a[off] != '0';
    }

    static void freq(Ctx c) {
        if (c.keyspace().encoding(c.arg(2)) == null) {
            c.nullBulk();
            return;
        }
        throw new CommandError(RedisErrors.OBJECT_FREQ_NEEDS_LFU);
    }

    static void help(Ctx c) {
        c.helpLines(List.of(
                "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "ENCODING <key>",
                "    Return the kind of internal representation used in order to store the value",
                "    associated with a <key>.",
                "FREQ <key>",
                "    Return the access frequency index of the <key>. The returned integer is",
                "    proportional to the logarithm of the recent access frequency of the key.",
                "REFCOUNT <key>",
                "    Return the number of references of the value associated with the specified",
                "    <key>.",
                "HELP",
                "    Prints this help."));
    }

    private static CommandSpec keyed(String name, String since, String summary, dev.cajon.server.command.Handler h) {
        return dev.cajon.server.command.Specs.cmd("object|" + name, 3, "readonly", 2, 2, 1, "generic", since,
                summary, h);
    }

    public static void register(CommandTable t) {
        t.register(container("object", -2, "", "generic", "2.2.3", "A container for object introspection commands",
                null, List.of(
                        keyed("encoding", "2.2.3", "Inspect the internal encoding of a Redis object", ObjectFamily::encoding),
                        keyed("freq", "4.0.0", "Get the logarithmic access frequency counter of a Redis object", ObjectFamily::freq),
                        keyed("refcount", "2.2.3", "Get the number of references to the value of the key", ObjectFamily::refcount),
                        sub("object", "help", 2, "loading stale", "6.2.0", "Show helpful text about the different subcommands",
                                ObjectFamily::help))));
    }
}
