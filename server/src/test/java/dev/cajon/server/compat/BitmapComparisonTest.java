package dev.cajon.server.compat;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;

/**
 * Bitmaps and LCS against Redis: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD, BITFIELD_RO and
 * LCS, each option and each error, in RESP2 and RESP3, on small strings and on strings that cross
 * Cajon's blob threshold (16 KiB) or live past it.
 */
class BitmapComparisonTest extends ComparisonTestBase {
    /** Cajon's blob threshold in bytes, and in bits. */
    private static final int BLOB = 16 * 1024;
    private static final long BLOB_BITS = BLOB * 8L;

    @BothProtocols
    void setbitAndGetbit() throws Exception {
        scenario("SETBIT, GETBIT")
                .cmd("SETBIT", "k", "7", "1")
                .cmd("GET", "k")
                .cmd("SETBIT", "k", "7", "1")
                .cmd("SETBIT", "k", "7", "0")
                .cmd("SETBIT", "k", "0", "1")
                .cmd("SETBIT", "k", "100", "0")
                .cmd("STRLEN", "k")
                .cmd("GET", "k")
                .cmd("GETBIT", "k", "0")
                .cmd("GETBIT", "k", "1")
                .cmd("GETBIT", "k", "100")
                .cmd("GETBIT", "k", "1000")
                .cmd("GETBIT", "missing", "5")
                .cmd("GETBIT", "k", "4294967295")
                .cmd("EXISTS", "missing")
                .cmd("SET", "s", "abc")
                .cmd("SETBIT", "s", "1", "0")
                .cmd("SETBIT", "s", "23", "0")
                .cmd("GET", "s")
                .cmd("SET", "n", "12345")
                .cmd("SETBIT", "n", "0", "1")
                .cmd("GET", "n")
                .cmd("SET", "t", "v", "EX", "100")
                .cmd("SETBIT", "t", "3", "1")
                .check(Check.within(100, 1), "TTL", "t")
                .run();
    }

    @BothProtocols
    void setbitAndGetbitErrors() throws Exception {
        scenario("SETBIT, GETBIT errors")
                .cmd("SETBIT", "k", "-1", "1")
                .cmd("SETBIT", "k", "4294967296", "1")
                .cmd("SETBIT", "k", "abc", "1")
                .cmd("SETBIT", "k", "1.5", "1")
                .cmd("SETBIT", "k", "", "1")
                .cmd("SETBIT", "k", "#1", "1")
                .cmd("SETBIT", "k", "1", "2")
                .cmd("SETBIT", "k", "1", "-1")
                .cmd("SETBIT", "k", "1", "x")
                .cmd("SETBIT", "k", "1", "")
                .cmd("SETBIT", "k", "x", "x")
                .cmd("GETBIT", "k", "-1")
                .cmd("GETBIT", "k", "4294967296")
                .cmd("GETBIT", "k", "9223372036854775808")
                .cmd("EXISTS", "k")
                .cmd("SETBIT", "k", "1")
                .cmd("SETBIT", "k", "1", "1", "1")
                .cmd("GETBIT", "k")
                .cmd("GETBIT", "k", "1", "1")
                .run();
    }

    @BothProtocols
    void bitcount() throws Exception {
        scenario("BITCOUNT")
                .cmd("SET", "k", "foobar")
                .cmd("BITCOUNT", "k")
                .cmd("BITCOUNT", "k", "0", "0")
                .cmd("BITCOUNT", "k", "1", "1")
                .cmd("BITCOUNT", "k", "1", "1", "BYTE")
                .cmd("BITCOUNT", "k", "5", "30", "BIT")
                .cmd("BITCOUNT", "k", "5", "30", "bit")
                .cmd("BITCOUNT", "k", "0", "-1")
                .cmd("BITCOUNT", "k", "-2", "-1")
                .cmd("BITCOUNT", "k", "-100", "100")
                .cmd("BITCOUNT", "k", "3", "1")
                .cmd("BITCOUNT", "k", "-1", "-2")
                .cmd("BITCOUNT", "k", "-1", "-2", "NOPE")
                .cmd("BITCOUNT", "k", "0", "-1", "BIT")
                .cmd("BITCOUNT", "k", "1", "6", "BIT")
                .cmd("BITCOUNT", "k", "7", "7", "BIT")
                .cmd("BITCOUNT", "k", "-5", "-1", "BIT")
                .cmd("BITCOUNT", "k", "40", "1000", "BIT")
                .cmd("BITCOUNT", "k", "48", "1000", "BIT")
                .cmd("BITCOUNT", "missing")
                .cmd("BITCOUNT", "missing", "0", "1")
                .cmd("SET", "e", "")
                .cmd("BITCOUNT", "e")
                .cmd("BITCOUNT", "e", "0", "-1")
                .cmd("BITCOUNT", "e", "0", "-1", "BIT")
                .run();
    }

    /** Redis looks the key up before it reads the range: a missing key is 0 whatever the range says. */
    @BothProtocols
    void bitcountErrorsAndTheirOrder() throws Exception {
        scenario("BITCOUNT errors")
                .cmd("SET", "k", "foobar")
                .cmd("BITCOUNT", "k", "0")
                .cmd("BITCOUNT", "k", "0", "1", "BIT", "x")
                .cmd("BITCOUNT", "k", "a", "1")
                .cmd("BITCOUNT", "k", "0", "b")
                .cmd("BITCOUNT", "k", "0", "1", "BITS")
                .cmd("BITCOUNT", "k", "0", "1", "")
                .cmd("BITCOUNT", "missing", "0")
                .cmd("BITCOUNT", "missing", "a", "b")
                .cmd("BITCOUNT", "missing", "0", "1", "NOPE")
                .cmd("BITCOUNT")
                .run();
    }

    @BothProtocols
    void bitpos() throws Exception {
        scenario("BITPOS")
                .cmd(b("SET"), b("k"), latin1("\u00ff\u00f0\u0000"))
                .cmd("BITPOS", "k", "0")
                .cmd("BITPOS", "k", "1")
                .cmd("BITPOS", "k", "0", "1")
                .cmd("BITPOS", "k", "1", "1")
                .cmd("BITPOS", "k", "1", "2")
                .cmd("BITPOS", "k", "0", "2")
                .cmd("BITPOS", "k", "1", "0", "-1")
                .cmd("BITPOS", "k", "0", "0", "0")
                .cmd("BITPOS", "k", "0", "0", "1")
                .cmd("BITPOS", "k", "1", "2", "2")
                .cmd("BITPOS", "k", "1", "3", "1")
                .cmd("BITPOS", "k", "1", "-1")
                .cmd("BITPOS", "k", "0", "-100", "100")
                .cmd("BITPOS", "k", "1", "7", "15", "BIT")
                .cmd("BITPOS", "k", "1", "8", "15", "BIT")
                .cmd("BITPOS", "k", "0", "8", "11", "BIT")
                .cmd("BITPOS", "k", "0", "8", "12", "BIT")
                .cmd("BITPOS", "k", "0", "3", "5", "bit")
                .cmd("BITPOS", "k", "1", "5", "9", "BIT")
                .cmd("BITPOS", "k", "1", "12", "-1", "BIT")
                .cmd("BITPOS", "k", "0", "20", "-1", "BIT")
                .cmd("BITPOS", "k", "1", "-3", "-1", "BIT")
                .cmd("BITPOS", "k", "0", "0", "-1", "BYTE")
                .cmd(b("SET"), b("ones"), latin1("\u00ff\u00ff"))
                .cmd("BITPOS", "ones", "0")
                .cmd("BITPOS", "ones", "0", "0")
                .cmd("BITPOS", "ones", "0", "1")
                .cmd("BITPOS", "ones", "0", "0", "-1")
                .cmd("BITPOS", "ones", "0", "0", "1")
                .cmd("BITPOS", "ones", "0", "3", "9", "BIT")
                .cmd("BITPOS", "ones", "0", "3", "BIT")
                .cmd("BITPOS", "ones", "1", "3", "BIT")
                .cmd("BITPOS", "ones", "0", "15", "15", "BIT")
                .cmd(b("SET"), b("zeros"), latin1("\u0000\u0000"))
                .cmd("BITPOS", "zeros", "1")
                .cmd("BITPOS", "zeros", "1", "0", "-1")
                .cmd("BITPOS", "zeros", "0", "1")
                .cmd("BITPOS", "missing", "0")
                .cmd("BITPOS", "missing", "1")
                .cmd("BITPOS", "missing", "1", "0", "10")
                .cmd("SET", "e", "")
                .cmd("BITPOS", "e", "0")
                .cmd("BITPOS", "e", "1")
                .cmd("BITPOS", "e", "0", "0", "-1", "BIT")
                .run();
    }

    @BothProtocols
    void bitposErrorsAndTheirOrder() throws Exception {
        scenario("BITPOS errors")
                .cmd("SET", "k", "abc")
                .cmd("BITPOS", "k", "2")
                .cmd("BITPOS", "k", "-1")
                .cmd("BITPOS", "k", "x")
                .cmd("BITPOS", "missing", "2")
                .cmd("BITPOS", "missing", "x")
                .cmd("BITPOS", "missing", "1", "a")
                .cmd("BITPOS", "missing", "0", "0", "1", "NOPE")
                .cmd("BITPOS", "k", "1", "a")
                .cmd("BITPOS", "k", "1", "0", "b")
                .cmd("BITPOS", "k", "1", "0", "1", "NOPE")
                .cmd("BITPOS", "k", "1", "0", "b", "NOPE")
                .cmd("BITPOS", "k", "1", "0", "1", "BIT", "x")
                .cmd("BITPOS", "k")
                .run();
    }

    @BothProtocols
    void bitop() throws Exception {
        scenario("BITOP")
                .cmd("SET", "a", "foobar")
                .cmd("SET", "b", "abcdef")
                .cmd("SET", "c", "xy")
                .cmd("BITOP", "AND", "d", "a", "b")
                .cmd("GET", "d")
                .cmd("BITOP", "or", "d", "a", "c")
                .cmd("GET", "d")
                .cmd("BITOP", "Xor", "d", "a", "b", "c")
                .cmd("GET", "d")
                .cmd("BITOP", "AND", "d", "a", "c")
                .cmd("GET", "d")
                .cmd("BITOP", "AND", "d", "a", "missing")
                .cmd("GET", "d")
                .cmd("BITOP", "NOT", "d", "c")
                .cmd("GET", "d")
                .cmd("BITOP", "NOT", "a", "a")
                .cmd("GET", "a")
                .cmd("BITOP", "OR", "d", "a")
                .cmd("GET", "d")
                .cmd("SET", "d", "old", "EX", "100")
                .cmd("BITOP", "OR", "d", "b")
                .cmd("TTL", "d")
                .cmd("BITOP", "OR", "d", "missing", "missing2")
                .cmd("EXISTS", "d")
                .cmd("BITOP", "NOT", "d", "missing")
                .cmd("EXISTS", "d")
                .cmd("SET", "e", "")
                .cmd("SET", "d", "x")
                .cmd("BITOP", "XOR", "d", "e", "e")
                .cmd("EXISTS", "d")
                .cmd("BITOP", "AND", "dd", "b", "e")
                .cmd("GET", "dd")
                .run();
    }

    @BothProtocols
    void bitopErrors() throws Exception {
        scenario("BITOP errors")
                .cmd("SET", "a", "x")
                .cmd("BITOP", "NAND", "d", "a")
                .cmd("BITOP", "", "d", "a")
                .cmd("BITOP", "NOT", "d", "a", "a")
                .cmd("BITOP", "NOT", "d")
                .cmd("BITOP", "AND", "d")
                .cmd("BITOP", "NAND", "d")
                .cmd("EXISTS", "d")
                .run();
    }

    @BothProtocols
    void bitfield() throws Exception {
        scenario("BITFIELD")
                .cmd("BITFIELD", "k", "SET", "i8", "0", "100", "GET", "i8", "0")
                .cmd("GET", "k")
                .cmd("BITFIELD", "k", "INCRBY", "i8", "0", "100", "GET", "u8", "0")
                .cmd("BITFIELD", "k", "SET", "u4", "#1", "15", "GET", "u4", "#1", "GET", "u4", "4")
                .cmd("BITFIELD", "k", "GET", "i64", "0", "GET", "u63", "1", "GET", "i1", "0", "GET", "u1", "0")
                .cmd("BITFIELD", "k", "SET", "i64", "0", LLONG_MIN, "GET", "i64", "0")
                .cmd("BITFIELD", "k", "SET", "i64", "0", LLONG_MAX, "INCRBY", "i64", "0", "1")
                .cmd("BITFIELD", "k", "SET", "u63", "3", LLONG_MAX, "GET", "u63", "3")
                .cmd("BITFIELD", "k", "SET", "i5", "3", "-3", "GET", "i5", "3", "GET", "u5", "3")
                .cmd("BITFIELD", "k", "GET", "u16", "1000")
                .cmd("STRLEN", "k")
                .cmd("BITFIELD", "k", "SET", "u8", "200", "1")
                .cmd("STRLEN", "k")
                .cmd("BITFIELD", "k")
                .cmd("BITFIELD", "missing", "GET", "u8", "0")
                .cmd("EXISTS", "missing")
                .cmd("BITFIELD", "missing")
                .cmd("EXISTS", "missing")
                .cmd("BITFIELD", "k", "set", "u8", "0", "255", "get", "u8", "0", "incrby", "u8", "0", "1")
                .cmd("BITFIELD", "k", "INCRBY", "u2", "100", "1", "INCRBY", "u2", "100", "1", "INCRBY", "u2", "100", "1",
                        "INCRBY", "u2", "100", "1")
                .cmd("BITFIELD", "n", "SET", "u8", "#2", "65", "SET", "u8", "#0", "66")
                .cmd("GET", "n")
                .cmd("SET", "t", "v", "EX", "100")
                .cmd("BITFIELD", "t", "INCRBY", "u8", "0", "1")
                .check(Check.within(100, 1), "TTL", "t")
                .cmd("GET", "t")
                .run();
    }

    @BothProtocols
    void bitfieldOverflow() throws Exception {
        Scenario s = scenario("BITFIELD OVERFLOW");
        for (String type : new String[] {"i8", "u8", "i1", "u1", "i63", "u63", "i64", "i7", "u3"}) {
            for (String ow : new String[] {"WRAP", "SAT", "FAIL"}) {
                s.cmd("DEL", "k")
                        .cmd("BITFIELD", "k", "OVERFLOW", ow, "SET", type, "0", "127", "GET", type, "0")
                        .cmd("BITFIELD", "k", "OVERFLOW", ow, "INCRBY", type, "0", "200", "GET", type, "0")
                        .cmd("BITFIELD", "k", "OVERFLOW", ow, "INCRBY", type, "0", "-500", "GET", type, "0")
                        .cmd("BITFIELD", "k", "OVERFLOW", ow, "SET", type, "0", "-1", "GET", type, "0")
                        .cmd("BITFIELD", "k", "OVERFLOW", ow, "INCRBY", type, "0", LLONG_MAX)
                        .cmd("BITFIELD", "k", "OVERFLOW", ow, "INCRBY", type, "0", LLONG_MIN)
                        .cmd("BITFIELD", "k", "OVERFLOW", ow, "SET", type, "0", LLONG_MIN)
                        .cmd("BITFIELD", "k", "OVERFLOW", ow, "SET", type, "0", "0", "INCRBY", type, "0", "-1")
                        .cmd("GET", "k");
            }
        }
        s.cmd("BITFIELD", "m", "OVERFLOW", "FAIL", "INCRBY", "u8", "800", "300")
                .cmd("STRLEN", "m")
                .cmd("BITFIELD", "m", "overflow", "sat", "INCRBY", "u8", "0", "300", "OVERFLOW", "wrap",
                        "INCRBY", "u8", "0", "300", "overflow", "fail", "incrby", "u8", "0", "300")
                .run();
    }

    @BothProtocols
    void bitfieldErrors() throws Exception {
        scenario("BITFIELD errors")
                .cmd("BITFIELD", "k", "GET", "u64", "0")
                .cmd("BITFIELD", "k", "GET", "i65", "0")
                .cmd("BITFIELD", "k", "GET", "i0", "0")
                .cmd("BITFIELD", "k", "GET", "x8", "0")
                .cmd("BITFIELD", "k", "GET", "i", "0")
                .cmd("BITFIELD", "k", "GET", "", "0")
                .cmd("BITFIELD", "k", "GET", "I8", "0")
                .cmd("BITFIELD", "k", "GET", "U8", "0")
                .cmd("BITFIELD", "k", "GET", "i-8", "0")
                .cmd("BITFIELD", "k", "GET", "u08", "0")
                .cmd("BITFIELD", "k", "GET", "u8", "-1")
                .cmd("BITFIELD", "k", "GET", "u8", "4294967296")
                .cmd("BITFIELD", "k", "GET", "u8", "4294967295")
                .cmd("BITFIELD", "k", "GET", "u8", "#536870912")
                .cmd("BITFIELD", "k", "GET", "u8", "#536870911")
                .cmd("BITFIELD", "k", "GET", "u8", "#-1")
                .cmd("BITFIELD", "k", "GET", "u8", "#")
                .cmd("BITFIELD", "k", "GET", "u8", "x")
                .cmd("BITFIELD", "k", "SET", "u8", "0", "x")
                .cmd("BITFIELD", "k", "SET", "u8", "0", "1.5")
                .cmd("BITFIELD", "k", "INCRBY", "u8", "0")
                .cmd("BITFIELD", "k", "GET", "u8")
                .cmd("BITFIELD", "k", "OVERFLOW")
                .cmd("BITFIELD", "k", "OVERFLOW", "NOPE", "GET", "u8", "0")
                .cmd("BITFIELD", "k", "NOPE", "u8", "0")
                .cmd("BITFIELD", "k", "GET", "u8", "0", "extra")
                .cmd("BITFIELD", "k", "SET", "u8", "0", "1", "GET", "u64", "0")
                .cmd("BITFIELD", "k", "SET", "x8", "x", "x")
                .cmd("BITFIELD", "k", "SET", "u8", "x", "x")
                .cmd("EXISTS", "k")
                .cmd("BITFIELD")
                .run();
    }

    @BothProtocols
    void bitfieldRo() throws Exception {
        scenario("BITFIELD_RO")
                .cmd("SET", "k", "hello")
                .cmd("BITFIELD_RO", "k", "GET", "u8", "0", "GET", "i4", "#3")
                .cmd("BITFIELD_RO", "k")
                .cmd("BITFIELD_RO", "missing", "GET", "i8", "0")
                .cmd("BITFIELD_RO", "k", "SET", "u8", "0", "1")
                .cmd("BITFIELD_RO", "k", "INCRBY", "u8", "0", "1")
                .cmd("BITFIELD_RO", "k", "GET", "u8", "0", "INCRBY", "u8", "0", "x")
                .cmd("BITFIELD_RO", "k", "OVERFLOW", "SAT", "GET", "u8", "0")
                .cmd("BITFIELD_RO", "k", "GET", "u64", "0")
                .cmd("BITFIELD_RO", "k", "NOPE")
                .cmd("GET", "k")
                .cmd("BITFIELD_RO")
                .run();
    }

    @BothProtocols
    void lcs() throws Exception {
        scenario("LCS")
                .cmd("MSET", "a", "ohmytext", "b", "mynewtext")
                .cmd("LCS", "a", "b")
                .cmd("LCS", "a", "b", "LEN")
                .cmd("LCS", "a", "b", "IDX")
                .cmd("LCS", "a", "b", "idx", "MINMATCHLEN", "4")
                .cmd("LCS", "a", "b", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN")
                .cmd("LCS", "a", "b", "IDX", "WITHMATCHLEN")
                .cmd("LCS", "a", "b", "IDX", "MINMATCHLEN", "-5", "WITHMATCHLEN")
                .cmd("LCS", "a", "b", "IDX", "MINMATCHLEN", "0")
                .cmd("LCS", "a", "b", "WITHMATCHLEN")
                .cmd("LCS", "a", "b", "MINMATCHLEN", "2")
                .cmd("LCS", "a", "b", "LEN", "LEN")
                .cmd("LCS", "a", "a")
                .cmd("LCS", "a", "a", "IDX", "WITHMATCHLEN")
                .cmd("LCS", "a", "missing")
                .cmd("LCS", "missing", "a", "IDX")
                .cmd("LCS", "missing", "missing2", "LEN")
                .cmd("MSET", "x", "GAC", "y", "AGCAT")
                .cmd("LCS", "x", "y")
                .cmd("LCS", "y", "x")
                .cmd("LCS", "x", "y", "IDX", "WITHMATCHLEN")
                .cmd("MSET", "p", "abcabcabcXYZabc", "q", "zzabcqqXYZqqabcab")
                .cmd("LCS", "p", "q")
                .cmd("LCS", "p", "q", "IDX", "WITHMATCHLEN")
                .cmd("LCS", "p", "q", "IDX", "MINMATCHLEN", "3")
                .run();
    }

    @BothProtocols
    void lcsErrors() throws Exception {
        scenario("LCS errors")
                .cmd("MSET", "a", "ohmytext", "b", "mynewtext")
                .cmd("LCS", "a", "b", "LEN", "IDX")
                .cmd("LCS", "a", "b", "IDX", "LEN")
                .cmd("LCS", "a", "b", "NOPE")
                .cmd("LCS", "a", "b", "MINMATCHLEN")
                .cmd("LCS", "a", "b", "MINMATCHLEN", "x")
                .cmd("LCS", "a", "b", "MINMATCHLEN", "1.5", "LEN", "IDX")
                .cmd("LCS", "a")
                .cmd("LCS")
                .cmd("SET", "big1", "a".repeat(20_000))
                .cmd("SET", "big2", "b".repeat(20_000))
                .cmd("LCS", "big1", "big2")
                .cmd("LCS", "big1", "big2", "LEN", "IDX")
                .run();
    }

    /** Strings crossing and living past Cajon's blob threshold: the reads and the three ways a write is applied. */
    @BothProtocols
    void acrossTheBlobThreshold() throws Exception {
        String nearly = "x".repeat(BLOB - 1);
        scenario("bitmaps across 16 KiB")
                .cmd("SET", "k", nearly)
                .cmd("SETBIT", "k", Long.toString(BLOB_BITS - 1), "1")
                .cmd("STRLEN", "k")
                .cmd("SETBIT", "k", Long.toString(BLOB_BITS), "1")
                .cmd("STRLEN", "k")
                .cmd("GETBIT", "k", Long.toString(BLOB_BITS))
                .cmd("GETBIT", "k", Long.toString(BLOB_BITS - 1))
                .cmd("BITCOUNT", "k")
                .cmd("BITCOUNT", "k", "-2", "-1")
                .cmd("BITCOUNT", "k", Long.toString(BLOB_BITS - 3), Long.toString(BLOB_BITS + 5), "BIT")
                .cmd("SETBIT", "k", "3", "1")
                .cmd("SETBIT", "k", "3", "1")
                .cmd("SETBIT", "k", "1000000", "1")
                .cmd("STRLEN", "k")
                .cmd("BITCOUNT", "k")
                .cmd("BITPOS", "k", "1", "-10")
                .cmd("BITPOS", "k", "1", Long.toString(BLOB), "-1")
                .cmd("BITPOS", "k", "0", Long.toString(BLOB - 1))
                .cmd("BITPOS", "k", "0", "124999", "124999")
                .cmd("BITPOS", "k", "0", "999999", "999999", "BIT")
                .cmd("BITFIELD", "k", "GET", "u16", Long.toString(BLOB_BITS - 8), "SET", "i32",
                        Long.toString(BLOB_BITS - 13), "-123456", "GET", "i32", Long.toString(BLOB_BITS - 13))
                .cmd("BITFIELD", "k", "INCRBY", "u8", "999992", "7", "SET", "u8", "1000000", "255")
                .cmd("STRLEN", "k")
                .cmd("GETRANGE", "k", Long.toString(BLOB - 4), Long.toString(BLOB + 4))
                .cmd("GETRANGE", "k", "124990", "-1")
                .cmd("SET", "z", "zzz")
                .cmd("BITOP", "XOR", "d", "k", "z")
                .cmd("BITCOUNT", "d")
                .cmd("BITOP", "NOT", "n", "k")
                .cmd("BITCOUNT", "n")
                .cmd("BITOP", "AND", "n", "n", "k")
                .cmd("BITCOUNT", "n")
                .cmd("BITOP", "OR", "d", "z", "k")
                .cmd("GETRANGE", "d", "0", "20")
                .cmd("GETRANGE", "d", Long.toString(BLOB - 2), Long.toString(BLOB + 2))
                .cmd("SETBIT", "fresh", "2000000", "1")
                .cmd("STRLEN", "fresh")
                .cmd("BITCOUNT", "fresh")
                .cmd("BITPOS", "fresh", "1")
                .cmd("BITPOS", "fresh", "0", "-1")
                .cmd("SETBIT", "fresh", "2000008", "0")
                .cmd("BITCOUNT", "fresh", "0", "-1", "BIT")
                .cmd("SET", "a", "ab".repeat(BLOB))
                .cmd("APPEND", "a", "c")
                .cmd("SETBIT", "a", Long.toString(BLOB_BITS * 2 + 20), "1")
                .cmd("GETRANGE", "a", Long.toString(BLOB * 2 - 2), "-1")
                .cmd("LCS", "z", "a", "IDX", "WITHMATCHLEN", "MINMATCHLEN", "1")
                .run();
    }

    @BothProtocols
    void insideTransactions() throws Exception {
        scenario("bit commands in MULTI")
                .cmd("MULTI")
                .cmd("SETBIT", "k", "10", "1")
                .cmd("BITFIELD", "k", "INCRBY", "u8", "0", "5")
                .cmd("BITCOUNT", "k")
                .cmd("BITOP", "NOT", "d", "k")
                .cmd("SETBIT", "k", "-1", "1")
                .cmd("EXEC")
                .cmd("GET", "d")
                .run();
    }

    /**
     * Seeded random commands against both servers: LCS of short strings over a small alphabet (so
     * the tie-breaking of the walk back matters), BITPOS and BITCOUNT ranges, BITFIELD fields.
     */
    @BothProtocols
    void randomAgainstRedis() throws Exception {
        java.util.Random rnd = new java.util.Random(20261202);
        Scenario s = scenario("random bit commands and LCS");
        String[] types = {"i1", "u1", "i3", "u7", "i8", "u8", "i13", "u16", "i31", "u33", "i63", "u63", "i64"};
        for (int i = 0; i < 150; i++) {
            String a = randomString(rnd, "abc", 12);
            String b = randomString(rnd, "abc", 12);
            s.cmd("MSET", "a", a, "b", b)
                    .cmd("LCS", "a", "b")
                    .cmd("LCS", "a", "b", "IDX", "WITHMATCHLEN", "MINMATCHLEN", Integer.toString(rnd.nextInt(3)));
            String unit = rnd.nextBoolean() ? "BIT" : "BYTE";
            String st = Integer.toString(rnd.nextInt(40) - 20);
            String en = Integer.toString(rnd.nextInt(40) - 20);
            s.cmd("BITCOUNT", "a", st, en, unit)
                    .cmd("BITPOS", "a", Integer.toString(rnd.nextInt(2)), st, en, unit)
                    .cmd("BITPOS", "a", Integer.toString(rnd.nextInt(2)), st);
            String t = types[rnd.nextInt(types.length)];
            String off = rnd.nextBoolean() ? Integer.toString(rnd.nextInt(120)) : "#" + rnd.nextInt(4);
            String v = Long.toString(rnd.nextInt(5) == 0 ? rnd.nextLong() : rnd.nextInt(600) - 300);
            String ow = new String[] {"WRAP", "SAT", "FAIL"}[rnd.nextInt(3)];
            s.cmd("BITFIELD", "b", "OVERFLOW", ow, rnd.nextBoolean() ? "SET" : "INCRBY", t, off, v, "GET", t, off)
                    .cmd("GET", "b");
        }
        s.run();
    }

    private static String randomString(java.util.Random rnd, String alphabet, int maxLen) {
        StringBuilder sb = new StringBuilder();
        int n = rnd.nextInt(maxLen + 1);
        for (int i = 0; i < n; i++) {
            sb.append(alphabet.charAt(rnd.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    /** INFO's keyspace_hits and keyspace_misses count the read commands' lookups as Redis does. */
    @BothProtocols
    void keyspaceHitsAndMisses() throws Exception {
        scenario("keyspace hits and misses")
                .cmd("SET", "a", "abc")
                .cmd("CONFIG", "RESETSTAT")
                .cmd("GETBIT", "a", "1")
                .cmd("GETBIT", "none", "1")
                .cmd("BITCOUNT", "a")
                .cmd("BITCOUNT", "none", "x", "y")
                .cmd("BITCOUNT", "a", "x", "y")
                .cmd("BITPOS", "a", "1")
                .cmd("BITPOS", "none", "0")
                .cmd("BITFIELD", "a", "GET", "u8", "0")
                .cmd("BITFIELD", "none", "GET", "u8", "0")
                .cmd("BITFIELD_RO", "none", "GET", "u8", "0")
                .cmd("BITFIELD", "none2", "SET", "u8", "0", "1")
                .cmd("SETBIT", "none3", "1", "1")
                .cmd("LCS", "a", "none")
                .cmd("LCS", "a", "a", "LEN")
                .check(Check.SAME_HITS_AND_MISSES, "INFO", "stats")
                .run();
    }


    /** The table entries: name, arity, flags and key positions as Redis 7.0 gives them; COMMAND DOCS whole. */
    @BothProtocols
    void commandTable() throws Exception {
        Scenario s = scenario("COMMAND INFO and DOCS of the bitmap commands");
        for (String name : new String[] {"setbit", "getbit", "bitcount", "bitpos", "bitop", "bitfield", "bitfield_ro",
            "lcs", "getrange", "substr"}) {
            s.check(Check.leadingFields(6), "COMMAND", "INFO", name);
            s.cmd("COMMAND", "DOCS", name);
        }
        s.run();
    }

    /**
     * WRONGTYPE on every command. Cajon needs a second type in the keyspace to have one: this runs
     * once a list, set, hash or sorted-set key is seen by TYPE (before, it is skipped; the storage
     * side is BitOpsTest's WRONGTYPE test).
     */
    @BothProtocols
    void wrongType() throws Exception {
        String[] maker = otherTypeMaker();
        assumeTrue(maker != null, "no non-string type in Cajon yet");
        scenario("WRONGTYPE")
                .cmd(maker)
                .cmd("SET", "s", "abc")
                .cmd("SETBIT", "o", "1", "1")
                .cmd("GETBIT", "o", "1")
                .cmd("BITCOUNT", "o")
                .cmd("BITCOUNT", "o", "0", "1", "NOPE")
                .cmd("BITCOUNT", "o", "x", "1")
                .cmd("BITCOUNT", "o", "-1", "-2")
                .cmd("BITPOS", "o", "1")
                .cmd("BITPOS", "o", "1", "x")
                .cmd("BITPOS", "o", "3")
                .cmd("BITOP", "AND", "d", "s", "o")
                .cmd("BITOP", "OR", "o", "s")
                .cmd("TYPE", "o")
                .cmd("BITFIELD", "o", "GET", "u8", "0")
                .cmd("BITFIELD", "o", "SET", "u8", "0", "1")
                .cmd("BITFIELD_RO", "o", "GET", "u8", "0")
                .cmd("BITFIELD_RO", "o", "SET", "u8", "0", "1")
                .cmd(maker)
                .cmd("LCS", "o", "s")
                .cmd("LCS", "s", "o", "LEN")
                .cmd("LCS", "s", "o", "NOPE")
                .cmd("LCS", "s", "o", "LEN", "IDX")
                .run();
    }

    /** A command creating key "o" of a type other than string that this Cajon serves, or null. */
    private String[] otherTypeMaker() throws IOException {
        String[][] makers = {{"RPUSH", "o", "x"}, {"SADD", "o", "x"}, {"HSET", "o", "f", "v"}, {"ZADD", "o", "1", "x"}};
        try (RespClient c = RespClient.connect(cajonPort())) {
            for (String[] m : makers) {
                c.call("DEL", "o");
                Reply r = c.call(m);
                // the type must live in the keyspace (TYPE sees it): the interim heap store of the
                // collections is invisible to TYPE, DEL and FLUSHALL, so it cannot give WRONGTYPE
                String type = c.call("TYPE", "o").toString();
                c.call("DEL", "o");
                if (!r.isError() && !type.contains("none") && !type.contains("string")) {
                    return m;
                }
            }
        }
        return null;
    }

    private static byte[] latin1(String s) {
        return Scenario.latin1(s);
    }

    private static byte[] b(String s) {
        return Scenario.b(s);
    }
}
