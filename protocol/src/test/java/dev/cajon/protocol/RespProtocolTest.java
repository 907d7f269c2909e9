package dev.cajon.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The bytes of every protocol-dependent reply type in RESP2 and RESP3, as Redis 7.0 sends them. */
class RespProtocolTest {
    private static String bytes(RespProtocol p, java.util.function.BiConsumer<RespProtocol, ByteBuf> write) {
        ByteBuf b = Unpooled.buffer();
        try {
            write.accept(p, b);
            return b.toString(StandardCharsets.UTF_8);
        } finally {
            b.release();
        }
    }

    private static void both(String resp2, String resp3, java.util.function.BiConsumer<RespProtocol, ByteBuf> write) {
        assertEquals(resp2, bytes(RespProtocol.RESP2, write), "RESP2");
        assertEquals(resp3, bytes(RespProtocol.RESP3, write), "RESP3");
    }

    @Test
    void helloPicksTheInstance() {
        assertSame(RespProtocol.RESP2, RespProtocol.of(2));
        assertSame(RespProtocol.RESP3, RespProtocol.of(3));
        assertNull(RespProtocol.of(1));
        assertNull(RespProtocol.of(4));
        assertEquals(3, RespProtocol.RESP3.version());
    }

    @Test
    void nullsMapsSetsAndPushes() {
        both("$-1\r\n", "_\r\n", RespProtocol::nullBulk);
        both("*-1\r\n", "_\r\n", RespProtocol::nullArray);
        both("*6\r\n", "%3\r\n", (p, b) -> p.mapHeader(b, 3));
        both("*0\r\n", "%0\r\n", (p, b) -> p.mapHeader(b, 0));
        both("*2\r\n", "~2\r\n", (p, b) -> p.setHeader(b, 2));
        both("*0\r\n", "~0\r\n", (p, b) -> p.setHeader(b, 0));
        both("*3\r\n", ">3\r\n", (p, b) -> p.pushHeader(b, 3));
    }

    @Test
    void booleansDoublesVerbatimAndBigNumbers() {
        both(":1\r\n", "#t\r\n", (p, b) -> p.bool(b, true));
        both(":0\r\n", "#f\r\n", (p, b) -> p.bool(b, false));
        both("$3\r\n1.5\r\n", ",1.5\r\n", (p, b) -> p.doubleValue(b, 1.5));
        both("$3\r\ninf\r\n", ",inf\r\n", (p, b) -> p.doubleValue(b, Double.POSITIVE_INFINITY));
        both("$4\r\n-inf\r\n", ",-inf\r\n", (p, b) -> p.doubleValue(b, Double.NEGATIVE_INFINITY));
        both("$6\r\nab\r\ncd\r\n", "=10\r\ntxt:ab\r\ncd\r\n", (p, b) -> p.verbatim(b, "txt", "ab\r\ncd"));
        both("$20\r\n12345678901234567890\r\n", "(12345678901234567890\r\n",
                (p, b) -> p.bigNumber(b, "12345678901234567890"));
    }

    /** C's %.17g, which Redis 7.0's addReplyDouble uses (ZSCORE and friends). */
    @Test
    void doublesAreFormattedAsPrintfPercent17g() {
        assertEquals("0", Resp.formatDouble(0.0));
        assertEquals("-0", Resp.formatDouble(-0.0));
        assertEquals("1", Resp.formatDouble(1.0));
        assertEquals("1.5", Resp.formatDouble(1.5));
        assertEquals("0.10000000000000001", Resp.formatDouble(0.1));
        assertEquals("3.1415926535897931", Resp.formatDouble(Math.PI));
        assertEquals("-2.5", Resp.formatDouble(-2.5));
        assertEquals("100000", Resp.formatDouble(1e5));
        assertEquals("10000000000000000", Resp.formatDouble(1e16));
        assertEquals("1e+17", Resp.formatDouble(1e17));
        assertEquals("1.0000000000000001e-05", Resp.formatDouble(1e-5));
        assertEquals("0.0001", Resp.formatDouble(1e-4));
        assertEquals("1.7976931348623157e+308", Resp.formatDouble(Double.MAX_VALUE));
        assertEquals("4.9406564584124654e-324", Resp.formatDouble(Double.MIN_VALUE));
        assertEquals("1.2345678901234568e+17", Resp.formatDouble(123456789012345678.0));
        assertEquals("nan", Resp.formatDouble(Double.NaN));
    }
}
