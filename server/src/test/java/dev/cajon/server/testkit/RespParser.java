package dev.cajon.server.testkit;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A strict RESP2 and RESP3 reply parser for tests. It checks the framing a client relies on (CRLF after
 * every line, bulk lengths that match their payload) and that a command produced exactly one
 * reply, so a handler that writes two replies or a truncated one fails loudly.
 */
public final class RespParser {
    private final byte[] in;
    private int pos;

    private RespParser(byte[] in) {
        this.in = in;
    }

    /** Parses {@code bytes} as exactly one reply. */
    public static Reply parseOne(byte[] bytes) {
        RespParser p = new RespParser(bytes);
        if (bytes.length == 0) {
            throw new AssertionError("the command wrote no reply");
        }
        Reply r = p.reply();
        if (p.pos != bytes.length) {
            throw new AssertionError("the command wrote more than one reply: " + (bytes.length - p.pos)
                    + " bytes after " + r + ": " + preview(bytes, p.pos));
        }
        return r;
    }

    /** Parses every reply in {@code bytes} (for pipelines). */
    public static List<Reply> parseAll(byte[] bytes) {
        RespParser p = new RespParser(bytes);
        List<Reply> out = new ArrayList<>();
        while (p.pos < bytes.length) {
            out.add(p.reply());
        }
        return out;
    }

    private Reply reply() {
        if (pos >= in.length) {
            throw new AssertionError("truncated reply");
        }
        byte type = in[pos++];
        switch (type) {
            case '+':
                return new Reply.Simple(line());
            case '-':
                return new Reply.Error(line());
            case ':':
                return new Reply.Int(parseLong(line()));
            case '$': {
                long n = parseLong(line());
                if (n == -1) {
                    return new Reply.Bulk(null);
                }
                if (n < 0 || pos + n + 2 > in.length) {
                    throw new AssertionError("bad bulk length " + n + " at " + pos + " of " + in.length);
                }
                byte[] b = Arrays.copyOfRange(in, pos, pos + (int) n);
                pos += (int) n;
                crlf();
                return new Reply.Bulk(b);
            }
            case '*': {
                long n = parseLong(line());
                if (n == -1) {
                    return new Reply.Array(null);
                }
                if (n < 0) {
                    throw new AssertionError("bad array length " + n);
                }
                List<Reply> items = new ArrayList<>((int) Math.min(n, 1 << 16));
                for (long i = 0; i < n; i++) {
                    items.add(reply());
                }
                return new Reply.Array(items);
            }
            case '_':
                line();
                return new Reply.Null();
            case '%':
                return new Reply.Map(items(2 * parseLong(line())));
            case '~':
                return new Reply.Set(items(parseLong(line())));
            case '>':
                return new Reply.Push(items(parseLong(line())));
            case ',':
                return new Reply.Double(line());
            case '#': {
                String t = line();
                if (!t.equals("t") && !t.equals("f")) {
                    throw new AssertionError("bad boolean #" + t);
                }
                return new Reply.Bool(t.equals("t"));
            }
            case '(':
                return new Reply.BigNumber(line());
            case '=': {
                long n = parseLong(line());
                if (n < 4 || pos + n + 2 > in.length || in[pos + 3] != ':') {
                    throw new AssertionError("bad verbatim string of " + n + " at " + pos);
                }
                String format = new String(in, pos, 3, StandardCharsets.US_ASCII);
                String text = new String(in, pos + 4, (int) n - 4, StandardCharsets.UTF_8);
                pos += (int) n;
                crlf();
                return new Reply.Verbatim(format, text);
            }
            default:
                throw new AssertionError("not a RESP reply type '" + (char) type + "' at " + (pos - 1) + ": "
                        + preview(in, pos - 1));
        }
    }

    private List<Reply> items(long n) {
        if (n < 0) {
            throw new AssertionError("bad aggregate length " + n);
        }
        List<Reply> items = new ArrayList<>((int) Math.min(n, 1 << 16));
        for (long i = 0; i < n; i++) {
            items.add(reply());
        }
        return items;
    }

    private String line() {
        int start = pos;
        while (pos < in.length && in[pos] != '\r') {
            if (in[pos] == '\n') {
                throw new AssertionError("bare LF inside a reply line: " + preview(in, start));
            }
            pos++;
        }
        String s = new String(in, start, pos - start, StandardCharsets.UTF_8);
        crlf();
        return s;
    }

    private void crlf() {
        if (pos + 2 > in.length || in[pos] != '\r' || in[pos + 1] != '\n') {
            throw new AssertionError("missing CRLF at " + pos + ": " + preview(in, pos));
        }
        pos += 2;
    }

    private static long parseLong(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new AssertionError("not a number in a RESP header: '" + s + "'");
        }
    }

    private static String preview(byte[] b, int from) {
        int end = Math.min(b.length, from + 80);
        return "'" + new String(b, from, Math.max(0, end - from), StandardCharsets.ISO_8859_1)
                .replace("\r", "\\r").replace("\n", "\\n") + "'";
    }
}
