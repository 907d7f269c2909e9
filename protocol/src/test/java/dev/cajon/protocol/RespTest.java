package dev.cajon.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Exact bytes of every reply {@link Resp} writes. */
@ExtendWith(LeakCheck.class)
class RespTest {

    /** Runs {@code write} on a fresh buffer and returns what it wrote, as ISO-8859-1. */
    private static String written(Consumer<ByteBuf> write) {
        ByteBuf out = Unpooled.buffer(4);
        try {
            write.accept(out);
            return out.toString(StandardCharsets.ISO_8859_1);
        } finally {
            out.release();
        }
    }

    @Test
    void integers() {
        assertEquals(":0\r\n", written(b -> Resp.integer(b, 0)));
        assertEquals(":1\r\n", written(b -> Resp.integer(b, 1)));
        assertEquals(":9\r\n", written(b -> Resp.integer(b, 9)));
        assertEquals(":10\r\n", written(b -> Resp.integer(b, 10)));
        assertEquals(":9999\r\n", written(b -> Resp.integer(b, 9999)));
        assertEquals(":10000\r\n", written(b -> Resp.integer(b, 10000)));
        assertEquals(":-1\r\n", written(b -> Resp.integer(b, -1)));
        assertEquals(":-10\r\n", written(b -> Resp.integer(b, -10)));
        assertEquals(":-9223372036854775808\r\n", written(b -> Resp.integer(b, Long.MIN_VALUE)));
        assertEquals(":-9223372036854775807\r\n", written(b -> Resp.integer(b, Long.MIN_VALUE + 1)));
        assertEquals(":9223372036854775807\r\n", written(b -> Resp.integer(b, Long.MAX_VALUE)));
    }

    @Test
    void integersMatchLongToStringAroundEveryPowerOfTen() {
        long p = 1;
        for (int i = 0; i <= 18; i++, p *= 10) {
            for (long v : new long[] {p - 1, p, p + 1, -p + 1, -p, -p - 1}) {
                assertEquals(":" + v + "\r\n", written(b -> Resp.integer(b, v)), "integer " + v);
                String s = Long.toString(v);
                assertEquals("$" + s.length() + "\r\n" + s + "\r\n", written(b -> Resp.bulkLong(b, v)),
                        "bulkLong " + v);
            }
        }
        for (long v = -20_000; v <= 20_000; v++) {
            long x = v;
            assertEquals(":" + v + "\r\n", written(b -> Resp.integer(b, x)));
        }
    }

    @Test
    void integerAppendsAfterExistingContent() {
        ByteBuf out = Unpooled.buffer(2);
        try {
            out.writeBytes(new byte[] {'x', 'y'});
            out.readByte(); // a reader index that is not zero must not matter either
            Resp.integer(out, 123_456_789_012L);
            Resp.integer(out, 42);
            assertEquals("y:123456789012\r\n:42\r\n", out.toString(StandardCharsets.ISO_8859_1));
        } finally {
            out.release();
        }
    }

    @Test
    void bulkStrings() {
        assertEquals("$3\r\nfoo\r\n", written(b -> Resp.bulk(b, "foo".getBytes(StandardCharsets.US_ASCII))));
        assertEquals("$0\r\n\r\n", written(b -> Resp.bulk(b, new byte[0])));
        assertEquals("$4\r\n\r\n\u0000\u00ff\r\n", written(b -> Resp.bulk(b, new byte[] {'\r', '\n', 0, (byte) 0xff})));
        assertEquals("$2\r\nbc\r\n", written(b -> Resp.bulk(b, "abcd".getBytes(StandardCharsets.US_ASCII), 1, 2)));
        // the String overload encodes UTF-8: two bytes for "é"
        assertEquals("$2\r\n\u00c3\u00a9\r\n", written(b -> Resp.bulk(b, "é")));
        byte[] big = new byte[10_000];
        String expectedPrefix = "$10000\r\n";
        String got = written(b -> Resp.bulk(b, big));
        assertEquals(expectedPrefix.length() + 10_000 + 2, got.length());
        assertEquals(expectedPrefix, got.substring(0, expectedPrefix.length()));
        assertEquals("\r\n", got.substring(got.length() - 2));
    }

    @Test
    void bulkLong() {
        assertEquals("$1\r\n0\r\n", written(b -> Resp.bulkLong(b, 0)));
        assertEquals("$2\r\n10\r\n", written(b -> Resp.bulkLong(b, 10)));
        assertEquals("$2\r\n-1\r\n", written(b -> Resp.bulkLong(b, -1)));
        assertEquals("$20\r\n-9223372036854775808\r\n", written(b -> Resp.bulkLong(b, Long.MIN_VALUE)));
        assertEquals("$19\r\n9223372036854775807\r\n", written(b -> Resp.bulkLong(b, Long.MAX_VALUE)));
    }

    @Test
    void nullsHeadersAndConstants() {
        assertEquals("$-1\r\n", written(Resp::nullBulk));
        assertEquals("*0\r\n", written(b -> Resp.arrayHeader(b, 0)));
        assertEquals("*3\r\n", written(b -> Resp.arrayHeader(b, 3)));
        assertEquals("*-1\r\n", written(b -> Resp.arrayHeader(b, -1)));
        assertEquals("*12345\r\n", written(b -> Resp.arrayHeader(b, 12345)));
        assertEquals("$5\r\n", written(b -> Resp.bulkHeader(b, 5)));
        assertEquals("$4294967296\r\n", written(b -> Resp.bulkHeader(b, 1L << 32)));
        assertEquals("\r\n", written(Resp::crlf));

        assertEquals("+OK\r\n", written(b -> Resp.raw(b, Resp.OK)));
        assertEquals("+PONG\r\n", written(b -> Resp.raw(b, Resp.PONG)));
        assertEquals("+QUEUED\r\n", written(b -> Resp.raw(b, Resp.QUEUED)));
        assertEquals("$-1\r\n", written(b -> Resp.raw(b, Resp.NULL_BULK)));
        assertEquals("*-1\r\n", written(b -> Resp.raw(b, Resp.NULL_ARRAY)));
        assertEquals("$0\r\n\r\n", written(b -> Resp.raw(b, Resp.EMPTY_BULK)));
        assertEquals("*0\r\n", written(b -> Resp.raw(b, Resp.EMPTY_ARRAY)));
        assertEquals(":0\r\n", written(b -> Resp.raw(b, Resp.ZERO)));
        assertEquals(":1\r\n", written(b -> Resp.raw(b, Resp.ONE)));
        assertEquals(":-1\r\n", written(b -> Resp.raw(b, Resp.MINUS_ONE)));
        assertEquals(":-2\r\n", written(b -> Resp.raw(b, Resp.MINUS_TWO)));
    }

    @Test
    void simpleStringsAndErrors() {
        assertEquals("+OK\r\n", written(b -> Resp.simple(b, "OK")));
        assertEquals("-ERR syntax error\r\n", written(b -> Resp.error(b, RedisErrors.SYNTAX)));
        assertEquals("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
                written(b -> Resp.error(b, RedisErrors.WRONG_TYPE)));
        assertEquals("-ERR Protocol error: expected '$', got ':'\r\n",
                written(b -> Resp.error(b, new ProtocolError("expected '$', got ':'").message())));
    }

    @Test
    void anArrayReply() {
        String got = written(b -> {
            Resp.arrayHeader(b, 3);
            Resp.bulk(b, "a");
            Resp.nullBulk(b);
            Resp.integer(b, 12_345);
        });
        assertEquals("*3\r\n$1\r\na\r\n$-1\r\n:12345\r\n", got);
    }
}
