package dev.cajon.protocol;

import java.nio.charset.StandardCharsets;

/**
 * One decoded client command: its arguments as byte arrays, the command name first. Arguments are
 * binary-safe and owned by the command (the decoder copies them out of the socket buffer).
 */
public final class Argv {
    private final byte[][] args;
    private final boolean inline;

    public Argv(byte[][] args, boolean inline) {
        this.args = args;
        this.inline = inline;
    }

    public static Argv of(String... args) {
        byte[][] a = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            a[i] = args[i].getBytes(StandardCharsets.UTF_8);
        }
        return new Argv(a, false);
    }

    /** Builds a command from raw byte arguments. */
    public static Argv of(byte[]... args) {
        return new Argv(args, false);
    }

    /** Number of arguments, the command name included (Redis's argc). */
    public int argc() {
        return args.length;
    }

    public byte[] arg(int i) {
        return args[i];
    }

    public byte[][] args() {
        return args;
    }

    /** Whether it arrived as an inline (telnet-style) command. */
    public boolean inline() {
        return inline;
    }

    /**
     * The argument as a string, one char per byte (ISO-8859-1), so that writing it back with
     * {@code Resp} reproduces the exact bytes. For names and options, not for keys or values.
     */
    public String str(int i) {
        return new String(args[i], StandardCharsets.ISO_8859_1);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < args.length; i++) {
            if (i > 0) {
                sb.append(' ');
            }
            sb.append(new String(args[i], StandardCharsets.ISO_8859_1));
        }
        return sb.toString();
    }
}
