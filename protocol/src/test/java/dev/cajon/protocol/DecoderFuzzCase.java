package dev.cajon.protocol;

import dev.cajon.protocol.fuzz.Fuzz;
import dev.cajon.protocol.fuzz.RespMutator;
import dev.cajon.protocol.fuzz.SeedCorpus;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One input of the decoder fuzzer: the bytes, the connection's limits, and the sizes of the reads
 * they arrive in. {@link #generate} makes them from a seeded random source: well-formed commands
 * (RESP and inline, binary and quoted arguments), the seed corpus of real client traffic, token
 * noise, and inputs at the limits, most of them then mutated ({@link RespMutator}).
 */
record DecoderFuzzCase(byte[] input, long maxBulk, boolean auth, long maxQuery, List<Integer> reads) {
    /** The limits the decoder asks its connection for, fixed for the whole input. */
    DecoderLimits limits() {
        return new DecoderLimits() {
            @Override
            public long maxBulk() {
                return maxBulk;
            }

            @Override
            public boolean authRequired() {
                return auth;
            }

            @Override
            public long maxQueryBuffer() {
                return maxQuery;
            }
        };
    }

    /** A small client-query-buffer-limit: what is refused then depends on the reads. */
    boolean smallQueryBuffer() {
        return maxQuery < DecoderLimits.DEFAULT.maxQueryBuffer();
    }

    List<byte[]> chunks() {
        return Fuzz.chunk(input, reads);
    }

    DecoderFuzzCase withInput(byte[] b) {
        return new DecoderFuzzCase(b, maxBulk, auth, maxQuery, reads);
    }

    /** Smaller inputs with the same limits and reads, then the same input in one read. */
    Iterable<DecoderFuzzCase> smaller() {
        Iterable<byte[]> inputs = Fuzz.smallerBytes(input);
        return () -> new java.util.Iterator<DecoderFuzzCase>() {
            final java.util.Iterator<byte[]> it = inputs.iterator();
            boolean oneRead = reads.size() == 1 && reads.get(0) >= input.length;

            @Override
            public boolean hasNext() {
                return !oneRead || it.hasNext();
            }

            @Override
            public DecoderFuzzCase next() {
                if (!oneRead) {
                    oneRead = true;
                    return new DecoderFuzzCase(input, maxBulk, auth, maxQuery, List.of(Math.max(1, input.length)));
                }
                return withInput(it.next());
            }
        };
    }

    @Override
    public String toString() {
        String shown = Fuzz.literal(input);
        if (shown.length() > 4000) {
            shown = shown.substring(0, 4000) + " ... (" + input.length + " bytes)";
        }
        return shown + " maxBulk=" + maxBulk + " auth=" + auth + " maxQuery=" + maxQuery + " reads=" + reads;
    }

    // ------------------------------------------------------------------ generation

    private static final String[] WORDS = {"PING", "SET", "GET", "ECHO", "MULTI", "EXEC", "WATCH", "HELLO", "AUTH",
        "CLIENT", "CONFIG", "INCRBY", "EX", "PX", "NX", "XX", "KEEPTTL", "k", "key:1", "v", "value", "3", "2"};

    static DecoderFuzzCase generate(SplittableRandom r) {
        byte[] in;
        int kind = r.nextInt(100);
        if (kind < 35) {
            in = commands(r, 1 + r.nextInt(8));
        } else if (kind < 65) {
            in = seeds(r);
        } else if (kind < 85) {
            in = noise(r);
        } else {
            in = atTheLimits(r);
        }
        if (r.nextInt(100) < 60) {
            in = RespMutator.mutate(in, r, 6);
        }
        long maxBulk = RequestDecoder.MAX_BULK;
        boolean auth = false;
        long maxQuery = DecoderLimits.DEFAULT.maxQueryBuffer();
        int l = r.nextInt(100);
        if (l < 20) {
            auth = true;
        } else if (l < 30) {
            maxBulk = r.nextInt(65);
        } else if (l < 38) {
            maxQuery = 1 + r.nextInt(4096);
        }
        List<Integer> reads = new ArrayList<>();
        int kinds = r.nextInt(4);
        int n = 1 + r.nextInt(6);
        // large inputs are not read a byte at a time: every read is a tracked buffer, and the leak
        // detector's records make that slow (the split-at-every-byte tests cover small ones)
        int least = in.length > 4096 ? 1024 : 1;
        for (int i = 0; i < n; i++) {
            int size = kinds == 0 ? 1 : kinds == 1 ? 1 + r.nextInt(8) : 1 + r.nextInt(kinds == 2 ? 64 : 20_000);
            reads.add(Math.max(least, size));
        }
        return new DecoderFuzzCase(in, maxBulk, auth, maxQuery, reads);
    }

    private static byte[] seeds(SplittableRandom r) {
        List<byte[]> seeds = SeedCorpus.seeds();
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        int n = 1 + r.nextInt(3);
        for (int i = 0; i < n; i++) {
            o.writeBytes(seeds.get(r.nextInt(seeds.size())));
        }
        return o.toByteArray();
    }

    static byte[] commands(SplittableRandom r, int count) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (int c = 0; c < count; c++) {
            List<byte[]> args = new ArrayList<>();
            args.add(RespMutator.latin1(WORDS[r.nextInt(9)]));
            int argc = r.nextInt(6);
            for (int i = 0; i < argc; i++) {
                args.add(arg(r));
            }
            if (r.nextInt(3) == 0) {
                o.writeBytes(inline(args, r));
            } else {
                o.writeBytes(DecoderHarness.resp(args.toArray(new byte[0][])));
            }
        }
        return o.toByteArray();
    }

    private static byte[] arg(SplittableRandom r) {
        switch (r.nextInt(6)) {
            case 0:
                return RespMutator.latin1(WORDS[r.nextInt(WORDS.length)]);
            case 1:
                return RespMutator.latin1(RespMutator.NUMBERS[r.nextInt(RespMutator.NUMBERS.length)]);
            case 2: {
                byte[] b = new byte[r.nextInt(24)];
                r.nextBytes(b);
                return b;
            }
            case 3:
                return RespMutator.latin1(new String[] {"", "\r\n", "\"", "'", "\\", " ", "*1\r\n$4\r\nPING\r\n"}[r.nextInt(7)]);
            case 4: {
                byte[] b = new byte[r.nextInt(8) == 0 ? 100 + r.nextInt(20_000) : r.nextInt(300)];
                Arrays.fill(b, (byte) ('a' + r.nextInt(26)));
                return b;
            }
            default: {
                byte[] b = new byte[1 + r.nextInt(12)];
                for (int i = 0; i < b.length; i++) {
                    b[i] = (byte) ('a' + r.nextInt(26));
                }
                return b;
            }
        }
    }

    /** An inline line: words bare, the rest double-quoted with \xHH or single-quoted. */
    private static byte[] inline(List<byte[]> args, SplittableRandom r) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (int i = 0; i < args.size(); i++) {
            o.writeBytes(RespMutator.latin1(i == 0 ? "" : r.nextBoolean() ? " " : "\t"));
            byte[] a = args.get(i);
            boolean word = a.length > 0;
            boolean noQuote = true;
            for (byte b : a) {
                word &= b > ' ' && b < 0x7f && b != '"' && b != '\'';
                noQuote &= b != '\'' && b != '\\' && b != 0 && b != '\n';
            }
            if (word && r.nextInt(4) != 0) {
                o.writeBytes(a);
            } else if (noQuote && r.nextBoolean()) {
                o.write('\'');
                o.writeBytes(a);
                o.write('\'');
            } else {
                o.write('"');
                for (byte b : a) {
                    int c = b & 0xFF;
                    if (c >= 'a' && c <= 'z' && r.nextBoolean()) {
                        o.write(c);
                    } else {
                        o.writeBytes(RespMutator.latin1(String.format("\\x%02x", c)));
                    }
                }
                o.write('"');
            }
        }
        o.writeBytes(RespMutator.latin1(r.nextBoolean() ? "\r\n" : "\n"));
        return o.toByteArray();
    }

    private static byte[] noise(SplittableRandom r) {
        String[] tokens = {"*", "$", ":", "+", "-", "\r\n", "\r", "\n", "\"", "'", "\\", "\\x4", " ", "\t", "\u0000",
            "0", "1", "2", "3", "-1", "10", "a", "x", "PING", "*1\r\n", "$4\r\n", "*0\r\n", "*-1\r\n"};
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        int n = r.nextInt(60);
        for (int i = 0; i < n; i++) {
            if (r.nextInt(4) == 0) {
                o.write(r.nextInt(256));
            } else {
                o.writeBytes(RespMutator.latin1(tokens[r.nextInt(tokens.length)]));
            }
        }
        return o.toByteArray();
    }

    /** Counts near the unauthenticated 10, bulks near 16 KiB, lines near 64 KiB. */
    private static byte[] atTheLimits(SplittableRandom r) {
        switch (r.nextInt(4)) {
            case 0: {
                int argc = 9 + r.nextInt(4);
                byte[][] a = new byte[argc][];
                a[0] = RespMutator.latin1("MSET");
                for (int i = 1; i < argc; i++) {
                    a[i] = RespMutator.latin1("a" + i);
                }
                return DecoderHarness.concat(DecoderHarness.resp(a), DecoderHarness.resp("PING"));
            }
            case 1: {
                byte[] v = new byte[16 * 1024 - 2 + r.nextInt(5)];
                Arrays.fill(v, (byte) 'v');
                return DecoderHarness.concat(DecoderHarness.resp(RespMutator.latin1("SET"), RespMutator.latin1("k"), v),
                        DecoderHarness.resp("PING"));
            }
            case 2: {
                byte[] line = new byte[RequestDecoder.INLINE_MAX - 3 + r.nextInt(7)];
                Arrays.fill(line, (byte) 'a');
                System.arraycopy(RespMutator.latin1("ECHO "), 0, line, 0, 5);
                return DecoderHarness.concat(line, RespMutator.latin1(r.nextBoolean() ? "\r\n" : "\n"), DecoderHarness.resp("PING"));
            }
            default: {
                byte[] digits = new byte[RequestDecoder.INLINE_MAX - 3 + r.nextInt(7)];
                Arrays.fill(digits, (byte) '1');
                byte[] head = RespMutator.latin1(r.nextBoolean() ? "*" : "*1\r\n$");
                return DecoderHarness.concat(head, digits, r.nextBoolean() ? RespMutator.latin1("\r\n") : new byte[0]);
            }
        }
    }
}
