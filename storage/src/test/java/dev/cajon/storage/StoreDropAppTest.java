package dev.cajon.storage;

import static dev.cajon.storage.TestData.b;
import static dev.cajon.storage.TestData.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Store#dropApp}: ACL DELUSER's end of an app's data, and nothing else's. */
class StoreDropAppTest {
    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(TestData.T0);

    @Test
    void dropsEveryKeyspaceOfTheAppAndItsDirectoryAndNothingElse() {
        try (Store s = Store.open(dir, clock)) {
            Keyspace shop0 = s.keyspace("shop", 0);
            shop0.set(b("k"), b("shop0"), SetCondition.ALWAYS, dev.cajon.storage.chronicle.ValueHeader.NO_EXPIRY, false);
            s.keyspace("shop", 3).set(b("k"), b("shop3"), SetCondition.ALWAYS, dev.cajon.storage.chronicle.ValueHeader.NO_EXPIRY, false);
            s.keyspace("shop2", 0).set(b("k"), b("shop2"), SetCondition.ALWAYS, dev.cajon.storage.chronicle.ValueHeader.NO_EXPIRY, false); // a name that starts with the other
            s.keyspace(Store.DEFAULT_APP, 0).set(b("k"), b("default"), SetCondition.ALWAYS, dev.cajon.storage.chronicle.ValueHeader.NO_EXPIRY, false);

            s.dropApp("shop");

            assertTrue(shop0.isClosed(), "its keyspaces are closed");
            assertFalse(Files.exists(dir.resolve("shop")), "its directory is gone");
            assertFalse(Files.exists(dir.resolve(Store.DROPPED)), "and nothing is left aside");
            List<Integer> dbs = new ArrayList<>();
            s.forEachKeyspace("shop", (db, ks) -> dbs.add(db));
            assertEquals(List.of(), dbs);
            assertEquals("shop2", str(s.keyspace("shop2", 0).get(b("k"))));
            assertEquals("default", str(s.keyspace(Store.DEFAULT_APP, 0).get(b("k"))));
            // an app of the same name starts empty
            assertNull(s.keyspace("shop", 0).get(b("k")));
            assertEquals(0, s.keyspace("shop", 0).size());
        }
        try (Store s = Store.open(dir, clock)) {
            assertEquals("shop2", str(s.keyspace("shop2", 0).get(b("k"))));
            assertNull(s.keyspace("shop", 3).get(b("k")), "dropped data does not come back after a restart");
        }
    }

    @Test
    void whatACrashLeftAsideIsNeverOpenedAndIsSwept() throws Exception {
        try (Store s = Store.open(dir, clock)) {
            s.keyspace("shop", 0).set(b("k"), b("v"), SetCondition.ALWAYS, dev.cajon.storage.chronicle.ValueHeader.NO_EXPIRY, false);
        }
        // a crash after the rename, before the delete
        Files.createDirectories(dir.resolve(Store.DROPPED));
        Files.move(dir.resolve("shop"), dir.resolve(Store.DROPPED).resolve("shop-1"));
        try (Store s = Store.open(dir, clock)) {
            assertEquals(List.of(), s.keyspaces().stream().map(Keyspace::name).toList(),
                    "the set-aside directory is not opened as an app");
            assertNull(s.keyspace("shop", 0).get(b("k")));
            s.sweepDroppedApps();
            assertFalse(Files.exists(dir.resolve(Store.DROPPED)));
        }
    }

    @Test
    void theDefaultAppAndUnsafeNamesCannotBeDropped() {
        try (Store s = Store.open(dir, clock)) {
            for (String bad : new String[] {Store.DEFAULT_APP, "", ".", "..", ".dropped", "a/b", "../x"}) {
                assertThrows(IllegalArgumentException.class, () -> s.dropApp(bad), bad);
            }
            s.dropApp("never-created"); // nothing to do
        }
    }
}
