package dev.cajon.server.compat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * ACL, AUTH and HELLO AUTH against Redis 7.0.15: every error text byte for byte (NOAUTH,
 * WRONGPASS, NOPERM, the ACL SETUSER, DELUSER, GENPASS and CAT errors), and the replies whose
 * content Cajon shares with Redis (WHOAMI, USERS, the default user's LIST and GETUSER lines).
 *
 * <p>Where Cajon means to differ it is not compared here: an app's keys are its own (a Redis ACL
 * user shares the keyspace), passwords are shown redacted (Redis shows their SHA-256), and an
 * app's command rules are shown as what is in force. Those are {@code AclFamilyTest}'s and
 * {@code AppsSystemTest}'s.
 *
 * <p>Redis's users outlive a scenario (FLUSHALL keeps them), so each test ends by deleting its
 * users and giving the default user back its {@code nopass} on both servers.
 */
class AclComparisonTest extends ComparisonTestBase {
    private static final String ADMIN_PW = "admin-pw";

    @AfterEach
    void restoreUsers() throws IOException {
        for (int port : new int[] {redisPort(), cajonPort()}) {
            try (RespClient c = RespClient.connect(port)) {
                c.call("AUTH", ADMIN_PW); // if a test left default with a password
                c.call("ACL", "SETUSER", "default", "on", "nopass");
                c.call("ACL", "DELUSER", "shop", "other", "u", "v");
            }
        }
    }

    /** The RESP encoding of several commands, for a fresh connection's pipeline. */
    private static byte[] pipeline(String[]... commands) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String[] cmd : commands) {
            byte[][] argv = new byte[cmd.length][];
            for (int i = 0; i < cmd.length; i++) {
                argv[i] = cmd[i].getBytes(StandardCharsets.UTF_8);
            }
            out.writeBytes(RespClient.encode(argv));
        }
        return out.toByteArray();
    }

    private static String[] c(String... argv) {
        return argv;
    }

    @Test
    void theDefaultUserWithoutAPassword() throws Exception {
        scenario("ACL and AUTH without requirepass")
                .cmd("ACL", "WHOAMI")
                .cmd("ACL", "USERS")
                .cmd("ACL", "LIST")
                .cmd("ACL", "GETUSER", "default")
                .cmd("ACL", "GETUSER", "nosuch")
                .cmd("AUTH", "secret")
                .cmd("AUTH", "default", "anything")
                .cmd("AUTH", "nobody", "pw")
                .cmd("AUTH", "Default", "pw")
                .cmd("AUTH", "a", "b", "c")
                .cmd("AUTH")
                .cmd("HELLO", "2", "AUTH", "nobody", "pw")
                .cmd("ACL", "WHOAMI")
                .run();
    }

    @Test
    void aclErrors() throws Exception {
        scenario("ACL errors")
                .cmd("ACL")
                .cmd("ACL", "NOSUCH")
                .cmd("ACL", "WHOAMI", "x")
                .cmd("ACL", "USERS", "x")
                .cmd("ACL", "LIST", "x")
                .cmd("ACL", "GETUSER")
                .cmd("ACL", "GETUSER", "a", "b")
                .cmd("ACL", "SETUSER")
                .cmd("ACL", "DELUSER")
                .cmd("ACL", "DELUSER", "default")
                .cmd("ACL", "DELUSER", "nosuch", "default")
                .cmd("ACL", "DELUSER", "nosuch")
                .cmd("ACL", "SETUSER", "u", "bogus")
                .cmd("ACL", "SETUSER", "u", "on", ">pw", "bogus")
                .cmd("ACL", "USERS") // a refused SETUSER created nothing
                .cmd("ACL", "SETUSER", "bad name", "on")
                .cmd("ACL", "SETUSER", "bad\tname", "on")
                // a refused password rule: Redis's text, with the rule quoted redacted
                .check(redactedRule("#abc"), "ACL", "SETUSER", "u", "#abc")
                .check(redactedRule(UPPER_HASH), "ACL", "SETUSER", "u", UPPER_HASH)
                .check(redactedRule("!abc"), "ACL", "SETUSER", "u", "!abc")
                .check(redactedRule("<nosuch"), "ACL", "SETUSER", "u", "<nosuch")
                .check(redactedRule("!" + HASH), "ACL", "SETUSER", "u", "!" + HASH)
                .cmd("ACL", "SETUSER", "u", "+@nosuch")
                .cmd("ACL", "SETUSER", "u", "-@nosuch")
                .cmd("ACL", "SETUSER", "u", "+|")
                .cmd("ACL", "SETUSER", "u", "%X~foo")
                .cmd("ACL", "SETUSER", "u", "%")
                .cmd("ACL", "SETUSER", "u", "%~x")
                .cmd("ACL", "SETUSER", "u", "%RR~x")
                .cmd("ACL", "USERS")
                .cmd("ACL", "SETUSER", "u", "%R~")
                .cmd("ACL", "SETUSER", "u", "%R")
                .cmd("ACL", "SETUSER", "u", "(~foo")
                .cmd("ACL", "SETUSER", "u", "on", "(~foo", "+get")
                .cmd("ACL", "USERS")
                .cmd("ACL", "CAT", "nosuch")
                .cmd("ACL", "CAT", "a", "b")
                .cmd("ACL", "GENPASS", "0")
                .cmd("ACL", "GENPASS", "-1")
                .cmd("ACL", "GENPASS", "4097")
                .cmd("ACL", "GENPASS", "abc")
                .cmd("ACL", "GENPASS", "1", "2")
                .cmd("ACL", "DRYRUN", "nosuch", "get", "k")
                .cmd("ACL", "DRYRUN", "default", "nosuchcmd")
                .cmd("ACL", "DRYRUN", "default", "get")
                .cmd("ACL", "DRYRUN", "default", "get", "k")
                .cmd("ACL", "DRYRUN", "default", "config", "set", "a", "b")
                .run();
    }

    @Test
    void aclReplies() throws Exception {
        scenario("ACL CAT, GENPASS, SETUSER rules")
                .cmd("ACL", "CAT")
                .shape("ACL", "GENPASS")
                .check(lengthOfBulk(64), "ACL", "GENPASS")
                .check(lengthOfBulk(8), "ACL", "GENPASS", "32")
                .check(lengthOfBulk(1), "ACL", "GENPASS", "1")
                .check(lengthOfBulk(1024), "ACL", "GENPASS", "4096")
                // the rules Redis accepts are accepted
                .cmd("ACL", "SETUSER", "u", "ON", "NoPass", "resetpass", ">a", ">b", "<a", "nopass", "off", "reset")
                .cmd("ACL", "SETUSER", "u", "on", ">pw", "%R~x", "%RW~y", "%W", "~z", "~*", "~*", "allkeys", "&c",
                        "&*", "allchannels", "+@all", "-@admin", "+get", "-client|kill", "allcommands", "resetkeys",
                        "~z", "resetchannels", "&c", "sanitize-payload", "skip-sanitize-payload", "(~foo +get)",
                        "(~bar", "+set)", "clearselectors", "~*", "(~x)")
                // a narrower pattern after * in the same command is refused, as Redis refuses it
                .cmd("ACL", "SETUSER", "v", "~*", "~x")
                .cmd("ACL", "SETUSER", "v", "allkeys", "%RW~x")
                .cmd("ACL", "SETUSER", "v", "&*", "&x")
                .cmd("ACL", "SETUSER", "v", "allchannels", "&x")
                .cmd("ACL", "SETUSER", "v", "~*", "reset", "~x", "&x")
                .cmd("ACL", "SETUSER", "u", "#" + HASH, "!" + HASH)
                .cmd("ACL", "SETUSER", "u", ">secret", ">secret", "<secret")
                .check(redactedRule("<secret"), "ACL", "SETUSER", "u", "<secret")
                .cmd("ACL", "USERS")
                .cmd("ACL", "DELUSER", "u", "u", "nosuch")
                .cmd("ACL", "USERS")
                .run();
    }

    private static final String HASH = "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b";
    private static final String UPPER_HASH = "#" + HASH.toUpperCase(java.util.Locale.ROOT);

    /**
     * Redis's error for a refused password rule, quoting the rule, against Cajon's, which quotes
     * it as its first character and "<redacted>" (clients log errors; a password or its hash must
     * not end up there): equal once Redis's quote is redacted the same way.
     */
    private static Check redactedRule(String rule) {
        return (r, c) -> {
            String redis = new String(r.raw(), StandardCharsets.ISO_8859_1);
            String cajon = new String(c.raw(), StandardCharsets.ISO_8859_1);
            String quoted = "'" + rule + "'";
            if (!redis.startsWith("-ERR") || !redis.contains(quoted)) {
                return "Redis did not refuse the rule as expected";
            }
            String want = redis.replace(quoted, "'" + rule.charAt(0) + "<redacted>'");
            return want.equals(cajon) ? null : "expected " + want.strip();
        };
    }

    /** Both replies are bulk strings of {@code n} bytes (random content). */
    private static Check lengthOfBulk(int n) {
        return (r, c) -> r.raw()[0] == '$' && c.raw()[0] == '$' && r.payload().length == n && c.payload().length == n
                ? null : "expected two bulk strings of " + n + " bytes";
    }

    @Test
    void anAppAuthenticatesAndIsRefusedTheAdminCommands() throws Exception {
        scenario("an app: AUTH, WHOAMI and NOPERM")
                .cmd("ACL", "SETUSER", "shop", "on", ">pw", "~*", "&*", "+@all", "-@admin")
                .cmd("ACL", "SETUSER", "other", "off", ">pw", "~*", "&*", "+@all")
                .cmd("ACL", "USERS")
                .cmd("AUTH", "shop", "wrong")
                .cmd("AUTH", "other", "pw") // off
                .cmd("AUTH", "Shop", "pw")
                .cmd("ACL", "WHOAMI")
                .cmd("AUTH", "shop", "pw")
                .cmd("ACL", "WHOAMI")
                .cmd("SET", "k", "v")
                .cmd("GET", "k")
                .cmd("AUTH", "shop", "wrong")
                .cmd("ACL", "WHOAMI") // a failed AUTH keeps the user
                .cmd("CONFIG", "SET", "maxmemory", "1")
                .cmd("CONFIG", "GET", "maxmemory")
                .cmd("CONFIG", "RESETSTAT")
                .cmd("CONFIG", "REWRITE")
                .cmd("SHUTDOWN")
                .cmd("CLIENT", "PAUSE", "10")
                .cmd("CLIENT", "UNPAUSE")
                .cmd("ACL", "SETUSER", "shop", "on")
                .cmd("ACL", "SETUSER", "x", "on")
                .cmd("ACL", "GETUSER", "shop")
                .cmd("ACL", "LIST")
                .cmd("ACL", "USERS")
                .cmd("ACL", "DELUSER", "shop")
                .cmd("ACL", "SAVE")
                .cmd("ACL", "DRYRUN", "shop", "get", "k")
                .cmd("ACL", "WHOAMI")
                .cmd("ACL", "CAT")
                .shape("ACL", "GENPASS")
                // arity and unknown subcommands come before the permission check
                .cmd("CONFIG", "SET")
                .cmd("ACL", "NOSUCH")
                .cmd("ACL", "GETUSER")
                // in a transaction a refused command aborts it; a no_multi one is refused as such first
                .cmd("MULTI")
                .cmd("SET", "k", "v2")
                .cmd("CONFIG", "SET", "maxmemory", "1")
                .cmd("SHUTDOWN")
                .cmd("ACL", "WHOAMI")
                .cmd("EXEC")
                .cmd("GET", "k")
                // HELLO AUTH switches users too
                .check(Check.exceptAt(7), "HELLO", "2", "AUTH", "default", "anything")
                .cmd("ACL", "WHOAMI")
                .check(Check.exceptAt(7), "HELLO", "2", "AUTH", "shop", "pw")
                .cmd("ACL", "WHOAMI")
                .cmd("HELLO", "2", "AUTH", "shop", "wrong")
                .cmd("ACL", "WHOAMI")
                .cmd("RESET")
                .cmd("ACL", "WHOAMI") // RESET goes back to the default user
                .cmd("AUTH", "default", "x")
                .cmd("ACL", "DRYRUN", "shop", "config", "set", "a", "b")
                .cmd("ACL", "DRYRUN", "shop", "get", "k")
                .cmd("ACL", "DELUSER", "shop", "other")
                .cmd("ACL", "USERS")
                .run();
    }

    @Test
    void aPasswordOnTheDefaultUser() throws Exception {
        scenario("requirepass: NOAUTH, WRONGPASS and HELLO before AUTH")
                .cmd("ACL", "SETUSER", "default", "resetpass", ">" + ADMIN_PW)
                .cmd("ACL", "WHOAMI") // this connection stays authenticated
                .fresh(pipeline(c("PING"), c("GET", "k"), c("ACL", "WHOAMI"), c("CLIENT", "SETNAME", "x"), c("MULTI")),
                        5)
                .fresh(pipeline(c("HELLO"), c("HELLO", "3"), c("HELLO", "2", "SETNAME", "early"),
                        c("HELLO", "3", "AUTH", "default", "wrong"), c("HELLO", "3", "AUTH", "nobody", "x"),
                        c("HELLO", "4"), c("HELLO", "x"), c("HELLO", "2", "BOGUS"),
                        c("AUTH", "wrong"), c("AUTH", "default", "wrong"), c("AUTH", "a", "b", "c"),
                        c("AUTH", ADMIN_PW), c("CLIENT", "GETNAME"), c("ACL", "WHOAMI"), c("PING")), 15)
                .fresh(pipeline(c("AUTH", "default", ADMIN_PW), c("ACL", "WHOAMI"), c("AUTH", "wrong"), c("PING")), 4)
                .fresh(pipeline(c("RESET"), c("PING"), c("AUTH", ADMIN_PW), c("RESET"), c("PING")), 5)
                .fresh(pipeline(c("QUIT")), 1)
                .cmd("ACL", "SETUSER", "default", "nopass")
                .fresh(pipeline(c("PING"), c("AUTH", ADMIN_PW)), 2)
                .run();
    }
}
