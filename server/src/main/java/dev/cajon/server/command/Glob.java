package dev.cajon.server.command;

/**
 * Redis's glob matching ({@code stringmatchlen} in util.c), byte for byte, for KEYS and SCAN
 * MATCH: {@code *}, {@code ?}, {@code [abc]}, {@code [^a]}, {@code [a-z]} and backslash escapes.
 * Bytes compare as signed chars, as in the C code. The "skip longer matches" flag stops the
 * exponential blow-up of patterns like {@code a*a*a*a*b}.
 */
public final class Glob {
    private Glob() {
    }

    public static boolean matches(byte[] pattern, byte[] string) {
        return match(pattern, 0, pattern.length, string, 0, string.length, new boolean[1]);
    }

    private static boolean match(byte[] p, int pi, int plen, byte[] s, int si, int slen, boolean[] skipLonger) {
        while (plen > 0 && slen > 0) {
            switch (p[pi]) {
                case '*':
                    while (plen > 1 && p[pi + 1] == '*') {
                        pi++;
                        plen--;
                    }
                    if (plen == 1) {
                        return true;
                    }
                    while (slen > 0) {
                        if (match(p, pi + 1, plen - 1, s, si, slen, skipLonger)) {
                            return true;
                        }
                        if (skipLonger[0]) {
                            return false;
                        }
                        si++;
                        slen--;
                    }
                    skipLonger[0] = true;
                    return false;
                case '?':
                    si++;
                    slen--;
                    break;
                case '[': {
                    pi++;
                    plen--;
                    boolean not = plen > 0 && p[pi] == '^';
                    if (not) {
                        pi++;
                        plen--;
                    }
                    boolean matched = false;
                    while (true) {
                        if (plen >= 2 && p[pi] == '\\') {
                            pi++;
                            plen--;
                            if (p[pi] == s[si]) {
                                matched = true;
                            }
                        } else if (plen == 0) {
                            pi--;
                            plen++;
                            break;
                        } else if (p[pi] == ']') {
                            break;
                        } else if (plen >= 3 && p[pi + 1] == '-') {
                            int start = p[pi];
                            int end = p[pi + 2];
                            int c = s[si];
                            if (start > end) {
                                int t = start;
                                start = end;
                                end = t;
                            }
                            pi += 2;
                            plen -= 2;
                            if (c >= start && c <= end) {
                                matched = true;
                            }
                        } else if (p[pi] == s[si]) {
                            matched = true;
                        }
                        pi++;
                        plen--;
                    }
                    if (not) {
                        matched = !matched;
                    }
                    if (!matched) {
                        return false;
                    }
                    si++;
                    slen--;
                    break;
                }
                case '\\':
                    if (plen >= 2) {
                        pi++;
                        plen--;
                    }
                    if (p[pi] != s[si]) {
                        return false;
                    }
                    si++;
                    slen--;
                    break;
                default:
                    if (p[pi] != s[si]) {
                        return false;
                    }
                    si++;
                    slen--;
                    break;
            }
            pi++;
            plen--;
            if (slen == 0) {
                while (plen > 0 && p[pi] == '*') {
                    pi++;
                    plen--;
                }
                break;
            }
        }
        return plen == 0 && slen == 0;
    }
}
