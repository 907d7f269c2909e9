package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One command that changes far more pages than a tree keeps decoded (a bulk HSET, RPUSH or a
 * HSET over an existing big hash): the tree writes each changed page once, when the command's
 * writes are applied, or when it must let a decoded page go first. Every field and element must
 * read back, in the same command's keyspace and after a restart, and a second bulk write over
 * the first (every page changed again) must too.
 */
class BulkWriteTest {
    @TempDir
    Path dir;

    private static byte[][] pairs(int n, String tag) {
        byte[][] p = new byte[2 * n][];
        for (int i = 0; i < n; i++) {
            p[2 * i] = b("field:" + i);
            p[2 * i + 1] = b(tag + ":" + i);
        }
        return p;
    }

    @Test
    void aBulkHsetAndRpushReadBackWholeAndSurviveARestart() {
        int n = 30_000; // hundreds of pages: well past the 64 a tree keeps decoded
        byte[][] values = new byte[n][];
        for (int i = 0; i < n; i++) {
            values[i] = b("element:" + i);
        }
        ManualClock clock = new ManualClock(T0);
        try (Store s = Store.open(dir, clock)) {
            Keyspace ks = s.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(n, ks.hashes().set(b("h"), pairs(n, "v1")));
            assertEquals(0, ks.hashes().set(b("h"), pairs(n, "v2")), "every field overwritten, none added");
            assertEquals(n, ks.lists().push(b("l"), values, 0, false, false));
            check(ks, n);
        }
        try (Store s = Store.open(dir, clock)) {
            check(s.keyspace(Store.DEFAULT_APP, 0), n);
        }
    }

    private static void check(Keyspace ks, int n) {
        for (int i = 0; i < n; i++) {
            assertArrayEquals(b("v2:" + i), ks.hashes().get(b("h"), b("field:" + i)), "field " + i);
        }
        List<byte[]> all = ks.lists().range(b("l"), 0, -1);
        assertEquals(n, all.size());
        for (int i = 0; i < n; i++) {
            assertArrayEquals(b("element:" + i), all.get(i), "element " + i);
        }
    }
}
