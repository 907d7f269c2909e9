package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The server as an application meets it through Jedis: databases, binary-safe keys and values,
 * a value far above the blob threshold, deep pipelines, and concurrent INCRs on one key.
 */
class JedisSystemTest {
    @RegisterExtension
    static final ServerProcesses servers = new ServerProcesses();

    @TempDir
    static Path tmp;

    static CajonProcess server;

    @BeforeAll
    static void startServer() {
        server = servers.start("jedis", tmp.resolve("data"));
    }

    @BeforeEach
    void flush() {
        try (Jedis j = server.jedis()) {
            j.flushAll();
        }
    }

    @Test
    void selectKeepsDatabasesApart() {
        try (Jedis j = server.jedis()) {
            assertEquals("OK", j.set("k", "zero"));
            assertEquals("OK", j.select(1));
            assertNull(j.get("k"));
            assertEquals("OK", j.set("k", "one"));
            assertEquals("OK", j.select(15));
            assertEquals("OK", j.set("k", "fifteen"));
            assertEquals(1L, j.incr("only-in-15"));
            assertEquals(2L, j.dbSize());

            JedisDataException e = assertThrows(JedisDataException.class, () -> j.select(16));
            assertEquals("ERR DB index is out of range", e.getMessage());
            assertEquals("fifteen", j.get("k"), "a failed SELECT keeps the current db");

            assertEquals("OK", j.select(0));
            assertEquals("zero", j.get("k"));
            assertEquals(1L, j.dbSize());
            assertEquals("OK", j.select(1));
            assertEquals("one", j.get("k"));
            assertFalse(j.exists("only-in-15"));
        }
        // a new connection starts in db 0; a client configured with a database SELECTs it
        try (Jedis j = server.jedis()) {
            assertEquals("zero", j.get("k"));
        }
        try (Jedis j = new Jedis(CajonProcess.LOOPBACK, server.port(),
                DefaultJedisClientConfig.builder().database(15).socketTimeoutMillis(10_000)
                        .autoNegotiateProtocol(false).build())) {
            assertEquals("fifteen", j.get("k"));
        }
        // FLUSHDB empties only the current db
        try (Jedis j = server.jedis()) {
            j.select(1);
            assertEquals("OK", j.flushDB());
            assertEquals(0L, j.dbSize());
            j.select(15);
            assertEquals(2L, j.dbSize());
        }
    }

    @Test
    void binaryKeysAndValuesRoundTrip() {
        byte[] allBytes = new byte[256];
        for (int i = 0; i < 256; i++) {
            allBytes[i] = (byte) i;
        }
        byte[] key = concat("bin\0\r\n".getBytes(StandardCharsets.ISO_8859_1), allBytes);
        byte[] value = new byte[4096];
        new Random(42).nextBytes(value);
        System.arraycopy(allBytes, 0, value, 100, 256);
        byte[] crlf = "\r\n$-1\r\n*3\r\n".getBytes(StandardCharsets.ISO_8859_1);

        try (Jedis j = server.jedis()) {
            assertEquals("OK", j.set(key, value));
            assertArrayEquals(value, j.get(key));
            assertEquals(value.length, j.strlen(key));
            assertEquals(value.length + crlf.length, j.append(key, crlf));
            assertArrayEquals(concat(value, crlf), j.get(key));
            assertArrayEquals(Arrays.copyOfRange(value, 100, 356), j.getrange(key, 100, 355));

            // keys that differ only in their last byte, or by a trailing NUL, are different keys
            byte[] nul = concat(key, new byte[] {0});
            assertEquals("OK", j.set(nul, allBytes));
            assertArrayEquals(allBytes, j.get(nul));
            assertEquals(value.length + crlf.length, j.strlen(key));

            // empty key and empty value are legal and distinct from a missing key
            assertEquals("OK", j.set(new byte[0], new byte[0]));
            assertArrayEquals(new byte[0], j.get(new byte[0]));
            assertTrue(j.exists(new byte[0]));

            // a value that looks like an integer with bytes around it is not one
            assertEquals("OK", j.set("n".getBytes(StandardCharsets.UTF_8), "12\0".getBytes(StandardCharsets.ISO_8859_1)));
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.incr("n"));
            assertEquals("ERR value is not an integer or out of range", e.getMessage());

            List<byte[]> got = j.mget(key, nul, "missing".getBytes(StandardCharsets.UTF_8));
            assertArrayEquals(concat(value, crlf), got.get(0));
            assertArrayEquals(allBytes, got.get(1));
            assertNull(got.get(2));
        }
    }

    @Test
    void twentyMebibyteValueRoundTrip() {
        final int size = 20 << 20;
        byte[] big = new byte[size];
        new Random(7).nextBytes(big);
        byte[] tail = new byte[(1 << 20) + 7];
        new Random(8).nextBytes(tail);
        byte[] key = "big".getBytes(StandardCharsets.UTF_8);

        try (Jedis j = server.jedis()) {
            assertEquals("OK", j.set(key, big));
            assertEquals(size, j.strlen(key));
            assertArrayEquals(big, j.get(key), "20 MiB GET");

            assertEquals(size + tail.length, j.append(key, tail));
            assertEquals(size + tail.length, j.strlen(key));
            byte[] whole = concat(big, tail);

            assertArrayEquals(Arrays.copyOfRange(whole, 0, 100), j.getrange(key, 0, 99));
            assertArrayEquals(Arrays.copyOfRange(whole, size - 10, size + 10), j.getrange(key, size - 10, size + 9),
                    "GETRANGE across the old end");
            assertArrayEquals(Arrays.copyOfRange(whole, 5 << 20, 6 << 20), j.getrange(key, 5 << 20, (6 << 20) - 1),
                    "a 1 MiB slice from the middle");
            assertArrayEquals(Arrays.copyOfRange(whole, whole.length - 5, whole.length), j.getrange(key, -5, -1));
            assertArrayEquals(Arrays.copyOfRange(whole, whole.length - 5, whole.length), j.getrange(key, -5, 1L << 40),
                    "an end past the value is clamped");
            assertArrayEquals(new byte[0], j.getrange(key, size + tail.length, size + tail.length + 10),
                    "a start past the end gives an empty string");
            assertArrayEquals(whole, j.get(key), "GET after APPEND");

            // a second connection reads the same bytes while the first keeps working
            try (Jedis other = server.jedis()) {
                assertArrayEquals(whole, other.get(key));
            }
            // copy semantics: overwriting with a small value, then a big one again
            assertEquals("OK", j.set(key, "small".getBytes(StandardCharsets.UTF_8)));
            assertEquals(5, j.strlen(key));
            assertEquals("OK", j.set(key, big));
            assertArrayEquals(Arrays.copyOfRange(big, size - 100, size), j.getrange(key, -100, -1));
            assertEquals(1L, j.del(key));
            assertNull(j.get(key));
        }
    }

    /**
     * Large values are streamed from their blob file after the command returns. A reader must get
     * one whole version of the value, never a mix, while another client replaces, appends to and
     * deletes it. Version {@code v} is {@code 6 MiB + v KiB} bytes all equal to {@code v} (plus
     * 1 KiB more of {@code v} once appended to).
     */
    @Test
    void bigValueReadsAreWholeWhileAnotherClientRewritesIt() throws Exception {
        final int base = 6 << 20;
        final int versions = 12;
        byte[] key = "moving".getBytes(StandardCharsets.UTF_8);
        try (Jedis j = server.jedis()) {
            assertEquals("OK", j.set(key, version(0, base)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            AtomicBoolean done = new AtomicBoolean();
            Future<?> writer = pool.submit(() -> {
                try (Jedis j = server.jedis()) {
                    for (int v = 1; v <= versions; v++) {
                        assertEquals("OK", j.set(key, version(v, base)));
                        byte[] more = new byte[1024];
                        Arrays.fill(more, (byte) v);
                        assertEquals(base + v * 1024L + 1024, j.append(key, more));
                        if (v % 4 == 0) {
                            assertEquals(1L, j.del(key));
                        }
                    }
                } finally {
                    done.set(true);
                }
                return null;
            });
            Future<Integer> reader = pool.submit(() -> {
                int reads = 0;
                try (Jedis j = server.jedis()) {
                    while (!done.get() && reads < 200) {
                        byte[] got = j.get(key);
                        reads++;
                        if (got == null) {
                            continue;
                        }
                        int v = got[0];
                        int expected = base + v * 1024;
                        assertTrue(got.length == expected || got.length == expected + 1024,
                                "read " + reads + ": length " + got.length + " does not belong to version " + v);
                        for (int i = 0; i < got.length; i++) {
                            if (got[i] != v) {
                                throw new AssertionError("read " + reads + ": version " + v + " mixed with "
                                        + got[i] + " at offset " + i + " of " + got.length);
                            }
                        }
                    }
                }
                return reads;
            });
            writer.get(60, TimeUnit.SECONDS);
            int reads = reader.get(60, TimeUnit.SECONDS);
            System.out.println("big value: " + reads + " whole reads while it was rewritten " + versions + " times");
            assertTrue(reads > 0, "the reader read nothing");
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }
    }

    private static byte[] version(int v, int base) {
        byte[] b = new byte[base + v * 1024];
        Arrays.fill(b, (byte) v);
        return b;
    }

    @Test
    void pipelineOfTenThousandCommands() {
        final int n = 10_000;
        try (Jedis j = server.jedis()) {
            List<Response<?>> replies = new ArrayList<>(n);
            try (Pipeline p = j.pipelined()) {
                for (int i = 0; i < n; i++) {
                    switch (i % 4) {
                        case 0 -> replies.add(p.set("p:" + i, "v" + i));
                        case 1 -> replies.add(p.incr("p:counter"));
                        case 2 -> replies.add(p.get("p:" + (i - 2)));
                        default -> replies.add(p.append("p:log", "x"));
                    }
                }
                p.sync();
            }
            long counter = 0;
            long logLength = 0;
            for (int i = 0; i < n; i++) {
                Object r = replies.get(i).get();
                switch (i % 4) {
                    case 0 -> assertEquals("OK", r, "reply " + i);
                    case 1 -> assertEquals(++counter, r, "reply " + i);
                    case 2 -> assertEquals("v" + (i - 2), r, "reply " + i);
                    default -> assertEquals(++logLength, r, "reply " + i);
                }
            }
            assertEquals(Long.toString(n / 4), j.get("p:counter"));
            assertEquals(n / 4, j.strlen("p:log"));

            // and 10k reads in one pipeline
            List<Response<String>> gets = new ArrayList<>(n);
            try (Pipeline p = j.pipelined()) {
                for (int i = 0; i < n; i++) {
                    gets.add(p.get("p:" + (i - i % 4)));
                }
                p.sync();
            }
            for (int i = 0; i < n; i++) {
                assertEquals("v" + (i - i % 4), gets.get(i).get(), "get " + i);
            }
        }
    }

    @Test
    void concurrentIncrOnOneKeyLosesNothing() throws Exception {
        final int clients = 8;
        final int perClient = 1_000;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<long[]>> results = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                results.add(pool.submit(() -> {
                    long[] seen = new long[perClient];
                    try (Jedis j = server.jedis()) {
                        for (int i = 0; i < perClient; i++) {
                            seen[i] = j.incr("hits");
                        }
                    }
                    return seen;
                }));
            }
            BitSet all = new BitSet(clients * perClient + 1);
            for (Future<long[]> f : results) {
                long[] seen = f.get(60, TimeUnit.SECONDS);
                for (int i = 0; i < perClient; i++) {
                    assertTrue(i == 0 || seen[i] > seen[i - 1], "one client's INCR replies must increase");
                    assertTrue(seen[i] >= 1 && seen[i] <= clients * perClient, "reply out of range: " + seen[i]);
                    assertTrue(!all.get((int) seen[i]), "two INCRs replied the same value " + seen[i]);
                    all.set((int) seen[i]);
                }
            }
            assertEquals(clients * perClient, all.cardinality());
            try (Jedis j = server.jedis()) {
                assertEquals(Integer.toString(clients * perClient), j.get("hits"));
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
