package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static dev.cajon.storage.TestData.str;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.storage.chronicle.ValueHeader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The data directory: its lock, the unclean-stop marker, and what a restart keeps and drops. */
class StoreTest {
    private static final long NO_EXPIRY = ValueHeader.NO_EXPIRY;

    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(T0);

    private static void set(Keyspace ks, String k, String v, long at) {
        assertEquals(OpStatus.OK, ks.set(b(k), b(v), SetCondition.ALWAYS, at, false).status());
    }

    @Test
    void aSecondOpenOfTheSameDirectoryIsRefused() {
        try (Store first = Store.open(dir, clock)) {
            Store.DataDirLockedException e =
                    assertThrows(Store.DataDirLockedException.class, () -> Store.open(dir, clock));
            assertTrue(e.getMessage().contains(dir.toAbsolutePath().toString()), e.getMessage());
            assertTrue(e.getMessage().contains("in use"), e.getMessage());
            set(first.keyspace(Store.DEFAULT_APP, 0), "k", "v", NO_EXPIRY);
            assertEquals("v", str(first.keyspace(Store.DEFAULT_APP, 0).get(b("k"))), "the first store is unharmed");
        }
        try (Store again = Store.open(dir, clock)) {
            assertEquals("v", str(again.keyspace(Store.DEFAULT_APP, 0).get(b("k"))), "free again after close");
        }
    }

    /**
     * The lock must hold against another process, and must still hold after a refused second
     * open in this process (closing any channel on a file drops this process's POSIX locks on it).
     */
    @Test
    void theLockHoldsAgainstAnotherProcess() throws Exception {
        Path lockFile = dir.resolve("cajon.lock");
        try (Store first = Store.open(dir, clock)) {
            assertEquals("held", probeLock(lockFile));
            assertThrows(Store.DataDirLockedException.class, () -> Store.open(dir, clock));
            assertEquals("held", probeLock(lockFile), "a refused open must not release the lock");
            assertNotNull(first.keyspace(Store.DEFAULT_APP, 0));
        }
        assertEquals("free", probeLock(lockFile));
    }

    /** Runs a one-file Java program in a child JVM that tries to lock {@code lockFile}. */
    private String probeLock(Path lockFile) throws IOException, InterruptedException {
        Path src = dir.resolve("LockProbe.java");
        if (!Files.exists(src)) {
            Files.writeString(src, """
                    import java.nio.channels.FileChannel;
                    import java.nio.channels.FileLock;
                    import java.nio.file.Path;
                    import java.nio.file.StandardOpenOption;

                    public class LockProbe {
                        public static void main(String[] args) throws Exception {
                            try (FileChannel ch = FileChannel.open(Path.of(args[0]), StandardOpenOption.WRITE)) {
                                FileLock l = ch.tryLock();
                                System.out.print(l == null ? "held" : "free");
                            }
                        }
                    }
                    """);
        }
        Path classes = dir.resolve("probe-classes");
        if (!Files.exists(classes.resolve("LockProbe.class"))) {
            Files.createDirectories(classes);
            int rc = javax.tools.ToolProvider.getSystemJavaCompiler()
                    .run(null, null, null, "-d", classes.toString(), src.toString());
            assertEquals(0, rc, "compiling the lock probe");
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1",
                "-cp", classes.toString(), "LockProbe", lockFile.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "lock probe timed out");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void theRunningMarkerLivesExactlyAsLongAsTheStore() throws IOException {
        Path running = dir.resolve("cajon.running");
        try (Store store = Store.open(dir, clock)) {
            assertFalse(store.recovered(), "a brand-new directory needs no recovery");
            assertTrue(Files.exists(running));
            assertEquals(Long.toString(ProcessHandle.current().pid()), Files.readString(running));
        }
        assertFalse(Files.exists(running), "a clean close removes the marker");
        try (Store store = Store.open(dir, clock)) {
            assertFalse(store.recovered(), "a clean stop needs no recovery");
        }
    }

    @Test
    void closeIsIdempotentAndAClosedStoreRefusesWork() {
        Store store = Store.open(dir, clock);
        store.close();
        store.close();
        assertThrows(IllegalStateException.class, () -> store.keyspace(Store.DEFAULT_APP, 0));
    }

    /**
     * An unclean stop cannot be produced in-process (the JVM cannot let go of its own file lock
     * without closing), so the test stops cleanly and then puts the marker back, which is what a
     * SIGKILL leaves behind. The next start must recover and keep every key.
     */
    @Test
    void anUncleanStopIsRecovered() throws IOException {
        byte[] big = TestData.pattern(Keyspace.BLOB_THRESHOLD * 4, 1);
        try (Store store = Store.open(dir, clock)) {
            Keyspace db0 = store.keyspace(Store.DEFAULT_APP, 0);
            for (int i = 0; i < 1000; i++) {
                set(db0, "k" + i, "v" + i, NO_EXPIRY);
            }
            set(db0, "ttl", "v", T0 + 60_000);
            db0.set(b("big"), big, SetCondition.ALWAYS, NO_EXPIRY, false);
            set(store.keyspace(Store.DEFAULT_APP, 3), "other-db", "3", NO_EXPIRY);
            set(store.keyspace("app2", 0), "other-app", "a", NO_EXPIRY);
        }
        Files.writeString(dir.resolve("cajon.running"), "12345");

        try (Store store = Store.open(dir, clock)) {
            assertTrue(store.recovered());
            Keyspace db0 = store.keyspace(Store.DEFAULT_APP, 0);
            assertEquals(1002, db0.size());
            for (int i = 0; i < 1000; i++) {
                assertEquals("v" + i, str(db0.get(b("k" + i))));
            }
            assertEquals(T0 + 60_000, db0.deadline(b("ttl")));
            assertArrayEquals(big, db0.get(b("big")).toBytes());
            assertEquals("3", str(store.keyspace(Store.DEFAULT_APP, 3).get(b("other-db"))));
            assertEquals("a", str(store.keyspace("app2", 0).get(b("other-app"))));
            set(db0, "after", "recovery", NO_EXPIRY);
        }
        try (Store store = Store.open(dir, clock)) {
            assertFalse(store.recovered(), "the recovered run stopped cleanly");
            assertEquals("recovery", str(store.keyspace(Store.DEFAULT_APP, 0).get(b("after"))));
        }
    }

    @Test
    void keysThatExpiredWhileDownAreGoneAtOpen() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            set(ks, "soon", "v", T0 + 1000);
            set(ks, "later", "v", T0 + 10_000);
            set(ks, "never", "v", NO_EXPIRY);
            ks.set(b("soon-big"), TestData.pattern(Keyspace.BLOB_THRESHOLD + 1, 2), SetCondition.ALWAYS, T0 + 1000, false);
            assertEquals(4, ks.size());
        }
        clock.advance(5000);
        try (Store store = Store.open(dir, clock)) {
            Keyspace ks = store.existing(Store.DEFAULT_APP, 0);
            assertNotNull(ks, "keyspaces on disk are opened at start");
            assertEquals(2, ks.size(), "size() excludes keys that expired while down, before any read");
            assertEquals(1, ks.volatileSize());
            assertNull(ks.get(b("soon")));
            assertEquals(T0 + 10_000, ks.deadline(b("later")));
            assertEquals("v", str(ks.get(b("never"))));
            assertEquals(List.of(), TestData.list(TestData.blobDir(store, 0)));
            assertEquals(2, ks.size());
        }
    }

    @Test
    void existingKeyspacesAreOpenedAtStartAndListedInDbOrder() {
        try (Store store = Store.open(dir, clock)) {
            assertNull(store.existing(Store.DEFAULT_APP, 0));
            for (int db : new int[] {10, 2, 0}) {
                set(store.keyspace(Store.DEFAULT_APP, db), "k", "db" + db, NO_EXPIRY);
            }
            set(store.keyspace("other", 5), "k", "other", NO_EXPIRY);
            assertSame(store.keyspace(Store.DEFAULT_APP, 2), store.existing(Store.DEFAULT_APP, 2));
        }
        try (Store store = Store.open(dir, clock)) {
            List<Integer> dbs = new ArrayList<>();
            store.forEachKeyspace(Store.DEFAULT_APP, (db, ks) -> {
                dbs.add(db);
                assertEquals("db" + db, str(ks.get(b("k"))));
            });
            assertEquals(List.of(0, 2, 10), dbs);
            assertEquals(4, store.keyspaces().size());
            assertNull(store.existing(Store.DEFAULT_APP, 1));
            assertEquals("other", str(store.existing("other", 5).get(b("k"))));
        }
    }

    @Test
    void appsAndDbsAreSeparateKeyspaces() {
        try (Store store = Store.open(dir, clock)) {
            Keyspace a = store.keyspace(Store.DEFAULT_APP, 0);
            Keyspace b1 = store.keyspace(Store.DEFAULT_APP, 1);
            Keyspace other = store.keyspace("other", 0);
            set(a, "k", "a", NO_EXPIRY);
            set(b1, "k", "b", NO_EXPIRY);
            assertNull(other.get(b("k")));
            assertEquals("a", str(a.get(b("k"))));
            assertEquals("b", str(b1.get(b("k"))));
            b1.flush();
            assertEquals("a", str(a.get(b("k"))), "FLUSHDB of one db leaves the others alone");
        }
    }

    /** Every deadline reaches the listener, and at start every persisted live one is reported again. */
    @Test
    void theExpiryListenerHearsEveryKeyspaceAndEveryPersistedDeadline() {
        List<String> heard = new ArrayList<>();
        ExpiryListener l = (ks, key, at) ->
                heard.add(ks.name() + ":" + new String(key, StandardCharsets.UTF_8) + "@" + (at - T0));
        try (Store store = Store.open(dir, clock, l)) {
            set(store.keyspace(Store.DEFAULT_APP, 0), "x", "v", T0 + 10);
            set(store.keyspace(Store.DEFAULT_APP, 1), "y", "v", T0 + 20);
            set(store.keyspace(Store.DEFAULT_APP, 1), "z", "v", T0 + 5);
            set(store.keyspace(Store.DEFAULT_APP, 1), "plain", "v", NO_EXPIRY);
        }
        assertEquals(List.of("default/0:x@10", "default/1:y@20", "default/1:z@5"), heard);
        heard.clear();
        clock.advance(5);
        try (Store store = Store.open(dir, clock, l)) {
            assertEquals(List.of("default/0:x@10", "default/1:y@20", "default/1:z@5"),
                    heard.stream().sorted().toList(), "z is at its deadline: still live, reported again");
        }
        heard.clear();
        clock.advance(1);
        try (Store store = Store.open(dir, clock, l)) {
            assertEquals(List.of("default/0:x@10", "default/1:y@20"), heard.stream().sorted().toList(),
                    "z expired while down and is not reported");
            assertEquals(1, store.existing(Store.DEFAULT_APP, 1).size() - 1);
        }
    }
}
