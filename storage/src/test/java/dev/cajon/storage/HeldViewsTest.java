package dev.cajon.storage;

import static dev.cajon.storage.TestData.T0;
import static dev.cajon.storage.TestData.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A collection view held across commands on one thread ({@link HeldViews}): later commands see
 * the earlier ones, other threads see them all once applied, a body that throws on a held view
 * leaves no trace, and the loop's task applies what nothing else did.
 */
class HeldViewsTest {
    @TempDir
    Path dir;

    private static List<String> strings(List<byte[]> l) {
        List<String> out = new ArrayList<>();
        l.forEach(x -> out.add(new String(x)));
        return out;
    }

    /** Runs {@code body} on a thread of its own that holds views, its loop's tasks kept in {@code tasks}. */
    private static void onHoldingThread(ArrayDeque<Runnable> tasks, Runnable body) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                HeldViews.enableForTests(tasks::add);
                body.run();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        });
        t.start();
        done.get(30, TimeUnit.SECONDS);
        t.join();
    }

    @Test
    void pipelinedPushesAreHeldThenAppliedWholeForOtherThreads() throws Exception {
        try (Store s = Store.open(dir, new ManualClock(T0))) {
            Keyspace ks = s.keyspace(Store.DEFAULT_APP, 0);
            ArrayDeque<Runnable> tasks = new ArrayDeque<>();
            List<Boolean> heldAfter = new ArrayList<>();
            onHoldingThread(tasks, () -> {
                for (int i = 0; i < 5; i++) {
                    ks.lists().push(b("q"), new byte[][] {b("m" + i)}, 0, false, false);
                    heldAfter.add(HeldViews.holding());
                }
                // the same thread reads its own writes on the held view
                assertEquals(List.of("m0", "m1", "m2", "m3", "m4"), strings(ks.lists().range(b("q"), 0, -1)));
                // a string command on any key applies the held view first
                ks.set(b("other"), b("x"), SetCondition.ALWAYS, dev.cajon.storage.chronicle.ValueHeader.NO_EXPIRY, false);
                assertFalse(HeldViews.holding());
                ks.lists().push(b("q"), new byte[][] {b("m5")}, 0, false, false);
                assertTrue(HeldViews.holding());
                HeldViews.release();
                assertFalse(HeldViews.holding());
            });
            assertEquals(List.of(true, true, true, true, true), heldAfter);
            assertEquals(List.of("m0", "m1", "m2", "m3", "m4", "m5"), strings(ks.lists().range(b("q"), 0, -1)));
            assertEquals(6, ks.lists().length(b("q")));
        }
        try (Store s = Store.open(dir, new ManualClock(T0))) { // applied to the map, not only the heap
            assertEquals(6, s.keyspace(Store.DEFAULT_APP, 0).lists().length(b("q")));
        }
    }

    @Test
    void aBodyThatThrowsOnAHeldViewLeavesNoTrace() throws Exception {
        try (Store s = Store.open(dir, new ManualClock(T0))) {
            Keyspace ks = s.keyspace(Store.DEFAULT_APP, 0);
            onHoldingThread(new ArrayDeque<>(), () -> {
                ks.lists().push(b("q"), new byte[][] {b("a")}, 0, false, false);
                byte[] huge = new byte[1 << 20]; // over the largest entry: refused after "b" went in
                assertThrows(RuntimeException.class,
                        () -> ks.lists().push(b("q"), new byte[][] {b("b"), huge}, 0, false, false));
                assertTrue(HeldViews.holding());
                ks.lists().push(b("q"), new byte[][] {b("c")}, 0, false, false);
                HeldViews.release();
            });
            assertEquals(List.of("a", "c"), strings(ks.lists().range(b("q"), 0, -1)));
        }
    }

    @Test
    void theLoopsTaskAppliesAViewNothingElseDid() throws Exception {
        try (Store s = Store.open(dir, new ManualClock(T0))) {
            Keyspace ks = s.keyspace(Store.DEFAULT_APP, 0);
            ArrayDeque<Runnable> tasks = new ArrayDeque<>();
            onHoldingThread(tasks, () -> {
                ks.hashes().set(b("h"), new byte[][] {b("f"), b("1"), b("g"), b("2")});
                ks.hashes().set(b("h"), new byte[][] {b("f"), b("3")});
                assertTrue(HeldViews.holding());
                assertEquals(1, tasks.size()); // one task per held view, not per command
                tasks.poll().run();
                assertFalse(HeldViews.holding());
            });
            assertEquals("3", new String(ks.hashes().get(b("h"), b("f"))));
            assertEquals(2, ks.hashes().length(b("h")));
        }
    }
}
