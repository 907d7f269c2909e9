package dev.cajon.server.compat;

import static org.junit.jupiter.api.Assertions.assertAll;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * MULTI, EXEC, DISCARD, WATCH and UNWATCH against Redis 7.0, in both protocols: what is queued and
 * what is refused at once, when EXEC aborts (EXECABORT for a command that failed to queue, a null
 * reply for a WATCHed key that was touched) and when it does not, and the replies inside EXEC's.
 *
 * <p>What Redis 7.0 does, as these scenarios pin it (each checked against redis-server 7.0.15):
 * <ul>
 *   <li>A command that cannot be queued (unknown command or subcommand, wrong arity, including
 *       the arity of EXEC, DISCARD, MULTI, WATCH and UNWATCH themselves) is answered with its
 *       error and dooms the transaction: EXEC answers
 *       {@code EXECABORT Transaction discarded because of previous errors.} ({@code EXEC x}
 *       answers {@code EXECABORT Transaction discarded because of: <the arity error>}, even
 *       outside MULTI). Commands after the error are still {@code QUEUED}.
 *   <li>MULTI inside MULTI and WATCH inside MULTI are errors that do <em>not</em> doom it.
 *   <li>A command that fails while EXEC runs (INCR of a non-integer, a syntax error only SET's
 *       own parser finds) leaves its error in EXEC's array; the others still run.
 *   <li>QUIT and RESET run at once inside MULTI (QUIT closes the connection, RESET drops the
 *       transaction and the WATCHes); everything else, HELLO, SELECT and UNWATCH included, is
 *       queued and runs inside EXEC, where HELLO switches the protocol mid-reply.
 *   <li>EXEC answers null ({@code *-1}, or {@code _} in RESP3) when a WATCHed key was touched:
 *       any successful write to it from any connection (the same value too, or a TTL change),
 *       DEL, EXPIRE 0 or PEXPIREAT in the past, RENAME onto or away from it, FLUSHDB or FLUSHALL
 *       while it exists, or its TTL running out after the WATCH (noticed or not). It does not
 *       abort for a write that changed nothing (INCR of a non-integer, SET NX that did not set,
 *       DEL or PERSIST that found nothing to do), a flush while the key did not exist, a write to
 *       another key or to the same name in another db, nor for a key already expired when it was
 *       WATCHed, unless that key is then written. EXEC, DISCARD, UNWATCH and RESET forget the
 *       WATCHes.
 * </ul>
 * Expiry is waited for with {@link Scenario#until}, which asks until the servers say the key is
 * gone and never sleeps a fixed time.
 */
class TransactionComparisonTest extends ComparisonTestBase {

    private static byte[] b(String s) {
        return Scenario.b(s);
    }

    // ---------------------------------------------------------------- MULTI / EXEC / DISCARD

    @BothProtocols
    void execRunsTheQueuedCommandsInOrder() throws Exception {
        scenario("MULTI ... EXEC")
                .cmd("MULTI")
                .cmd("SET", "k", "1")
                .cmd("INCR", "k")
                .cmd("INCRBY", "k", "10")
                .cmd("GET", "k")
                .cmd("GET", "missing")
                .cmd("MGET", "k", "missing")
                .cmd("EXISTS", "k", "missing")
                .cmd("PING")
                .cmd("ECHO", "hi")
                .cmd("INCRBYFLOAT", "f", "1.5")
                .cmd("EXEC")
                .cmd("GET", "k")
                .cmd("EXEC")
                .run();
    }

    /** Replies whose RESP3 form differs from RESP2's (nulls, maps), nested in EXEC's array. */
    @BothProtocols
    void protocolDependentRepliesInsideExec() throws Exception {
        scenario("nulls and maps inside EXEC")
                .cmd("SET", "k", "v")
                .cmd("MULTI")
                .cmd("GET", "missing")
                .cmd("SET", "k", "w", "NX")
                .cmd("SET", "k", "w", "NX", "GET")
                .cmd("GETDEL", "missing")
                .cmd("MGET", "missing", "k", "missing")
                .cmd("CONFIG", "GET", "nosuchparameter")
                .cmd("TTL", "k")
                .cmd("EXEC")
                .run();
    }

    /** A client that pipelines the whole transaction in one write, as client libraries do. */
    @BothProtocols
    void pipelinedTransaction() throws Exception {
        byte[] pipeline = concat(
                RespClient.encode(b("MULTI")),
                RespClient.encode(b("SET"), b("p"), b("1")),
                RespClient.encode(b("INCR"), b("p")),
                RespClient.encode(b("GET"), b("p")),
                RespClient.encode(b("EXEC")),
                RespClient.encode(b("MULTI")),
                RespClient.encode(b("INCR"), b("p")),
                RespClient.encode(b("NOSUCH")),
                RespClient.encode(b("EXEC")),
                RespClient.encode(b("GET"), b("p")));
        scenario("MULTI ... EXEC in one write")
                .raw(pipeline, 10)
                .raw("MULTI\r\nSET q 1\r\nGET q\r\nEXEC\r\n", 4)
                .run();
    }

    @BothProtocols
    void flushInsideMulti() throws Exception {
        scenario("FLUSHDB and DBSIZE inside MULTI")
                .cmd("SET", "a", "1")
                .cmd("SET", "b", "2")
                .cmd("MULTI")
                .cmd("DBSIZE")
                .cmd("FLUSHDB")
                .cmd("DBSIZE")
                .cmd("SET", "c", "3")
                .cmd("EXEC")
                .cmd("EXISTS", "a", "b", "c")
                .run();
    }

    @BothProtocols
    void emptyTransaction() throws Exception {
        scenario("MULTI then EXEC with nothing queued")
                .cmd("MULTI")
                .cmd("EXEC")
                .cmd("MULTI")
                .cmd("DISCARD")
                .run();
    }

    @BothProtocols
    void discardDropsTheQueue() throws Exception {
        scenario("DISCARD")
                .cmd("SET", "k", "old")
                .cmd("MULTI")
                .cmd("SET", "k", "new")
                .cmd("DEL", "k")
                .cmd("DISCARD")
                .cmd("GET", "k")
                .cmd("EXEC")
                .cmd("DISCARD")
                .run();
    }

    @BothProtocols
    void execAndDiscardWithoutMulti() throws Exception {
        scenario("EXEC / DISCARD without MULTI")
                .cmd("EXEC")
                .cmd("DISCARD")
                .cmd("exec")
                .cmd("PING")
                .run();
    }

    @BothProtocols
    void nestedMultiAndWatchInsideMultiDoNotAbort() throws Exception {
        scenario("MULTI inside MULTI, WATCH inside MULTI")
                .cmd("MULTI")
                .cmd("MULTI")
                .cmd("SET", "k", "v")
                .cmd("WATCH", "k")
                .cmd("watch", "a", "b")
                .cmd("multi")
                .cmd("GET", "k")
                .cmd("EXEC")
                .cmd("GET", "k")
                .run();
    }

    @BothProtocols
    void arityOfTheTransactionCommandsOutsideMulti() throws Exception {
        scenario("transaction commands with wrong arity, outside MULTI")
                .cmd("MULTI", "x")
                .cmd("EXEC", "x")
                .cmd("DISCARD", "x")
                .cmd("WATCH")
                .cmd("UNWATCH", "x")
                .cmd("UNWATCH")
                // none of them opened a transaction
                .cmd("SET", "k", "v")
                .cmd("EXEC")
                .run();
    }

    // ---------------------------------------------------------------- EXECABORT

    @BothProtocols
    void unknownCommandDoomsTheTransaction() throws Exception {
        scenario("unknown command inside MULTI")
                .cmd("MULTI")
                .cmd("SET", "a", "1")
                .cmd("FOO", "bar")
                .cmd("SET", "b", "2")
                .cmd("GET", "a")
                .cmd("EXEC")
                .cmd("EXISTS", "a", "b")
                // the aborted transaction is over
                .cmd("EXEC")
                .run();
    }

    @BothProtocols
    void wrongArityDoomsTheTransaction() throws Exception {
        scenario("wrong arity inside MULTI")
                .cmd("MULTI")
                .cmd("SET", "a", "1")
                .cmd("GET")
                .cmd("get", "a", "b")
                .cmd("SET", "b", "2")
                .cmd("EXEC")
                .cmd("EXISTS", "a", "b")
                .run();
    }

    @BothProtocols
    void unknownSubcommandAndContainerArityDoomTheTransaction() {
        assertAll(
                () -> scenario("unknown subcommand inside MULTI")
                        .cmd("MULTI")
                        .cmd("CLIENT", "FOO")
                        .cmd("SET", "a", "1")
                        .cmd("EXEC")
                        .cmd("EXISTS", "a")
                        .run(),
                () -> scenario("container without subcommand inside MULTI")
                        .cmd("MULTI")
                        .cmd("CLIENT")
                        .cmd("EXEC")
                        .run());
    }

    @BothProtocols
    void arityOfTheTransactionCommandsInsideMulti() {
        assertAll(
                () -> scenario("EXEC x inside MULTI")
                        .cmd("MULTI")
                        .cmd("SET", "a", "1")
                        .cmd("EXEC", "x")
                        .cmd("EXEC")
                        .cmd("EXISTS", "a")
                        .run(),
                () -> scenario("DISCARD x inside MULTI")
                        .cmd("MULTI")
                        .cmd("DISCARD", "x")
                        .cmd("SET", "a", "1")
                        .cmd("EXEC")
                        .cmd("EXISTS", "a")
                        .run(),
                () -> scenario("MULTI x inside MULTI")
                        .cmd("MULTI")
                        .cmd("MULTI", "x")
                        .cmd("EXEC")
                        .run(),
                () -> scenario("WATCH without keys inside MULTI")
                        .cmd("MULTI")
                        .cmd("WATCH")
                        .cmd("EXEC")
                        .run(),
                () -> scenario("UNWATCH x inside MULTI")
                        .cmd("MULTI")
                        .cmd("UNWATCH", "x")
                        .cmd("EXEC")
                        .run());
    }

    @BothProtocols
    void aDoomedTransactionLeavesNothingBehind() throws Exception {
        scenario("after EXECABORT a new MULTI starts clean")
                .cmd("MULTI")
                .cmd("FOO")
                .cmd("EXEC")
                .cmd("MULTI")
                .cmd("SET", "k", "v")
                .cmd("EXEC")
                .cmd("MULTI")
                .cmd("FOO")
                .cmd("DISCARD")
                .cmd("MULTI")
                .cmd("GET", "k")
                .cmd("EXEC")
                .run();
    }

    // ---------------------------------------------------------------- errors inside EXEC

    @BothProtocols
    void runtimeErrorsStayInsideExecsReply() throws Exception {
        scenario("errors while EXEC runs")
                .cmd("SET", "s", "abc")
                .cmd("MULTI")
                .cmd("SET", "k", "1")
                .cmd("INCR", "s")
                .cmd("INCR", "k")
                .cmd("SET", "x", "v", "EX", "0")
                .cmd("SET", "x", "v", "XX", "NX")
                .cmd("INCRBY", "k", "abc")
                .cmd("SET", "x", "v", "EX", "abc")
                .cmd("GETRANGE", "s", "a", "b")
                .cmd("INCRBYFLOAT", "s", "1")
                .cmd("GET", "k")
                .cmd("EXEC")
                .cmd("GET", "k")
                .cmd("GET", "s")
                .cmd("EXISTS", "x")
                .run();
    }

    @BothProtocols
    void setWithGetInsideExec() throws Exception {
        scenario("SET ... GET inside EXEC")
                .cmd("MULTI")
                .cmd("SET", "g", "v1", "GET")
                .cmd("SET", "g", "v2", "GET")
                .cmd("SET", "g", "v3", "NX", "GET")
                .cmd("SET", "g", "v4", "XX", "GET")
                .cmd("GETSET", "g", "v5")
                .cmd("GETDEL", "g")
                .cmd("GETDEL", "g")
                .cmd("EXEC")
                .run();
    }

    @BothProtocols
    void largeValuesInsideExec() throws Exception {
        byte[] big = new byte[100 * 1024];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31 + 7);
        }
        byte[] bigger = new byte[200 * 1024];
        for (int i = 0; i < bigger.length; i++) {
            bigger[i] = (byte) (i * 17 + 3);
        }
        scenario("100 KiB values inside EXEC")
                .cmd(b("SET"), b("big"), big)
                .cmd("MULTI")
                .cmd("GET", "big")
                .cmd("STRLEN", "big")
                .cmd("GETRANGE", "big", "50000", "50009")
                .cmd(b("SET"), b("big2"), bigger)
                .cmd("APPEND", "big", "tail")
                .cmd("MGET", "big", "missing", "big2")
                .cmd(b("SET"), b("big"), bigger, b("GET"))
                .cmd("EXEC")
                .cmd("GET", "big")
                .cmd("STRLEN", "big2")
                .run();
    }

    // ---------------------------------------------------------------- commands with effects on the connection

    @BothProtocols
    void selectInsideMulti() throws Exception {
        scenario("SELECT inside MULTI")
                .cmd("SET", "k", "db0")
                .cmd("MULTI")
                .cmd("SELECT", "1")
                .cmd("SET", "k", "db1")
                .cmd("SELECT", "99")
                .cmd("GET", "k")
                .cmd("EXEC")
                // the SELECT ran: the connection is in db 1 now
                .cmd("GET", "k")
                .cmd("SELECT", "0")
                .cmd("GET", "k")
                .run();
    }

    /** HELLO is queued like any command, and switches the protocol in the middle of EXEC's reply. */
    @BothProtocols
    void helloInsideMulti() throws Exception {
        // the HELLO reply is EXEC's first element; inside it, index 7 is the client id
        Check execWithHello = Check.at(0, Check.exceptAt(7));
        scenario("HELLO inside MULTI")
                .cmd("MULTI")
                .cmd("HELLO", "3")
                .cmd("GET", "missing")
                .cmd("PING")
                .check(execWithHello, "EXEC")
                .cmd("GET", "missing")
                .cmd("MULTI")
                .cmd("HELLO", "2")
                .cmd("GET", "missing")
                .check(execWithHello, "EXEC")
                .cmd("GET", "missing")
                .run();
    }

    @BothProtocols
    void helloErrorInsideMultiIsARuntimeError() throws Exception {
        scenario("HELLO 4 inside MULTI")
                .cmd("MULTI")
                .cmd("HELLO", "4")
                .cmd("PING")
                .cmd("EXEC")
                .run();
    }

    @BothProtocols
    void quitInsideMultiRunsAtOnce() throws Exception {
        scenario("QUIT inside MULTI")
                .fresh("MULTI\r\nSET q 1\r\nQUIT\r\n", 3)
                .fresh(concat(RespClient.encode(b("MULTI")), RespClient.encode(b("SET"), b("q"), b("2")),
                        RespClient.encode(b("QUIT"))), 3)
                .cmd("GET", "q")
                .run();
    }

    /** The connection closes in the middle of MULTI: nothing of it runs. */
    @BothProtocols
    void closingTheConnectionDiscardsTheTransaction() throws Exception {
        scenario("connection closed inside MULTI")
                .fresh("MULTI\r\nSET z 1\r\n", 2)
                .cmd("GET", "z")
                .run();
    }

    @BothProtocols
    void resetInsideMultiRunsAtOnce() throws Exception {
        scenario("RESET inside MULTI")
                .cmd("MULTI")
                .cmd("SET", "r", "1")
                .cmd("RESET")
                .cmd("EXEC")
                .cmd("GET", "r")
                .run();
    }

    @BothProtocols
    void resetForgetsTheWatches() throws Exception {
        scenario("RESET forgets WATCH")
                .cmd("SET", "k", "1")
                .cmd("WATCH", "k")
                .cmd("RESET")
                .other("SET", "k", "2")
                .cmd("MULTI")
                .cmd("GET", "k")
                .cmd("EXEC")
                .run();
    }

    // ---------------------------------------------------------------- WATCH: what aborts

    /** A scenario that starts by setting each of the given key-value pairs. */
    private Scenario watched(String name, String... setup) {
        Scenario s = scenario(name);
        for (int i = 0; i + 1 < setup.length; i += 2) {
            s.cmd("SET", setup[i], setup[i + 1]);
        }
        return s;
    }

    /** The tail every WATCH scenario ends with: a transaction that reads k, and k afterwards. */
    private static Scenario execReadingK(Scenario s) {
        return s.cmd("MULTI")
                .cmd("GET", "k")
                .cmd("SET", "done", "1")
                .cmd("EXEC")
                .cmd("GET", "k")
                .cmd("EXISTS", "done");
    }

    @BothProtocols
    void writeFromAnotherConnectionAborts() throws Exception {
        execReadingK(watched("WATCH, then SET from another connection", "k", "1")
                .cmd("WATCH", "k")
                .other("SET", "k", "2"))
                // EXEC forgot the WATCH: the next transaction runs
                .cmd("MULTI")
                .cmd("GET", "k")
                .cmd("EXEC")
                .run();
    }

    @BothProtocols
    void writeOfTheSameValueAborts() throws Exception {
        execReadingK(watched("WATCH, then SET of the same value", "k", "1")
                .cmd("WATCH", "k")
                .other("SET", "k", "1"))
                .run();
    }

    @BothProtocols
    void writeByTheSameConnectionBeforeMultiAborts() throws Exception {
        execReadingK(watched("WATCH, then SET on the same connection", "k", "1")
                .cmd("WATCH", "k")
                .cmd("SET", "k", "mine"))
                .run();
    }

    @BothProtocols
    void writeWhileMultiIsOpenAborts() throws Exception {
        watched("WATCH, MULTI, then SET from another connection", "k", "1")
                .cmd("WATCH", "k")
                .cmd("MULTI")
                .cmd("GET", "k")
                .other("INCR", "k")
                .cmd("EXEC")
                .cmd("GET", "k")
                .run();
    }

    @BothProtocols
    void writeByAnotherTransactionAborts() throws Exception {
        execReadingK(watched("WATCH, then another connection's EXEC writes", "k", "1")
                .cmd("WATCH", "k")
                .other("MULTI")
                .other("APPEND", "k", "x")
                .other("EXEC"))
                .run();
    }

    /** The check-and-set race: both WATCH k, the other commits first, so this one is aborted. */
    @BothProtocols
    void twoClientsRaceForTheSameKey() throws Exception {
        scenario("two clients WATCH k, the first EXEC wins")
                .cmd("SET", "k", "10")
                .cmd("WATCH", "k")
                .other("WATCH", "k")
                .cmd("GET", "k")
                .other("GET", "k")
                .other("MULTI")
                .other("SET", "k", "11")
                .other("EXEC")
                .cmd("MULTI")
                .cmd("SET", "k", "11")
                .cmd("EXEC")
                .cmd("GET", "k")
                .run();
    }

    @BothProtocols
    void ownQueuedWriteDoesNotAbort() throws Exception {
        watched("WATCH, then a write queued by the same transaction", "k", "1")
                .cmd("WATCH", "k")
                .cmd("MULTI")
                .cmd("SET", "k", "2")
                .cmd("GET", "k")
                .cmd("EXEC")
                .run();
    }

    @BothProtocols
    void delAborts() throws Exception {
        execReadingK(watched("WATCH, then DEL", "k", "1")
                .cmd("WATCH", "k")
                .other("DEL", "k"))
                .run();
    }

    @BothProtocols
    void ttlChangesAbort() {
        assertAll(
                () -> execReadingK(watched("WATCH, then EXPIRE 0", "k", "1")
                        .cmd("WATCH", "k")
                        .other("EXPIRE", "k", "0"))
                        .run(),
                () -> execReadingK(watched("WATCH, then PEXPIREAT in the past", "k", "1")
                        .cmd("WATCH", "k")
                        .other("PEXPIREAT", "k", "1"))
                        .run(),
                () -> execReadingK(watched("WATCH, then EXPIRE in the future", "k", "1")
                        .cmd("WATCH", "k")
                        .other("EXPIRE", "k", "100"))
                        .run(),
                () -> execReadingK(watched("WATCH, then PERSIST of a TTL", "k", "1")
                        .cmd("EXPIRE", "k", "100")
                        .cmd("WATCH", "k")
                        .other("PERSIST", "k"))
                        .run(),
                () -> execReadingK(watched("WATCH, then SET EX 0 (refused)", "k", "1")
                        .cmd("WATCH", "k")
                        .other("SET", "k", "2", "EX", "0"))
                        .run());
    }

    /**
     * The TTL runs out after the WATCH, and nobody touches the key: Redis finds it expired at
     * EXEC (or its active expiry deleted it and touched it meanwhile), and aborts. A second key
     * with the same TTL, set just after, is the one asked about, so the watched key itself is
     * never read before EXEC; PTTL right after the WATCH proves the key was alive then.
     */
    @BothProtocols
    void ttlRunningOutAborts() throws Exception {
        execReadingK(scenario("WATCH, then the TTL runs out (untouched)")
                .cmd("SET", "k", "1", "PX", "250")
                .cmd("SET", "clock", "1", "PX", "250")
                .cmd("WATCH", "k")
                .check(Check.within(125, 125), "PTTL", "k")
                .otherUntil(":-2\r\n", "PTTL", "clock"))
                .run();
    }

    /** As above, but another connection reads the key once it has expired (deleting it). */
    @BothProtocols
    void ttlRunningOutAndNoticedAborts() throws Exception {
        execReadingK(scenario("WATCH, then the TTL runs out (and a read deletes the key)")
                .cmd("SET", "k", "1", "PX", "250")
                .cmd("WATCH", "k")
                .check(Check.within(125, 125), "PTTL", "k")
                .otherUntil(":0\r\n", "EXISTS", "k"))
                .run();
    }

    @BothProtocols
    void flushdbOfAnExistingKeyAborts() throws Exception {
        execReadingK(watched("WATCH, then FLUSHDB", "k", "1")
                .cmd("WATCH", "k")
                .other("FLUSHDB"))
                .run();
    }

    @BothProtocols
    void flushallOfAnExistingKeyAborts() throws Exception {
        execReadingK(watched("WATCH, then FLUSHALL", "k", "1")
                .cmd("WATCH", "k")
                .other("FLUSHALL"))
                .run();
    }

    @BothProtocols
    void flushallOfAKeyInAnotherDbAborts() throws Exception {
        scenario("WATCH in db 1, then FLUSHALL")
                .cmd("SELECT", "1")
                .cmd("SET", "k", "1")
                .cmd("WATCH", "k")
                .other("FLUSHALL")
                .cmd("MULTI")
                .cmd("GET", "k")
                .cmd("EXEC")
                .run();
    }

    @BothProtocols
    void renameOntoTheKeyAborts() throws Exception {
        execReadingK(watched("WATCH, then RENAME onto it", "k", "1", "src", "x")
                .cmd("WATCH", "k")
                .other("RENAME", "src", "k"))
                .run();
    }

    @BothProtocols
    void renameAwayFromTheKeyAborts() throws Exception {
        execReadingK(watched("WATCH, then RENAME away from it", "k", "1")
                .cmd("WATCH", "k")
                .other("RENAME", "k", "dst"))
                .cmd("GET", "dst")
                .run();
    }

    @BothProtocols
    void renameOntoAMissingWatchedKeyAborts() throws Exception {
        execReadingK(watched("WATCH a missing key, then RENAME onto it", "src", "x")
                .cmd("WATCH", "k")
                .other("RENAME", "src", "k"))
                .run();
    }

    @BothProtocols
    void creatingAMissingWatchedKeyAborts() throws Exception {
        execReadingK(scenario("WATCH a missing key, then SET creates it")
                .cmd("WATCH", "k")
                .other("SET", "k", "new"))
                .run();
    }

    @BothProtocols
    void oneOfSeveralWatchedKeysAborts() throws Exception {
        execReadingK(watched("WATCH a b k, then a write to b", "k", "1")
                .cmd("WATCH", "a", "b")
                .cmd("WATCH", "k", "k")
                .other("SET", "b", "2"))
                .run();
    }

    @BothProtocols
    void writesThroughOtherCommandsAbort() {
        String[][] writes = {
            {"APPEND", "k", "x"},
            {"INCR", "n"},
            {"SETRANGE", "k", "0", "z"},
            {"GETDEL", "k"},
            {"GETSET", "k", "2"},
            {"GETEX", "k", "EX", "100"},
            {"MSET", "a", "1", "k", "2"},
            {"SET", "k", "2", "XX"},
            {"COPY", "src", "k", "REPLACE"},
            {"UNLINK", "k"},
        };
        assertAll(Arrays.stream(writes).map(w -> () -> {
            String key = w[0].equals("INCR") ? "n" : "k";
            watched("WATCH, then " + String.join(" ", w), "k", "1", "n", "5", "src", "s")
                    .cmd("WATCH", key)
                    .other(w)
                    .cmd("MULTI")
                    .cmd("GET", key)
                    .cmd("EXEC")
                    .run();
        }));
    }

    // ---------------------------------------------------------------- WATCH: what does not abort

    @BothProtocols
    void noChangeDoesNotAbort() throws Exception {
        execReadingK(watched("WATCH, no change", "k", "1")
                .cmd("WATCH", "k")
                .other("GET", "k")
                .other("EXISTS", "k")
                .other("TTL", "k"))
                .run();
    }

    @BothProtocols
    void writeToAnotherKeyDoesNotAbort() throws Exception {
        execReadingK(watched("WATCH, then a write to another key", "k", "1")
                .cmd("WATCH", "k")
                .other("SET", "other", "1")
                .other("DEL", "kk"))
                .run();
    }

    @BothProtocols
    void writeToTheSameNameInAnotherDbDoesNotAbort() throws Exception {
        scenario("WATCH in db 1, then a write to k in db 0 and then in db 1")
                .cmd("SELECT", "1")
                .cmd("SET", "k", "1")
                .cmd("WATCH", "k")
                .other("SET", "k", "db0")
                .cmd("MULTI")
                .cmd("GET", "k")
                .cmd("EXEC")
                .cmd("WATCH", "k")
                .other("SELECT", "1")
                .other("SET", "k", "db1")
                .cmd("MULTI")
                .cmd("GET", "k")
                .cmd("EXEC")
                .run();
    }

    @BothProtocols
    void unwatchDoesNotAbort() throws Exception {
        execReadingK(watched("WATCH, write, UNWATCH", "k", "1")
                .cmd("WATCH", "k")
                .other("SET", "k", "2")
                .cmd("UNWATCH"))
                .run();
    }

    @BothProtocols
    void unwatchInsideMultiIsQueuedAndTooLate() throws Exception {
        scenario("WATCH, write, then UNWATCH inside MULTI")
                .cmd("SET", "k", "1")
                .cmd("WATCH", "k")
                .other("SET", "k", "2")
                .cmd("MULTI")
                .cmd("UNWATCH")
                .cmd("GET", "k")
                .cmd("EXEC")
                .run();
    }

    @BothProtocols
    void discardForgetsTheWatches() throws Exception {
        scenario("DISCARD forgets WATCH")
                .cmd("SET", "k", "1")
                .cmd("WATCH", "k")
                .other("SET", "k", "2")
                .cmd("MULTI")
                .cmd("DISCARD")
                .cmd("MULTI")
                .cmd("GET", "k")
                .cmd("EXEC")
                .run();
    }

    @BothProtocols
    void execForgetsTheWatches() throws Exception {
        scenario("EXEC forgets WATCH, aborted or not")
                .cmd("SET", "k", "1")
                .cmd("WATCH", "k")
                .cmd("MULTI")
                .cmd("GET", "k")
                .cmd("EXEC")
                .other("SET", "k", "2")
                .cmd("MULTI")
                .cmd("GET", "k")
                .cmd("EXEC")
                .cmd("WATCH", "k")
                .other("SET", "k", "3")
                .cmd("MULTI")
                .cmd("EXEC")
                .other("SET", "k", "4")
                .cmd("MULTI")
                .cmd("GET", "k")
                .cmd("EXEC")
                .run();
    }

    @BothProtocols
    void watchThenExecWithoutChange() throws Exception {
        scenario("WATCH then EXEC with no change")
                .cmd("SET", "k", "1")
                .cmd("WATCH", "k", "missing")
                .cmd("MULTI")
                .cmd("INCR", "k")
                .cmd("EXEC")
                .run();
    }

    @BothProtocols
    void failedWritesDoNotAbort() {
        assertAll(
                () -> execReadingK(watched("WATCH, then INCR of a non-integer", "k", "abc")
                        .cmd("WATCH", "k")
                        .other("INCR", "k"))
                        .run(),
                () -> execReadingK(watched("WATCH, then SET NX that does not set", "k", "1")
                        .cmd("WATCH", "k")
                        .other("SET", "k", "2", "NX"))
                        .run(),
                () -> execReadingK(scenario("WATCH a missing key, then SET XX that does not set")
                        .cmd("WATCH", "k")
                        .other("SET", "k", "2", "XX"))
                        .run(),
                () -> execReadingK(watched("WATCH, then SETNX that does not set", "k", "1")
                        .cmd("WATCH", "k")
                        .other("SETNX", "k", "2"))
                        .run(),
                () -> execReadingK(watched("WATCH, then PERSIST without a TTL", "k", "1")
                        .cmd("WATCH", "k")
                        .other("PERSIST", "k"))
                        .run(),
                () -> execReadingK(watched("WATCH, then RENAMENX onto it (refused)", "k", "1", "src", "x")
                        .cmd("WATCH", "k")
                        .other("RENAMENX", "src", "k"))
                        .run());
    }

    @BothProtocols
    void delOfAMissingWatchedKeyDoesNotAbort() throws Exception {
        execReadingK(scenario("WATCH a missing key, then DEL it")
                .cmd("WATCH", "k")
                .other("DEL", "k"))
                .run();
    }

    @BothProtocols
    void flushOfAMissingWatchedKeyDoesNotAbort() {
        assertAll(
                () -> execReadingK(watched("WATCH a missing key, then FLUSHDB", "other", "1")
                        .cmd("WATCH", "k")
                        .other("FLUSHDB"))
                        .run(),
                () -> execReadingK(watched("WATCH a missing key, then FLUSHALL", "other", "1")
                        .cmd("WATCH", "k")
                        .other("FLUSHALL"))
                        .run());
    }

    /**
     * A key whose TTL has run out before the WATCH (but that nobody has read, so it may still be
     * stored) counts as missing: EXEC runs, and a read that deletes it does not abort either;
     * a write that creates it again does. The key is never read before the WATCH: a second key
     * set just after with the same TTL is the one asked about.
     */
    @BothProtocols
    void keyAlreadyExpiredAtWatchTime() {
        assertAll(
                () -> execReadingK(expiredBeforeWatch("WATCH a key already expired"))
                        .run(),
                () -> execReadingK(expiredBeforeWatch("WATCH a key already expired, then a read deletes it")
                        .other("GET", "k"))
                        .run(),
                () -> execReadingK(expiredBeforeWatch("WATCH a key already expired, then DEL")
                        .other("DEL", "k"))
                        .run(),
                () -> execReadingK(expiredBeforeWatch("WATCH a key already expired, then SET creates it")
                        .other("SET", "k", "2"))
                        .run());
    }

    private Scenario expiredBeforeWatch(String name) {
        return scenario(name)
                .cmd("SET", "k", "1", "PX", "1")
                .cmd("SET", "clock", "1", "PX", "1")
                .otherUntil(":-2\r\n", "PTTL", "clock")
                .cmd("WATCH", "k");
    }

    // ---------------------------------------------------------------- helpers

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
