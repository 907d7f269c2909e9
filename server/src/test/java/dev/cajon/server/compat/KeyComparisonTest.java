package dev.cajon.server.compat;


/** Generic key commands against Redis: DEL, UNLINK, EXISTS, TYPE, RENAME, RENAMENX, COPY, TOUCH, RANDOMKEY. */
class KeyComparisonTest extends ComparisonTestBase {

    @BothProtocols
    void delUnlinkExistsTouch() throws Exception {
        scenario("DEL, UNLINK, EXISTS, TOUCH")
                .cmd("MSET", "a", "1", "b", "2", "c", "3", "d", "4")
                .cmd("EXISTS", "a")
                .cmd("EXISTS", "a", "a", "a")
                .cmd("EXISTS", "a", "b", "missing", "b")
                .cmd("EXISTS", "missing")
                .cmd("TOUCH", "a", "a", "missing")
                .cmd("TOUCH", "missing")
                .cmd("DEL", "a")
                .cmd("DEL", "a")
                .cmd("DEL", "b", "b", "missing")
                .cmd("UNLINK", "c", "c", "missing")
                .cmd("UNLINK", "c")
                .cmd("DEL", "d", "x", "y")
                .cmd("DBSIZE")
                .cmd("DEL")
                .cmd("UNLINK")
                .cmd("EXISTS")
                .cmd("TOUCH")
                .run();
    }

    @BothProtocols
    void type() throws Exception {
        scenario("TYPE")
                .cmd("TYPE", "k")
                .cmd("SET", "k", "v")
                .cmd("TYPE", "k")
                .cmd("INCR", "n")
                .cmd("TYPE", "n")
                .cmd("TYPE")
                .cmd("TYPE", "a", "b")
                .run();
    }

    @BothProtocols
    void rename() throws Exception {
        scenario("RENAME")
                .cmd("RENAME", "missing", "x")
                .cmd("RENAME", "missing", "missing")
                .cmd("SET", "a", "1")
                .cmd("RENAME", "a", "a")
                .cmd("GET", "a")
                .cmd("RENAME", "a", "b")
                .cmd("MGET", "a", "b")
                .cmd("SET", "c", "3")
                .cmd("RENAME", "b", "c")
                .cmd("MGET", "b", "c")
                .cmd("SET", "t", "v", "EX", "100")
                .cmd("RENAME", "t", "u")
                .check(Check.within(100, 1), "TTL", "u")
                .cmd("SET", "v", "persistent")
                .cmd("SET", "w", "volatile", "EX", "100")
                .cmd("RENAME", "v", "w")
                .cmd("TTL", "w")
                .cmd("RENAME", "c")
                .cmd("RENAME", "c", "d", "e")
                .run();
    }

    @BothProtocols
    void renamenx() throws Exception {
        scenario("RENAMENX")
                .cmd("RENAMENX", "missing", "x")
                .cmd("RENAMENX", "missing", "missing")
                .cmd("SET", "a", "1")
                .cmd("SET", "b", "2")
                .cmd("RENAMENX", "a", "a")
                .cmd("RENAMENX", "a", "b")
                .cmd("MGET", "a", "b")
                .cmd("RENAMENX", "a", "c")
                .cmd("MGET", "a", "c")
                .cmd("SET", "t", "v", "EX", "100")
                .cmd("RENAMENX", "t", "u")
                .check(Check.within(100, 1), "TTL", "u")
                .cmd("RENAMENX", "c")
                .run();
    }

    @BothProtocols
    void copy() throws Exception {
        scenario("COPY")
                .cmd("COPY", "missing", "x")
                .cmd("COPY", "missing", "missing")
                .cmd("SET", "a", "1")
                .cmd("COPY", "a", "b")
                .cmd("MGET", "a", "b")
                .cmd("SET", "a", "2")
                .cmd("COPY", "a", "b")
                .cmd("GET", "b")
                .cmd("COPY", "a", "b", "REPLACE")
                .cmd("GET", "b")
                .cmd("COPY", "a", "b", "replace", "REPLACE")
                .cmd("COPY", "a", "a")
                .cmd("COPY", "a", "a", "REPLACE")
                .cmd("COPY", "a", "a", "DB", "0")
                .cmd("COPY", "a", "a", "DB", "1")
                .cmd("COPY", "a", "x", "DB", "1")
                .cmd("COPY", "a", "x", "DB", "1")
                .cmd("COPY", "a", "x", "DB", "1", "REPLACE")
                .cmd("COPY", "a", "x", "REPLACE", "DB", "1")
                .cmd("COPY", "missing", "x", "DB", "1")
                .cmd("EXISTS", "x")
                .cmd("SELECT", "1")
                .cmd("MGET", "a", "x")
                .cmd("COPY", "a", "a")
                .cmd("COPY", "a", "a", "DB", "0")
                .cmd("SELECT", "0")
                .cmd("SET", "t", "v", "EX", "100")
                .cmd("COPY", "t", "t2")
                .check(Check.within(100, 1), "TTL", "t2")
                .cmd("SET", "plain", "p")
                .cmd("COPY", "plain", "t2", "REPLACE")
                .cmd("TTL", "t2")
                .cmd("COPY", "t", "t3", "DB", "15")
                .cmd("SELECT", "15")
                .check(Check.within(100, 1), "TTL", "t3")
                .cmd("SELECT", "0")
                .run();
    }

    @BothProtocols
    void copyErrors() throws Exception {
        scenario("COPY errors")
                .cmd("SET", "a", "1")
                .cmd("COPY", "a", "b", "DB", "99")
                .cmd("COPY", "a", "b", "DB", "16")
                .cmd("COPY", "a", "b", "DB", "-1")
                .cmd("COPY", "a", "b", "DB", "abc")
                .cmd("COPY", "a", "b", "DB", "")
                .cmd("COPY", "a", "b", "DB", "2147483648")
                .cmd("COPY", "a", "b", "DB")
                .cmd("COPY", "a", "b", "FOO")
                .cmd("COPY", "a", "b", "REPLACE", "FOO")
                .cmd("COPY", "a", "b", "DB", "1", "FOO")
                .cmd("COPY", "missing", "b", "DB", "99")
                .cmd("COPY", "missing", "b", "FOO")
                .cmd("COPY", "a", "a", "FOO")
                .cmd("COPY", "a")
                .cmd("EXISTS", "b")
                .run();
    }

    @BothProtocols
    void randomkey() throws Exception {
        scenario("RANDOMKEY")
                .cmd("RANDOMKEY")
                .cmd("SET", "only", "1")
                .cmd("RANDOMKEY")
                .cmd("SET", "two", "2")
                .shape("RANDOMKEY")
                .cmd("SELECT", "3")
                .cmd("RANDOMKEY")
                .cmd("RANDOMKEY", "x")
                .run();
    }
}
