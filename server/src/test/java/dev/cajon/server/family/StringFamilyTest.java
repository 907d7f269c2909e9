package dev.cajon.server.family;

import static dev.cajon.server.testkit.RespAssertions.assertArray;
import static dev.cajon.server.testkit.RespAssertions.assertBulk;
import static dev.cajon.server.testkit.RespAssertions.assertError;
import static dev.cajon.server.testkit.RespAssertions.assertNil;
import static dev.cajon.server.testkit.RespAssertions.assertOk;
import static dev.cajon.server.testkit.RespAssertions.assertReply;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.testkit.FamilyTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * GET, SET and its options, SETNX/SETEX/PSETEX/GETSET/GETDEL/GETEX, MGET/MSET/MSETNX, APPEND,
 * STRLEN, GETRANGE/SUBSTR and SETRANGE, run in-process. Expected replies are Redis 7's. TTL
 * behaviour of SET and GETEX is in {@link ExpiryFamilyTest}.
 */
class StringFamilyTest extends FamilyTestBase {
    private static final int MIB = 1 << 20;

    // ------------------------------------------------------------------ GET / SET

    @Test
    void setThenGet() {
        assertOk(run("set", "k", "v"));
        assertReply(run("get", "k"), "v");
        assertEquals("$1\r\nv\r\n", client.lastRawString());
        assertNil(run("get", "missing"));
        assertEquals("$-1\r\n", client.lastRawString());
    }

    @Test
    void setOverwritesAndEmptyValueIsAValue() {
        run("set", "k", "one");
        assertOk(run("set", "k", ""));
        assertBulk(run("get", "k"), new byte[0]);
        assertEquals("$0\r\n\r\n", client.lastRawString());
        assertReply(run("exists", "k"), 1);
    }

    @Test
    void commandNamesAndOptionsAreCaseInsensitive() {
        assertOk(run("SeT", "k", "v", "nX"));
        assertReply(run("GET", "k"), "v");
        assertNil(run("set", "k", "w", "Nx"));
    }

    @Test
    void setNxAndXx() {
        assertNil(run("set", "k", "v", "xx"));
        assertReply(run("exists", "k"), 0);
        assertOk(run("set", "k", "v1", "nx"));
        assertNil(run("set", "k", "v2", "nx"));
        assertReply(run("get", "k"), "v1");
        assertOk(run("set", "k", "v3", "xx"));
        assertReply(run("get", "k"), "v3");
    }

    @Test
    void setGetReturnsTheOldValue() {
        assertNil(run("set", "k", "v1", "get"));
        assertReply(run("set", "k", "v2", "get"), "v1");
        assertReply(run("get", "k"), "v2");
        // NX GET (allowed since 7.0): the old value, and nothing written
        assertReply(run("set", "k", "v3", "nx", "get"), "v2");
        assertReply(run("get", "k"), "v2");
        // XX GET on a missing key: nil, nothing written
        assertNil(run("set", "other", "x", "xx", "get"));
        assertReply(run("exists", "other"), 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"nx xx", "xx nx", "ex 10 px 100", "px 100 ex 10", "keepttl ex 10", "ex 10 keepttl",
        "exat 10 pxat 10", "ex", "px", "exat", "pxat", "bogus", "persist", "get get x"})
    void setOptionConflictsAreSyntaxErrors(String options) {
        Object[] cmd = Stream.concat(Stream.of("set", "k", "v"), Arrays.stream(options.split(" "))).toArray();
        assertError(run(cmd), "ERR syntax error");
        assertReply(run("exists", "k"), 0);
    }

    @Test
    void setRepeatedOptionsAreAcceptedAsRedisDoes() {
        assertOk(run("set", "k", "v", "ex", "10", "ex", "20"));
        assertReply(run("ttl", "k"), 20);
        assertOk(run("set", "k2", "v", "nx", "nx"));
        // but XX after NX is a conflict, not "the last one wins"
        assertError(run("set", "k3", "v", "nx", "xx"), "ERR syntax error");
    }

    @ParameterizedTest
    @CsvSource({"ex,0", "ex,-1", "px,0", "px,-5", "exat,0", "pxat,-1", "ex,9223372036854775807",
        "px,9223372036854775807"})
    void setInvalidExpireTimes(String opt, String value) {
        assertError(run("set", "k", "v", opt, value), "ERR invalid expire time in 'set' command");
        assertReply(run("exists", "k"), 0);
    }

    @Test
    void setExpireMustBeAnInteger() {
        assertError(run("set", "k", "v", "ex", "1.5"), "ERR value is not an integer or out of range");
        assertError(run("set", "k", "v", "px", "abc"), "ERR value is not an integer or out of range");
    }

    @Test
    void setnx() {
        assertReply(run("setnx", "k", "a"), 1);
        assertReply(run("setnx", "k", "b"), 0);
        assertReply(run("get", "k"), "a");
    }

    @Test
    void setexAndPsetex() {
        assertOk(run("setex", "k", "10", "v"));
        assertReply(run("get", "k"), "v");
        assertReply(run("pttl", "k"), 10_000);
        assertOk(run("psetex", "k2", "1500", "v"));
        assertReply(run("pttl", "k2"), 1500);
        assertError(run("setex", "k", "0", "v"), "ERR invalid expire time in 'setex' command");
        assertError(run("psetex", "k", "-1", "v"), "ERR invalid expire time in 'psetex' command");
        assertError(run("setex", "k", "x", "v"), "ERR value is not an integer or out of range");
    }

    @Test
    void getsetAndGetdel() {
        assertNil(run("getset", "k", "a"));
        assertReply(run("getset", "k", "b"), "a");
        assertReply(run("get", "k"), "b");
        assertReply(run("getdel", "k"), "b");
        assertReply(run("exists", "k"), 0);
        assertNil(run("getdel", "k"));
    }

    @Test
    void getexWithoutOptionsIsGet() {
        assertNil(run("getex", "k"));
        run("set", "k", "v");
        assertReply(run("getex", "k"), "v");
    }

    @ParameterizedTest
    @ValueSource(strings = {"nx", "xx", "get", "keepttl", "ex 10 px 10", "persist ex 10", "ex 10 persist", "ex"})
    void getexRejectsSetOnlyOptions(String options) {
        run("set", "k", "v");
        Object[] cmd = Stream.concat(Stream.of("getex", "k"), Arrays.stream(options.split(" "))).toArray();
        assertError(run(cmd), "ERR syntax error");
    }

    @Test
    void getexInvalidTimeOnMissingKeyIsNil() {
        // Redis looks the key up before it validates the time
        assertNil(run("getex", "missing", "ex", "0"));
        run("set", "k", "v");
        assertError(run("getex", "k", "ex", "0"), "ERR invalid expire time in 'getex' command");
        assertError(run("getex", "k", "px", "abc"), "ERR value is not an integer or out of range");
    }

    // ------------------------------------------------------------------ multi-key

    @Test
    void msetAndMget() {
        assertOk(run("mset", "a", "1", "b", "2", "c", "3"));
        assertArray(run("mget", "a", "nope", "c", "b"), "1", null, "3", "2");
        assertEquals("*4\r\n$1\r\n1\r\n$-1\r\n$1\r\n3\r\n$1\r\n2\r\n", client.lastRawString());
    }

    @Test
    void msetLastPairWinsForARepeatedKey() {
        assertOk(run("mset", "a", "1", "a", "2"));
        assertReply(run("get", "a"), "2");
        assertReply(run("dbsize"), 1);
    }

    @Test
    void msetWithAnOddNumberOfArgumentsIsAnArityError() {
        assertError(run("mset", "a", "1", "b"), "ERR wrong number of arguments for 'mset' command");
        assertError(run("msetnx", "a", "1", "b"), "ERR wrong number of arguments for 'msetnx' command");
        assertReply(run("exists", "a", "b"), 0);
    }

    @Test
    void msetnxIsAllOrNothing() {
        assertReply(run("msetnx", "a", "1", "b", "2"), 1);
        assertReply(run("msetnx", "b", "x", "c", "3"), 0);
        assertReply(run("exists", "c"), 0);
        assertReply(run("get", "b"), "2");
        assertReply(run("msetnx", "c", "3", "d", "4"), 1);
        assertReply(run("dbsize"), 4);
    }

    // ------------------------------------------------------------------ APPEND / STRLEN / ranges

    @Test
    void appendAndStrlen() {
        assertReply(run("strlen", "k"), 0);
        assertReply(run("append", "k", "Hello"), 5);
        assertReply(run("append", "k", " World"), 11);
        assertReply(run("get", "k"), "Hello World");
        assertReply(run("strlen", "k"), 11);
        assertReply(run("append", "k", ""), 11);
    }

    @Test
    void appendToACounterKeepsItANumber() {
        run("incr", "n");
        assertReply(run("append", "n", "5"), 2);
        assertReply(run("incr", "n"), 16);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0|3|This", "-3|-1|ing", "0|-1|This is a string", "10|100|string", "5|3|''", "-100|2|Thi",
        "-1|-5|''", "100|200|''", "0|0|T", "-1|-1|g", "3|-100|''"})
    void getrangeClampsLikeRedis(long start, long end, String expected) {
        run("set", "k", "This is a string");
        assertReply(run("getrange", "k", start, end), expected);
        assertReply(run("substr", "k", start, end), expected);
    }

    @Test
    void getrangeOfAMissingKeyIsEmpty() {
        assertReply(run("getrange", "nope", "0", "-1"), "");
        assertEquals("$0\r\n\r\n", client.lastRawString());
        assertError(run("getrange", "nope", "a", "1"), "ERR value is not an integer or out of range");
    }

    @Test
    void setrange() {
        run("set", "k", "Hello World");
        assertReply(run("setrange", "k", "6", "Redis"), 11);
        assertReply(run("get", "k"), "Hello Redis");
        // past the end: zero padding
        assertReply(run("setrange", "pad", "5", "x"), 6);
        assertBulk(run("get", "pad"), new byte[] {0, 0, 0, 0, 0, 'x'});
    }

    @Test
    void setrangeEdgeCases() {
        // nothing to write on a missing key: 0 and no key created
        assertReply(run("setrange", "k", "10", ""), 0);
        assertReply(run("exists", "k"), 0);
        run("set", "k", "abc");
        assertReply(run("setrange", "k", "10", ""), 3);
        assertError(run("setrange", "k", "-1", "x"), "ERR offset is out of range");
        assertError(run("setrange", "k", "536870912", "x"),
                "ERR string exceeds maximum allowed size (proto-max-bulk-len)");
        assertError(run("setrange", "k", "x", "x"), "ERR value is not an integer or out of range");
        assertReply(run("get", "k"), "abc");
    }

    // ------------------------------------------------------------------ binary safety

    @Test
    void binarySafeKeysAndValues() {
        byte[] key = {0, 1, '\r', '\n', ' ', (byte) 0xff, (byte) 0x80, 0};
        byte[] key2 = {0, 1, '\r', '\n', ' ', (byte) 0xff, (byte) 0x80};
        byte[] value = new byte[256];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) i;
        }
        assertOk(run("set", key, value));
        assertBulk(run("get", key), value);
        assertNil(run("get", key2));
        assertReply(run("strlen", key), 256);
        assertReply(run("append", key, new byte[] {'\r', '\n'}), 258);
        assertBulk(run("getrange", key, "254", "-1"), new byte[] {(byte) 254, (byte) 255, '\r', '\n'});
        assertOk(run("mset", key2, "\r\n$-1\r\n"));
        assertReply(run("get", key2), "\r\n$-1\r\n");
        assertArray(run("mget", key2, key), "\r\n$-1\r\n", concat(value, new byte[] {'\r', '\n'}));
        assertReply(run("exists", key, key2), 2);
        assertReply(run("del", key), 1);
        assertReply(run("exists", key2), 1);
    }

    @Test
    void keysDifferingOnlyInCaseAreDistinct() {
        run("set", "Key", "1");
        run("set", "key", "2");
        assertReply(run("get", "Key"), "1");
        assertReply(run("get", "key"), "2");
    }

    @ParameterizedTest
    @ValueSource(ints = {1024, 16 * 1024, 64 * 1024})
    void longKeys(int length) {
        byte[] key = pattern(length, length);
        assertOk(run("set", key, "v"));
        assertReply(run("get", key), "v");
        assertReply(run("del", key), 1);
    }

    @Test
    void aOneMebibyteKeyIsAccepted() {
        // Redis bounds a key only by proto-max-bulk-len (512 MiB)
        byte[] key = pattern(1 << 20, 42);
        assertOk(run("set", key, "v"));
        assertReply(run("get", key), "v");
        assertReply(run("exists", key), 1);
    }

    // ------------------------------------------------------------------ large values

    @ParameterizedTest
    @ValueSource(ints = {1, 20})
    void largeValues(int mib) throws IOException {
        int n = mib * MIB;
        byte[] v = pattern(n, mib);
        assertOk(run("set", "big", v));
        assertReply(run("strlen", "big"), n);
        int streamedBefore = client.streamedRegions();
        assertBulk(run("get", "big"), v);
        assertTrue(client.streamedRegions() > streamedBefore, "a large GET is streamed from its blob file");

        // ranges at the start, middle, end, and clamped past the end
        assertBulk(run("getrange", "big", "0", "9"), Arrays.copyOfRange(v, 0, 10));
        int mid = n / 2;
        assertBulk(run("getrange", "big", mid, mid + 99_999), Arrays.copyOfRange(v, mid, mid + 100_000));
        assertBulk(run("getrange", "big", "-5", "-1"), Arrays.copyOfRange(v, n - 5, n));
        assertBulk(run("getrange", "big", n - 3, n + 1000), Arrays.copyOfRange(v, n - 3, n));
        assertReply(run("getrange", "big", n, n + 10), "");

        // APPEND a tail, SETRANGE inside and past the end (zero padding)
        byte[] tail = pattern(70_000, 7);
        assertReply(run("append", "big", tail), n + tail.length);
        byte[] expected = concat(v, tail);
        byte[] patch = pattern(4096, 9);
        assertReply(run("setrange", "big", mid, patch), expected.length);
        System.arraycopy(patch, 0, expected, mid, patch.length);
        assertReply(run("setrange", "big", expected.length + 10, "end"), expected.length + 13);
        byte[] padded = Arrays.copyOf(expected, expected.length + 13);
        System.arraycopy("end".getBytes(), 0, padded, expected.length + 10, 3);
        expected = padded;
        assertReply(run("strlen", "big"), expected.length);
        assertBulk(run("get", "big"), expected);
        assertBulk(run("substr", "big", mid - 1, mid + 4096), Arrays.copyOfRange(expected, mid - 1, mid + 4097));

        // GETSET / SET GET / GETDEL return the large old value whole
        assertBulk(run("set", "big", "small", "get"), expected);
        assertReply(run("get", "big"), "small");
        run("set", "big", v, "ex", "100");
        assertBulk(run("getex", "big", "pxat", "1"), v); // read, then deleted by the past deadline
        assertReply(run("exists", "big"), 0);
        run("set", "big", v);
        assertBulk(run("getdel", "big"), v);
        assertReply(run("exists", "big"), 0);
        assertNoOpenBlobFiles();
    }

    @Test
    void aValueGrowingPastTheBlobThresholdByAppend() throws IOException {
        byte[] chunk = pattern(10_000, 3);
        byte[] expected = new byte[0];
        for (int i = 0; i < 4; i++) {
            assertReply(run("append", "k", chunk), (long) chunk.length * (i + 1));
            expected = concat(expected, chunk);
        }
        assertBulk(run("get", "k"), expected);
        // and SETRANGE growing a small value into a large one
        assertReply(run("setrange", "s", "20000", "x"), 20_001);
        assertReply(run("strlen", "s"), 20_001);
        assertBulk(run("getrange", "s", "19998", "-1"), new byte[] {0, 0, 'x'});
        assertNoOpenBlobFiles();
    }

    @Test
    void largeValuesInMsetMgetAndCounters() throws IOException {
        byte[] a = pattern(MIB, 11);
        byte[] b = pattern(100_000, 12);
        assertOk(run("mset", "a", a, "b", b, "c", "small"));
        assertArray(run("mget", "a", "x", "b", "c"), a, null, b, "small");
        assertError(run("incr", "a"), "ERR value is not an integer or out of range");
        assertError(run("incrbyfloat", "a", "1"), "ERR value is not a valid float");
        assertReply(run("msetnx", "a", "1", "z", "2"), 0);
        assertBulk(run("get", "a"), a);
        assertNoOpenBlobFiles();
    }

    @ParameterizedTest
    @ValueSource(ints = {16_383, 16_384, 16_385})
    void valuesAroundTheBlobThreshold(int size) {
        byte[] v = pattern(size, size);
        assertOk(run("set", "k", v));
        assertBulk(run("get", "k"), v);
        assertReply(run("append", "k", "x"), size + 1);
        assertBulk(run("getrange", "k", size - 2, size), new byte[] {v[size - 2], v[size - 1], 'x'});
        assertReply(run("setrange", "k", size - 1, "yz"), size + 1);
        byte[] expected = Arrays.copyOf(v, size + 1);
        expected[size - 1] = 'y';
        expected[size] = 'z';
        assertBulk(run("get", "k"), expected);
        assertReply(run("strlen", "k"), size + 1);
    }

    @Test
    void noBlobFileOutlivesItsValue() throws IOException {
        byte[] big = pattern(20_000, 1);
        run("set", "a", big);
        run("set", "a", pattern(30_000, 2)); // overwrite
        run("set", "b", big);
        run("set", "b", "small"); // shrink below the threshold
        run("set", "c", big);
        run("del", "c");
        run("set", "d", big);
        run("rename", "d", "a"); // over another blob
        run("set", "e", big);
        run("copy", "e", "a", "replace");
        run("copy", "e", "f");
        run("getdel", "f");
        run("set", "g", big, "px", "10");
        run("append", "a", "tail");
        run("setrange", "a", "5", "XY");
        run("setrange", "e", "100000", "far");
        run("getset", "e", big);
        run("mset", "h", big, "h", "x");
        run("set", "i", big);
        run("getex", "i", "pxat", "1");
        run("set", "j", big);
        run("expire", "j", "-1");
        advance(11);
        run("get", "g");
        // live blob values now: a and e
        assertEquals(2, blobFiles(0), "blob files of db 0");
        assertReply(run("dbsize"), 4); // a, b, e, h
        run("flushdb");
        assertEquals(0, blobFiles(0));
        assertNoOpenBlobFiles();
    }

    private long blobFiles(int db) throws IOException {
        Path blobs = dir.resolve("default").resolve("db" + db).resolve("blobs");
        if (!Files.isDirectory(blobs)) {
            return 0;
        }
        try (Stream<Path> s = Files.list(blobs)) {
            return s.count();
        }
    }

    // ------------------------------------------------------------------ helpers

    /** Every channel a reply opened on a blob file was closed (no file descriptor leaks). */
    private void assertNoOpenBlobFiles() throws IOException {
        Path fds = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fds)) {
            return;
        }
        String root = dir.toRealPath().toString();
        try (Stream<Path> s = Files.list(fds)) {
            long open = s.map(p -> {
                try {
                    return Files.readSymbolicLink(p).toString();
                } catch (IOException e) {
                    return "";
                }
            }).filter(t -> t.startsWith(root) && t.contains("blobs")).count();
            assertEquals(0, open, "blob files left open");
        }
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** Deterministic pseudo-random bytes, so a mismatch points at an offset. */
    static byte[] pattern(int len, long seed) {
        byte[] out = new byte[len];
        long x = seed * 0x9E3779B97F4A7C15L + 1;
        for (int i = 0; i < len; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            out[i] = (byte) x;
        }
        return out;
    }
}
