package dev.cajon.server.config;

import dev.cajon.server.ServerContext;
import dev.cajon.server.limits.LimitParameters;
import dev.cajon.storage.EncodingLimits;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * CONFIG GET and SET of the data types' encoding parameters, with Redis 7.0's names (and their
 * older ziplist aliases, which name the same setting), value formats, ranges and error texts.
 * Tools and test suites set these before they start (Redis's own test suite sets them for each
 * of its type units, and a CONFIG SET it cannot make stops the unit).
 *
 * <p>The thresholds of the hash, set and sorted set encodings are honoured: OBJECT ENCODING
 * answers "hashtable", "intset" or "skiplist" by them ({@link EncodingLimits}), from the next
 * write of each collection, as in Redis. The others are kept and shown but change nothing,
 * because Cajon has nothing they act on: {@code list-max-listpack-size} and
 * {@code list-compress-depth} (a list's layout is Cajon's own, and Redis 7.0 names every list
 * "quicklist"), {@code sanitize-dump-payload} (no DUMP or RESTORE), the {@code lazyfree-lazy-*}
 * switches other than {@code lazyfree-lazy-user-del} (which makes DEL free as UNLINK does, as in
 * Redis; the others' deletes are done where they are asked for), and {@code hz} (Redis's cron frequency,
 * kept within 1..500 as Redis does; Cajon has no cron). Settings are process-wide, like Redis's,
 * and start at Redis's defaults; the config file and CONFIG REWRITE do not carry them.
 */
public final class TypeParameters {
    private TypeParameters() {
    }

    private enum Kind { INTEGER, MEMORY, INT32, DEPTH, BOOL, SANITIZE, HZ }

    private record Param(String name, Kind kind, LongSupplier get, LongConsumer set) {}

    /** Values of the parameters that change nothing, by canonical name. */
    private static final Map<String, Long> KEPT = new ConcurrentHashMap<>();

    private static Param kept(String name, Kind kind, long dflt) {
        KEPT.put(name, dflt);
        return new Param(name, kind, () -> KEPT.get(name), v -> KEPT.put(name, v));
    }

    /** {@code lazyfree-lazy-user-del yes}: DEL frees a big collection's pages in the background, as UNLINK. */
    public static boolean lazyUserDel() {
        Long v = KEPT.get("lazyfree-lazy-user-del");
        return v != null && v != 0;
    }

    /** By every name a client may use (canonical and alias), lower case. */
    private static final Map<String, Param> PARAMS = params();

    private static Map<String, Param> params() {
        Map<String, Param> p = new java.util.LinkedHashMap<>();
        Param he = new Param("hash-max-listpack-entries", Kind.INTEGER, EncodingLimits::hashEntries, EncodingLimits::hashEntries);
        Param hv = new Param("hash-max-listpack-value", Kind.MEMORY, EncodingLimits::hashValue, EncodingLimits::hashValue);
        Param si = new Param("set-max-intset-entries", Kind.INTEGER, EncodingLimits::setIntsetEntries, EncodingLimits::setIntsetEntries);
        Param ze = new Param("zset-max-listpack-entries", Kind.INTEGER, EncodingLimits::zsetEntries, EncodingLimits::zsetEntries);
        Param zv = new Param("zset-max-listpack-value", Kind.MEMORY, EncodingLimits::zsetValue, EncodingLimits::zsetValue);
        Param ls = kept("list-max-listpack-size", Kind.INT32, -2);
        p.put(he.name, he);
        p.put("hash-max-ziplist-entries", he);
        p.put(hv.name, hv);
        p.put("hash-max-ziplist-value", hv);
        p.put(si.name, si);
        p.put(ze.name, ze);
        p.put("zset-max-ziplist-entries", ze);
        p.put(zv.name, zv);
        p.put("zset-max-ziplist-value", zv);
        p.put(ls.name, ls);
        p.put("list-max-ziplist-size", ls);
        p.put("list-compress-depth", kept("list-compress-depth", Kind.DEPTH, 0));
        p.put("sanitize-dump-payload", kept("sanitize-dump-payload", Kind.SANITIZE, 0));
        // Redis's cron frequency: Cajon has no cron (its expiry reapers plan their own wake-ups)
        p.put("hz", kept("hz", Kind.HZ, 10));
        for (String n : new String[] {"lazyfree-lazy-eviction", "lazyfree-lazy-expire", "lazyfree-lazy-server-del",
            "lazyfree-lazy-user-del", "lazyfree-lazy-user-flush"}) {
            p.put(n, kept(n, Kind.BOOL, 0));
        }
        return p;
    }

    public static final Set<String> NAMES = PARAMS.keySet();

    private static final java.util.List<String> SANITIZE = java.util.List.of("no", "yes", "clients");

    /** Adds a getter per name (alias names too, as Redis 7.0's CONFIG GET shows both). */
    public static void addGetters(Map<String, Function<ServerContext, String>> getters) {
        PARAMS.forEach((n, p) -> getters.put(n, s -> shown(p)));
    }

    private static String shown(Param p) {
        long v = p.get.getAsLong();
        switch (p.kind) {
            case BOOL:
                return v != 0 ? "yes" : "no";
            case SANITIZE:
                return SANITIZE.get((int) v);
            default:
                return Long.toString(v);
        }
    }

    /**
     * Checks one CONFIG SET pair of one of {@link #NAMES}; returns the change, to run once every
     * pair is checked, or throws Redis's error for the value (naming the parameter as given).
     */
    public static Runnable prepare(byte[] name, byte[] rawValue) {
        Param p = PARAMS.get(new String(name, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT));
        String v = new String(rawValue, StandardCharsets.ISO_8859_1);
        long n;
        switch (p.kind) {
            case INTEGER:
                n = LimitParameters.integer(name, v, 0, Long.MAX_VALUE);
                break;
            case MEMORY:
                n = LimitParameters.memory(name, v, 0);
                break;
            case INT32:
                n = LimitParameters.integer(name, v, Integer.MIN_VALUE, Integer.MAX_VALUE);
                break;
            case DEPTH:
                n = LimitParameters.integer(name, v, 0, Integer.MAX_VALUE);
                break;
            case HZ:
                // Redis keeps it within 1..500 and shows the kept value
                n = Math.max(1, Math.min(500, LimitParameters.integer(name, v, 0, Integer.MAX_VALUE)));
                break;
            case BOOL:
                n = LimitParameters.yesNo(name, v) ? 1 : 0;
                break;
            default:
                n = LimitParameters.enumValue(name, v, SANITIZE);
        }
        long value = n;
        return () -> p.set.accept(value);
    }

    /** Every parameter back to Redis's default (a new server in the same process: tests). */
    public static void reset() {
        EncodingLimits.reset();
        KEPT.replaceAll((k, v) -> k.equals("list-max-listpack-size") ? -2L : k.equals("hz") ? 10L : 0L);
    }
}
