package dev.cajon.bench.soak;

import dev.cajon.bench.harness.CommandTemplate;
import dev.cajon.bench.harness.Deadline;
import dev.cajon.bench.harness.Harness;
import dev.cajon.bench.harness.Reaper;
import dev.cajon.bench.harness.ServerProcess;
import dev.cajon.bench.harness.SideBySide;
import dev.cajon.bench.storm.RespConn;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The kill -9 soak: rounds of a mixed load on the real launcher, SIGKILL at a random moment,
 * restart on the same data dir, and a check of every key against what was acknowledged.
 *
 * <p>Round {@code r}: {@code clients} threads each write their own keys in two apps (ACL users;
 * see {@link Planner} for the mix) for a random time between {@code --load-min} and
 * {@code --load-max}; then the server's JVM gets SIGKILL, the server is started again on the same
 * dir (a new port), and {@link Checker} reads every key the model knows in both apps, checks that
 * the admin sees none of them, and that DBSIZE holds no key the model does not know. The model is
 * exact because each key has one writer with one op in flight, see {@link Op}. What a round found
 * becomes the acknowledged state of the next.
 *
 * <p>Run: {@code bin/soak-kill9 [rounds] [--seed N] [--rounds N] ...}. The seed fixes every random
 * choice of the soak (ops, keys, values, load times); the thread interleaving and the instant the
 * kill lands in the server are not reproducible.
 */
@Command(name = "soak-kill9", mixinStandardHelpOptions = true, sortOptions = false,
        description = "kill -9 soak: mixed load in two apps, SIGKILL, restart, check every acknowledged write.")
public final class Kill9Soak implements Callable<Integer> {

    static final String ADMIN_PASSWORD = "soak-admin-pw";
    static final String[] APPS = {"soak_a", "soak_b"};
    static final String[] APP_PASSWORDS = {"pw-a", "pw-b"};

    @Parameters(index = "0", arity = "0..1", paramLabel = "ROUNDS", description = "Same as --rounds.")
    Integer roundsArg;

    @Option(names = "--rounds", description = "Rounds of load, kill -9, restart, check. Default: ${DEFAULT-VALUE}")
    int rounds = 100;

    @Option(names = "--seed", description = "Seed of every random choice. Default: a random one, printed.")
    Long seed;

    @Option(names = "--clients", description = "Client threads, each with its own keys in both apps. Default: ${DEFAULT-VALUE}")
    int clients = 4;

    @Option(names = "--load-min", converter = Deadline.Converter.class, description = "Default: 1000ms")
    Duration loadMin = Duration.ofMillis(1000);

    @Option(names = "--load-max", converter = Deadline.Converter.class, description = "Default: 3000ms")
    Duration loadMax = Duration.ofMillis(3000);

    @Option(names = "--growth", description = "New string keys per client and app per round. Default: ${DEFAULT-VALUE}")
    int growth = 60;

    @Option(names = "--big-min", description = "Smallest large value, bytes. Default: ${DEFAULT-VALUE}")
    int bigMin = 200 * 1024;

    @Option(names = "--big-max", description = "Largest large value, bytes. Default: ${DEFAULT-VALUE}")
    int bigMax = 4 * 1024 * 1024;

    @Option(names = "--big-interval", converter = Deadline.Converter.class,
            description = "At most one large value per client per this. Default: 500ms")
    Duration bigInterval = Duration.ofMillis(500);

    @Option(names = "--ttl-slack", converter = Deadline.Converter.class,
            description = "Margin around wall-clock deadlines. Default: 100ms")
    Duration ttlSlack = Duration.ofMillis(100);

    @Option(names = "--cajon-cmd", paramLabel = "TEMPLATE", description = "Default: ${DEFAULT-VALUE}")
    String cajonCmd = SideBySide.DEFAULT_CAJON_CMD;

    @Option(names = "--app-rules", description = "ACL rules each app is created with (before its password)."
            + " Cajon's apps need only 'on'; a control run on redis-server needs 'on ~* +@all'. Default: ${DEFAULT-VALUE}")
    String appRules = "on";

    @Option(names = "--stop-on-failure", description = "Stop after the first round with a violation.")
    boolean stopOnFailure;

    @Option(names = "--keep", description = "Keep the data dir and server log (kept anyway on a violation).")
    boolean keep;

    @Option(names = "--out", description = "Markdown file to update. Default: ${DEFAULT-VALUE}")
    Path out = Path.of("docs/BENCHMARKS.md");

    @Option(names = "--print-only", description = "Print the summary; do not write Markdown.")
    boolean printOnly;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final PrintStream log = System.out;

    public static void main(String[] args) {
        Harness.main(new Kill9Soak(), args);
    }

    @Override
    public Integer call() throws Exception {
        if (roundsArg != null) {
            rounds = roundsArg;
        }
        long theSeed = seed != null ? seed : new SecureRandom().nextLong();
        Random master = new Random(theSeed);
        Path home = Harness.home();
        Path work = Files.createTempDirectory("cajon-soak-");
        String commandLine = Harness.commandLine("bin/soak-kill9", spec.commandLine().getParseResult().originalArgs());
        ZonedDateTime started = ZonedDateTime.now(ZoneOffset.UTC);
        long t0 = System.nanoTime();
        log.printf("soak-kill9: seed %d, %d rounds, %d clients x %d apps, data dir %s%n", theSeed, rounds, clients,
                APPS.length, work);
        ServerProcess server = new ServerProcess("Cajon",
                new CommandTemplate(cajonCmd + " --requirepass " + ADMIN_PASSWORD), work.resolve("data"),
                work.resolve("server.log"), home);
        Violations violations = new Violations();
        Counts total = new Counts();
        List<Long> restarts = new ArrayList<>();
        List<String> killedWhat = new ArrayList<>();
        Planner planner = new Planner(growth, bigMin, bigMax);
        Partition[][] parts = new Partition[clients][APPS.length];
        for (int t = 0; t < clients; t++) {
            for (int a = 0; a < APPS.length; a++) {
                parts[t][a] = new Partition(APPS[a], t);
            }
        }
        int done = 0;
        long[] finalDbsize = new long[APPS.length];
        try {
            server.start(Duration.ofSeconds(120));
            try (RespConn admin = connect(server.port(), "default", ADMIN_PASSWORD)) {
                for (int a = 0; a < APPS.length; a++) {
                    List<String> argv = new ArrayList<>(List.of("ACL", "SETUSER", APPS[a]));
                    argv.addAll(CommandTemplate.split(appRules));
                    argv.add(">" + APP_PASSWORDS[a]);
                    Object ok = admin.call(argv.toArray(String[]::new));
                    if (!"OK".equals(ok)) {
                        throw new IOException("ACL SETUSER " + APPS[a] + " answered " + describe(ok));
                    }
                }
            }
            // one clean stop first: bin/cajon-server records its class-data archive at a clean exit
            server.stop();
            server.start(Duration.ofSeconds(120));
            for (int r = 1; r <= rounds; r++) {
                int before = violations.total();
                Counts c = new Counts();
                String line = round(r, server, parts, planner, master, violations, c, restarts, killedWhat);
                total.add(c);
                done = r;
                log.println(line + ", violations " + (violations.total() - before));
                if (stopOnFailure && violations.total() > 0) {
                    break;
                }
            }
            // and a clean stop and start at the end: the same keys must be there
            server.stop();
            server.start(Duration.ofSeconds(120));
            Counts c = new Counts();
            check(done + 1, server, parts, violations, c, System.currentTimeMillis(), finalDbsize);
            total.add(c);
            log.printf("after a clean stop and start: checked %,d keys, violations %d%n", c.keys, violations.total());
        } catch (IOException e) {
            violations.add(Violations.Kind.HARNESS, done + 1, e.getMessage());
            log.println("soak-kill9: stopped: " + e.getMessage());
        } finally {
            server.stop();
            Reaper.killAll();
        }
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        String growth = SoakReport.growth(work.resolve("server.log"));
        String summary = SoakReport.summary(theSeed, done, clients, total, violations, restarts, killedWhat,
                finalDbsize, growth, took);
        log.println();
        log.println(summary);
        if (violations.total() > 0 || keep) {
            log.println("data dir and server log kept: " + work);
        } else {
            Harness.deleteTree(work);
        }
        if (!printOnly && done == rounds) {
            String md = SoakReport.markdown(this, commandLine, started, theSeed, done, total, violations, restarts,
                    killedWhat, finalDbsize, growth, took);
            dev.cajon.bench.harness.MarkdownSection.write(home.resolve(out), "kill9-soak", md);
            log.println("updated: " + home.resolve(out));
        }
        return violations.total() == 0 && done == rounds ? 0 : 1;
    }

    private String round(int r, ServerProcess server, Partition[][] parts, Planner planner, Random master,
                         Violations violations, Counts c, List<Long> restarts, List<String> killedWhat)
            throws IOException, InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch ready = new CountDownLatch(clients);
        List<LoadThread> threads = new ArrayList<>();
        for (int t = 0; t < clients; t++) {
            threads.add(new LoadThread(parts[t], APP_PASSWORDS, server.port(), r, master.nextLong(), planner,
                    bigInterval.toMillis(), violations, ready, stop));
        }
        long loadMs = loadMin.toMillis() + (long) (master.nextDouble() * (loadMax.toMillis() - loadMin.toMillis()));
        threads.forEach(Thread::start);
        if (!ready.await(60, TimeUnit.SECONDS)) {
            throw new IOException("the clients did not connect within 60 s");
        }
        Thread.sleep(loadMs);
        List<String> killed = server.kill9();
        long killTime = System.currentTimeMillis();
        stop.set(true);
        for (LoadThread t : threads) {
            t.join(30_000);
            if (t.isAlive()) {
                throw new IOException(t.getName() + " still running 30 s after the kill");
            }
            c.ackedOps += t.acked;
        }
        killedWhat.add(String.join(", ", killed));
        long restartStart = System.nanoTime();
        server.start(Duration.ofSeconds(120));
        long restartMs = (System.nanoTime() - restartStart) / 1_000_000;
        restarts.add(restartMs);
        long checkStart = System.nanoTime();
        check(r, server, parts, violations, c, killTime, null);
        long checkMs = (System.nanoTime() - checkStart) / 1_000_000;
        return String.format("round %d/%d: load %.2f s, %,d acked ops, %d in flight (%d applied), kill -9 %s,"
                        + " restart %d ms, checked %,d keys in %d ms (%,d counters, %,d TTLs, %d big, %d tx),"
                        + " isolation %,d",
                r, rounds, loadMs / 1000.0, c.ackedOps, c.inflight, c.inflightApplied,
                SoakReport.shortKilled(killed), restartMs, c.keys, checkMs, c.counters, c.ttls, c.bigValues,
                c.transactions, c.isolation);
    }

    /** Checks both apps, the admin's view and DBSIZE; {@code dbsizes}, if given, receives each app's DBSIZE. */
    private void check(int r, ServerProcess server, Partition[][] parts, Violations violations, Counts c,
                       long killTime, long[] dbsizes) throws IOException {
        Checker checker = new Checker(r, ttlSlack.toMillis(), violations, c);
        for (int a = 0; a < APPS.length; a++) {
            List<Partition> mine = new ArrayList<>();
            for (Partition[] p : parts) {
                mine.add(p[a]);
            }
            try (RespConn conn = connect(server.port(), APPS[a], APP_PASSWORDS[a])) {
                checker.check(conn, mine, killTime);
                long dbsize = Isolation.phantoms(conn, mine, r, violations);
                if (dbsizes != null) {
                    dbsizes[a] = dbsize;
                }
            }
        }
        for (Partition[] p : parts) {
            c.isolation += Checker.sharedNames(p[0], p[1]);
        }
        try (RespConn admin = connect(server.port(), "default", ADMIN_PASSWORD)) {
            c.isolation += Isolation.adminSeesNothing(admin, parts, r, violations);
        }
    }

    /** A connection authenticated as {@code user}. */
    static RespConn connect(int port, String user, String password) throws IOException {
        RespConn c = new RespConn(port, 30_000);
        Object ok = c.call("AUTH", user, password);
        if (!"OK".equals(ok)) {
            c.close();
            throw new IOException("AUTH " + user + " answered " + describe(ok));
        }
        return c;
    }

    /** True if the reply is the one the model predicts (see {@link Step}). */
    static boolean sameReply(Object expected, Object got) {
        if (expected == null) {
            return got == null;
        }
        if (expected instanceof Value v) {
            return got instanceof byte[] b && v.matches(b);
        }
        return expected.equals(got);
    }

    static String describe(Object reply) {
        if (reply == null) {
            return "nil";
        }
        if (reply instanceof byte[] b) {
            return Value.describe(b);
        }
        if (reply instanceof Value v) {
            return v.describe();
        }
        if (reply instanceof List<?> l) {
            List<String> items = new ArrayList<>();
            l.forEach(x -> items.add(describe(x)));
            return items.toString();
        }
        if (reply instanceof String s) {
            return "+" + s;
        }
        return String.valueOf(reply);
    }
}
