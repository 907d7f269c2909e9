package dev.cajon.server.fuzz;

import dev.cajon.protocol.fuzz.Fuzz;
import dev.cajon.protocol.fuzz.RespMutator;
import dev.cajon.protocol.fuzz.SeedCorpus;
import dev.cajon.server.ServerContext;
import dev.cajon.server.command.CommandSpec;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * One input of the dispatcher fuzzer: commands for one connection, from the real command table
 * with random and edge-case arguments (numbers, options, transactions, HELLO, CLIENT, CONFIG, ...),
 * sent as RESP or inline in reads of random sizes. In one case out of six the encoded bytes are
 * mutated as well, so protocol errors meet a live connection.
 *
 * <p>Left out: what stops the server or writes outside a test's data ({@code SHUTDOWN}, {@code
 * CONFIG REWRITE}, {@code ACL SAVE}), {@code CLIENT PAUSE} (it would hold the next case's
 * commands: CLIENT UNPAUSE is in), the commands flagged {@code blocking} (BLPOP ...: on an empty
 * key they wait, as in Redis, so nothing after them would answer; BlockingListTest covers them),
 * and {@code CONFIG SET} of anything but {@link #SETTABLE}, whose
 * values the fixture puts back after each case ({@code maxclients} is not among them: its default
 * is above what CONFIG SET accepts under the test JVM's descriptor limit, so it could not be put back).
 */
record CommandFuzzCase(List<byte[][]> commands, List<Boolean> inline, byte[] mutated, List<Integer> reads) {
    /** Parameters a case may CONFIG SET; restored after each case. */
    static final List<String> SETTABLE = List.of("timeout", "tcp-keepalive", "proto-max-bulk-len",
            "client-query-buffer-limit", "client-output-buffer-limit", "requirepass", "save",
            "appendonly", "maxmemory-policy", "protected-mode");
    private static final Set<String> EXCLUDED = Set.of("shutdown", "config|rewrite", "acl|save", "acl|load",
            "client|pause");

    /** Every runnable row of the real table: "name" or "container|sub", with its arity. */
    private record Row(String name, String sub, int arity) {
    }

    private static final List<Row> ROWS = rows();

    private static List<Row> rows() {
        List<Row> out = new ArrayList<>();
        for (CommandSpec s : ServerContext.standardTable().all()) {
            if (s.isContainer()) {
                for (CommandSpec sub : s.subcommands()) {
                    if (!EXCLUDED.contains(sub.name())) {
                        out.add(new Row(s.name(), sub.shortName(), sub.arity()));
                    }
                }
            } else if (!EXCLUDED.contains(s.name()) && !s.has(dev.cajon.server.command.CommandFlag.BLOCKING)) {
                out.add(new Row(s.name(), null, s.arity()));
            }
        }
        return List.copyOf(out);
    }

    static int rowCount() {
        return ROWS.size();
    }

    /** Whether the bytes are exactly the commands (nothing mutated): the connection must stay usable. */
    boolean wellFramed() {
        return mutated == null;
    }

    /** What the connection is sent. */
    byte[] bytes() {
        if (mutated != null) {
            return mutated;
        }
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (int i = 0; i < commands.size(); i++) {
            o.writeBytes(inline.get(i) ? inlineLine(commands.get(i)) : Fuzz.resp(commands.get(i)));
        }
        return o.toByteArray();
    }

    /** A command that may rightly close the connection: QUIT, or CLIENT KILL (of itself). */
    boolean mayClose() {
        String all = new String(bytes(), StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        return all.contains("quit") || all.contains("kill") || all.contains("client-output-buffer-limit")
                || all.contains("client-query-buffer-limit") || all.contains("proto-max-bulk-len") || !wellFramed();
    }

    /** CLIENT REPLY and MULTI in one case: EXEC's array may then be short (as in Redis 7.0). */
    boolean replyModeInMulti() {
        String all = new String(bytes(), StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        return all.contains("multi") && all.contains("reply");
    }

    /** Inline: each argument in double quotes, every byte but letters and digits as \xHH. */
    static byte[] inlineLine(byte[][] args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (int i = 0; i < args.length; i++) {
            o.writeBytes(ascii(i == 0 ? "\"" : " \""));
            for (byte b : args[i]) {
                int c = b & 0xFF;
                if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
                    o.write(c);
                } else {
                    o.writeBytes(ascii(String.format("\\x%02x", c)));
                }
            }
            o.write('"');
        }
        o.writeBytes(ascii("\r\n"));
        return o.toByteArray();
    }

    List<byte[]> chunks() {
        return Fuzz.chunk(bytes(), reads);
    }

    /** Fewer commands (same reads), then the same commands without the mutation's bytes shrunk. */
    Iterable<CommandFuzzCase> smaller() {
        if (mutated != null) {
            List<CommandFuzzCase> out = new ArrayList<>();
            for (byte[] b : Fuzz.smallerBytes(mutated)) {
                out.add(new CommandFuzzCase(commands, inline, b, reads));
                if (out.size() > 2000) {
                    break;
                }
            }
            return out;
        }
        List<Integer> idx = new ArrayList<>();
        for (int i = 0; i < commands.size(); i++) {
            idx.add(i);
        }
        List<CommandFuzzCase> out = new ArrayList<>();
        for (List<Integer> keep : Fuzz.smallerLists(idx)) {
            List<byte[][]> c = new ArrayList<>();
            List<Boolean> f = new ArrayList<>();
            for (int i : keep) {
                c.add(commands.get(i));
                f.add(inline.get(i));
            }
            out.add(new CommandFuzzCase(c, f, null, reads));
        }
        return out;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        if (mutated != null) {
            sb.append("bytes ").append(Fuzz.literal(mutated)).append(" from ");
        }
        sb.append("commands [");
        for (int i = 0; i < commands.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(inline.get(i) ? "inline " : "").append('[');
            for (int j = 0; j < commands.get(i).length; j++) {
                byte[] a = commands.get(i)[j];
                sb.append(j == 0 ? "" : ", ").append(a.length > 64 ? "<" + a.length + " bytes>" : Fuzz.literal(a));
            }
            sb.append(']');
        }
        String s = sb.append("] reads=").append(reads).toString();
        return s.length() > 8000 ? s.substring(0, 8000) + " ..." : s;
    }

    // ------------------------------------------------------------------ generation

    private static final String[] KEYS = {"k", "k2", "counter", "{t}a", "{t}b", "", "key with spaces", "\u0000\u00ff"};
    private static final String[] OPTIONS = {"EX", "PX", "EXAT", "PXAT", "NX", "XX", "KEEPTTL", "GET", "GT", "LT",
        "PERSIST", "MATCH", "COUNT", "TYPE", "string", "*", "k*", "ID", "ADDR", "LADDR", "USER", "SKIPME", "yes", "no",
        "ON", "OFF", "SKIP", "on", "off", "AUTH", "SETNAME", "default", "nopass", ">pw", "<pw", "resetpass", "~*",
        "+@all", "-@all", "allkeys", "allcommands", "reset", "LIB-NAME", "LIB-VER", "MAXKEYS", "MAXBYTES", "DEFAULT",
        "app1", "app2", "u1", "NORMAL", "MASTER", "PUBSUB", "REPLICA", "TYPE", "ASYNC", "SYNC", "FULL", "memory",
        "keyspace", "server", "clients", "stats", "all", "everything", "WITHSCORES", "LIMIT", "3", "2", "1",
        "REDIRECT", "BCAST", "PREFIX", "OPTIN", "OPTOUT", "NOLOOP", "ABORT", "WRITE", "ALL", "16mb 8mb 60", "0 0 0"};
    private static final String[] EXTRA_NUMBERS = {"3.14", "-1.5", "inf", "-inf", "+inf", "nan", "1e400", "0.0",
        "1e3", "17179869184", "-17179869184", "100", "1000", "5", "16"};
    private static final String[] NAMES = {"PING", "ping", "PiNg", "unknowncmd", "", "GET\u0000", "set ", "MULTI",
        "EXEC", "config", "CLIENT", "x".repeat(40)};

    static CommandFuzzCase generate(SplittableRandom r) {
        List<byte[][]> cmds = new ArrayList<>();
        int n = 1 + r.nextInt(12);
        while (cmds.size() < n) {
            int kind = r.nextInt(100);
            if (kind < 70) {
                cmds.add(fromTable(r));
            } else if (kind < 85) {
                cmds.addAll(sequence(r));
            } else if (kind < 92) {
                byte[][] c = fromTable(r);
                c[0] = ascii(NAMES[r.nextInt(NAMES.length)]);
                cmds.add(c);
            } else {
                byte[] seed = SeedCorpus.seeds().get(r.nextInt(SeedCorpus.seeds().size()));
                cmds.add(new byte[][] {ascii("ECHO"), seed});
            }
        }
        List<Boolean> inline = new ArrayList<>();
        for (int i = 0; i < cmds.size(); i++) {
            inline.add(r.nextInt(5) == 0 && totalLength(cmds.get(i)) < 4096);
        }
        List<Integer> reads = new ArrayList<>();
        int kinds = r.nextInt(3);
        for (int i = 0, m = 1 + r.nextInt(5); i < m; i++) {
            reads.add(kinds == 0 ? 1 + r.nextInt(7) : kinds == 1 ? 1 + r.nextInt(200) : 1 + r.nextInt(70_000));
        }
        CommandFuzzCase c = new CommandFuzzCase(cmds, inline, null, reads);
        if (r.nextInt(6) == 0) {
            c = new CommandFuzzCase(cmds, inline, RespMutator.mutate(c.bytes(), r, 4), reads);
        }
        return c;
    }

    private static int totalLength(byte[][] args) {
        int n = 0;
        for (byte[] a : args) {
            n += a.length;
        }
        return n;
    }

    private static byte[][] fromTable(SplittableRandom r) {
        Row row = ROWS.get(r.nextInt(ROWS.size()));
        int fixed = row.sub == null ? 1 : 2;
        int least = Math.abs(row.arity);
        int argc = r.nextInt(8) == 0 ? fixed + r.nextInt(4) // often wrong arity
                : row.arity > 0 ? row.arity : least + r.nextInt(5);
        argc = Math.max(fixed, argc);
        byte[][] a = new byte[argc][];
        a[0] = ascii(r.nextBoolean() ? row.name : row.name.toUpperCase(Locale.ROOT));
        if (row.sub != null) {
            a[1] = ascii(r.nextBoolean() ? row.sub : row.sub.toUpperCase(Locale.ROOT));
        }
        for (int i = fixed; i < argc; i++) {
            a[i] = arg(r, row, i - fixed);
        }
        return a;
    }

    /** An argument; the first of a keyed command is most often a key, CONFIG's a parameter. */
    private static byte[] arg(SplittableRandom r, Row row, int pos) {
        if ("config".equals(row.name) && pos == 0) {
            if ("set".equals(row.sub)) {
                return ascii(SETTABLE.get(r.nextInt(SETTABLE.size())));
            }
            return ascii(new String[] {"*", "max*", "bind", "port", "dir", "timeout", "save", "requirepass",
                "client-output-buffer-limit", "nosuch", "proto-max-bulk-len"}[r.nextInt(11)]);
        }
        if (pos == 0 && row.sub == null && r.nextInt(4) != 0) {
            return ascii(KEYS[r.nextInt(KEYS.length)]);
        }
        switch (r.nextInt(7)) {
            case 0:
            case 1:
                return ascii(OPTIONS[r.nextInt(OPTIONS.length)]);
            case 2:
                return ascii(RespMutator.NUMBERS[r.nextInt(RespMutator.NUMBERS.length)]);
            case 3:
                return ascii(EXTRA_NUMBERS[r.nextInt(EXTRA_NUMBERS.length)]);
            case 4:
                return ascii(KEYS[r.nextInt(KEYS.length)]);
            case 5: {
                byte[] b = new byte[r.nextInt(16)];
                r.nextBytes(b);
                return b;
            }
            default: {
                // a value: small, now and then large enough to be stored as a blob file
                byte[] b = new byte[r.nextInt(40) == 0 ? 64 * 1024 + r.nextInt(200_000) : r.nextInt(64)];
                Arrays.fill(b, (byte) ('a' + r.nextInt(26)));
                return b;
            }
        }
    }

    /** Sequences whose order matters: transactions, protocol switches, reply modes, databases. */
    private static List<byte[][]> sequence(SplittableRandom r) {
        switch (r.nextInt(6)) {
            case 0:
                return List.of(args("WATCH", "k"), args("MULTI"), fromTable(r), fromTable(r),
                        args(r.nextInt(4) == 0 ? "DISCARD" : "EXEC"));
            case 1:
                return List.of(args("MULTI"), args("SET", "k", "1", "EX", "100"), args("INCR", "k"), fromTable(r),
                        args("MULTI"), args("EXEC"));
            case 2:
                return List.of(args("HELLO", r.nextBoolean() ? "3" : "2"), fromTable(r),
                        args("HELLO", new String[] {"2", "3", "4", "0", "-1", "x"}[r.nextInt(6)]));
            case 3:
                return List.of(args("CLIENT", "REPLY", new String[] {"OFF", "SKIP", "ON"}[r.nextInt(3)]), fromTable(r),
                        args("CLIENT", "REPLY", "ON"));
            case 4:
                return List.of(args("SELECT", Integer.toString(r.nextInt(17))), fromTable(r), args("SELECT", "0"));
            default:
                return List.of(args("WATCH", "k", "k2"), args("SET", "k", "v"), args("MULTI"), args("GET", "k"),
                        args("EXEC"), args("UNWATCH"));
        }
    }

    private static byte[][] args(String... s) {
        byte[][] a = new byte[s.length][];
        for (int i = 0; i < s.length; i++) {
            a[i] = ascii(s[i]);
        }
        return a;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
