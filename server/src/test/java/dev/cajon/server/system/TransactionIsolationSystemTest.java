package dev.cajon.server.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.compat.RedisServerExtension;
import dev.cajon.server.compat.RedisServerExtension.RedisProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * MULTI/EXEC is isolated: a connection on another event loop never sees a transaction half
 * applied, and WATCH loses no update made on another loop.
 *
 * <p>The server runs with {@code --io-threads 2}. Netty hands accepted connections to its event
 * loops round robin, so connections opened one after the other alternate between the two loops;
 * they are opened in the order writer, reader, reader, writer, reader, reader, which puts one
 * writer and two readers on each loop: every reader shares its loop with one writer and runs in
 * parallel with the other. (CLIENT LIST names no loop, so this is arranged, not asserted.)
 *
 * <p>Writers loop transactions that increment {@code tx:a} first and {@code tx:b} last, and in
 * between either overwrite a filler key, or create the three keys {@code tx:g1..g3} together
 * (MSET two of them, SET the third) or delete them together. Readers loop, each in its own
 * rotation, over checks that a half-applied transaction fails: MGET a b (always equal), MGET
 * g1 g2 g3 (all absent or all one value), DBSIZE (3 or 6, never 4 or 5), KEYS and a one-call SCAN
 * of {@code tx:g*} (0 or 3 keys), and a read-only transaction that must see one state. The
 * writers check their own replies too: INCR a and INCR b return the same number, and DBSIZE and
 * EXISTS inside a transaction see exactly its own writes.
 *
 * <p>The same readers are run against transactions that are not isolated (the same commands
 * sent one by one, or pipelined, without MULTI), to show that they catch one: see
 * {@link #readersCatchATransactionSentWithoutMulti()} and, for detection rates over many runs,
 * {@link #detectionRates()} (opt-in with {@code -Dcajon.tx.detectionRuns=N}). The whole harness
 * also runs against a real redis-server ({@link AgainstRedis}), which must pass it.
 */
class TransactionIsolationSystemTest {
    @RegisterExtension
    static final ServerProcesses servers = new ServerProcesses();

    @TempDir
    static Path tmp;

    static CajonProcess server;

    static final int IO_THREADS = 2;
    static final String A = "tx:a";
    static final String B = "tx:b";
    static final String F = "tx:f";
    static final String G1 = "tx:g1";
    static final String G2 = "tx:g2";
    static final String G3 = "tx:g3";
    static final String GROUP_PATTERN = "tx:g*";
    /** a, b and f always exist; the group adds three. */
    static final long BASE = 3;

    /** The real test's budget: whichever ends first, the count or the deadline. */
    static final Budget REAL = new Budget(30_000, 4_000, false);
    /** At least this many transactions per writer, and samples per reader check, or the race proved nothing. */
    static final int MIN_TX_PER_WRITER = 200;
    static final int MIN_SAMPLES_PER_CHECK = 30;

    @BeforeAll
    static void startServer() {
        server = startWithLoops(servers, "tx-isolation", tmp.resolve("data"), IO_THREADS);
    }

    /**
     * Like {@link ServerProcesses#start}, with {@code --io-threads loops}, and without the expiry
     * warm-up (2-3 s of a core that these tests, which set no TTL, would compete with).
     */
    static CajonProcess startWithLoops(ServerProcesses servers, String name, Path dir, int loops) {
        return servers.start(name, dir, "--io-threads", Integer.toString(loops), "--no-expiry-warmup");
    }

    // ================================================================== the tests

    @Test
    void execIsIsolatedFromConnectionsOnOtherLoops() throws Exception {
        assertOneTransactionWorks(server.port());
        Outcome o = Race.run(server.port(), Mode.EXEC, REAL);
        assertIsolated(o);
    }

    @Test
    void watchLosesNoUpdateMadeOnAnotherLoop() throws Exception {
        assertOneTransactionWorks(server.port());
        WatchOutcome o = WatchRace.run(server.port(), true, 400, 3_000);
        assertNoLostUpdate(o);
    }

    /**
     * The harness can fail: a "transaction" whose commands are sent one by one without MULTI is
     * caught by the readers (this runs on any Cajon, with or without MULTI).
     */
    @Test
    void readersCatchATransactionSentWithoutMulti() throws Exception {
        Outcome o = Race.run(server.port(), Mode.ROUND_TRIP, new Budget(REAL.maxTxPerWriter, REAL.millis, true));
        assertTrue(o.errors.isEmpty(), "errors: " + o.errors);
        assertTrue(o.readerViolations.get() > 0,
                "the readers did not catch transactions sent without MULTI within " + REAL.millis + " ms: " + o.summary());
    }

    /**
     * How often a transaction that is not isolated is caught within the real test's budget, over
     * N runs per kind: {@code mvn test -Dtest=TransactionIsolationSystemTest#detectionRates
     * -Dcajon.tx.detectionRuns=20}. Prints the rates; fails only on harness errors.
     */
    @Test
    @EnabledIfSystemProperty(named = "cajon.tx.detectionRuns", matches = "[1-9][0-9]*")
    void detectionRates() throws Exception {
        measureDetection("cajon --io-threads " + IO_THREADS, server.port());
    }

    static void measureDetection(String target, int port) throws Exception {
        int runs = Integer.getInteger("cajon.tx.detectionRuns");
        Budget b = new Budget(REAL.maxTxPerWriter, REAL.millis, true);
        List<String> report = new ArrayList<>();
        for (Mode mode : List.of(Mode.ROUND_TRIP, Mode.PIPELINED, Mode.SINGLE_COMMANDS)) {
            int any = 0;
            int byReaders = 0;
            int byWriters = 0;
            List<Long> firstMs = new ArrayList<>();
            for (int r = 0; r < runs; r++) {
                Outcome o = Race.run(port, mode, b);
                assertTrue(o.errors.isEmpty(), "errors: " + o.errors);
                if (o.readerViolations.get() > 0) {
                    firstMs.add(o.firstReaderViolationMs.get());
                }
                any += o.readerViolations.get() + o.writerViolations.get() > 0 ? 1 : 0;
                byReaders += o.readerViolations.get() > 0 ? 1 : 0;
                byWriters += o.writerViolations.get() > 0 ? 1 : 0;
                System.out.println("[detection] " + target + " " + mode + " run " + r + ": " + o.summary());
            }
            Collections.sort(firstMs);
            // and one run over the whole budget, to show which checks catch this kind
            Outcome full = Race.run(port, mode, REAL);
            report.add(target + " " + mode + " over the whole budget: " + full.summary());
            report.add(String.format("%s %s: caught in %d/%d runs (by readers %d, by writers' own replies %d); "
                            + "readers' time to first catch median %s ms, max %s ms",
                    target, mode.description, any, runs, byReaders, byWriters,
                    firstMs.isEmpty() ? "-" : firstMs.get(firstMs.size() / 2),
                    firstMs.isEmpty() ? "-" : firstMs.get(firstMs.size() - 1)));
        }
        WatchOutcome lost = null;
        int lostRuns = 0;
        for (int r = 0; r < runs; r++) {
            lost = WatchRace.run(port, false, 400, 3_000);
            assertTrue(lost.errors.isEmpty(), "errors: " + lost.errors);
            lostRuns += lost.lostUpdates() > 0 ? 1 : 0;
        }
        report.add(String.format("%s GET+SET without WATCH: lost updates caught in %d/%d runs (last run: %s)",
                target, lostRuns, runs, lost.summary()));
        report.forEach(l -> System.out.println("[detection] " + l));
        // surefire's report of a @Nested class overwrites the outer class's output file: keep the rates apart
        java.nio.file.Files.write(CajonProcess.serverTarget().resolve("tx-detection-rates.txt"), report,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    }

    /** A real redis-server must pass the same harness: it checks the harness, not Redis. */
    @Nested
    @ExtendWith(RedisServerExtension.class)
    class AgainstRedis {
        @Test
        void execIsIsolatedOnRedis(RedisProcess redis) throws Exception {
            assertOneTransactionWorks(redis.port());
            assertIsolated(Race.run(redis.port(), Mode.EXEC, new Budget(REAL.maxTxPerWriter, 2_000, false)));
        }

        @Test
        void watchLosesNoUpdateOnRedis(RedisProcess redis) throws Exception {
            assertNoLostUpdate(WatchRace.run(redis.port(), true, 400, 2_000));
        }

        @Test
        void readersCatchATransactionSentWithoutMultiOnRedis(RedisProcess redis) throws Exception {
            Outcome o = Race.run(redis.port(), Mode.ROUND_TRIP, new Budget(REAL.maxTxPerWriter, REAL.millis, true));
            assertTrue(o.errors.isEmpty(), "errors: " + o.errors);
            assertTrue(o.readerViolations.get() > 0, "not caught on redis: " + o.summary());
        }

        @Test
        @EnabledIfSystemProperty(named = "cajon.tx.detectionRuns", matches = "[1-9][0-9]*")
        void detectionRatesOnRedis(RedisProcess redis) throws Exception {
            measureDetection("redis " + redis.version(), redis.port());
        }
    }

    // ================================================================== assertions

    /** One transaction on one connection, so that a server without MULTI fails here, plainly. */
    static void assertOneTransactionWorks(int port) {
        try (Jedis j = connect(port)) {
            j.flushAll();
            Transaction t = j.multi();
            Response<Long> a = t.incr(A);
            Response<Long> b = t.incr(B);
            List<Object> r = t.exec();
            assertEquals(List.of(1L, 1L), r, "MULTI; INCR a; INCR b; EXEC");
            assertEquals(1L, a.get());
            assertEquals(1L, b.get());
            assertEquals(List.of("1", "1"), j.mget(A, B));
        }
    }

    static void assertIsolated(Outcome o) {
        System.out.println("[isolation] " + o.summary());
        assertTrue(o.errors.isEmpty(), "errors during the race: " + o.errors + "\n" + o.summary());
        assertTrue(o.violations.isEmpty(), "a transaction was seen half applied:\n  "
                + String.join("\n  ", o.violations) + "\n" + o.summary());
        for (int w = 0; w < Race.WRITERS; w++) {
            assertTrue(o.acked.get(w) >= MIN_TX_PER_WRITER,
                    "writer " + w + " ran only " + o.acked.get(w) + " transactions: the race proved nothing\n" + o.summary());
        }
        for (Check c : Check.values()) {
            if (c.execOnly && o.mode != Mode.EXEC) {
                continue;
            }
            assertTrue(o.samples.get(c.ordinal()) >= MIN_SAMPLES_PER_CHECK,
                    "only " + o.samples.get(c.ordinal()) + " samples of " + c + "\n" + o.summary());
        }
        long acked = 0;
        for (int w = 0; w < Race.WRITERS; w++) {
            acked += o.acked.get(w);
        }
        assertEquals(Long.toString(acked), o.finalA, "tx:a after " + acked + " acknowledged transactions");
        assertEquals(o.finalA, o.finalB, "tx:b after the race");
        assertTrue(wholeGroup(o.finalGroup), "the group after the race: " + o.finalGroup);
    }

    static void assertNoLostUpdate(WatchOutcome o) {
        System.out.println("[watch] " + o.summary());
        assertTrue(o.errors.isEmpty(), "errors during the race: " + o.errors + "\n" + o.summary());
        assertEquals(o.expected(), o.finalValue,
                "the watched counter after " + o.summary() + ": WATCH let a transaction overwrite a newer value");
        assertTrue(o.casSuccesses.get() >= WatchRace.CAS_CLIENTS * 50L, "too few transactions ran: " + o.summary());
        assertTrue(o.aborts.get() > 0, "no EXEC was ever aborted although the counter was changed under every WATCH "
                + "(a plain INCR client runs alongside): " + o.summary());
    }

    // ================================================================== the isolation race

    /** How the writers send a "transaction". Only EXEC is one; the others are for showing the readers catch them. */
    enum Mode {
        EXEC("MULTI/EXEC"),
        ROUND_TRIP("the transaction's commands one by one, no MULTI"),
        PIPELINED("the transaction's commands pipelined, no MULTI"),
        SINGLE_COMMANDS("MSET/DEL of the whole key set, no MULTI");

        final String description;

        Mode(String description) {
            this.description = description;
        }
    }

    /** The readers' checks; the last one needs MULTI. */
    enum Check {
        MGET_A_B(false), MGET_GROUP(false), DBSIZE(false), KEYS(false), SCAN(false), READ_TRANSACTION(true);

        final boolean execOnly;

        Check(boolean execOnly) {
            this.execOnly = execOnly;
        }
    }

    record Budget(int maxTxPerWriter, long millis, boolean stopAtFirstReaderViolation) {
    }

    static final class Outcome {
        final Mode mode;
        final List<String> violations = Collections.synchronizedList(new ArrayList<>());
        final List<String> errors = Collections.synchronizedList(new ArrayList<>());
        final AtomicLong readerViolations = new AtomicLong();
        final AtomicLong writerViolations = new AtomicLong();
        final AtomicLong firstReaderViolationMs = new AtomicLong(-1);
        final AtomicLong firstWriterViolationMs = new AtomicLong(-1);
        final AtomicLongArray acked = new AtomicLongArray(Race.WRITERS);
        final AtomicLongArray samples = new AtomicLongArray(Check.values().length);
        final AtomicLongArray caughtBy = new AtomicLongArray(Check.values().length);
        final AtomicLong partialScans = new AtomicLong();
        long elapsedMs;
        String finalA;
        String finalB;
        List<String> finalGroup;

        Outcome(Mode mode) {
            this.mode = mode;
        }

        String summary() {
            StringBuilder sb = new StringBuilder();
            sb.append(mode).append(" for ").append(elapsedMs).append(" ms: transactions per writer ").append(acked);
            sb.append(", reader samples");
            for (Check c : Check.values()) {
                sb.append(' ').append(c).append('=').append(samples.get(c.ordinal()));
            }
            sb.append(" (SCANs not done in one call ").append(partialScans.get()).append(')');
            sb.append("; violations: readers ").append(readerViolations.get());
            for (Check c : Check.values()) {
                if (caughtBy.get(c.ordinal()) > 0) {
                    sb.append(' ').append(c).append('=').append(caughtBy.get(c.ordinal()));
                }
            }
            sb.append(", writers ").append(writerViolations.get());
            if (!violations.isEmpty()) {
                sb.append(" (first by readers after ").append(firstReaderViolationMs.get()).append(" ms, by writers after ")
                        .append(firstWriterViolationMs.get()).append(" ms); first: ").append(violations.get(0));
            }
            if (!errors.isEmpty()) {
                sb.append("; errors ").append(errors);
            }
            return sb.toString();
        }
    }

    static boolean wholeGroup(List<String> g) {
        if (g.stream().allMatch(v -> v == null)) {
            return true;
        }
        return g.stream().allMatch(v -> v != null && v.equals(g.get(0)));
    }

    static Jedis connect(int port) {
        return new Jedis(CajonProcess.LOOPBACK, port, DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(5_000).socketTimeoutMillis(30_000)
                .autoNegotiateProtocol(false).build());
    }

    static ProtocolCommand command(String name) {
        byte[] raw = name.getBytes(StandardCharsets.US_ASCII);
        return () -> raw;
    }

    static String text(Object reply) {
        return reply instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(reply);
    }

    static final class Race {
        static final int WRITERS = 2;
        static final int READERS = 4;
        /** The order connections are opened in: with two loops, each loop gets one writer and two readers. */
        static final String ORDER = "WRRWRR";
        static final int MAX_READS_PER_READER = 500_000;
        static final int MAX_VIOLATIONS = 20;

        private final Mode mode;
        private final Budget budget;
        private final Outcome out;
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicBoolean writersDone = new AtomicBoolean();
        private long start;
        private long deadline;

        private Race(Mode mode, Budget budget) {
            this.mode = mode;
            this.budget = budget;
            this.out = new Outcome(mode);
        }

        static Outcome run(int port, Mode mode, Budget budget) throws Exception {
            return new Race(mode, budget).go(port);
        }

        private Outcome go(int port) throws Exception {
            try (Jedis setup = connect(port)) {
                setup.flushAll();
                setup.mset(A, "0", B, "0", F, "0");
            }
            List<Jedis> writers = new ArrayList<>();
            List<Jedis> readers = new ArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(WRITERS + READERS);
            try {
                for (char c : ORDER.toCharArray()) {
                    Jedis j = connect(port);
                    j.ping(); // connected and accepted now, in this order
                    (c == 'W' ? writers : readers).add(j);
                }
                List<Future<?>> ws = new ArrayList<>();
                List<Future<?>> rs = new ArrayList<>();
                start = System.nanoTime();
                deadline = start + TimeUnit.MILLISECONDS.toNanos(budget.millis);
                for (int w = 0; w < WRITERS; w++) {
                    int id = w;
                    Jedis j = writers.get(w);
                    ws.add(pool.submit(() -> guard("writer " + id, () -> writer(id, j))));
                }
                for (int r = 0; r < READERS; r++) {
                    int id = r;
                    Jedis j = readers.get(r);
                    rs.add(pool.submit(() -> guard("reader " + id, () -> reader(id, j))));
                }
                for (Future<?> f : ws) {
                    f.get(budget.millis + 60_000, TimeUnit.MILLISECONDS);
                }
                writersDone.set(true);
                for (Future<?> f : rs) {
                    f.get(60_000, TimeUnit.MILLISECONDS);
                }
                out.elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            } finally {
                pool.shutdownNow();
                writers.forEach(Jedis::close);
                readers.forEach(Jedis::close);
            }
            try (Jedis j = connect(port)) {
                List<String> ab = j.mget(A, B);
                out.finalA = ab.get(0);
                out.finalB = ab.get(1);
                out.finalGroup = j.mget(G1, G2, G3);
            }
            return out;
        }

        private interface Body {
            void run() throws Exception;
        }

        private void guard(String who, Body body) {
            try {
                body.run();
            } catch (Exception | AssertionError e) {
                out.errors.add(who + ": " + e);
                stop.set(true);
            }
        }

        private boolean timeUp() {
            return stop.get() || System.nanoTime() - deadline > 0;
        }

        /** A half-applied transaction seen by a reader's check {@code by}, or by a writer ({@code by == null}). */
        private void violation(Check by, String what) {
            boolean byReader = by != null;
            if (byReader) {
                out.caughtBy.incrementAndGet(by.ordinal());
            }
            (byReader ? out.readerViolations : out.writerViolations).incrementAndGet();
            (byReader ? out.firstReaderViolationMs : out.firstWriterViolationMs)
                    .compareAndSet(-1, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            if (out.violations.size() < MAX_VIOLATIONS) {
                out.violations.add((byReader ? "reader: " : "writer: ") + what);
            }
            // when measuring the readers, the writers' own checks must not end the race for them
            if (budget.stopAtFirstReaderViolation ? byReader : out.violations.size() >= MAX_VIOLATIONS) {
                stop.set(true);
            }
        }

        // ------------------------------------------------------------ writers

        /**
         * Transaction {@code i} of writer {@code w}: INCR a, then (by {@code i % 4}) a filler SET,
         * the group created, a filler SET, or the group deleted, then INCR b.
         */
        static List<String[]> transaction(Mode mode, int w, int i) {
            String v = "w" + w + ":" + i;
            int kind = i % 4;
            List<String[]> c = new ArrayList<>();
            if (mode == Mode.SINGLE_COMMANDS) {
                // what one multi-key command gives, for comparison: no INCR, the same key sets
                switch (kind) {
                    case 1 -> c.add(new String[] {"MSET", G1, v, G2, v, G3, v});
                    case 3 -> c.add(new String[] {"DEL", G1, G2, G3});
                    default -> c.add(new String[] {"MSET", A, v, B, v, F, v});
                }
                return c;
            }
            c.add(new String[] {"INCR", A});
            switch (kind) {
                case 1 -> {
                    c.add(new String[] {"MSET", G1, v, G2, v});
                    c.add(new String[] {"SET", G3, v});
                    c.add(new String[] {"EXISTS", G1, G2, G3});
                    c.add(new String[] {"DBSIZE"});
                }
                case 3 -> {
                    c.add(new String[] {"DEL", G1});
                    c.add(new String[] {"DEL", G2, G3});
                    c.add(new String[] {"EXISTS", G1, G2, G3});
                    c.add(new String[] {"DBSIZE"});
                }
                default -> c.add(new String[] {"SET", F, v});
            }
            c.add(new String[] {"INCR", B});
            return c;
        }

        private void writer(int w, Jedis j) throws Exception {
            for (int i = 0; i < budget.maxTxPerWriter && !timeUp(); i++) {
                List<String[]> tx = transaction(mode, w, i);
                List<Object> r = send(j, tx);
                checkWriterReplies(tx, r, i);
                out.acked.incrementAndGet(w);
            }
        }

        private List<Object> send(Jedis j, List<String[]> tx) {
            switch (mode) {
                case EXEC -> {
                    Transaction t = j.multi();
                    for (String[] c : tx) {
                        t.sendCommand(command(c[0]), Arrays.copyOfRange(c, 1, c.length));
                    }
                    List<Object> r = t.exec();
                    if (r == null) {
                        throw new AssertionError("EXEC returned a null array without WATCH: " + describe(tx));
                    }
                    return r;
                }
                case PIPELINED -> {
                    Pipeline p = j.pipelined();
                    List<Response<Object>> rs = new ArrayList<>();
                    for (String[] c : tx) {
                        rs.add(p.sendCommand(command(c[0]), Arrays.copyOfRange(c, 1, c.length)));
                    }
                    p.sync();
                    List<Object> r = new ArrayList<>();
                    rs.forEach(x -> r.add(x.get()));
                    return r;
                }
                default -> {
                    List<Object> r = new ArrayList<>();
                    for (String[] c : tx) {
                        r.add(j.sendCommand(command(c[0]), Arrays.copyOfRange(c, 1, c.length)));
                    }
                    return r;
                }
            }
        }

        static String describe(List<String[]> tx) {
            StringBuilder sb = new StringBuilder();
            for (String[] c : tx) {
                sb.append(sb.length() == 0 ? "" : "; ").append(String.join(" ", c));
            }
            return sb.toString();
        }

        private void checkWriterReplies(List<String[]> tx, List<Object> r, int i) {
            if (r.size() != tx.size()) {
                throw new AssertionError(r.size() + " replies to " + tx.size() + " commands: " + describe(tx) + " -> " + r);
            }
            List<String> got = new ArrayList<>();
            for (Object o : r) {
                if (o instanceof Exception e) {
                    throw new AssertionError("error reply in " + describe(tx) + ": " + e.getMessage());
                }
                got.add(text(o));
            }
            String what = describe(tx) + " -> " + got;
            if (mode == Mode.SINGLE_COMMANDS) {
                if (tx.get(0)[0].equals("DEL") && !got.get(0).equals("0") && !got.get(0).equals("3")) {
                    violation(null, "DEL of the group removed " + got.get(0) + " keys: " + what);
                } else if (tx.get(0)[0].equals("MSET") && !got.get(0).equals("OK")) {
                    throw new AssertionError(what);
                }
                return;
            }
            if (!got.get(0).equals(got.get(got.size() - 1))) {
                violation(null, "INCR a and INCR b in one transaction returned different numbers: " + what);
            }
            switch (i % 4) {
                case 1 -> {
                    if (!got.get(1).equals("OK") || !got.get(2).equals("OK")) {
                        throw new AssertionError(what);
                    }
                    if (!got.get(3).equals("3") || !got.get(4).equals(Long.toString(BASE + 3))) {
                        violation(null, "after creating the group, EXISTS and DBSIZE in the same transaction: " + what);
                    }
                }
                case 3 -> {
                    boolean whole = (got.get(1).equals("0") && got.get(2).equals("0"))
                            || (got.get(1).equals("1") && got.get(2).equals("2"));
                    if (!whole || !got.get(3).equals("0") || !got.get(4).equals(Long.toString(BASE))) {
                        violation(null, "deleting the group in one transaction: " + what);
                    }
                }
                default -> {
                    if (!got.get(1).equals("OK")) {
                        throw new AssertionError(what);
                    }
                }
            }
        }

        // ------------------------------------------------------------ readers

        private void reader(int id, Jedis j) {
            Check[] checks = Check.values();
            int kinds = mode == Mode.EXEC ? checks.length : checks.length - 1;
            ScanParams scan = new ScanParams().match(GROUP_PATTERN).count(1000);
            for (int n = 0; n < MAX_READS_PER_READER && !stop.get() && !writersDone.get() && !timeUp(); n++) {
                Check c = checks[(n + id * 2) % kinds];
                switch (c) {
                    case MGET_A_B -> {
                        List<String> ab = j.mget(A, B);
                        if (ab.get(0) == null || !ab.get(0).equals(ab.get(1))) {
                            violation(c, "MGET tx:a tx:b returned " + ab);
                        }
                    }
                    case MGET_GROUP -> {
                        List<String> g = j.mget(G1, G2, G3);
                        if (!wholeGroup(g)) {
                            violation(c, "MGET tx:g1 tx:g2 tx:g3 returned " + g);
                        }
                    }
                    case DBSIZE -> {
                        long size = j.dbSize();
                        if (size != BASE && size != BASE + 3) {
                            violation(c, "DBSIZE returned " + size + " (the key set has " + BASE + " or " + (BASE + 3) + " keys)");
                        }
                    }
                    case KEYS -> {
                        Set<String> keys = j.keys(GROUP_PATTERN);
                        if (keys.size() != 0 && keys.size() != 3) {
                            violation(c, "KEYS tx:g* returned " + keys);
                        }
                    }
                    case SCAN -> {
                        ScanResult<String> s = j.scan(ScanParams.SCAN_POINTER_START, scan);
                        if (!s.isCompleteIteration()) {
                            out.partialScans.incrementAndGet();
                            continue; // a SCAN over several calls may see a transaction that ran in between
                        }
                        Set<String> keys = new HashSet<>(s.getResult());
                        if (keys.size() != 0 && keys.size() != 3) {
                            violation(c, "SCAN 0 MATCH tx:g* COUNT 1000 returned " + s.getResult());
                        }
                    }
                    case READ_TRANSACTION -> {
                        Transaction t = j.multi();
                        Response<String> a = t.get(A);
                        Response<Long> exists = t.exists(G1, G2, G3);
                        Response<Object> size = t.sendCommand(command("DBSIZE"), new String[0]);
                        Response<List<String>> g = t.mget(G1, G2, G3);
                        Response<String> b = t.get(B);
                        List<Object> r = t.exec();
                        if (r == null) {
                            throw new AssertionError("a read-only EXEC returned a null array");
                        }
                        long e = exists.get();
                        boolean ok = a.get() != null && a.get().equals(b.get())
                                && (e == 0 || e == 3)
                                && (Long) size.get() == BASE + e
                                && wholeGroup(g.get()) && (g.get().get(0) != null) == (e == 3);
                        if (!ok) {
                            violation(c, "MULTI; GET a; EXISTS g1 g2 g3; DBSIZE; MGET g1 g2 g3; GET b; EXEC returned "
                                    + Arrays.asList(a.get(), e, size.get(), g.get(), b.get()));
                        }
                    }
                    default -> throw new IllegalStateException();
                }
                out.samples.incrementAndGet(c.ordinal());
            }
        }
    }

    // ================================================================== the WATCH race

    static final class WatchOutcome {
        final List<String> errors = Collections.synchronizedList(new ArrayList<>());
        final AtomicLong casSuccesses = new AtomicLong();
        final AtomicLong aborts = new AtomicLong();
        final AtomicLong plainIncrs = new AtomicLong();
        final boolean watch;
        long elapsedMs;
        String finalValue;

        WatchOutcome(boolean watch) {
            this.watch = watch;
        }

        String expected() {
            return Long.toString(casSuccesses.get() + plainIncrs.get());
        }

        long lostUpdates() {
            return finalValue == null ? -1 : casSuccesses.get() + plainIncrs.get() - Long.parseLong(finalValue);
        }

        String summary() {
            return (watch ? "WATCH c; GET c; MULTI; SET c n+1; EXEC" : "GET c; SET c n+1 (no WATCH)") + " by "
                    + WatchRace.CAS_CLIENTS + " clients and INCR c by one, for " + elapsedMs + " ms: "
                    + casSuccesses.get() + " transactions applied, " + aborts.get() + " aborted, "
                    + plainIncrs.get() + " INCRs; c = " + finalValue + ", expected " + expected()
                    + (errors.isEmpty() ? "" : "; errors " + errors);
        }
    }

    /**
     * Clients increment one counter with optimistic transactions (WATCH, GET, MULTI, SET n+1,
     * EXEC, retried when EXEC aborts) while another client INCRs it plainly; connections alternate
     * between the loops. No update may be lost: the counter ends at the number of applied
     * transactions plus the number of INCRs. With {@code watch == false} the clients do a plain
     * GET and SET instead, which loses updates (the harness's own check).
     */
    static final class WatchRace {
        static final int CAS_CLIENTS = 3;
        static final String C = "tx:c";

        static WatchOutcome run(int port, boolean watch, int successesPerClient, long millis) throws Exception {
            WatchOutcome out = new WatchOutcome(watch);
            try (Jedis setup = connect(port)) {
                setup.flushAll();
                setup.set(C, "0");
            }
            AtomicBoolean casDone = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            List<Jedis> conns = new ArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(CAS_CLIENTS + 1);
            long start = System.nanoTime();
            long deadline = start + TimeUnit.MILLISECONDS.toNanos(millis);
            try {
                for (int i = 0; i < CAS_CLIENTS + 1; i++) {
                    Jedis j = connect(port);
                    j.ping();
                    conns.add(j);
                }
                List<Future<?>> cas = new ArrayList<>();
                for (int i = 0; i < CAS_CLIENTS; i++) {
                    Jedis j = conns.get(i);
                    int id = i;
                    cas.add(pool.submit(() -> {
                        try {
                            int done = 0;
                            for (int attempt = 0; attempt < 100 * successesPerClient && done < successesPerClient
                                    && !stop.get() && System.nanoTime() - deadline < 0; attempt++) {
                                if (watch) {
                                    j.watch(C);
                                    long n = Long.parseLong(j.get(C));
                                    Transaction t = j.multi();
                                    t.set(C, Long.toString(n + 1));
                                    List<Object> r = t.exec();
                                    if (r == null) {
                                        out.aborts.incrementAndGet();
                                        continue;
                                    }
                                    if (!r.equals(List.of("OK"))) {
                                        throw new AssertionError("EXEC of SET returned " + r);
                                    }
                                } else {
                                    long n = Long.parseLong(j.get(C));
                                    j.set(C, Long.toString(n + 1));
                                }
                                out.casSuccesses.incrementAndGet();
                                done++;
                            }
                        } catch (Exception | AssertionError e) {
                            out.errors.add("cas client " + id + ": " + e);
                            stop.set(true);
                        }
                    }));
                }
                Jedis plain = conns.get(CAS_CLIENTS);
                Future<?> incr = pool.submit(() -> {
                    try {
                        for (int i = 0; i < 1_000_000 && !casDone.get() && !stop.get(); i++) {
                            // one INCR in four round trips, so that the transactions get through too
                            if (i % 4 == 0) {
                                plain.incr(C);
                                out.plainIncrs.incrementAndGet();
                            } else {
                                plain.ping();
                            }
                        }
                    } catch (Exception e) {
                        out.errors.add("incr client: " + e);
                        stop.set(true);
                    }
                });
                for (Future<?> f : cas) {
                    f.get(millis + 60_000, TimeUnit.MILLISECONDS);
                }
                casDone.set(true);
                incr.get(60_000, TimeUnit.MILLISECONDS);
                out.elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            } finally {
                pool.shutdownNow();
                conns.forEach(Jedis::close);
            }
            try (Jedis j = connect(port)) {
                out.finalValue = j.get(C);
            }
            return out;
        }
    }
}
