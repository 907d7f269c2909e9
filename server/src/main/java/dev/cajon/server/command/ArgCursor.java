package dev.cajon.server.command;

import dev.cajon.protocol.Argv;
import dev.cajon.protocol.RedisErrors;
import dev.cajon.storage.Numbers;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * The one argument parser. "syntax error", "not an integer" and "not a valid float" each come
 * from exactly one place here, so every command words them identically.
 */
public final class ArgCursor {
    private final Argv argv;
    private int pos;

    public ArgCursor(Argv argv, int pos) {
        this.argv = argv;
        this.pos = pos;
    }

    public boolean hasNext() {
        return pos < argv.argc();
    }

    public int remaining() {
        return argv.argc() - pos;
    }

    public int position() {
        return pos;
    }

    public byte[] next() {
        if (pos >= argv.argc()) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
        return argv.arg(pos++);
    }

    /** Consumes the next argument if it equals {@code keyword} ignoring ASCII case. */
    public boolean nextIs(String keyword) {
        if (pos < argv.argc() && is(argv.arg(pos), keyword)) {
            pos++;
            return true;
        }
        return false;
    }

    /** Whether the next argument equals {@code keyword} ignoring case, without consuming it. */
    public boolean peekIs(String keyword) {
        return pos < argv.argc() && is(argv.arg(pos), keyword);
    }

    public long nextLong() {
        return parseLong(next());
    }

    /** Throws "syntax error" unless every argument has been consumed. */
    public void end() {
        if (pos < argv.argc()) {
            throw new CommandError(RedisErrors.SYNTAX);
        }
    }

    /** Case-insensitive ASCII comparison of an argument with a keyword. */
    public static boolean is(byte[] arg, String keyword) {
        if (arg.length != keyword.length()) {
            return false;
        }
        for (int i = 0; i < arg.length; i++) {
            int a = arg[i];
            int k = keyword.charAt(i);
            if (a >= 'A' && a <= 'Z') {
                a |= 0x20;
            }
            if (k >= 'A' && k <= 'Z') {
                k |= 0x20;
            }
            if (a != k) {
                return false;
            }
        }
        return true;
    }

    /** Redis's string2ll, failing with "value is not an integer or out of range". */
    public static long parseLong(byte[] b) {
        if (!Numbers.isLong(b, 0, b.length)) {
            throw new CommandError(RedisErrors.NOT_INTEGER);
        }
        return Numbers.parseLong(b, 0, b.length);
    }

    /** Redis's getIntFromObjectOrReply: an integer that must also fit in 32 bits. */
    public static int parseInt(byte[] b) {
        long v = parseLong(b);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new CommandError(RedisErrors.NOT_INT32);
        }
        return (int) v;
    }

    /** Like {@link #parseLong} with a caller-chosen error text. */
    public static long parseLong(byte[] b, String error) {
        if (!Numbers.isLong(b, 0, b.length)) {
            throw new CommandError(error);
        }
        return Numbers.parseLong(b, 0, b.length);
    }

    /** Redis's string2ld for INCRBYFLOAT, failing with "value is not a valid float". */
    public static BigDecimal parseLongDouble(byte[] b) {
        BigDecimal v = Numbers.parseLongDouble(b, 0, b.length);
        if (v == null) {
            throw new CommandError(RedisErrors.NOT_FLOAT);
        }
        return v;
    }

    public static String str(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
