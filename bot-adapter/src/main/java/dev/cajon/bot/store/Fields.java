package dev.cajon.bot.store;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The persisted form of every record the adapter keeps: a version line, then one
 * {@code name=value} line per field, with {@code %}, newline and carriage return escaped as
 * {@code %25}, {@code %0A} and {@code %0D}. Readable with redis-cli, and versioned: a new field
 * is added, never renamed, and a reader ignores the fields it does not know.
 *
 * <p>What must stay true: {@link #VERSION} is the first line; {@link #decode} of
 * {@link #encode} gives the same fields back (a test pins the bytes).
 */
public final class Fields {
    public static final String VERSION = "cajon-bot/1";
    private final Map<String, String> map = new LinkedHashMap<>();

    public static Fields of() {
        return new Fields();
    }

    public Fields put(String name, String value) {
        if (value == null) {
            map.remove(name);
        } else {
            map.put(name, value);
        }
        return this;
    }

    public Fields put(String name, long value) {
        return put(name, Long.toString(value));
    }

    public String get(String name) {
        return map.get(name);
    }

    public String get(String name, String dflt) {
        return map.getOrDefault(name, dflt);
    }

    public long getLong(String name, long dflt) {
        String v = map.get(name);
        return v == null ? dflt : Long.parseLong(v);
    }

    public Fields copy() {
        Fields f = new Fields();
        f.map.putAll(map);
        return f;
    }

    public String encode() {
        StringBuilder sb = new StringBuilder(64).append(VERSION);
        for (Map.Entry<String, String> e : map.entrySet()) {
            sb.append('\n').append(e.getKey()).append('=');
            escape(sb, e.getValue());
        }
        return sb.toString();
    }

    /** The fields of an encoded record, or null for null (an absent key). */
    public static Fields decode(String s) {
        if (s == null) {
            return null;
        }
        String[] lines = s.split("\n", -1);
        if (!lines[0].equals(VERSION)) {
            throw new IllegalStateException("not a " + VERSION + " record: " + lines[0]);
        }
        Fields f = new Fields();
        for (int i = 1; i < lines.length; i++) {
            int eq = lines[i].indexOf('=');
            f.map.put(lines[i].substring(0, eq), unescape(lines[i].substring(eq + 1)));
        }
        return f;
    }

    private static void escape(StringBuilder sb, String v) {
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            switch (c) {
                case '%' -> sb.append("%25");
                case '\n' -> sb.append("%0A");
                case '\r' -> sb.append("%0D");
                default -> sb.append(c);
            }
        }
    }

    private static String unescape(String v) {
        if (v.indexOf('%') < 0) {
            return v;
        }
        StringBuilder sb = new StringBuilder(v.length());
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '%' && i + 2 < v.length()) {
                sb.append((char) Integer.parseInt(v.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return map.toString();
    }
}
