package dev.cajon.server.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** Assertions on parsed replies, in the spirit of Dragonfly's {@code EXPECT_THAT(Run(...), "OK")}. */
public final class RespAssertions {
    private RespAssertions() {
    }

    /** A simple or bulk string reply with this text ("OK", "PONG", a value). */
    public static void assertReply(Reply r, String expected) {
        if (r instanceof Reply.Simple s) {
            assertEquals(expected, s.text(), "simple string reply");
        } else if (r instanceof Reply.Bulk b && b.bytes() != null) {
            assertEquals(expected, new String(b.bytes(), StandardCharsets.UTF_8), "bulk reply");
        } else {
            fail("expected \"" + expected + "\", got " + r);
        }
    }

    /** An integer reply. */
    public static void assertReply(Reply r, long expected) {
        if (!(r instanceof Reply.Int i)) {
            fail("expected (integer) " + expected + ", got " + r);
            return;
        }
        assertEquals(expected, i.value(), "integer reply");
    }

    /** An integer reply, with a message on failure. */
    public static void assertReply(Reply r, long expected, String message) {
        if (!(r instanceof Reply.Int i)) {
            fail(message + ": expected (integer) " + expected + ", got " + r);
            return;
        }
        assertEquals(expected, i.value(), message);
    }

    /** The simple string {@code +OK}. */
    public static void assertOk(Reply r) {
        assertEquals(new Reply.Simple("OK"), r);
    }

    /** A simple string reply (not a bulk) with this text. */
    public static void assertSimple(Reply r, String expected) {
        assertEquals(new Reply.Simple(expected), r);
    }

    /** A bulk reply (not a simple string) with these bytes. */
    public static void assertBulk(Reply r, byte[] expected) {
        if (!(r instanceof Reply.Bulk b) || b.bytes() == null) {
            fail("expected a bulk of " + expected.length + " bytes, got " + r);
            return;
        }
        assertEquals(expected.length, b.bytes().length, "bulk length");
        assertArrayEquals(expected, b.bytes(), "bulk bytes");
    }

    /** The nil bulk {@code $-1}. */
    public static void assertNil(Reply r) {
        assertEquals(new Reply.Bulk(null), r, "expected nil");
    }

    /** The nil array {@code *-1} (RESP2's EXEC aborted by WATCH). */
    public static void assertNilArray(Reply r) {
        assertEquals(new Reply.Array(null), r, "expected a nil array");
    }

    /** An error reply with exactly this message (code included: "ERR syntax error"). */
    public static void assertError(Reply r, String exactMessage) {
        assertEquals(new Reply.Error(exactMessage), r);
    }

    /** An error reply whose message starts with {@code prefix}. */
    public static void assertErrorPrefix(Reply r, String prefix) {
        assertTrue(r.isError(prefix), () -> "expected an error starting with '" + prefix + "', got " + r);
    }

    /**
     * An array whose elements match {@code expected}: a String matches a simple or bulk string, a
     * Long or Integer an integer, a byte[] a bulk, null a nil bulk.
     */
    public static void assertArray(Reply r, Object... expected) {
        List<Reply> items = r.asArray();
        if (items == null) {
            fail("expected an array of " + expected.length + ", got a nil array");
            return;
        }
        assertEquals(expected.length, items.size(), () -> "array length of " + r);
        for (int i = 0; i < expected.length; i++) {
            Object e = expected[i];
            Reply item = items.get(i);
            if (e == null) {
                assertNil(item);
            } else if (e instanceof String s) {
                assertReply(item, s);
            } else if (e instanceof Long || e instanceof Integer) {
                assertReply(item, ((Number) e).longValue());
            } else if (e instanceof byte[] b) {
                assertBulk(item, b);
            } else if (e instanceof Reply rr) {
                assertEquals(rr, item);
            } else {
                fail("unsupported expectation " + e);
            }
        }
    }
}
