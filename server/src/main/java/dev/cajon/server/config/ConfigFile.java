package dev.cajon.server.config;

import dev.cajon.server.Version;
import dev.cajon.server.limits.LimitParameters;
import dev.cajon.server.limits.NetLimits;
import dev.cajon.server.limits.NetSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A {@code --config} file: redis.conf's syntax ({@code name value} lines, {@code #} comments,
 * blank lines, values quoted with "..." or '...' as redis-server's sdssplitargs reads them, names
 * in any case; the last line of a name wins). Each directive is one of Cajon's start options,
 * named as its flag without the dashes. Values are checked where CONFIG SET checks them
 * ({@link LimitParameters}), with Redis's reasons.
 */
public final class ConfigFile {
    private ConfigFile() {
    }

    /** The directives a file may hold; each is also the start option {@code --NAME}. */
    public static final Set<String> NAMES = Set.of("bind", "port", "dir", "requirepass", "maxclients", "timeout",
            "tcp-keepalive", "proto-max-bulk-len", "client-query-buffer-limit", "client-output-buffer-limit",
            "protected-mode", "app-max-keys", "app-max-bytes", "max-open-keyspaces", "keyspace-idle", "metrics-port",
            "metrics-bind", "io-threads", "appendfsync", "min-free-disk");

    /** Redis's reason for a value of appendfsync that is none of its three words, in Redis's order. */
    public static final String APPENDFSYNC_VALUES = LimitParameters.oneOf(java.util.List.of("everysec", "always", "no"));

    /** A line that stops the start, shown as redis-server shows it. */
    public static final class Error extends Exception {
        private static final long serialVersionUID = 1L;
        public final int line;
        public final String text;
        public final String reason;

        Error(int line, String text, String reason) {
            super("line " + line + ": " + reason);
            this.line = line;
            this.text = text;
            this.reason = reason;
        }

        /** What redis-server prints to stderr before it exits with 1. */
        public String fatal() {
            return "\n*** FATAL CONFIG FILE ERROR (Redis " + Version.REDIS_COMPAT + ") ***\n"
                    + "Reading the configuration file, at line " + line + "\n"
                    + ">>> '" + text + "'\n"
                    + reason + "\n";
        }
    }

    /** The file's values, name to value as CONFIG GET shows it (memory values in bytes), in file order. */
    public static Map<String, String> read(Path file) throws IOException, Error {
        return parse(Files.readAllLines(file, StandardCharsets.UTF_8));
    }

    static Map<String, String> parse(List<String> lines) throws Error {
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String t = trim(lines.get(i));
            if (t.isEmpty() || t.charAt(0) == '#') {
                continue;
            }
            List<String> args = split(t);
            if (args == null) {
                throw new Error(i + 1, t, "Unbalanced quotes in configuration line");
            }
            if (args.isEmpty()) {
                continue;
            }
            String name = args.get(0).toLowerCase(Locale.ROOT);
            if (name.equals("include")) {
                throw new Error(i + 1, t, "include is not supported by Cajon: put the included lines in this file");
            }
            try {
                // the last line wins, and is the one in order; a client-output-buffer-limit line
                // changes only the classes it names (the stock redis.conf has one line per class)
                String before = values.remove(name);
                values.put(name, canonical(name, args.subList(1, args.size()), before));
            } catch (IllegalArgumentException e) {
                throw new Error(i + 1, t, e.getMessage());
            }
        }
        return values;
    }

    /**
     * The value of directive {@code name} with arguments {@code args}, as CONFIG GET shows it
     * ({@code client-output-buffer-limit}: its normal class); IllegalArgumentException with the
     * reason when the line is wrong.
     */
    static String canonical(String name, List<String> args) {
        return canonical(name, args, null);
    }

    /** {@code before}: the value an earlier line gave, which a line naming other classes keeps. */
    static String canonical(String name, List<String> args, String before) {
        boolean variadic = name.equals("client-output-buffer-limit");
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException("Bad directive or wrong number of arguments");
        }
        if (name.equals("bind") && args.size() > 1) {
            throw new IllegalArgumentException("Cajon listens on one address: give bind a single address");
        }
        if (variadic ? args.isEmpty() : args.size() != 1) {
            throw new IllegalArgumentException("wrong number of arguments");
        }
        String v = String.join(" ", args);
        byte[] n = name.getBytes(StandardCharsets.ISO_8859_1);
        try {
            switch (name) {
                case "bind":
                case "requirepass":
                case "metrics-bind":
                    return v;
                case "dir":
                    return Path.of(v).toAbsolutePath().normalize().toString();
                case "port":
                case "metrics-port":
                    return Long.toString(LimitParameters.integer(n, v, 0, 65535));
                case "io-threads":
                    return Long.toString(LimitParameters.integer(n, v, 0, 1024));
                case "max-open-keyspaces":
                    return Long.toString(LimitParameters.integer(n, v, 1, Integer.MAX_VALUE));
                case "keyspace-idle":
                    return Long.toString(LimitParameters.integer(n, v, 0, Integer.MAX_VALUE));
                case "app-max-keys":
                    return Long.toString(LimitParameters.integer(n, v, 0, Long.MAX_VALUE));
                case "app-max-bytes":
                case "min-free-disk":
                    return Long.toString(LimitParameters.memory(n, v, 0));
                case "appendfsync": {
                    dev.cajon.storage.durability.FsyncPolicy p = dev.cajon.storage.durability.FsyncPolicy.parse(v);
                    if (p == null) {
                        throw new IllegalArgumentException(APPENDFSYNC_VALUES);
                    }
                    return p.word();
                }
                default: {
                    // the connection limits: CONFIG SET's own check, on a scratch copy of the defaults
                    NetLimits scratch = new NetLimits(NetSettings.defaults());
                    if (variadic && before != null) {
                        LimitParameters.prepare(scratch, n, before.getBytes(StandardCharsets.ISO_8859_1), false).run();
                    }
                    LimitParameters.prepare(scratch, n, v.getBytes(StandardCharsets.ISO_8859_1), false).run();
                    return variadic ? LimitParameters.normalOutputLimit(scratch) : LimitParameters.value(scratch, name);
                }
            }
        } catch (dev.cajon.server.command.CommandError e) {
            throw new IllegalArgumentException(LimitParameters.reason(n, e));
        } catch (java.nio.file.InvalidPathException e) {
            throw new IllegalArgumentException("Invalid directory: " + e.getMessage());
        }
    }

    /** redis.conf's line trim: spaces, tabs, CR and LF at both ends. */
    static String trim(String s) {
        int a = 0;
        int b = s.length();
        while (a < b && " \t\r\n".indexOf(s.charAt(a)) >= 0) {
            a++;
        }
        while (b > a && " \t\r\n".indexOf(s.charAt(b - 1)) >= 0) {
            b--;
        }
        return s.substring(a, b);
    }

    private static boolean space(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0b;
    }

    private static int hex(char c) {
        return Character.digit(c, 16);
    }

    /** Redis's sdssplitargs: the arguments of a line, or null when its quotes are unbalanced. */
    static List<String> split(String line) {
        List<String> out = new ArrayList<>();
        int p = 0;
        int len = line.length();
        while (true) {
            while (p < len && space(line.charAt(p))) {
                p++;
            }
            if (p >= len) {
                return out;
            }
            boolean inq = false;
            boolean insq = false;
            StringBuilder cur = new StringBuilder();
            while (true) {
                char c = p < len ? line.charAt(p) : 0;
                char next = p + 1 < len ? line.charAt(p + 1) : 0;
                if (inq) {
                    if (c == '\\' && next == 'x' && p + 3 < len && hex(line.charAt(p + 2)) >= 0 && hex(line.charAt(p + 3)) >= 0) {
                        cur.append((char) (hex(line.charAt(p + 2)) * 16 + hex(line.charAt(p + 3))));
                        p += 3;
                    } else if (c == '\\' && next != 0) {
                        p++;
                        switch (next) {
                            case 'n': cur.append('\n'); break;
                            case 'r': cur.append('\r'); break;
                            case 't': cur.append('\t'); break;
                            case 'b': cur.append('\b'); break;
                            case 'a': cur.append((char) 7); break;
                            default: cur.append(next); break;
                        }
                    } else if (c == '"') {
                        if (next != 0 && !space(next)) {
                            return null; // a closing quote must be followed by a space or the end
                        }
                        p++;
                        break;
                    } else if (p >= len) {
                        return null;
                    } else {
                        cur.append(c);
                    }
                } else if (insq) {
                    if (c == '\\' && next == '\'') {
                        p++;
                        cur.append('\'');
                    } else if (c == '\'') {
                        if (next != 0 && !space(next)) {
                            return null;
                        }
                        p++;
                        break;
                    } else if (p >= len) {
                        return null;
                    } else {
                        cur.append(c);
                    }
                } else if (p >= len || space(c)) {
                    break;
                } else if (c == '"') {
                    inq = true;
                } else if (c == '\'') {
                    insq = true;
                } else {
                    cur.append(c);
                }
                p++;
            }
            out.add(cur.toString());
        }
    }
}
