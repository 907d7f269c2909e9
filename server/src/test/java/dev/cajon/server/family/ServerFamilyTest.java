package dev.cajon.server.family;

import static dev.cajon.server.testkit.RespAssertions.assertError;
import static dev.cajon.server.testkit.RespAssertions.assertNil;
import static dev.cajon.server.testkit.RespAssertions.assertOk;
import static dev.cajon.server.testkit.RespAssertions.assertReply;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cajon.server.Version;
import dev.cajon.server.command.CommandSpec;
import dev.cajon.server.testkit.Client;
import dev.cajon.server.testkit.FamilyTestBase;
import dev.cajon.server.testkit.Reply;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * COMMAND and its subcommands, INFO (server, clients, stats, keyspace), DBSIZE, FLUSHDB,
 * FLUSHALL and TIME. INFO's keyspace counts are checked after every kind of write that can add,
 * remove or change a TTL, since they are maintained incrementally.
 */
class ServerFamilyTest extends FamilyTestBase {

    // ------------------------------------------------------------------ DBSIZE / FLUSHDB / FLUSHALL

    @Test
    void dbsizeCountsKeysOfTheSelectedDb() {
        assertReply(run("dbsize"), 0);
        run("mset", "a", "1", "b", "2");
        assertReply(run("dbsize"), 2);
        run("select", "2");
        assertReply(run("dbsize"), 0);
        run("set", "c", "3");
        assertReply(run("dbsize"), 1);
    }

    @Test
    void flushdbFlushesOnlyTheSelectedDb() {
        run("set", "a", "0");
        run("set", "big", new byte[50_000]);
        run("select", "1");
        run("set", "a", "1");
        run("set", "big", new byte[50_000]);
        assertOk(run("flushdb"));
        assertReply(run("dbsize"), 0);
        assertNil(run("get", "big"));
        run("select", "0");
        assertReply(run("dbsize"), 2);
        assertReply(run("get", "a"), "0");
        assertEquals(50_000, run("get", "big").asBulk().length);
    }

    @Test
    void flushallFlushesEveryDb() {
        for (int db : new int[] {0, 3, 15}) {
            run("select", db);
            run("set", "k", "v", "ex", "100");
            run("set", "big", new byte[20_000]);
        }
        assertOk(run("flushall"));
        for (int db : new int[] {0, 3, 15}) {
            run("select", db);
            assertReply(run("dbsize"), 0);
            assertReply(run("exists", "k", "big"), 0);
        }
        assertEquals("# Keyspace\r\n", run("info", "keyspace").asString());
        // and the dbs work afterwards
        run("set", "k", "again");
        assertReply(run("get", "k"), "again");
    }

    @Test
    void flushModes() {
        run("set", "k", "v");
        assertOk(run("flushdb", "async"));
        run("set", "k", "v");
        assertOk(run("flushdb", "SYNC"));
        assertOk(run("flushall", "sync"));
        assertOk(run("flushall", "ASYNC"));
        assertError(run("flushdb", "now"), "ERR syntax error");
        assertError(run("flushall", "sync", "async"), "ERR syntax error");
    }

    // ------------------------------------------------------------------ INFO

    /** "keys=N,expires=M" of one db in INFO keyspace, or null when the db is not listed. */
    private String keyspace(int db) {
        String line = infoField(run("info", "keyspace"), "db" + db);
        if (line == null) {
            return null;
        }
        assertTrue(line.matches("keys=\\d+,expires=\\d+,avg_ttl=\\d+"), line);
        return line.substring(0, line.indexOf(",avg_ttl"));
    }

    @Test
    void infoKeyspaceListsKeysAndExpiresPerDb() {
        assertEquals("# Keyspace\r\n", run("info", "keyspace").asString());
        run("set", "a", "1");
        run("set", "b", "2", "ex", "100");
        run("select", "5");
        run("set", "c", "3", "px", "100");
        String info = run("info", "keyspace").asString();
        assertTrue(info.startsWith("# Keyspace\r\ndb0:keys=2,expires=1,avg_ttl="), info);
        assertTrue(info.contains("\r\ndb5:keys=1,expires=1,avg_ttl="), info);
        assertTrue(info.indexOf("db0:") < info.indexOf("db5:"));
        assertNull(keyspace(1));
    }

    @Test
    void infoKeyspaceCountsFollowEveryTtlChange() {
        run("set", "a", "v");
        run("set", "b", "v", "ex", "100");
        assertEquals("keys=2,expires=1", keyspace(0));
        run("expire", "a", "100");
        assertEquals("keys=2,expires=2", keyspace(0));
        run("persist", "b");
        assertEquals("keys=2,expires=1", keyspace(0));
        run("set", "a", "v2"); // a plain SET clears the TTL
        assertEquals("keys=2,expires=0", keyspace(0));
        run("set", "c", "v", "ex", "10");
        run("set", "c", "v3", "keepttl");
        run("append", "c", "x");
        run("setrange", "c", "0", "y");
        assertEquals("keys=3,expires=1", keyspace(0));
        run("rename", "c", "d");
        assertEquals("keys=3,expires=1", keyspace(0));
        run("copy", "d", "e");
        assertEquals("keys=4,expires=2", keyspace(0));
        run("getex", "e", "persist");
        assertEquals("keys=4,expires=1", keyspace(0));
        run("getex", "e", "ex", "50");
        assertEquals("keys=4,expires=2", keyspace(0));
        run("set", "n", "1", "ex", "100");
        run("incr", "n");
        run("incrbyfloat", "n", "1.5");
        assertEquals("keys=5,expires=3", keyspace(0));
        run("mset", "n", "0");
        assertEquals("keys=5,expires=2", keyspace(0));
        run("getset", "e", "0");
        assertEquals("keys=5,expires=1", keyspace(0));
        run("del", "d");
        assertEquals("keys=4,expires=0", keyspace(0));
    }

    @Test
    void infoKeyspaceCountsWhenKeysAreReplacedOrDeletedByTime() {
        run("set", "x", "v", "ex", "100");
        run("set", "y", "v", "ex", "100");
        run("rename", "x", "y"); // volatile over volatile
        assertEquals("keys=1,expires=1", keyspace(0));
        run("set", "p", "v");
        run("rename", "p", "y"); // persistent over volatile
        assertEquals("keys=1,expires=0", keyspace(0));
        run("set", "q", "v", "ex", "100");
        run("set", "r", "v");
        run("copy", "r", "q", "replace"); // persistent copied over volatile
        assertEquals("keys=3,expires=0", keyspace(0));
        run("set", "s", "v", "ex", "100");
        run("expire", "s", "-1"); // deleted by a past deadline
        assertEquals("keys=3,expires=0", keyspace(0));
        run("set", "t", "v", "ex", "100");
        run("getex", "t", "pxat", "1");
        assertEquals("keys=3,expires=0", keyspace(0));
        run("set", "u", "v", "ex", "100");
        run("set", "u", "v", "pxat", "1");
        assertEquals("keys=3,expires=0", keyspace(0));
        run("set", "w", "v", "px", "10");
        run("set", "big", new byte[40_000], "px", "10");
        advance(11);
        run("get", "w");
        run("get", "big");
        assertEquals("keys=3,expires=0", keyspace(0));
        run("msetnx", "m1", "1", "m2", "2");
        run("setnx", "m3", "3");
        run("psetex", "m4", "1000", "4");
        run("setex", "m5", "1", "5");
        assertEquals("keys=8,expires=2", keyspace(0));
        run("getdel", "m4");
        run("unlink", "m5");
        assertEquals("keys=6,expires=0", keyspace(0));
        run("copy", "y", "y", "db", "1");
        run("set", "v1", "v", "ex", "100");
        run("copy", "v1", "v1", "db", "1");
        assertEquals("keys=2,expires=1", keyspace(1));
        run("flushdb");
        assertNull(keyspace(0));
        assertEquals("keys=2,expires=1", keyspace(1));
    }

    @Test
    void infoStatsCountsLazilyExpiredKeys() {
        assertEquals("0", infoField(run("info", "stats"), "expired_keys"));
        run("set", "a", "v", "px", "100");
        run("set", "b", "v", "px", "100");
        run("set", "c", "v", "px", "100");
        run("set", "d", "v", "px", "100");
        advance(101);
        assertEquals("0", infoField(run("info", "stats"), "expired_keys"), "nothing is reclaimed until accessed");
        run("get", "a");
        assertEquals("1", infoField(run("info", "stats"), "expired_keys"));
        run("exists", "b");
        run("ttl", "c");
        assertEquals("3", infoField(run("info", "stats"), "expired_keys"));
        // a key deleted by EXPIRE in the past, or by DEL, is not "expired"
        run("set", "e", "v");
        run("expire", "e", "-1");
        run("set", "f", "v", "ex", "100");
        run("del", "f");
        assertEquals("3", infoField(run("info", "stats"), "expired_keys"));
        // but DEL of a key already past its deadline expires it first (delGenericCommand)
        run("del", "d");
        assertEquals("4", infoField(run("info", "stats"), "expired_keys"));
    }

    @Test
    void configResetstatStartsTheInfoCountersAgain() {
        run("set", "a", "v", "px", "100");
        run("set", "k", "v");
        run("get", "k");
        run("get", "nope");
        advance(101);
        run("get", "a");
        Reply before = run("info", "stats");
        assertEquals("1", infoField(before, "expired_keys"));
        assertEquals("1", infoField(before, "keyspace_hits"));
        assertTrue(Long.parseLong(infoField(before, "total_commands_processed")) >= 6);
        assertOk(run("config", "resetstat"));
        Reply after = run("info", "stats");
        assertEquals("0", infoField(after, "expired_keys"));
        assertEquals("0", infoField(after, "keyspace_hits"));
        assertEquals("0", infoField(after, "keyspace_misses"));
        assertTrue(Long.parseLong(infoField(after, "total_commands_processed")) <= 1,
                "only the INFO itself may have been counted: " + infoField(after, "total_commands_processed"));
        run("set", "b", "v", "px", "100");
        advance(101);
        run("get", "b");
        assertEquals("1", infoField(run("info", "stats"), "expired_keys"), "counting goes on from zero");
    }

    @Test
    void infoStatsKeyspaceHitsAndMissesCountEveryReadLookup() {
        run("set", "k", "v");
        Reply before = run("info", "stats");
        long hits = Long.parseLong(infoField(before, "keyspace_hits"));
        long misses = Long.parseLong(infoField(before, "keyspace_misses"));
        run("get", "k");
        run("get", "nope");
        run("mget", "k", "nope", "k");
        Reply after = run("info", "stats");
        assertEquals(hits + 3, Long.parseLong(infoField(after, "keyspace_hits")));
        assertEquals(misses + 2, Long.parseLong(infoField(after, "keyspace_misses")));
    }

    @Test
    void infoStatsReadOnlyLookupsCountToo() {
        // Redis's lookupKeyRead counts a hit or miss for EXISTS, TYPE, STRLEN, TTL, GETRANGE as well
        run("set", "k", "v");
        Reply before = run("info", "stats");
        run("exists", "k");
        run("type", "nope");
        run("strlen", "k");
        run("ttl", "nope");
        Reply after = run("info", "stats");
        assertEquals(Long.parseLong(infoField(before, "keyspace_hits")) + 2,
                Long.parseLong(infoField(after, "keyspace_hits")));
        assertEquals(Long.parseLong(infoField(before, "keyspace_misses")) + 2,
                Long.parseLong(infoField(after, "keyspace_misses")));
    }

    @Test
    void infoStatsCountsCommandsAndConnections() {
        Reply r = run("info", "stats");
        long cmds = Long.parseLong(infoField(r, "total_commands_processed"));
        long conns = Long.parseLong(infoField(r, "total_connections_received"));
        run("ping");
        run("ping");
        server.client();
        r = run("info", "stats");
        assertEquals(cmds + 3, Long.parseLong(infoField(r, "total_commands_processed")));
        assertEquals(conns + 1, Long.parseLong(infoField(r, "total_connections_received")));
    }

    @Test
    void infoServerAndClients() {
        advance(12_345);
        Reply r = run("info", "server", "clients");
        assertEquals(Version.REDIS_COMPAT, infoField(r, "redis_version"));
        assertEquals("standalone", infoField(r, "redis_mode"));
        assertEquals("12", infoField(r, "uptime_in_seconds"));
        assertEquals("0", infoField(r, "uptime_in_days"));
        assertEquals(40, infoField(r, "run_id").length());
        assertEquals("1", infoField(r, "connected_clients"));
        Client other = server.client();
        assertEquals("2", infoField(run("info", "clients"), "connected_clients"));
        other.close();
        assertEquals("1", infoField(run("info", "clients"), "connected_clients"));
        assertNull(infoField(r, "keyspace_hits"), "only the sections asked for");
    }

    /** INFO memory in Redis's names: used_memory is its parts' sum, RSS is the process's, dataset the keys'. */
    @Test
    void infoMemoryShowsHeapMapsDirectAndRss() {
        run("set", "big", "x".repeat(10_000));
        Reply info = run("info", "memory");
        long used = Long.parseLong(infoField(info, "used_memory"));
        long parts = Long.parseLong(infoField(info, "used_memory_heap")) + Long.parseLong(infoField(info, "used_memory_maps"))
                + Long.parseLong(infoField(info, "used_memory_direct"));
        assertEquals(parts, used, "used_memory is heap + maps + direct");
        assertTrue(Long.parseLong(infoField(info, "used_memory_maps")) > 0, "the default keyspace's map is counted");
        assertTrue(Long.parseLong(infoField(info, "used_memory_rss")) > 10_000_000, "RSS of a JVM: " + infoField(info, "used_memory_rss"));
        assertTrue(Long.parseLong(infoField(info, "used_memory_dataset")) >= 10_000, "the 10 KB value is in the dataset");
        assertTrue(Long.parseLong(infoField(info, "used_memory_peak")) >= used);
        assertTrue(infoField(info, "mem_fragmentation_ratio").matches("\\d+\\.\\d\\d"));
    }

    @Test
    void infoSectionsAndFormat() {
        String all = run("info").asString();
        for (String section : List.of("# Server", "# Clients", "# Memory", "# Stats", "# Keyspace")) {
            assertTrue(all.contains(section + "\r\n"), section);
        }
        assertTrue(all.endsWith("\r\n"));
        assertFalse(all.contains("\n\n"), "sections are separated by one blank CRLF line");
        String moving = "uptime.*|used_memory.*|mem_fragmentation_ratio.*|total_commands_processed.*|keyspace_.*|used_cpu.*";
        assertEquals(all.replaceAll(moving, ""), run("info", "default").asString().replaceAll(moving, ""));
        assertEquals("", run("info", "nosuchsection").asString());
        assertTrue(run("info", "KEYSPACE").asString().startsWith("# Keyspace"));
    }

    // ------------------------------------------------------------------ TIME

    @Test
    void timeFollowsTheServerClock() {
        clock.set(1_700_000_123_456L);
        List<Reply> t = run("time").asArray();
        assertEquals(2, t.size());
        assertEquals("1700000123", t.get(0).asString());
        long micros = Long.parseLong(t.get(1).asString());
        assertEquals(456, micros / 1000);
        assertError(run("time", "x"), "ERR wrong number of arguments for 'time' command");
    }

    // ------------------------------------------------------------------ COMMAND

    /** One COMMAND INFO entry, by Redis 7's field positions. */
    private record Info(String name, long arity, List<String> flags, long first, long last, long step,
                        List<String> categories, List<Reply> subcommands) {
        static Info of(Reply r) {
            List<Reply> f = r.asArray();
            assertEquals(10, f.size(), () -> "COMMAND INFO entry has 10 fields: " + r);
            return new Info(f.get(0).asString(), f.get(1).asInt(), strings(f.get(2)), f.get(3).asInt(),
                    f.get(4).asInt(), f.get(5).asInt(), strings(f.get(6)), f.get(9).asArray());
        }
    }

    private static List<String> strings(Reply r) {
        List<String> out = new ArrayList<>();
        r.asArray().forEach(x -> out.add(x.asString()));
        return out;
    }

    @Test
    void commandCountIsTheNumberOfRegisteredCommands() {
        long n = run("command", "count").asInt();
        assertEquals(server.context().table().size(), n);
        assertEquals(server.context().table().all().size(), n);
        assertEquals(n, run("command").asArray().size());
        assertEquals(n, run("command", "info").asArray().size());
        assertTrue(n >= 50, "every family registered: " + n);
    }

    @Test
    void commandInfoGet() {
        List<Reply> r = run("command", "info", "get").asArray();
        assertEquals(1, r.size());
        Info get = Info.of(r.get(0));
        assertEquals("get", get.name());
        assertEquals(2, get.arity());
        assertEquals(List.of("readonly", "fast"), get.flags());
        assertEquals(1, get.first());
        assertEquals(1, get.last());
        assertEquals(1, get.step());
        assertEquals(List.of("@read", "@string", "@fast"), get.categories());
        assertEquals(List.of(), get.subcommands());
    }

    @Test
    void commandInfoOfSeveralAndOfSubcommands() {
        List<Reply> r = run("command", "info", "SET", "mset", "client|setname").asArray();
        Info set = Info.of(r.get(0));
        assertEquals("set", set.name());
        assertEquals(-3, set.arity());
        assertEquals(List.of("write", "denyoom"), set.flags());
        Info mset = Info.of(r.get(1));
        assertEquals(List.of(1L, -1L, 2L), List.of(mset.first(), mset.last(), mset.step()));
        Info setname = Info.of(r.get(2));
        assertEquals("client|setname", setname.name());
        assertEquals(3, setname.arity());
        Info client = Info.of(run("command", "info", "client").asArray().get(0));
        assertEquals(-2, client.arity());
        Set<String> subs = new TreeSet<>();
        client.subcommands().forEach(s -> subs.add(Info.of(s).name()));
        assertTrue(subs.containsAll(Set.of("client|setname", "client|getname", "client|id", "client|list")), subs.toString());
    }

    @Test
    void commandInfoOfAnUnknownCommandIsANullBulk() {
        // addReplyCommandInfo answers addReplyNull: "$-1" in RESP2, not a null array
        List<Reply> r = run("command", "info", "get", "nosuch").asArray();
        assertEquals(2, r.size());
        assertTrue(client.lastRawString().endsWith("$-1\r\n"), client.lastRawString());
        assertNil(r.get(1));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "ping|fast|@fast @connection",
        "echo|loading stale fast|@fast @connection",
        "hello|noscript loading stale fast no_auth allow_busy|@fast @connection",
        "del|write|@keyspace @write @slow",
        "exists|readonly fast|@keyspace @read @fast",
        "expire|write fast|@keyspace @write @fast",
        "ttl|readonly fast|@keyspace @read @fast",
        "set|write denyoom|@write @string @slow",
        "incr|write denyoom fast|@write @string @fast",
        "mget|readonly fast|@read @string @fast"})
    void commandInfoFlagsAndCategoriesAsRedis7ReportsThem(String name, String flags, String categories) {
        // Redis hides may_replicate, sentinel, only_sentinel and protected, and lists ACL categories
        // in its fixed order (keyspace, read, write, ..., string, ..., fast, slow, ..., connection)
        Info i = Info.of(run("command", "info", name).asArray().get(0));
        assertEquals(List.of(flags.split(" ")), i.flags(), "flags of " + name);
        assertEquals(List.of(categories.split(" ")), i.categories(), "ACL categories of " + name);
    }

    private static Map<String, Reply> flatMap(Reply r) {
        List<Reply> items = r.asArray();
        assertEquals(0, items.size() % 2, () -> "a flat map has an even length: " + r);
        Map<String, Reply> m = new LinkedHashMap<>();
        for (int i = 0; i < items.size(); i += 2) {
            m.put(items.get(i).asString(), items.get(i + 1));
        }
        return m;
    }

    @Test
    void commandDocsShape() {
        Map<String, Reply> docs = flatMap(run("command", "docs", "get", "nosuch", "client"));
        assertEquals(List.of("get", "client"), List.copyOf(docs.keySet()), "unknown names are skipped");
        Map<String, Reply> get = flatMap(docs.get("get"));
        CommandSpec spec = server.context().table().get("get");
        assertReply(get.get("summary"), spec.summary());
        assertReply(get.get("since"), "1.0.0");
        assertReply(get.get("group"), "string");
        Map<String, Reply> client = flatMap(docs.get("client"));
        assertReply(client.get("group"), "connection");
        Map<String, Reply> subs = flatMap(client.get("subcommands"));
        assertTrue(subs.containsKey("client|setname"), subs.keySet().toString());
        assertReply(flatMap(subs.get("client|setname")).get("since"), "2.6.9");
    }

    @Test
    void commandDocsOfEverything() {
        Map<String, Reply> docs = flatMap(run("command", "docs"));
        assertEquals(server.context().table().size(), docs.size());
        docs.forEach((name, d) -> {
            Map<String, Reply> m = flatMap(d);
            assertNotNull(m.get("summary"), name);
            assertNotNull(m.get("since"), name);
            assertNotNull(m.get("group"), name);
        });
    }

    @Test
    void commandDocsGroupsOfSubcommandsAreTheirParents() {
        // COMMAND COUNT, COMMAND INFO, ... are in Redis's "server" group, like COMMAND itself
        Map<String, Reply> command = flatMap(flatMap(run("command", "docs", "command")).get("command"));
        assertReply(command.get("group"), "server");
        flatMap(command.get("subcommands")).forEach((name, d) ->
                assertReply(flatMap(d).get("group"), "server"));
    }

    @Test
    void commandListNamesEveryCommandAndSubcommand() {
        // Redis's commandListWithoutFilter recurses into subcommands ("client|setname", ...)
        Set<String> expected = new TreeSet<>();
        for (CommandSpec s : server.context().table().all()) {
            expected.add(s.name());
            s.subcommands().forEach(sub -> expected.add(sub.name()));
        }
        Set<String> listed = new TreeSet<>(strings(run("command", "list")));
        assertEquals(expected, listed);
    }

    @Test
    void commandHelpExists() {
        // the unknown-subcommand error says "Try COMMAND HELP.", so HELP must answer
        List<Reply> lines = run("command", "help").asArray();
        assertTrue(lines.get(0).asString().startsWith("COMMAND <subcommand>"), lines.toString());
    }

    @Test
    void commandListRejectsUnknownFilters() {
        assertError(run("command", "list", "bogus"), "ERR syntax error");
    }
}
