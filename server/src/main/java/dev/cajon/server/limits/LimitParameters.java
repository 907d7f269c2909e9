package dev.cajon.server.limits;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.ServerContext;
import dev.cajon.server.command.CommandError;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * CONFIG GET and SET of the connection limits, with Redis 7.0's value formats, ranges and error
 * texts. A change applies to the next command of every connection (the decoder reads the bulk
 * and query-buffer limits at each header), to the next connection (maxclients, tcp-keepalive,
 * protected-mode) or to the next sweep (timeout), as in Redis.
 */
public final class LimitParameters {
    private LimitParameters() {
    }

    /** The other classes of client-output-buffer-limit, which Cajon has no clients of: shown as in Redis. */
    private static volatile String others = "slave 268435456 67108864 60 pubsub 33554432 8388608 60";

    public static final Set<String> NAMES = Set.of("maxclients", "timeout", "tcp-keepalive", "proto-max-bulk-len",
            "client-query-buffer-limit", "client-output-buffer-limit", "protected-mode");

    public static void addGetters(Map<String, Function<ServerContext, String>> p) {
        for (String n : new String[] {"maxclients", "timeout", "tcp-keepalive", "proto-max-bulk-len",
            "client-query-buffer-limit", "client-output-buffer-limit", "protected-mode"}) {
            p.put(n, s -> value(s.netLimits(), n));
        }
    }

    /** The value of one of {@link #NAMES} as CONFIG GET shows it. */
    public static String value(NetLimits l, String name) {
        switch (name) {
            case "maxclients":
                return Integer.toString(l.maxclients());
            case "timeout":
                return Integer.toString(l.timeout());
            case "tcp-keepalive":
                return Integer.toString(l.tcpKeepalive());
            case "proto-max-bulk-len":
                return Long.toString(l.protoMaxBulkLen());
            case "client-query-buffer-limit":
                return Long.toString(l.clientQueryBufferLimit());
            case "client-output-buffer-limit":
                return normalOutputLimit(l) + " " + others;
            case "protected-mode":
                return l.protectedMode() ? "yes" : "no";
            default:
                throw new IllegalArgumentException(name);
        }
    }

    /** "normal HARD SOFT SECONDS" of client-output-buffer-limit. */
    public static String normalOutputLimit(NetLimits l) {
        return "normal " + l.outputHard() + " " + l.outputSoft() + " " + l.outputSoftSeconds();
    }

    /** A refusal of {@link #prepare}, integer or memory for {@code name}: its reason alone (what a config file error shows). */
    public static String reason(byte[] name, CommandError e) {
        String prefix = RedisErrors.configSetFailed(name, "");
        String m = e.getMessage();
        return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
    }

    private static CommandError invalid(byte[] name, String reason) {
        return new CommandError(RedisErrors.configSetFailed(name, reason));
    }

    /**
     * Checks one CONFIG SET pair; returns the change, to run once every pair is checked, or throws
     * Redis's error for the value.
     */
    public static Runnable prepare(ServerContext s, byte[] name, byte[] rawValue) {
        return prepare(s.netLimits(), name, rawValue, true);
    }

    /**
     * The same check for {@code l}; {@code live} false (a config file read before the server
     * starts) skips the open files check, which the launcher's raising of the limit settles, and
     * leaves the shown classes other than normal alone.
     */
    public static Runnable prepare(NetLimits l, byte[] name, byte[] rawValue, boolean live) {
        String n = new String(name, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        String v = new String(rawValue, StandardCharsets.ISO_8859_1);
        switch (n) {
            case "maxclients": {
                long c = integer(name, v, 1, 4294967295L);
                long fd = live ? FdLimit.current() : -1;
                if (fd > 0 && fd != Long.MAX_VALUE && NetLimits.descriptorsFor((int) Math.min(c, Integer.MAX_VALUE)) > fd) {
                    throw invalid(name,
                            "The operating system is not able to handle the specified number of clients, try with "
                                    + FdLimit.fit(Integer.MAX_VALUE, fd));
                }
                return () -> l.maxclients((int) Math.min(c, Integer.MAX_VALUE));
            }
            case "timeout": {
                long t = integer(name, v, 0, Integer.MAX_VALUE);
                return () -> l.timeout((int) t);
            }
            case "tcp-keepalive": {
                long t = integer(name, v, 0, Integer.MAX_VALUE);
                return () -> l.tcpKeepalive((int) t);
            }
            case "proto-max-bulk-len": {
                long b = memory(name, v, 1L << 20);
                return () -> l.protoMaxBulkLen(b);
            }
            case "client-query-buffer-limit": {
                long b = memory(name, v, 1L << 20);
                return () -> l.clientQueryBufferLimit(b);
            }
            case "protected-mode": {
                boolean yes = yesNo(name, v);
                return () -> l.protectedMode(yes);
            }
            case "client-output-buffer-limit":
                return outputLimit(l, name, v, live);
            default:
                return null;
        }
    }

    /** "class hard soft seconds" repeated, as Redis's updateClientOutputBufferLimit. */
    private static Runnable outputLimit(NetLimits l, byte[] name, String v, boolean live) {
        String[] f = v.trim().isEmpty() ? new String[0] : v.trim().split("\\s+");
        if (f.length == 0 || f.length % 4 != 0) {
            throw invalid(name, "Wrong number of arguments in buffer limit configuration.");
        }
        long[] normal = null;
        StringBuilder rest = new StringBuilder();
        String[] current = others.split(" ");
        String slave = current[0] + " " + current[1] + " " + current[2] + " " + current[3];
        String pubsub = current[4] + " " + current[5] + " " + current[6] + " " + current[7];
        for (int i = 0; i < f.length; i += 4) {
            String cls = f[i].toLowerCase(Locale.ROOT);
            if (!cls.equals("normal") && !cls.equals("slave") && !cls.equals("replica") && !cls.equals("pubsub")) {
                throw invalid(name, "Invalid client class specified in buffer limit configuration.");
            }
            long hard = MemorySize.parse(f[i + 1]);
            long soft = MemorySize.parse(f[i + 2]);
            long secs = seconds(f[i + 3]);
            if (hard < 0 || soft < 0 || secs < 0) {
                throw invalid(name,
                        "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
            }
            String shown = hard + " " + soft + " " + secs;
            if (cls.equals("normal")) {
                normal = new long[] {hard, soft, secs};
            } else if (cls.equals("pubsub")) {
                pubsub = "pubsub " + shown;
            } else {
                slave = "slave " + shown;
            }
        }
        rest.append(slave).append(' ').append(pubsub);
        long[] n = normal;
        return () -> {
            if (n != null) {
                l.outputLimit(n[0], n[1], (int) Math.min(n[2], Integer.MAX_VALUE));
            }
            if (live) {
                others = rest.toString();
            }
        };
    }

    private static long seconds(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** An integer in [min, max], else Redis's error for it. */
    public static long integer(byte[] name, String v, long min, long max) {
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw invalid(name, "argument couldn't be parsed into an integer");
        }
        if (n < min || n > max) {
            throw invalid(name,
                    "argument must be between " + min + " and " + max + " inclusive");
        }
        return n;
    }

    /** A boolean parameter's yes or no (any case), else Redis's error for it. */
    public static boolean yesNo(byte[] name, String v) {
        String y = v.toLowerCase(Locale.ROOT);
        if (!y.equals("yes") && !y.equals("no")) {
            throw invalid(name, "argument must be 'yes' or 'no'");
        }
        return y.equals("yes");
    }

    /** Redis's reason for an enum parameter's value that is none of {@code values} (in Redis's order). */
    public static String oneOf(List<String> values) {
        return "argument(s) must be one of the following: " + String.join(", ", values);
    }

    /**
     * The index of an enum parameter's value in {@code values} (any case), else Redis's error for
     * it.
     */
    public static int enumValue(byte[] name, String v, List<String> values) {
        int i = values.indexOf(v.toLowerCase(Locale.ROOT));
        if (i < 0) {
            throw invalid(name, oneOf(values));
        }
        return i;
    }

    /** A memory value (1mb, 1gb, bytes) of at least min, else Redis's error for it. */
    public static long memory(byte[] name, String v, long min) {
        long n = MemorySize.parse(v);
        if (n < 0) {
            throw invalid(name, "argument must be a memory value");
        }
        if (n < min) {
            throw invalid(name,
                    "argument must be between " + min + " and " + Long.MAX_VALUE + " inclusive");
        }
        return n;
    }
}
