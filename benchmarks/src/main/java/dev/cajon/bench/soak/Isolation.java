package dev.cajon.bench.soak;

import dev.cajon.bench.storm.RespConn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The checks beyond the model's own keys: no key in an app that the model does not hold (DBSIZE,
 * then SCAN to name them), and the admin ({@code default}, its own app) sees none of the apps' keys.
 * That each app reads its own value under a name both apps use is checked key by key in
 * {@link Checker} (values name their app).
 */
final class Isolation {

    private Isolation() {
    }

    /** DBSIZE against the model; if it has more, SCAN for the keys it should not have. Returns DBSIZE. */
    static long phantoms(RespConn c, List<Partition> parts, int round, Violations violations) throws IOException {
        Object d = c.call("DBSIZE");
        if (!(d instanceof Long dbsize)) {
            throw new IOException("DBSIZE answered " + Kill9Soak.describe(d));
        }
        long present = Checker.present(parts);
        if (dbsize <= present) {
            return dbsize;
        }
        List<String> extra = new ArrayList<>();
        String cursor = "0";
        int pages = 0;
        do {
            Object reply = c.call("SCAN", cursor, "COUNT", "1000");
            if (!(reply instanceof List<?> l) || l.size() != 2 || !(l.get(1) instanceof List<?> names)) {
                throw new IOException("SCAN answered " + Kill9Soak.describe(reply));
            }
            cursor = RespConn.text(l.get(0));
            for (Object n : names) {
                String k = RespConn.text(n);
                Partition p = owner(parts, k);
                if (p == null || !p.get(k).present()) {
                    extra.add(k);
                }
            }
        } while (!cursor.equals("0") && ++pages < 10_000);
        List<String> real = new ArrayList<>();
        for (String k : extra) {
            // an expired key may still be counted until it is read; a GET tells
            if (c.call("GET", k) != null && !real.contains(k)) {
                real.add(k);
            }
        }
        if (!real.isEmpty()) {
            String app = parts.get(0).app;
            StringBuilder sb = new StringBuilder();
            for (String k : real.subList(0, Math.min(5, real.size()))) {
                Partition p = owner(parts, k);
                sb.append("\n    ").append(k).append(": model ").append(p == null ? "never wrote it" : p.get(k).describe());
            }
            violations.add(Violations.Kind.PHANTOM_KEYS, round, app + ": DBSIZE " + dbsize + ", the model holds "
                    + present + "; " + real.size() + " keys the model does not hold:" + sb);
        }
        return dbsize;
    }

    /** The partition whose name scheme ({@code s:<thread>:<n>}) a key belongs to, or null. */
    private static Partition owner(List<Partition> parts, String key) {
        String[] f = key.split(":");
        if (f.length != 3) {
            return null;
        }
        try {
            int t = Integer.parseInt(f[1]);
            return t >= 0 && t < parts.size() ? parts.get(t) : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * The admin's own app holds no key, and a GET as admin of apps' keys finds nothing. Returns the
     * number of checks made.
     */
    static long adminSeesNothing(RespConn admin, Partition[][] parts, int round, Violations violations)
            throws IOException {
        long checks = 0;
        Object d = admin.call("DBSIZE");
        checks++;
        if (!Long.valueOf(0).equals(d)) {
            violations.add(Violations.Kind.ISOLATION, round, "the admin's DBSIZE is " + Kill9Soak.describe(d)
                    + ", it wrote no key");
        }
        for (Partition[] byApp : parts) {
            for (Partition p : byApp) {
                int n = 0;
                for (var e : p.state.entrySet()) {
                    if (!e.getValue().present() || n++ >= 5) {
                        continue;
                    }
                    byte[] k = e.getKey().getBytes(StandardCharsets.US_ASCII);
                    admin.array(2).bulk("EXISTS".getBytes(StandardCharsets.US_ASCII)).bulk(k);
                    admin.flush();
                    Object got = admin.read();
                    checks++;
                    if (!Long.valueOf(0).equals(got)) {
                        violations.add(Violations.Kind.ISOLATION, round, "the admin sees " + p.app + "'s key "
                                + e.getKey() + " (EXISTS " + Kill9Soak.describe(got) + ")");
                    }
                }
            }
        }
        return checks;
    }
}
