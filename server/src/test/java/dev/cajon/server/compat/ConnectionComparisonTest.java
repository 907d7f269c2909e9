package dev.cajon.server.compat;

import static org.junit.jupiter.api.Assertions.assertAll;


/**
 * Connection commands against Redis: PING, ECHO, SELECT, HELLO, CLIENT, and the generic errors
 * (unknown command, unknown subcommand, wrong arity) the dispatcher produces.
 */
class ConnectionComparisonTest extends ComparisonTestBase {

    @BothProtocols
    void ping() throws Exception {
        scenario("PING")
                .cmd("PING")
                .cmd("ping")
                .cmd("PING", "hello")
                .cmd("PING", "")
                .cmd("PING", "a", "b")
                .cmd("PING", "a", "b", "c")
                .run();
    }

    @BothProtocols
    void echo() throws Exception {
        scenario("ECHO")
                .cmd("ECHO", "hello world")
                .cmd("ECHO", "")
                .cmd("ECHO")
                .cmd("ECHO", "a", "b")
                .cmd(Scenario.b("ECHO"), new byte[] {0, 1, (byte) 0xFF, '\r', '\n'})
                .run();
    }

    @BothProtocols
    void selectGivesEachDbItsOwnKeyspace() throws Exception {
        Scenario s = scenario("SELECT 0-15");
        for (int db = 0; db < 16; db++) {
            s.cmd("SELECT", Integer.toString(db))
                    .cmd("GET", "k")
                    .cmd("SET", "k", "v" + db)
                    .cmd("SET", "only" + db, "x")
                    .cmd("DBSIZE");
        }
        for (int db = 15; db >= 0; db--) {
            s.cmd("SELECT", Integer.toString(db))
                    .cmd("GET", "k")
                    .cmd("EXISTS", "only" + db, "only" + (db + 1) % 16)
                    .cmd("DBSIZE");
        }
        s.run();
    }

    @BothProtocols
    void selectErrors() throws Exception {
        scenario("SELECT errors")
                .cmd("SELECT", "16")
                .cmd("SELECT", "-1")
                .cmd("SELECT", "abc")
                .cmd("SELECT", "")
                .cmd("SELECT", "1.0")
                .cmd("SELECT", " 1")
                .cmd("SELECT", "01")
                .cmd("SELECT", "2147483648")
                .cmd("SELECT", "9223372036854775808")
                .cmd("SELECT")
                .cmd("SELECT", "1", "2")
                // the failed SELECTs left the connection in db 0
                .cmd("SET", "k", "v")
                .cmd("SELECT", "1")
                .cmd("GET", "k")
                .run();
    }

    @BothProtocols
    void hello() throws Exception {
        scenario("HELLO")
                .check(Check.exceptAt(7), "HELLO")
                .check(Check.exceptAt(7), "HELLO", "2")
                .check(Check.exceptAt(7), "hello", "2")
                .check(Check.exceptAt(7), "HELLO", "2", "AUTH", "default", "anything")
                .cmd("CLIENT", "GETNAME")
                .check(Check.exceptAt(7), "HELLO", "2", "SETNAME", "x")
                .cmd("CLIENT", "GETNAME")
                .check(Check.exceptAt(7), "HELLO", "2", "setname", "y", "SETNAME", "z")
                .cmd("CLIENT", "GETNAME")
                .check(Check.exceptAt(7), "HELLO", "2", "AUTH", "default", "pw", "SETNAME", "w")
                .cmd("CLIENT", "GETNAME")
                .run();
    }

    @BothProtocols
    void helloErrors() throws Exception {
        scenario("HELLO errors")
                .cmd("HELLO", "4")
                .cmd("HELLO", "1")
                .cmd("HELLO", "0")
                .cmd("HELLO", "-1")
                .cmd("HELLO", "abc")
                .cmd("HELLO", "2.0")
                .cmd("HELLO", "")
                .cmd("HELLO", "9223372036854775808")
                .cmd("HELLO", "4", "BADOPT")
                .cmd("HELLO", "abc", "BADOPT")
                .cmd("HELLO", "2", "BADOPT")
                .cmd("HELLO", "2", "SETNAME")
                .cmd("HELLO", "2", "AUTH")
                .cmd("HELLO", "2", "AUTH", "default")
                .cmd("HELLO", "2", "SETNAME", "a b")
                .cmd("HELLO", "2", "AUTH", "nobody", "secret")
                .cmd("HELLO", "2", "AUTH", "DEFAULT", "secret")
                .cmd("CLIENT", "GETNAME")
                .run();
    }

    /**
     * Redis 7.0 acts on each HELLO option as it parses it: AUTH authenticates and SETNAME is
     * validated (and applied) before a later option is found to be bad.
     */
    @BothProtocols
    void helloOptionsAreAppliedInOrder() {
        assertAll(
                () -> scenario("HELLO: invalid name before a bad option")
                        .cmd("HELLO", "2", "SETNAME", "a b", "BADOPT")
                        .run(),
                () -> scenario("HELLO: failed AUTH before a bad option")
                        .cmd("HELLO", "2", "AUTH", "nobody", "secret", "BADOPT")
                        .run(),
                () -> scenario("HELLO: SETNAME before a bad option")
                        .cmd("HELLO", "2", "SETNAME", "x", "BADOPT")
                        .cmd("CLIENT", "GETNAME")
                        .run());
    }

    /**
     * HELLO 3 switches to RESP3 as Redis does (only the id, element 7 of the map, differs), and
     * HELLO 2 back, on one connection (the [RESP3] run starts in RESP3 already), with replies
     * whose form depends on it: a null, an array with a null in it, CONFIG GET's map.
     */
    @BothProtocols
    void hello3ComparedWithRedis() throws Exception {
        scenario("HELLO 3 / HELLO 2 on one connection")
                .check(Check.exceptAt(7), "HELLO", "3")
                .cmd("GET", "missing")
                .cmd("MGET", "missing", "missing")
                .shape("CONFIG", "GET", "port")
                .check(Check.exceptAt(7), "HELLO")
                .check(Check.exceptAt(7), "HELLO", "2")
                .cmd("GET", "missing")
                .cmd("MGET", "missing", "missing")
                .shape("CONFIG", "GET", "port")
                .check(Check.exceptAt(7), "HELLO", "3", "SETNAME", "r3")
                .cmd("CLIENT", "GETNAME")
                .check(Check.exceptAt(7), "HELLO", "3", "AUTH", "default", "pw")
                .cmd("HELLO", "4")
                .cmd("GET", "missing")
                .check(Check.exceptAt(7), "HELLO", "2")
                .run();
    }

    /** RESET puts the connection back as it was when it opened: name, db, protocol (RESP2). */
    @BothProtocols
    void reset() throws Exception {
        scenario("RESET")
                .cmd("SET", "k", "db0")
                .cmd("CLIENT", "SETNAME", "before-reset")
                .cmd("SELECT", "3")
                .cmd("SET", "k", "db3")
                .cmd("RESET")
                .cmd("CLIENT", "GETNAME")
                .cmd("GET", "k")
                .cmd("GET", "missing")
                .check(Check.exceptAt(7), "HELLO")
                .cmd("RESET", "x")
                .cmd("reset")
                .run();
    }

    @BothProtocols
    void clientNames() throws Exception {
        scenario("CLIENT SETNAME/GETNAME")
                .cmd("CLIENT", "GETNAME")
                .cmd("CLIENT", "SETNAME", "foo")
                .cmd("CLIENT", "GETNAME")
                .cmd("client", "getname")
                .cmd("CLIENT", "SETNAME", "a b")
                .cmd("CLIENT", "SETNAME", "a\nb")
                .cmd("CLIENT", "SETNAME", "caf\u00e9")
                .cmd("CLIENT", "GETNAME")
                .cmd("CLIENT", "SETNAME", "")
                .cmd("CLIENT", "GETNAME")
                .cmd("CLIENT", "SETNAME")
                .cmd("CLIENT", "SETNAME", "a", "b")
                .cmd("CLIENT", "GETNAME", "x")
                .run();
    }

    @BothProtocols
    void clientIdAndErrors() throws Exception {
        scenario("CLIENT ID and errors")
                .shape("CLIENT", "ID")
                .cmd("CLIENT", "ID", "x")
                .cmd("CLIENT", "FOO")
                .cmd("CLIENT", "foo", "bar")
                .cmd("CLIENT")
                .run();
    }

    /** Redis 7.0 has no CLIENT SETINFO (7.2 does): checked against 7.2's documented replies. */
    @BothProtocols
    void clientSetinfoCajonOnly() throws Exception {
        scenario("CLIENT SETINFO (Cajon only)")
                .cajonOnly("+OK\r\n", "CLIENT", "SETINFO", "LIB-NAME", "mylib")
                .cajonOnly("+OK\r\n", "CLIENT", "SETINFO", "lib-ver", "1.2.3")
                .cajonOnly("-ERR Unrecognized option 'BADOPT'\r\n", "CLIENT", "SETINFO", "BADOPT", "x")
                .cajonOnly("-ERR wrong number of arguments for 'client|setinfo' command\r\n",
                        "CLIENT", "SETINFO", "LIB-NAME")
                .cajonOnly("-ERR wrong number of arguments for 'client|setinfo' command\r\n",
                        "CLIENT", "SETINFO", "LIB-NAME", "a", "b")
                .run();
    }

    /** No password is configured: the default user accepts any password. */
    @BothProtocols
    void auth() throws Exception {
        scenario("AUTH")
                .cmd("AUTH", "secret")
                .cmd("AUTH", "default", "secret")
                .cmd("AUTH", "DEFAULT", "secret")
                .cmd("AUTH", "nobody", "secret")
                .cmd("AUTH", "a", "b", "c")
                .cmd("AUTH")
                .cmd("PING")
                .run();
    }

    @BothProtocols
    void unknownCommands() throws Exception {
        StringBuilder longArg = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            longArg.append((char) ('a' + i % 26));
        }
        String name200 = "X".repeat(200);
        scenario("unknown command")
                .cmd("FOO")
                .cmd("")
                .cmd("", "x")
                .cmd("FOO", "a", "b")
                .cmd("foo", "", "b c")
                .cmd("FOO", longArg.toString())
                .cmd("FOO", "a".repeat(60), "b".repeat(60), "c".repeat(60), "d")
                .cmd(name200, "x")
                .cmd("GETT", "k")
                .run();
    }

    /** Argument bytes a C printf and a Java String treat differently; one scenario each. */
    @BothProtocols
    void unknownCommandWithAwkwardBytes() {
        assertAll(
                () -> scenario("unknown command, CRLF in an argument").cmd("FOO", "a\r\nb").run(),
                () -> scenario("unknown command, NUL in an argument").cmd("FOO", "a\u0000b").run(),
                () -> scenario("unknown command, invalid UTF-8 in an argument")
                        .cmd(Scenario.b("FOO"), new byte[] {'a', (byte) 0xFF, 'b'}).run(),
                () -> scenario("unknown command, multi-byte characters past 128 bytes")
                        .cmd("FOO", "\u00e9".repeat(100)).run(),
                () -> scenario("unknown command, CRLF in the name").cmd("F\r\nOO", "x").run(),
                () -> scenario("unknown subcommand, CRLF in it").cmd("CLIENT", "FO\r\nO").run());
    }

    @BothProtocols
    void wrongArityNamesTheCommandInLowerCase() throws Exception {
        scenario("wrong arity")
                .cmd("GET")
                .cmd("GeT")
                .cmd("GET", "a", "b")
                .cmd("SET", "k")
                .cmd("CLIENT", "SETNAME")
                .cmd("client", "GETNAME", "x")
                .cmd("CLIENT", "ID", "x")
                .cmd("COMMAND", "COUNT", "x")
                .cmd("DBSIZE", "x")
                .run();
    }
}
