package dev.cajon.server.compat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Looser comparisons for the hash and set commands, whose element order is Redis's encoding's
 * (insertion order in a listpack, a hash table's buckets) and Cajon's layout's (the fields'
 * 64-bit hash): the same RESP type and count, and the same elements in any order. The random
 * commands (HRANDFIELD, SRANDMEMBER, SPOP) are compared by what both answers must satisfy.
 */
final class CollectionChecks {
    private CollectionChecks() {
    }

    private static String s(Reply r) {
        return new String(r.raw(), StandardCharsets.ISO_8859_1);
    }

    /** The elements in groups of {@code unit} (2: a map's or a flat pair list's pairs), sorted. */
    private static List<String> units(Reply r, int unit) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i + unit - 1 < r.elements().size(); i += unit) {
            StringBuilder sb = new StringBuilder();
            for (int j = 0; j < unit; j++) {
                sb.append(s(r.element(i + j)));
            }
            out.add(sb.toString());
        }
        Collections.sort(out);
        return out;
    }

    private static Check unordered(int unit) {
        return (r, c) -> {
            if (r.type() != c.type() || r.isNull() != c.isNull() || r.elements().size() != c.elements().size()) {
                return "types or sizes differ";
            }
            if (!r.isAggregate()) {
                return java.util.Arrays.equals(r.raw(), c.raw()) ? null : "replies differ";
            }
            return units(r, unit).equals(units(c, unit)) ? null : "the elements differ (in any order)";
        };
    }

    /** An array or set of members: the same ones in any order. */
    static final Check UNORDERED = unordered(1);

    /** HGETALL (a map, or RESP2's flat array): the same pairs in any order. */
    static final Check UNORDERED_PAIRS = unordered(2);

    /** A whole scan in one reply (a small hash or set): cursor identical, the elements in any order. */
    static Check scanWhole(boolean pairs) {
        Check inner = pairs ? UNORDERED_PAIRS : UNORDERED;
        return (r, c) -> {
            if (!r.isArray() || !c.isArray() || r.elements().size() != 2 || c.elements().size() != 2) {
                return java.util.Arrays.equals(r.raw(), c.raw()) ? null : "replies differ";
            }
            if (!java.util.Arrays.equals(r.element(0).raw(), c.element(0).raw())) {
                return "cursors differ";
            }
            return inner.compare(r.element(1), c.element(1));
        };
    }

    /**
     * A random pick: both replies have the same shape (type, count, nesting); each element (or
     * each first of a pair, with {@code pairs}) is one of {@code universe}; with {@code distinct},
     * none repeats.
     */
    static Check randomPick(Set<String> universe, boolean distinct, boolean pairs) {
        return (r, c) -> {
            if (!r.shape().equals(c.shape())) {
                return "shapes differ: redis " + r.shape() + ", cajon " + c.shape();
            }
            for (Reply x : new Reply[] {r, c}) {
                String who = x == r ? "redis" : "cajon";
                List<String> picked = new ArrayList<>();
                if (!x.isAggregate()) {
                    if (!x.isNull()) {
                        picked.add(new String(x.payload(), StandardCharsets.ISO_8859_1));
                    }
                } else {
                    for (int i = 0; i < x.elements().size(); i += pairs && !x.element(0).isAggregate() ? 2 : 1) {
                        Reply e = x.element(i);
                        Reply first = e.isAggregate() ? e.element(0) : e;
                        picked.add(new String(first.payload(), StandardCharsets.ISO_8859_1));
                    }
                }
                for (String p : picked) {
                    if (!universe.contains(p)) {
                        return who + " picked " + p + ", which is not a member";
                    }
                }
                if (distinct && new HashSet<>(picked).size() != picked.size()) {
                    return who + " repeated a member";
                }
            }
            return null;
        };
    }

    /** Every member a full scan with {@code count} returns, calling until cursor 0 (bounded). */
    static List<String> scanAll(RespClient client, String cmd, String key, String count, boolean pairs)
            throws IOException {
        List<String> out = new ArrayList<>();
        String cursor = "0";
        for (int calls = 0; calls < 100_000; calls++) {
            Reply r = client.call(cmd, key, cursor, "COUNT", count);
            cursor = new String(r.element(0).payload(), StandardCharsets.ISO_8859_1);
            Reply items = r.element(1);
            for (int i = 0; i < items.elements().size(); i += pairs ? 2 : 1) {
                out.add(new String(items.element(i).payload(), StandardCharsets.ISO_8859_1));
            }
            if (cursor.equals("0")) {
                return out;
            }
        }
        throw new IOException(cmd + " did not finish");
    }
}
