package dev.cajon.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Drives a {@link RequestDecoder} in an {@link EmbeddedChannel} the way a socket would: the input
 * arrives in chunks, each chunk is one {@code channelRead}, and the channel is closed at the end
 * (which runs the decoder's {@code decodeLast}).
 *
 * <p>Every run checks, whatever the input:
 * <ul>
 *   <li>nothing is thrown out of the pipeline (an exception would be rethrown by the channel);</li>
 *   <li>only {@link Argv} (argc &ge; 1) and at most one {@link ProtocolError}, always last, come out;</li>
 *   <li>after a ProtocolError, further bytes produce nothing;</li>
 *   <li>the channel finishes with nothing left ({@code finishAndReleaseAll() == false});</li>
 *   <li>every buffer allocated for the run (the input chunks and whatever the decoder allocated
 *       through the channel's allocator, e.g. cumulations) has refCnt 0 afterwards.</li>
 * </ul>
 * Messages are compared through {@link #describe(Object)}, a readable canonical form.
 */
final class DecoderHarness {
    static {
        LeakCheck.init();
    }

    /** Bytes sent after a ProtocolError to prove nothing more is decoded. */
    private static final byte[] AFTER_ERROR = latin1("PING\r\n*1\r\n$4\r\nPING\r\n");

    private DecoderHarness() {
    }

    /** The fuzz kit's allocator that remembers every buffer, with this module's leak check on. */
    static final class TrackingAllocator extends dev.cajon.protocol.fuzz.TrackingAllocator {
        static {
            LeakCheck.init();
        }
    }

    /** A way of cutting the input into reads. */
    record Split(String name, List<byte[]> chunks) {
    }

    // ------------------------------------------------------------------ running

    static List<Object> run(byte[]... chunks) {
        return run(Arrays.asList(chunks));
    }

    /** Feeds the chunks as separate reads, closes the channel and returns every decoded message. */
    static List<Object> run(List<byte[]> chunks) {
        return run(DecoderLimits.DEFAULT, chunks);
    }

    /** The same with the connection's limits (before AUTH, proto-max-bulk-len, query buffer). */
    static List<Object> run(DecoderLimits limits, List<byte[]> chunks) {
        TrackingAllocator alloc = new TrackingAllocator();
        EmbeddedChannel ch = new EmbeddedChannel(new RequestDecoder(limits));
        ch.config().setAllocator(alloc);
        List<Object> out = new ArrayList<>();
        try {
            for (byte[] c : chunks) {
                write(ch, alloc, c);
                drain(ch, out);
            }
            if (!out.isEmpty() && out.get(out.size() - 1) instanceof ProtocolError) {
                int before = out.size();
                write(ch, alloc, AFTER_ERROR);
                drain(ch, out);
                assertEquals(before, out.size(), "decoded something after a protocol error: " + describeAll(out));
            }
            ch.finish(); // channelInactive: decodeLast over whatever is still buffered
            drain(ch, out);
            assertFalse(ch.finishAndReleaseAll(), "channel still held messages after finish");
        } finally {
            if (ch.isOpen()) {
                ch.finishAndReleaseAll();
            }
        }
        alloc.assertAllReleased("after finish");
        assertShape(out);
        return out;
    }

    private static void write(EmbeddedChannel ch, TrackingAllocator alloc, byte[] c) {
        ByteBuf b = alloc.heapBuffer(c.length);
        b.writeBytes(c);
        ch.writeInbound(b); // rethrows anything that escaped the decoder
    }

    private static void drain(EmbeddedChannel ch, List<Object> out) {
        Object m;
        while ((m = ch.readInbound()) != null) {
            out.add(m);
        }
    }

    private static void assertShape(List<Object> out) {
        for (int i = 0; i < out.size(); i++) {
            Object m = out.get(i);
            if (m instanceof ProtocolError) {
                assertEquals(out.size() - 1, i, "a ProtocolError must be the last message: " + describeAll(out));
                assertTrue(((ProtocolError) m).message().startsWith("ERR Protocol error: "));
            } else if (m instanceof Argv) {
                Argv a = (Argv) m;
                assertTrue(a.argc() >= 1, "empty Argv decoded");
                for (int j = 0; j < a.argc(); j++) {
                    assertNotNull(a.arg(j), "null argument " + j);
                }
            } else {
                fail("unexpected message type " + m.getClass().getName());
            }
        }
    }

    // ------------------------------------------------------------------ splits

    /**
     * The whole input in one read, every two-read split and one byte per read. Inputs above
     * {@code 4096} bytes get the split points within 64 bytes of either end, 64 evenly spaced
     * ones, single-byte reads at both ends with 4093-byte reads between, and seeded random chunking.
     */
    static List<Split> splits(byte[] in) {
        List<Split> out = new ArrayList<>();
        out.add(new Split("whole", List.of(in)));
        int n = in.length;
        if (n <= 4096) {
            for (int i = 1; i < n; i++) {
                out.add(new Split("split at " + i, cut(in, i)));
            }
            out.add(new Split("one byte per read", chunked(in, 1)));
            out.add(new Split("three bytes per read", chunked(in, 3)));
            return out;
        }
        java.util.TreeSet<Integer> points = new java.util.TreeSet<>();
        for (int i = 1; i <= 64; i++) {
            points.add(i);
            points.add(n - i);
        }
        for (int i = 1; i < 64; i++) {
            points.add((int) ((long) n * i / 64));
        }
        for (int p : points) {
            if (p > 0 && p < n) {
                out.add(new Split("split at " + p, cut(in, p)));
            }
        }
        List<byte[]> edges = new ArrayList<>();
        int p = 0;
        while (p < n) {
            int size = p < 64 || n - p <= 64 ? 1 : Math.min(4093, n - 64 - p);
            edges.add(Arrays.copyOfRange(in, p, p + size));
            p += size;
        }
        out.add(new Split("single bytes at the ends, 4093 between", edges));
        Random r = new Random(n);
        for (int k = 0; k < 4; k++) {
            out.add(new Split("random chunks seed " + k, randomChunks(in, r, 1 + r.nextInt(20_000))));
        }
        return out;
    }

    static List<byte[]> cut(byte[] in, int... at) {
        List<byte[]> out = new ArrayList<>();
        int prev = 0;
        for (int p : at) {
            out.add(Arrays.copyOfRange(in, prev, p));
            prev = p;
        }
        out.add(Arrays.copyOfRange(in, prev, in.length));
        return out;
    }

    static List<byte[]> chunked(byte[] in, int size) {
        List<byte[]> out = new ArrayList<>();
        for (int p = 0; p < in.length; p += size) {
            out.add(Arrays.copyOfRange(in, p, Math.min(in.length, p + size)));
        }
        return out;
    }

    static List<byte[]> randomChunks(byte[] in, Random r, int maxChunk) {
        List<byte[]> out = new ArrayList<>();
        int p = 0;
        while (p < in.length) {
            int size = Math.min(in.length - p, 1 + r.nextInt(maxChunk));
            out.add(Arrays.copyOfRange(in, p, p + size));
            p += size;
        }
        return out;
    }

    /**
     * Decodes {@code in} under every split of {@link #splits} and asserts each gives {@code expected}.
     * All diverging splits are listed in the failure, not just the first.
     */
    static void assertDecodesUnderAllSplits(byte[] in, List<String> expected) {
        assertDecodesUnderSplits(in, splits(in), expected);
    }

    static void assertDecodesUnderSplits(byte[] in, List<Split> splits, List<String> expected) {
        List<String> failures = new ArrayList<>();
        for (Split s : splits) {
            List<String> got;
            try {
                got = describeAll(run(s.chunks()));
            } catch (Throwable t) {
                failures.add(s.name() + ": threw " + t);
                continue;
            }
            if (!got.equals(expected)) {
                failures.add(s.name() + ": " + got);
            }
        }
        if (!failures.isEmpty()) {
            StringBuilder sb = new StringBuilder();
            sb.append("input ").append(show(in, 200)).append('\n')
                    .append("expected ").append(expected).append('\n')
                    .append(failures.size()).append(" of ").append(splits.size()).append(" reads differ:");
            for (int i = 0; i < Math.min(12, failures.size()); i++) {
                sb.append("\n  ").append(failures.get(i));
            }
            if (failures.size() > 12) {
                sb.append("\n  ...");
            }
            fail(sb.toString());
        }
    }

    // ------------------------------------------------------------------ descriptions

    static List<String> describeAll(List<Object> msgs) {
        List<String> out = new ArrayList<>(msgs.size());
        for (Object m : msgs) {
            out.add(describe(m));
        }
        return out;
    }

    static String describe(Object m) {
        if (m instanceof Argv) {
            Argv a = (Argv) m;
            return describeArgs(a.inline() ? "inline" : "multibulk", a.args());
        }
        if (m instanceof ProtocolError) {
            return "error(" + ((ProtocolError) m).message() + ")";
        }
        return "unexpected " + m;
    }

    static String mb(String... args) {
        return describeArgs("multibulk", bytes(args));
    }

    static String mb(byte[]... args) {
        return describeArgs("multibulk", args);
    }

    static String inl(String... args) {
        return describeArgs("inline", bytes(args));
    }

    /** The description of the ProtocolError Redis would send: "ERR Protocol error: " + detail. */
    static String err(String detail) {
        return "error(ERR Protocol error: " + detail + ")";
    }

    /** Up to 16 arguments are listed; longer argvs show the first 8, the count and a hash of all. */
    private static String describeArgs(String kind, byte[][] args) {
        StringBuilder sb = new StringBuilder(kind).append('[');
        if (args.length > 16) {
            for (int i = 0; i < 8; i++) {
                sb.append(show(args[i], 64)).append(", ");
            }
            return sb.append("... ").append(args.length).append(" arguments, hash ")
                    .append(Integer.toHexString(Arrays.deepHashCode(args))).append(']').toString();
        }
        for (int i = 0; i < args.length; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(show(args[i], 64));
        }
        return sb.append(']').toString();
    }

    /** Printable ASCII as is, everything else as \xHH; long values as length and hash. */
    static String show(byte[] b, int max) {
        if (b.length > max) {
            return "<" + b.length + " bytes, hash " + Integer.toHexString(Arrays.hashCode(b)) + ", starts "
                    + show(Arrays.copyOf(b, 16), 16) + ">";
        }
        StringBuilder sb = new StringBuilder("\"");
        for (byte x : b) {
            int c = x & 0xFF;
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
                sb.append((char) c);
            } else {
                sb.append(String.format("\\x%02x", c));
            }
        }
        return sb.append('"').toString();
    }

    static byte[][] bytes(String... s) {
        byte[][] out = new byte[s.length][];
        for (int i = 0; i < s.length; i++) {
            out[i] = s[i].getBytes(StandardCharsets.ISO_8859_1);
        }
        return out;
    }

    /** ISO-8859-1, so "\u00ff" is the byte 0xFF. */
    static byte[] latin1(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    /** RESP multibulk encoding of one command, as a client would send it. */
    static byte[] resp(byte[]... args) {
        return dev.cajon.protocol.fuzz.Fuzz.resp(args);
    }

    static byte[] resp(String... args) {
        return resp(bytes(args));
    }
}
