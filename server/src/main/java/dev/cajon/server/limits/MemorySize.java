package dev.cajon.server.limits;

import java.util.Locale;

/** Redis's memtoull: "1gb" is 1024^3, "1g" 1000^3, a bare number is bytes; -1 when invalid. */
public final class MemorySize {
    private MemorySize() {
    }

    public static long parse(String s) {
        String v = s.toLowerCase(Locale.ROOT);
        long mul = 1;
        String[][] units = {{"kb", "1024"}, {"mb", "1048576"}, {"gb", "1073741824"}, {"k", "1000"},
            {"m", "1000000"}, {"g", "1000000000"}, {"b", "1"}};
        for (String[] u : units) {
            if (v.endsWith(u[0])) {
                mul = Long.parseLong(u[1]);
                v = v.substring(0, v.length() - u[0].length());
                break;
            }
        }
        if (v.isEmpty() || v.length() > 19) {
            return -1;
        }
        for (int i = 0; i < v.length(); i++) {
            if (v.charAt(i) < '0' || v.charAt(i) > '9') {
                return -1;
            }
        }
        long n = Long.parseLong(v);
        if (n > Long.MAX_VALUE / mul) {
            return -1;
        }
        return n * mul;
    }
}
