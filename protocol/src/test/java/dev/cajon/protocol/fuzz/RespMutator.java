package dev.cajon.protocol.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Mutations of a request byte stream that know what steers a RESP and inline parser: the bytes
 * {@code * $ \r \n " ' \\ NUL}, and the numbers in count and length lines, which are swapped for
 * the interesting ones (0, -1, "-0", leading zeros, the limits and one past them, overflows).
 * Plain bit flips, deletions, duplications and truncation come as well, as a byte-level fuzzer's.
 */
public final class RespMutator {
    /** Numbers that sit on an edge of Redis's parsing or limits. */
    public static final String[] NUMBERS = {"0", "1", "-1", "-0", "01", "+1", " 1", "1 ", "2", "3", "9", "10", "11",
        "1024", "1025", "16384", "16385", "65535", "65536", "65537", "1048576", "536870912", "536870913",
        "2147483647", "2147483648", "-2147483648", "4294967296", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "99999999999999999999999",
        "", "x", "1x", "0x10", "1e3", "1.5"};
    /** Tokens inserted whole. */
    private static final String[] TOKENS = {"*", "$", ":", "+", "-", "\r\n", "\r", "\n", "\"", "'", "\\", "\\x",
        "\\x41", "\\xZZ", "\\\"", "\\'", " ", "\t", "\u0000", "\"\"", "''", "*0\r\n", "*-1\r\n", "*1\r\n", "$0\r\n\r\n",
        "$-1\r\n", "*1\r\n$4\r\nPING\r\n", "PING\r\n", "PING\n", "\r\n\r\n", "*2\r\n$4\r\nECHO\r\n"};
    private static final byte[] SPECIAL = latin1("*$:+-\r\n\"'\\ \t\u0000\u000b\f0123456789xX");

    private RespMutator() {
    }

    /** One to {@code max} mutations of {@code in}, chosen at random. */
    public static byte[] mutate(byte[] in, SplittableRandom r, int max) {
        byte[] b = in;
        int n = 1 + r.nextInt(max);
        for (int i = 0; i < n; i++) {
            b = mutateOnce(b, r);
        }
        return b;
    }

    static byte[] mutateOnce(byte[] b, SplittableRandom r) {
        if (b.length == 0) {
            return latin1(TOKENS[r.nextInt(TOKENS.length)]);
        }
        int at = r.nextInt(b.length);
        switch (r.nextInt(10)) {
            case 0: { // flip a bit
                byte[] c = b.clone();
                c[at] ^= (byte) (1 << r.nextInt(8));
                return c;
            }
            case 1: { // a byte that steers the parser
                byte[] c = b.clone();
                c[at] = SPECIAL[r.nextInt(SPECIAL.length)];
                return c;
            }
            case 2: // delete a run
                return splice(b, at, Math.min(b.length, at + 1 + r.nextInt(Math.min(16, b.length - at))), new byte[0]);
            case 3: { // duplicate a run
                int end = Math.min(b.length, at + 1 + r.nextInt(64));
                return splice(b, end, end, java.util.Arrays.copyOfRange(b, at, end));
            }
            case 4: // insert a token
                return splice(b, at, at, latin1(TOKENS[r.nextInt(TOKENS.length)]));
            case 5:
            case 6: // replace a number (a count or a length, most often)
                return replaceNumber(b, r);
            case 7: // truncate
                return java.util.Arrays.copyOf(b, at);
            case 8: { // a random byte
                byte[] c = b.clone();
                c[at] = (byte) r.nextInt(256);
                return c;
            }
            default: { // swap two runs' order: a command split and put back the other way round
                int cut = r.nextInt(b.length + 1);
                byte[] c = new byte[b.length];
                System.arraycopy(b, cut, c, 0, b.length - cut);
                System.arraycopy(b, 0, c, b.length - cut, cut);
                return c;
            }
        }
    }

    /** Replaces the digits after one '*' or '$' (or any run of digits) by an interesting number. */
    static byte[] replaceNumber(byte[] b, SplittableRandom r) {
        int start = -1;
        int tries = 0;
        while (start < 0 && tries++ < 8) {
            int i = r.nextInt(b.length);
            if (b[i] == '*' || b[i] == '$') {
                start = i + 1;
            } else if (b[i] >= '0' && b[i] <= '9') {
                start = i;
                while (start > 0 && b[start - 1] >= '0' && b[start - 1] <= '9') {
                    start--;
                }
            }
        }
        if (start < 0) {
            return b;
        }
        int end = start;
        while (end < b.length && (b[end] == '-' || b[end] >= '0' && b[end] <= '9')) {
            end++;
        }
        return splice(b, start, end, latin1(NUMBERS[r.nextInt(NUMBERS.length)]));
    }

    public static byte[] splice(byte[] b, int from, int to, byte[] with) {
        ByteArrayOutputStream o = new ByteArrayOutputStream(b.length + with.length);
        o.write(b, 0, from);
        o.writeBytes(with);
        o.write(b, to, b.length - to);
        return o.toByteArray();
    }

    public static byte[] latin1(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
