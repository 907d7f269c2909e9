package dev.cajon.server.family;

import static dev.cajon.server.testkit.RespAssertions.assertArray;
import static dev.cajon.server.testkit.RespAssertions.assertError;
import static dev.cajon.server.testkit.RespAssertions.assertNil;
import static dev.cajon.server.testkit.RespAssertions.assertNilArray;
import static dev.cajon.server.testkit.RespAssertions.assertOk;
import static dev.cajon.server.testkit.RespAssertions.assertReply;
import static dev.cajon.server.testkit.RespAssertions.assertSimple;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.testkit.Client;
import dev.cajon.server.testkit.FamilyTestBase;
import dev.cajon.server.testkit.Reply;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** MULTI, EXEC, DISCARD, WATCH and UNWATCH in-process, with a manual clock. */
class TransactionFamilyTest extends FamilyTestBase {

    private void queued(Object... cmd) {
        assertSimple(run(cmd), "QUEUED");
    }

    @Test
    void execRunsTheQueuedCommandsAndRepliesWithTheirReplies() {
        assertOk(run("multi"));
        queued("set", "a", "1");
        queued("incr", "a");
        queued("get", "a");
        queued("get", "missing");
        assertArray(run("exec"), "OK", 2L, "2", null);
        // the transaction is over: commands run at once again
        assertReply(run("incr", "a"), 3);
    }

    @Test
    void anEmptyTransactionAnswersAnEmptyArray() {
        assertOk(run("multi"));
        assertEquals(List.of(), run("exec").asArray());
    }

    @Test
    void aCommandThatFailsToQueueAbortsTheTransaction() {
        run("set", "a", "before");
        assertOk(run("multi"));
        queued("set", "a", "during");
        assertError(run("nosuchcommand", "x"), "ERR unknown command 'nosuchcommand', with args beginning with: 'x' ");
        assertError(run("get"), "ERR wrong number of arguments for 'get' command");
        queued("incr", "n"); // still queued after the errors
        assertError(run("exec"), "EXECABORT Transaction discarded because of previous errors.");
        assertReply(run("get", "a"), "before");
        assertNil(run("get", "n"));
    }

    @Test
    void aRuntimeErrorIsReportedInPlaceAndTheOtherCommandsRun() {
        run("set", "s", "text");
        assertOk(run("multi"));
        queued("incr", "s");
        queued("set", "t", "ok");
        queued("incrbyfloat", "s", "1");
        Reply r = run("exec");
        List<Reply> items = r.asArray();
        assertEquals(3, items.size());
        assertError(items.get(0), "ERR value is not an integer or out of range");
        assertOk(items.get(1));
        assertError(items.get(2), "ERR value is not a valid float");
        assertReply(run("get", "t"), "ok");
    }

    @Test
    void nestingAndOrderErrors() {
        assertError(run("exec"), "ERR EXEC without MULTI");
        assertError(run("discard"), "ERR DISCARD without MULTI");
        assertOk(run("multi"));
        assertError(run("multi"), "ERR MULTI calls can not be nested");
        assertError(run("watch", "k"), "ERR WATCH inside MULTI is not allowed");
        queued("set", "k", "v");
        // neither error aborts the transaction
        assertArray(run("exec"), "OK");
        assertError(run("watch"), "ERR wrong number of arguments for 'watch' command");
    }

    @Test
    void discardDropsTheQueueAndTheWatches() {
        run("set", "w", "1");
        assertOk(run("watch", "w"));
        assertOk(run("multi"));
        queued("set", "a", "1");
        assertOk(run("discard"));
        assertNil(run("get", "a"));
        // the watch went with DISCARD: a change now does not abort the next transaction
        server.client().run("set", "w", "2");
        assertOk(run("multi"));
        queued("get", "w");
        assertArray(run("exec"), "2");
    }

    @Test
    void aWatchedKeyChangedByAnotherClientAbortsExec() {
        Client other = server.client();
        run("set", "balance", "10");
        assertOk(run("watch", "balance"));
        assertReply(other.run("incrby", "balance", "5"), 15);
        assertOk(run("multi"));
        queued("set", "balance", "0");
        assertNilArray(run("exec"));
        assertReply(run("get", "balance"), "15");
        // EXEC dropped the watch: the retry goes through
        assertOk(run("watch", "balance"));
        assertOk(run("multi"));
        queued("decrby", "balance", "15");
        assertArray(run("exec"), 0L);
    }

    @Test
    void aWatchedKeyChangedByTheSameClientBeforeMultiAlsoAborts() {
        assertOk(run("watch", "k"));
        run("set", "k", "mine");
        assertOk(run("multi"));
        queued("get", "k");
        assertNilArray(run("exec"));
    }

    @Test
    void changesThatAreNotChangesDoNotAbort() {
        Client other = server.client();
        run("set", "w", "1");
        run("set", "s", "text");
        assertOk(run("watch", "w", "missing", "s"));
        other.run("set", "unrelated", "x");
        other.run("del", "missing"); // nothing to delete
        other.run("set", "w", "2", "nx"); // not set
        other.run("incr", "s"); // fails: not an integer
        other.run("get", "w");
        assertOk(run("multi"));
        queued("get", "w");
        assertArray(run("exec"), "1");
    }

    @Test
    void unwatchForgetsTheWatches() {
        Client other = server.client();
        assertOk(run("watch", "k"));
        other.run("set", "k", "x");
        assertOk(run("unwatch"));
        assertOk(run("multi"));
        queued("get", "k");
        assertArray(run("exec"), "x");
    }

    @Test
    void aWatchedKeyThatExpiresAbortsExecWithoutAnyoneReadingIt() {
        run("set", "lease", "worker-1", "px", "100");
        assertOk(run("watch", "lease"));
        advance(101);
        assertOk(run("multi"));
        queued("set", "other", "1");
        assertNilArray(run("exec"));
        assertNil(run("get", "other"));
    }

    @Test
    void aKeyAlreadyExpiredWhenWatchedDoesNotAbort() {
        run("set", "lease", "worker-1", "px", "100");
        advance(101);
        assertOk(run("watch", "lease"));
        assertOk(run("multi"));
        queued("set", "lease", "worker-2");
        assertArray(run("exec"), "OK");
    }

    @Test
    void flushdbAbortsOnlyWhenAWatchedKeyExisted() {
        Client other = server.client();
        assertOk(run("watch", "never"));
        other.run("flushdb");
        assertOk(run("multi"));
        queued("ping");
        assertArray(run("exec"), "PONG");

        run("set", "there", "1");
        assertOk(run("watch", "there"));
        other.run("flushall");
        assertOk(run("multi"));
        queued("ping");
        assertNilArray(run("exec"));
    }

    @Test
    void renameOntoOrAwayFromAWatchedKeyAborts() {
        Client other = server.client();
        run("set", "src", "v");
        assertOk(run("watch", "src"));
        other.run("rename", "src", "dst");
        assertOk(run("multi"));
        queued("ping");
        assertNilArray(run("exec"));

        run("set", "src", "v2");
        assertOk(run("watch", "dst"));
        other.run("rename", "src", "dst");
        assertOk(run("multi"));
        queued("ping");
        assertNilArray(run("exec"));
    }

    @Test
    void aWatchInAnotherDbIsCheckedToo() {
        Client other = server.client();
        run("select", "3");
        assertOk(run("watch", "k"));
        run("select", "0");
        other.run("select", "3");
        other.run("set", "k", "changed");
        assertOk(run("multi"));
        queued("set", "x", "1");
        assertNilArray(run("exec"));
        assertNil(run("get", "x"));
    }

    @Test
    void selectInsideMultiMovesTheCommandsAfterIt() {
        assertOk(run("multi"));
        queued("set", "k", "db0");
        queued("select", "5");
        queued("set", "k", "db5");
        queued("select", "99");
        queued("get", "k");
        Reply r = run("exec");
        List<Reply> items = r.asArray();
        assertOk(items.get(0));
        assertOk(items.get(1));
        assertOk(items.get(2));
        assertError(items.get(3), "ERR DB index is out of range");
        assertReply(items.get(4), "db5");
        // the session stays where the transaction left it, as in Redis
        assertReply(run("get", "k"), "db5");
        run("select", "0");
        assertReply(run("get", "k"), "db0");
    }

    @Test
    void keyspaceWideCommandsInsideMulti() {
        run("set", "a", "1");
        assertOk(run("multi"));
        queued("set", "b", "2");
        queued("dbsize");
        queued("keys", "*");
        queued("flushdb");
        queued("dbsize");
        List<Reply> items = run("exec").asArray();
        assertOk(items.get(0));
        assertReply(items.get(1), 2);
        assertEquals(2, items.get(2).asArray().size());
        assertOk(items.get(3));
        assertReply(items.get(4), 0);
    }

    @Test
    void aLargeValueInsideExecIsInTheReply() {
        byte[] big = new byte[200_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31);
        }
        run("set", "big", big);
        assertOk(run("multi"));
        queued("get", "big");
        queued("strlen", "big");
        assertArray(run("exec"), big, (long) big.length);
    }

    @Test
    void inResp3AnAbortedExecIsNullAndHelloIsAMap() {
        Reply hello = run("hello", "3");
        assertInstanceOf(Reply.Map.class, hello);
        assertReply(hello.asMap().get("proto"), 3);
        assertReply(hello.asMap().get("server"), "redis");
        assertInstanceOf(Reply.Null.class, run("get", "nothing"));
        assertOk(run("watch", "k"));
        server.client().run("set", "k", "x");
        assertOk(run("multi"));
        queued("get", "k");
        assertInstanceOf(Reply.Null.class, run("exec"));
        assertEquals("_\r\n", client.lastRawString());
        // HELLO 2 goes back to RESP2
        assertInstanceOf(Reply.Array.class, run("hello", "2"));
        assertEquals("$-1\r\n", new String(client.runRaw("get", "nothing")));
    }

    @Test
    void resetEndsTheTransactionTheWatchesAndRespThree() {
        Client other = server.client();
        run("hello", "3");
        run("select", "4");
        assertOk(run("watch", "k"));
        assertOk(run("multi"));
        queued("set", "a", "1");
        assertSimple(run("reset"), "RESET");
        assertEquals("$-1\r\n", new String(client.runRaw("get", "a")), "back on RESP2, the SET never ran");
        assertError(run("exec"), "ERR EXEC without MULTI");
        other.run("set", "k", "changed"); // db 0's k: the watch on db 4's k is gone anyway
        assertOk(run("multi"));
        queued("get", "k");
        assertArray(run("exec"), "changed");
    }

    @Test
    void clientListShowsTheTransaction() {
        assertOk(run("multi"));
        queued("set", "a", "1");
        queued("set", "b", "1");
        String line = server.client().run("client", "list").asString();
        assertTrue(line.contains("id=" + client.id() + " "), line);
        String mine = line.lines().filter(l -> l.startsWith("id=" + client.id() + " ")).findFirst().orElseThrow();
        assertTrue(mine.contains(" flags=x ") && mine.contains(" multi=2 "), mine);
        run("discard");
    }

    @Test
    void concurrentReadersNeverSeeATransactionHalfDone() throws Exception {
        run("set", "a", "0");
        run("set", "b", "0");
        run("set", "c1", "x");
        AtomicReference<String> broken = new AtomicReference<>();
        int rounds = 3000;
        Thread writer = new Thread(() -> {
            Client w = server.client();
            for (int i = 0; i < rounds && broken.get() == null; i++) {
                w.run("multi");
                w.run("incr", "a");
                w.run("set", "c" + (i % 2), "x");
                w.run("incr", "b");
                w.run("del", "c" + ((i + 1) % 2));
                w.run("exec");
            }
        });
        Thread reader = new Thread(() -> {
            Client r = server.client();
            for (int i = 0; i < rounds * 2 && broken.get() == null && writer.isAlive(); i++) {
                List<Reply> ab = r.run("mget", "a", "b").asArray();
                if (!ab.get(0).equals(ab.get(1))) {
                    broken.set("MGET saw a=" + ab.get(0) + " b=" + ab.get(1));
                }
                long n = r.run("dbsize").asInt();
                // a, b and exactly one of c0 / c1 between transactions; 4 only half way through one
                if (n != 3) {
                    broken.set("DBSIZE saw " + n);
                }
            }
        });
        writer.start();
        reader.start();
        writer.join(60_000);
        reader.join(60_000);
        assertEquals(null, broken.get());
        assertReply(run("get", "a"), run("get", "b").asString());
    }
}
