package dev.cajon.bench.soak;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * A value the soak wrote: a short text kept as is, or a large value (hundreds of KiB to MiB, which
 * Cajon stores as a blob file) kept only as the seed that regenerates it, its length and CRC32C, so
 * the model of a few thousand big writes does not hold gigabytes.
 */
sealed interface Value permits Value.Text, Value.Big {

    /** The bytes as sent. */
    byte[] bytes();

    int length();

    /** True if {@code got} is exactly this value. */
    boolean matches(byte[] got);

    /** A short description for messages. */
    String describe();

    record Text(String text) implements Value {
        @Override
        public byte[] bytes() {
            return text.getBytes(StandardCharsets.US_ASCII);
        }

        @Override
        public int length() {
            return text.length();
        }

        @Override
        public boolean matches(byte[] got) {
            return got != null && Arrays.equals(got, bytes());
        }

        @Override
        public String describe() {
            return text.length() <= 60 ? '"' + text + '"'
                    : '"' + text.substring(0, 48) + "...\" (" + text.length() + " bytes)";
        }
    }

    /** {@code label} (app, client, write) followed by pseudo-random printable bytes from {@code seed}. */
    record Big(String label, long seed, int length, long crc) implements Value {

        static Big of(String label, long seed, int length) {
            CRC32C c = new CRC32C();
            c.update(generate(label, seed, length));
            return new Big(label, seed, length, c.getValue());
        }

        static byte[] generate(String label, long seed, int length) {
            byte[] b = new byte[length];
            byte[] head = label.getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(head, 0, b, 0, Math.min(head.length, length));
            long x = seed | 1;
            for (int i = head.length; i < length; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
                b[i] = (byte) ('a' + (int) ((x >>> 33) % 26));
            }
            return b;
        }

        @Override
        public byte[] bytes() {
            return generate(label, seed, length);
        }

        @Override
        public boolean matches(byte[] got) {
            if (got == null || got.length != length) {
                return false;
            }
            CRC32C c = new CRC32C();
            c.update(got);
            return c.getValue() == crc;
        }

        @Override
        public String describe() {
            return "big value " + label + " (" + length + " bytes)";
        }
    }

    /** How a value the server returned looks in a message. */
    static String describe(byte[] got) {
        if (got == null) {
            return "(absent)";
        }
        String s = new String(got, 0, Math.min(got.length, 48), StandardCharsets.ISO_8859_1);
        return got.length <= 48 ? '"' + s + '"' : '"' + s + "...\" (" + got.length + " bytes)";
    }
}
