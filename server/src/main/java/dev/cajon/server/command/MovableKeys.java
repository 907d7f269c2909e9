package dev.cajon.server.command;

import dev.cajon.protocol.Argv;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The keys of a command flagged {@code movablekeys}, whose key positions (0, 0, 0 in the table,
 * as in Redis's COMMAND INFO) come from a numkeys argument: Redis's key specs of the
 * "keynum" kind, for the commands Cajon has. The transaction footprint reads them.
 */
public final class MovableKeys {
    /** Where numkeys is, and the fixed key before it (a STORE destination), or 0. */
    private record Keynum(int numkeysAt, int fixedKey) {
    }

    private static final Map<String, Keynum> KEYNUM = Map.ofEntries(
            Map.entry("lmpop", new Keynum(1, 0)),
            Map.entry("blmpop", new Keynum(2, 0)),
            Map.entry("zmpop", new Keynum(1, 0)),
            Map.entry("bzmpop", new Keynum(2, 0)),
            Map.entry("sintercard", new Keynum(1, 0)),
            Map.entry("zintercard", new Keynum(1, 0)),
            Map.entry("zunion", new Keynum(1, 0)),
            Map.entry("zinter", new Keynum(1, 0)),
            Map.entry("zdiff", new Keynum(1, 0)),
            Map.entry("zunionstore", new Keynum(2, 1)),
            Map.entry("zinterstore", new Keynum(2, 1)),
            Map.entry("zdiffstore", new Keynum(2, 1)));

    private MovableKeys() {
    }

    /**
     * The keys {@code argv} names, or null when this command's keys are not known here (the
     * caller must then assume any key). A bad numkeys gives no keys: the command will fail.
     */
    public static List<byte[]> keys(CommandSpec spec, Argv argv) {
        Keynum k = KEYNUM.get(spec.name());
        if (k == null) {
            return null;
        }
        List<byte[]> out = new ArrayList<>();
        if (k.fixedKey() > 0 && k.fixedKey() < argv.argc()) {
            out.add(argv.arg(k.fixedKey()));
        }
        if (k.numkeysAt() >= argv.argc()) {
            return out;
        }
        long n;
        try {
            n = ArgCursor.parseLong(argv.arg(k.numkeysAt()));
        } catch (CommandError e) {
            return out;
        }
        for (long i = 0; i < n && k.numkeysAt() + 1 + i < argv.argc(); i++) {
            out.add(argv.arg((int) (k.numkeysAt() + 1 + i)));
        }
        return out;
    }
}
