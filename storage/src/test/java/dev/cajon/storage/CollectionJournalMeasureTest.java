package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Not a check: prints how long collection writes of a few pages take when their batch fits a
 * batch-journal slot and when it goes to the large area. Runs only when asked:
 * {@code -Dtest=CollectionJournalMeasureTest -Dcajon.measure=true}.
 */
@Tag("measure")
class CollectionJournalMeasureTest {
    @TempDir
    Path dir;

    @Test
    void measure() {
        org.junit.jupiter.api.Assumptions.assumeTrue(Boolean.getBoolean("cajon.measure"), "a measurement, not a check");
        PagedTestType.init();
        try (Store store = Store.open(dir, new ManualClock(T0))) {
            Keyspace ks = store.keyspace(Store.DEFAULT_APP, 0);
            for (int pad : new int[] {300, 1500, 300, 1500, 300, 1500}) {
                int n = 50_000;
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    String k = "k" + (i % 200);
                    // rewrite three pages of the collection and its state: a tree write's shape
                    ks.collections().write(b(k), PagedTestType.CODE, c -> {
                        long[] ids = c.exists() ? PagedTestType.ids(c.state()) : new long[0];
                        if (ids.length < 3) {
                            ids = new long[] {c.pages().add(new byte[pad]), c.pages().add(new byte[pad]),
                                c.pages().add(new byte[pad])};
                        } else {
                            for (long id : ids) {
                                c.pages().write(id, new byte[pad]);
                            }
                        }
                        c.state(PagedTestType.state(ids));
                        return null;
                    });
                }
                long ns = System.nanoTime() - t0;
                System.out.printf("pages of %d bytes: %.1f us per write (%d writes)%n", pad, ns / 1000.0 / n, n);
            }
        }
    }
}
