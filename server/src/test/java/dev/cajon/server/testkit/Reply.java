package dev.cajon.server.testkit;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A parsed reply: the five shapes a RESP2 server can send, and RESP3's own after HELLO 3 (null,
 * map, set, push, double, boolean, verbatim string, big number). Tests compare these instead of
 * raw bytes, except where the exact bytes matter (then use {@link Client#lastRaw()}).
 */
public sealed interface Reply permits Reply.Simple, Reply.Error, Reply.Int, Reply.Bulk, Reply.Array, Reply.Null,
        Reply.Map, Reply.Set, Reply.Push, Reply.Double, Reply.Bool, Reply.Verbatim, Reply.BigNumber {

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

    /** RESP3 {@code _}. */
    record Null() implements Reply {
        @Override
        public String toString() {
            return "(null)";
        }
    }

    /** RESP3 {@code %n}: keys and values alternate in {@code items}. */
    record Map(List<Reply> items) implements Reply {
        @Override
        public String toString() {
            return "%" + items;
        }
    }

    /** RESP3 {@code ~n}. */
    record Set(List<Reply> items) implements Reply {
        @Override
        public String toString() {
            return "~" + items;
        }
    }

    /** RESP3 {@code >n}. */
    record Push(List<Reply> items) implements Reply {
        @Override
        public String toString() {
            return ">" + items;
        }
    }

    /** RESP3 {@code ,text}, kept as the text sent. */
    record Double(String text) implements Reply {
        @Override
        public String toString() {
            return "(double) " + text;
        }
    }

    /** RESP3 {@code #t} / {@code #f}. */
    record Bool(boolean value) implements Reply {
        @Override
        public String toString() {
            return value ? "(true)" : "(false)";
        }
    }

    /** RESP3 {@code =n}: a three-letter format and the text. */
    record Verbatim(String format, String text) implements Reply {
        @Override
        public String toString() {
            return format + ":" + text;
        }
    }

    /** RESP3 {@code (digits}. */
    record BigNumber(String digits) implements Reply {
        @Override
        public String toString() {
            return "(big number) " + digits;
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

    /** Nil bulk, nil array, or RESP3's null. */
    default boolean isNil() {
        return this instanceof Bulk b && b.bytes() == null || this instanceof Array a && a.items() == null
                || this instanceof Null;
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
        if (this instanceof Verbatim v) {
            return v.text();
        }
        throw new AssertionError("expected a simple, bulk or verbatim string reply, got " + this);
    }

    /** The elements of an array reply (null for a nil array). */
    default List<Reply> asArray() {
        if (this instanceof Array a) {
            return a.items();
        }
        throw new AssertionError("expected an array reply, got " + this);
    }

    /** A RESP3 map as key, value pairs in order (string keys). */
    default java.util.Map<String, Reply> asMap() {
        if (!(this instanceof Map m)) {
            throw new AssertionError("expected a RESP3 map, got " + this);
        }
        java.util.Map<String, Reply> out = new java.util.LinkedHashMap<>();
        for (int i = 0; i + 1 < m.items().size(); i += 2) {
            out.put(m.items().get(i).asString(), m.items().get(i + 1));
        }
        return out;
    }
}
