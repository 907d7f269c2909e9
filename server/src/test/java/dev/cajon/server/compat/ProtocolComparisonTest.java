package dev.cajon.server.compat;

import static org.junit.jupiter.api.Assertions.assertAll;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.function.Executable;

/**
 * The wire itself against Redis: binary-safe keys and values, inline commands (quoting and
 * escapes, compared byte for byte), and malformed input: the error reply and whether the
 * connection is closed afterwards.
 */
class ProtocolComparisonTest extends ComparisonTestBase {

    private static byte[] allBytes() {
        byte[] b = new byte[256];
        for (int i = 0; i < 256; i++) {
            b[i] = (byte) i;
        }
        return b;
    }

    private static byte[] b(String s) {
        return Scenario.b(s);
    }

    @BothProtocols
    void binarySafeKeysAndValues() throws Exception {
        byte[] all = allBytes();
        byte[] crlfKey = {'\r', '\n', '$', '3', '\r', '\n'};
        byte[] big = new byte[200_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31 + 7);
        }
        scenario("binary-safe keys and values")
                .cmd(b("SET"), all, all)
                .cmd(b("GET"), all)
                .cmd(b("STRLEN"), all)
                .cmd(b("EXISTS"), all)
                .cmd(b("GETRANGE"), all, b("250"), b("-1"))
                .cmd(b("APPEND"), all, new byte[] {0, 0})
                .cmd(b("GET"), all)
                .cmd(b("SET"), new byte[] {0}, new byte[] {(byte) 0xFF})
                .cmd(b("MGET"), new byte[] {0}, all, new byte[] {0, 0})
                .cmd(b("RENAME"), new byte[] {0}, crlfKey)
                .cmd(b("GET"), crlfKey)
                .cmd(b("EXISTS"), crlfKey, all, new byte[] {0})
                .cmd(b("DEL"), all)
                .cmd(b("RANDOMKEY"))
                .cmd("SET", "", "")
                .cmd("GET", "")
                .cmd("EXISTS", "")
                .cmd("STRLEN", "")
                .cmd("TYPE", "")
                .cmd("APPEND", "", "x")
                .cmd("GET", "")
                .cmd("DEL", "")
                .cmd("SET", "", "v")
                .cmd("RENAME", "", "e")
                .cmd("GET", "e")
                .cmd("SET", "utf8-\u00e9\u4e2d\ud83d\ude00", "\u00e9\u4e2d\ud83d\ude00")
                .cmd("GET", "utf8-\u00e9\u4e2d\ud83d\ude00")
                .cmd("STRLEN", "utf8-\u00e9\u4e2d\ud83d\ude00")
                .cmd(b("SET"), b("big"), big)
                .cmd(b("GET"), b("big"))
                .cmd(b("STRLEN"), b("big"))
                .cmd(b("GETRANGE"), b("big"), b("100000"), b("100010"))
                .run();
    }

    @BothProtocols
    void inlineCommands() throws Exception {
        scenario("inline commands")
                .raw("SET k \"a b\"\r\n")
                .raw("GET k\n")
                .raw("SET k 'single quotes'\r\n")
                .cmd("GET", "k")
                .raw("SET k \"\\x41\\x42\\x4a\\x4A\"\r\n")
                .cmd("GET", "k")
                .raw("SET k \"\\n\\r\\t\\b\\a\\\\\\\"\\q\"\r\n")
                .cmd("GET", "k")
                .raw("SET k \"\\xZZ\\x4\"\r\n")
                .cmd("GET", "k")
                .raw("SET k 'it\\'s \\n \"x\"'\r\n")
                .cmd("GET", "k")
                .raw("SET k \"\"\r\n")
                .cmd("STRLEN", "k")
                .raw("SET k ''\r\n")
                .cmd("STRLEN", "k")
                .raw("SET \"sp ace\" v\r\n")
                .cmd("GET", "sp ace")
                .raw("SET k a\"b c\"\r\n")
                .cmd("GET", "k")
                .raw("  PING  \r\n")
                .raw("\tECHO\t \"x y\" \r\n")
                .raw("\r\nPING\r\n")
                .raw("\n\n\nPING\n")
                .raw("   \r\nPING\r\n")
                .raw("PING\r\nPING\nECHO x\r\n", 3)
                .raw("PING\r\n*2\r\n$4\r\nECHO\r\n$1\r\nz\r\nPING\r\n", 3)
                .raw("ping hello\r\n")
                .raw("get\r\n")
                .raw("FOO bar \"baz qux\"\r\n")
                .raw("SET k \u00e9\u00ff\r\n")
                .cmd("GET", "k")
                .raw("SET k v\rw\r\n")
                .cmd("GET", "k")
                .run();
    }

    /**
     * Redis looks for the end of an inline line with strchr, which stops at a NUL byte: it never
     * sees the newline, answers nothing and buffers until "too big inline request". Cajon ends
     * the arguments at the NUL and runs the command.
     */
    /**
     * Redis never checks the two bytes after a bulk payload ("PINGxx" runs PING); netty-codec-redis
     * does, so Cajon closes the connection with "invalid bulk length". Kept stricter on purpose.
     */
    @BothProtocols
    @Disabled("known difference: the bulk payload terminator is checked (netty-codec-redis); Redis skips it")
    void bulkPayloadNotFollowedByCrlf() throws Exception {
        scenario("payload terminator").fresh("*1\r\n$4\r\nPINGxx", 1).run();
    }

    @Disabled("known difference: Redis hangs on an inline line containing NUL (C string search); Cajon runs it")
    @BothProtocols
    void inlineLineWithNul() throws Exception {
        scenario("inline line with NUL")
                .fresh("SET k v\u0000ignored\r\n", 1)
                .run();
    }

    /** Malformed input on a fresh connection: same error, same connection state afterwards. */
    @BothProtocols
    void protocolErrors() {
        String[] inputs = {
            "*abc\r\n",
            "*1\r\n$abc\r\n",
            "*1\r\n:5\r\n",
            "*1\r\n+OK\r\n",
            "*1\r\n-ERR\r\n",
            "*1\r\n*1\r\n",
            "*2\r\n*1\r\n$1\r\na\r\n",
            "*1\r\n$-1\r\n",
            "*1\r\n$-5\r\n",
            "*1\r\n$\r\n",
            "*1\r\n$1x\r\n",
            "*\r\n",
            "*1x\r\n",
            "*3000000000\r\n",
            "*1\r\n$536870913\r\n",
            "SET k \"unbalanced\r\n",
            "SET k 'unbalanced\r\n",
            "SET k \"a\"b\r\n",
            "SET k 'a'b\r\n",
            "PING\r\n*abc\r\n",
        };
        List<Executable> checks = new ArrayList<>();
        for (String in : inputs) {
            int replies = in.startsWith("PING") ? 2 : 1;
            checks.add(() -> scenario("protocol error " + Reply.show(Scenario.latin1(in)))
                    .fresh(in, replies)
                    .run());
        }
        assertAll(checks);
    }

    /**
     * Input at the edges of the grammar, some of which Redis accepts (negative and zero counts,
     * any two bytes where the CRLF after a bulk string belongs, QUIT) and some it refuses (leading
     * zeros, a plus sign, bare LF in a multibulk header).
     */
    @BothProtocols
    void edgesOfTheGrammar() {
        String[][] cases = {
            {"*-5\r\nPING\r\n", "1"},
            {"*-1\r\nPING\r\n", "1"},
            {"*0\r\nPING\r\n", "1"},
            {"*1\r\n$4\r\nPING\r\n", "1"},
            {"*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", "1"},
            {"*1\r\n$04\r\nPING\r\n", "1"},
            {"*01\r\n$4\r\nPING\r\n", "1"},
            {"*+1\r\n$4\r\nPING\r\n", "1"},
            {"*1\n$4\nPING\r\n", "1"},
            {"*1\r\n$4\r\nQUIT\r\n", "1"},
            {"QUIT\r\nPING\r\n", "1"},
            {"QUIT extra args\r\n", "1"},
        };
        List<Executable> checks = new ArrayList<>();
        for (String[] c : cases) {
            checks.add(() -> scenario("input " + Reply.show(Scenario.latin1(c[0])))
                    .fresh(c[0], Integer.parseInt(c[1]))
                    .run());
        }
        assertAll(checks);
    }

    /** Requests too big to buffer: inline lines and multibulk headers without a newline. */
    @BothProtocols
    void tooBigRequests() {
        assertAll(
                () -> scenario("too big inline request")
                        .fresh("a".repeat(70_000), 1)
                        .run(),
                () -> scenario("too big multibulk count")
                        .fresh("*" + "1".repeat(70_000), 1)
                        .run(),
                () -> scenario("too big bulk count")
                        .fresh("*1\r\n$" + "1".repeat(70_000), 1)
                        .run());
    }
}
