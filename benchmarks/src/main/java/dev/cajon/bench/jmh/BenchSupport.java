package dev.cajon.bench.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What the JMH benchmarks share: fixed-width keys and values, RESP request bytes, throw-away data
 * directories, and the guard that refuses to open a Chronicle Map in a JVM started without the
 * flags from {@code server/target/jvm.flags} (which {@code bin/jmh} passes to every fork).
 *
 * <p>Nothing here runs inside a measured method: it only builds inputs in {@code @Setup}.
 */
final class BenchSupport {
    /** Every key the benchmarks use is exactly this long ({@code key:} plus 12 digits). */
    static final int KEY_LENGTH = 16;

    private BenchSupport() {
    }

    /** Key number {@code i} as 16 ASCII bytes: {@code key:000000000042}. */
    static byte[] key(int i) {
        byte[] k = String.format(Locale.ROOT, "key:%012d", i).getBytes(StandardCharsets.US_ASCII);
        if (k.length != KEY_LENGTH) {
            throw new IllegalArgumentException("key number too large: " + i);
        }
        return k;
    }

    /** Counter key number {@code i}, also 16 bytes: {@code ctr:000000000042}. */
    static byte[] counterKey(int i) {
        return String.format(Locale.ROOT, "ctr:%012d", i).getBytes(StandardCharsets.US_ASCII);
    }

    /** {@code n} keys, numbered from 0. */
    static byte[][] keys(int n) {
        byte[][] k = new byte[n][];
        for (int i = 0; i < n; i++) {
            k[i] = key(i);
        }
        return k;
    }

    /** A printable value of {@code size} bytes (not a number, so INCR on it would fail). */
    static byte[] value(int size, int seed) {
        byte[] v = new byte[size];
        for (int i = 0; i < size; i++) {
            v[i] = (byte) ('a' + (i * 7 + seed) % 26);
        }
        return v;
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Appends one RESP multibulk command ({@code *n\r\n$len\r\narg\r\n...}) to {@code out}. */
    static void writeCommand(ByteBuf out, byte[]... args) {
        out.writeByte('*').writeCharSequence(Integer.toString(args.length), StandardCharsets.US_ASCII);
        out.writeByte('\r').writeByte('\n');
        for (byte[] a : args) {
            out.writeByte('$').writeCharSequence(Integer.toString(a.length), StandardCharsets.US_ASCII);
            out.writeByte('\r').writeByte('\n');
            out.writeBytes(a);
            out.writeByte('\r').writeByte('\n');
        }
    }

    /**
     * One command as a buffer from the default (pooled, direct) allocator, like a socket read.
     * The benchmarks feed it again and again: {@link #rewind} before each use.
     */
    static ByteBuf command(byte[]... args) {
        ByteBuf b = ByteBufAllocator.DEFAULT.directBuffer(64);
        writeCommand(b, args);
        return b;
    }

    /**
     * Makes {@code b} readable from its start again and takes one more reference, which the
     * pipeline's decoder gives back when it has consumed the buffer. This is how a benchmark
     * feeds the same request bytes on every invocation without allocating a buffer per call.
     */
    static ByteBuf rewind(ByteBuf b) {
        b.retain();
        b.readerIndex(0);
        return b;
    }

    /**
     * Fails fast, before Chronicle is touched, when the fork was started without the flags from
     * {@code server/target/jvm.flags}: without {@code -Dchronicle.analytics.disable=true}
     * Chronicle phones home, and without the {@code --add-opens} it cannot map its files.
     */
    static void requireChronicleFlags() {
        if (!"true".equals(System.getProperty("chronicle.analytics.disable"))) {
            throw new IllegalStateException("this benchmark opens a Chronicle Map: run it through bin/jmh, "
                    + "which passes the flags of server/target/jvm.flags to every fork (-jvmArgsAppend)");
        }
    }

    /**
     * A fresh data directory under java.io.tmpdir. Tear-downs delete it; a shutdown hook deletes
     * it too when a failed set-up means the tear-down never runs (JMH then ends the fork).
     */
    static Path tempDir(String name) {
        requireChronicleFlags();
        Path dir;
        try {
            dir = Files.createTempDirectory("cajon-jmh-" + name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                deleteTree(dir);
            } catch (UncheckedIOException ignored) {
                // best effort at exit
            }
        }, "cajon-jmh-cleanup"));
        return dir;
    }

    /** Deletes {@code dir} and everything in it (the map files of a closed store). */
    static void deleteTree(Path dir) {
        dev.cajon.storage.FileTrees.delete(dir);
    }

    /** Throws unless {@code reply} begins with {@code expected}: a benchmark must measure the happy path. */
    static void expectReply(String what, ByteBuf reply, String expected) {
        String got = reply.toString(reply.readerIndex(), Math.min(reply.readableBytes(), 40), StandardCharsets.ISO_8859_1);
        if (!got.startsWith(expected)) {
            throw new IllegalStateException(what + ": expected a reply starting with "
                    + expected.replace("\r\n", "\\r\\n") + ", got " + got.replace("\r\n", "\\r\\n"));
        }
    }
}
