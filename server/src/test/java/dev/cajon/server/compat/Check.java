package dev.cajon.server.compat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * How a scenario step compares Redis's reply with Cajon's. Returns null when they agree, else a
 * short explanation (the replies themselves are printed by the scenario).
 */
@FunctionalInterface
interface Check {
    String compare(Reply redis, Reply cajon);

    /** Of two INFO stats replies: the same keyspace_hits and keyspace_misses (the read commands' lookups). */
    Check SAME_HITS_AND_MISSES = (r, c) -> {
        String rh = hitsAndMisses(r);
        if (!rh.contains("keyspace_misses:")) {
            return "no keyspace_misses in Redis's INFO stats";
        }
        String ch = hitsAndMisses(c);
        return rh.equals(ch) ? null : "redis " + rh + ", cajon " + ch;
    };

    private static String hitsAndMisses(Reply info) {
        StringBuilder sb = new StringBuilder();
        for (String line : new String(info.payload(), StandardCharsets.UTF_8).split("\r\n")) {
            if (line.startsWith("keyspace_hits:") || line.startsWith("keyspace_misses:")) {
                sb.append(line).append(' ');
            }
        }
        return sb.toString().trim();
    }

    /** Byte-identical: the default. */
    Check EXACT = (r, c) -> Arrays.equals(r.raw(), c.raw()) ? null : "replies differ";

    /**
     * Same RESP type, null-ness and array element counts; values are not compared. For replies
     * that are legitimately nondeterministic (TIME, CLIENT ID, INFO, RANDOMKEY, COMMAND COUNT).
     */
    Check SHAPE = (r, c) -> r.shape().equals(c.shape()) ? null
            : "shapes differ: redis " + r.shape() + ", cajon " + c.shape();

    /**
     * Both replies are integers within {@code tolerance} of {@code expected}: TTL and PTTL, whose
     * values depend on when each server ran the command.
     */
    static Check within(long expected, long tolerance) {
        return (r, c) -> {
            if (!r.isInteger() || !c.isInteger()) {
                return "expected two integer replies near " + expected;
            }
            StringBuilder sb = new StringBuilder();
            if (Math.abs(r.integer() - expected) > tolerance) {
                sb.append("redis is not within ").append(tolerance).append(" of ").append(expected).append("; ");
            }
            if (Math.abs(c.integer() - expected) > tolerance) {
                sb.append("cajon is not within ").append(tolerance).append(" of ").append(expected);
            }
            return sb.length() == 0 ? null : sb.toString();
        };
    }

    /**
     * Both are integers within {@code tolerance} of each other (used when the expected value is
     * only known to the servers, e.g. a TTL near LLONG_MAX).
     */
    static Check near(long tolerance) {
        return (r, c) -> {
            if (!r.isInteger() || !c.isInteger()) {
                return SHAPE.compare(r, c) == null ? "expected integer replies" : SHAPE.compare(r, c);
            }
            return Math.abs(r.integer() - c.integer()) <= tolerance ? null
                    : "integers differ by more than " + tolerance;
        };
    }

    /**
     * An array of arrays (COMMAND INFO): the same number of entries, and in each entry the first
     * {@code n} fields byte-identical (name, arity, flags, first key, last key, step for n = 6).
     */
    /** Field {@code f} of each entry of an array of arrays (COMMAND INFO's ACL categories: 6). */
    static Check field(int f) {
        return (r, c) -> {
            if (!r.isArray() || !c.isArray() || r.elements().size() != c.elements().size()) {
                return SHAPE.compare(r, c) == null ? "expected arrays" : SHAPE.compare(r, c);
            }
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < r.elements().size(); i++) {
                Reply re = r.element(i);
                Reply ce = c.element(i);
                if (!re.isArray() || !ce.isArray() || f >= re.elements().size() || f >= ce.elements().size()) {
                    if (!Arrays.equals(re.raw(), ce.raw())) {
                        sb.append("entry ").append(i).append(": redis ").append(re).append(", cajon ").append(ce);
                    }
                    continue;
                }
                if (!Arrays.equals(re.element(f).raw(), ce.element(f).raw())) {
                    sb.append("entry ").append(i).append(" field ").append(f).append(": redis ")
                            .append(re.element(f)).append(", cajon ").append(ce.element(f)).append("; ");
                }
            }
            return sb.length() == 0 ? null : sb.toString();
        };
    }

    static Check leadingFields(int n) {
        return (r, c) -> {
            if (!r.isArray() || !c.isArray() || r.elements().size() != c.elements().size()) {
                return SHAPE.compare(r, c) == null ? "expected arrays" : SHAPE.compare(r, c);
            }
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < r.elements().size(); i++) {
                Reply re = r.element(i);
                Reply ce = c.element(i);
                if (re.isNull() || ce.isNull() || !re.isArray() || !ce.isArray()) {
                    if (!Arrays.equals(re.raw(), ce.raw())) {
                        sb.append("entry ").append(i).append(": redis ").append(re).append(", cajon ").append(ce);
                    }
                    continue;
                }
                for (int f = 0; f < n; f++) {
                    if (f >= re.elements().size() || f >= ce.elements().size()) {
                        sb.append("entry ").append(i).append(" has fewer than ").append(n).append(" fields; ");
                        break;
                    }
                    if (!Arrays.equals(re.element(f).raw(), ce.element(f).raw())) {
                        sb.append("entry ").append(i).append(" field ").append(f).append(": redis ")
                                .append(re.element(f)).append(", cajon ").append(ce.element(f)).append("; ");
                    }
                }
            }
            return sb.length() == 0 ? null : sb.toString();
        };
    }

    /**
     * Top-level aggregates of the same type and size whose elements are byte-identical except at
     * the given indexes, where only the shape is compared (HELLO's client id: index 7 both of
     * RESP2's flat array and of RESP3's map, whose keys and values count in turn).
     */
    static Check exceptAt(int... indexes) {
        Set<Integer> skip = IntStream.of(indexes).boxed().collect(Collectors.toSet());
        return (r, c) -> {
            if (!r.isAggregate() || r.type() != c.type() || r.isNull() != c.isNull()
                    || r.elements().size() != c.elements().size()) {
                return EXACT.compare(r, c);
            }
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < r.elements().size(); i++) {
                Check each = skip.contains(i) ? SHAPE : EXACT;
                String d = each.compare(r.element(i), c.element(i));
                if (d != null) {
                    sb.append("element ").append(i).append(": redis ").append(r.element(i)).append(", cajon ")
                            .append(c.element(i)).append("; ");
                }
            }
            return sb.length() == 0 ? null : sb.toString();
        };
    }

    /**
     * HELLO's reply, as the RESP3 handshake checks it: the same type (RESP3's map), the same
     * fields in the same order, the same {@code proto}; every other value by shape only (the
     * client id differs, and the version may). The HELLO scenarios compare the rest exactly.
     */
    Check HELLO = (r, c) -> {
        if (r.type() != c.type() || r.isNull() != c.isNull() || r.elements().size() != c.elements().size()) {
            return "shapes differ: redis " + r.shape() + ", cajon " + c.shape();
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i + 1 < r.elements().size(); i += 2) {
            Reply key = r.element(i);
            if (!Arrays.equals(key.raw(), c.element(i).raw())) {
                sb.append("field ").append(i / 2).append(": redis ").append(key).append(", cajon ")
                        .append(c.element(i)).append("; ");
                continue;
            }
            boolean proto = "$5\r\nproto\r\n".equals(new String(key.raw(), StandardCharsets.ISO_8859_1));
            String d = (proto ? EXACT : SHAPE).compare(r.element(i + 1), c.element(i + 1));
            if (d != null) {
                sb.append(Reply.show(key.payload())).append(": redis ").append(r.element(i + 1)).append(", cajon ")
                        .append(c.element(i + 1)).append("; ");
            }
        }
        return sb.length() == 0 ? null : sb.toString();
    };

    /**
     * Aggregates of the same type and size, byte-identical except element {@code index}, which
     * {@code inner} compares: a HELLO reply (with its client id) inside EXEC's array.
     */
    static Check at(int index, Check inner) {
        return (r, c) -> {
            if (!r.isAggregate() || r.type() != c.type() || r.isNull() != c.isNull()
                    || r.elements().size() != c.elements().size() || index >= r.elements().size()) {
                return EXACT.compare(r, c);
            }
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < r.elements().size(); i++) {
                String d = (i == index ? inner : EXACT).compare(r.element(i), c.element(i));
                if (d != null) {
                    sb.append("element ").append(i).append(": ").append(d).append("; ");
                }
            }
            return sb.length() == 0 ? null : sb.toString();
        };
    }
}
