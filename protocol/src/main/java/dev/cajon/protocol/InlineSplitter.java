package dev.cajon.protocol;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits an inline command line into arguments exactly as Redis's {@code sdssplitargs} does, so
 * that telnet, nc and redis-cli users get the same arguments as with Redis:
 * <ul>
 *   <li>arguments are separated by whitespace;</li>
 *   <li>"double quotes" support \n \r \t \b \a, \xHH and backslash-escaped characters;</li>
 *   <li>'single quotes' support only \' ;</li>
 *   <li>a closing quote must be followed by whitespace or the end of the line;</li>
 *   <li>a NUL byte ends the line (Redis works on C strings).</li>
 * </ul>
 * Returns null for unbalanced quotes.
 */
public final class InlineSplitter {
    private InlineSplitter() {
    }

    public static byte[][] split(byte[] line, int from, int to) {
        List<byte[]> out = new ArrayList<>();
        int p = from;
        ByteArrayOutputStream cur = new ByteArrayOutputStream();
        while (true) {
            while (p < to && line[p] != 0 && isSpace(line[p])) {
                p++;
            }
            if (p >= to || line[p] == 0) {
                break;
            }
            boolean inq = false;
            boolean insq = false;
            boolean done = false;
            cur.reset();
            while (!done) {
                int c = at(line, p, to);
                if (inq) {
                    if (c == '\\' && at(line, p + 1, to) == 'x'
                            && isHex(at(line, p + 2, to)) && isHex(at(line, p + 3, to))) {
                        cur.write(hex(at(line, p + 2, to)) * 16 + hex(at(line, p + 3, to)));
                        p += 3;
                    } else if (c == '\\' && at(line, p + 1, to) != 0) {
                        p++;
                        int e = at(line, p, to);
                        switch (e) {
                            case 'n': cur.write('\n'); break;
                            case 'r': cur.write('\r'); break;
                            case 't': cur.write('\t'); break;
                            case 'b': cur.write('\b'); break;
                            case 'a': cur.write(7); break;
                            default: cur.write(e); break;
                        }
                    } else if (c == '"') {
                        int n = at(line, p + 1, to);
                        if (n != 0 && !isSpace((byte) n)) {
                            return null;
                        }
                        done = true;
                    } else if (c == 0) {
                        return null;
                    } else {
                        cur.write(c);
                    }
                } else if (insq) {
                    if (c == '\\' && at(line, p + 1, to) == '\'') {
                        p++;
                        cur.write('\'');
                    } else if (c == '\'') {
                        int n = at(line, p + 1, to);
                        if (n != 0 && !isSpace((byte) n)) {
                            return null;
                        }
                        done = true;
                    } else if (c == 0) {
                        return null;
                    } else {
                        cur.write(c);
                    }
                } else {
                    switch (c) {
                        case ' ':
                        case '\n':
                        case '\r':
                        case '\t':
                        case 0:
                            done = true;
                            break;
                        case '"':
                            inq = true;
                            break;
                        case '\'':
                            insq = true;
                            break;
                        default:
                            cur.write(c);
                            break;
                    }
                }
                if (at(line, p, to) != 0) {
                    p++;
                }
            }
            out.add(cur.toByteArray());
        }
        return out.toArray(new byte[0][]);
    }

    private static int at(byte[] b, int i, int to) {
        return i < to ? b[i] & 0xFF : 0;
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == '\f';
    }

    private static boolean isHex(int c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    private static int hex(int c) {
        if (c <= '9') {
            return c - '0';
        }
        return (c | 0x20) - 'a' + 10;
    }
}
