package dev.cajon.server.testkit;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A parsed RESP2 reply: the five shapes a RESP2 server can send. Tests compare these instead of
 * raw bytes, except where the exact bytes matter (then use {@link Client#lastRaw()}).
 */
public sealed interface Reply permits Reply.Simple, Reply.Error, Reply.Int, Reply.Bulk, Reply.Array {

    /** {@code +text}. */
    record Simple(String text) implements Reply {
        @Override
        public String toString() {
            return text;
        }
    }

    /** {@code -message}; the message starts with its code ("ERR ...", "WRONGTYPE ..."). */
    record Error(String message) implements Reply {
        @Override
        public String toString() {
            return "(error) " + message;
        }
    }

    /** {@code :n}. */
    record Int(long value) implements Reply {
        @Override
        public String toString() {
            return "(integer) " + value;
        }
    }

    /** {@code $n} with its bytes, or the nil bulk {@code $-1} when {@code bytes} is null. */
    record Bulk(byte[] bytes) implements Reply {
        @Override
        public String toString() {
            if (bytes == null) {
                return "(nil)";
            }
            if (bytes.length > 200) {
                return "\"" + new String(bytes, 0, 200, StandardCharsets.ISO_8859_1) + "...\" (" + bytes.length
                        + " bytes)";
            }
            return "\"" + new String(bytes, StandardCharsets.ISO_8859_1) + "\"";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Bulk b && java.util.Arrays.equals(bytes, b.bytes);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(bytes);
        }
    }

    /** {@code *n} with its elements, or the nil array {@code *-1} when {@code items} is null. */
    record Array(List<Reply> items) implements Reply {
        @Override
        public String toString() {
            return items == null ? "(nil array)" : items.toString();
        }
    }

    // ------------------------------------------------------------------ helpers

    default boolean isError() {
        return this instanceof Error;
    }

    /** Whether this is an error whose message starts with {@code prefix} ("ERR", "WRONGTYPE"). */
    default boolean isError(String prefix) {
        return this instanceof Error e && e.message().startsWith(prefix);
    }

    /** Nil bulk or nil array. */
    default boolean isNil() {
        return this instanceof Bulk b && b.bytes() == null || this instanceof Array a && a.items() == null;
    }

    default String errorMessage() {
        if (this instanceof Error e) {
            return e.message();
        }
        throw new AssertionError("expected an error reply, got " + this);
    }

    default long asInt() {
        if (this instanceof Int i) {
            return i.value();
        }
        throw new AssertionError("expected an integer reply, got " + this);
    }

    /** The bytes of a bulk reply (null for nil). */
    default byte[] asBulk() {
        if (this instanceof Bulk b) {
            return b.bytes();
        }
        throw new AssertionError("expected a bulk reply, got " + this);
    }

    /** The text of a simple or bulk reply as UTF-8 (null for nil). */
    default String asString() {
        if (this instanceof Simple s) {
            return s.text();
        }
        if (this instanceof Bulk b) {
            return b.bytes() == null ? null : new String(b.bytes(), StandardCharsets.UTF_8);
        }
        throw new AssertionError("expected a simple or bulk string reply, got " + this);
    }

    /** The elements of an array reply (null for a nil array). */
    default List<Reply> asArray() {
        if (this instanceof Array a) {
            return a.items();
        }
        throw new AssertionError("expected an array reply, got " + this);
    }
}
