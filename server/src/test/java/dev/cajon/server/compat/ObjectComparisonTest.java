package dev.cajon.server.compat;

/**
 * OBJECT against Redis: ENCODING of strings by their content and of every collection type while
 * small and once past Redis's listpack (and intset) limits, REFCOUNT of shared integers, FREQ's
 * error without an LFU policy, and the errors of the container. (Not OBJECT HELP: Cajon's leaves
 * out IDLETIME, which it does not have.)
 */
class ObjectComparisonTest extends ComparisonTestBase {

    @BothProtocols
    void encodings() throws Exception {
        Scenario s = scenario("OBJECT ENCODING, REFCOUNT, FREQ")
                .cmd("SET", "i", "12345")
                .cmd("OBJECT", "ENCODING", "i")
                .cmd("SET", "neg", "-9223372036854775808")
                .cmd("OBJECT", "ENCODING", "neg")
                .cmd("SET", "lead", "0123")
                .cmd("OBJECT", "ENCODING", "lead")
                .cmd("SET", "e", "hello")
                .cmd("OBJECT", "encoding", "e")
                .cmd("SET", "r", "x".repeat(45))
                .cmd("OBJECT", "ENCODING", "r")
                .cmd("SET", "e44", "y".repeat(44))
                .cmd("OBJECT", "ENCODING", "e44")
                .cmd("SET", "big", "z".repeat(20_000))
                .cmd("OBJECT", "ENCODING", "big")
                .cmd("INCR", "c")
                .cmd("OBJECT", "ENCODING", "c")
                .cmd("OBJECT", "ENCODING", "missing")
                .cmd("SET", "small", "7")
                .cmd("OBJECT", "REFCOUNT", "small")
                .cmd("OBJECT", "REFCOUNT", "i")
                .cmd("OBJECT", "REFCOUNT", "e")
                .cmd("OBJECT", "REFCOUNT", "missing")
                .cmd("OBJECT", "FREQ", "e")
                .cmd("OBJECT", "FREQ", "missing")
                .cmd("OBJECT", "NOPE", "e")
                .cmd("OBJECT", "ENCODING")
                .cmd("OBJECT", "ENCODING", "a", "b")
                .cmd("OBJECT");
        s.cmd("HSET", "h", "f", "v").cmd("OBJECT", "ENCODING", "h");
        s.cmd("HSET", "h2", "f", "v".repeat(65)).cmd("OBJECT", "ENCODING", "h2");
        s.cmd("SADD", "si", "1", "2", "3").cmd("OBJECT", "ENCODING", "si");
        s.cmd("SADD", "ss", "a", "b").cmd("OBJECT", "ENCODING", "ss");
        s.cmd("ZADD", "z", "1", "a").cmd("OBJECT", "ENCODING", "z");
        s.cmd("ZADD", "z2", "1", "a".repeat(65)).cmd("OBJECT", "ENCODING", "z2");
        s.cmd("RPUSH", "l", "a", "b").cmd("OBJECT", "ENCODING", "l");
        String[] many = new String[130 * 2 + 2];
        many[0] = "HSET";
        many[1] = "hbig";
        for (int i = 0; i < 130; i++) {
            many[2 + 2 * i] = "f" + i;
            many[3 + 2 * i] = "v" + i;
        }
        s.cmd(many).cmd("OBJECT", "ENCODING", "hbig");
        s.cmd("OBJECT", "ENCODING", "hbig").run();
    }
}
