package dev.cajon.server.compat;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One complete RESP2 or RESP3 reply as it came off the wire: its raw bytes (what the comparison
 * tests compare) plus just enough structure to compare replies loosely (type, element count,
 * integer value, nested elements).
 *
 * @param type     the type byte: RESP2's {@code + - : $ *}, or one of RESP3's
 *                 {@code _ , # ( = ! % ~ > |}
 * @param raw      every byte of the reply, from the type byte to the last CRLF (for an attribute
 *                 {@code |}, the attribute and the reply it annotates)
 * @param payload  the line after the type byte for {@code + - : , # (}, the content of a bulk
 *                 string, verbatim string ({@code txt:} included) or blob error; null for nulls
 *                 and aggregates
 * @param elements the elements of an array, set or push; a map's keys and values in turn (so
 *                 {@code %2} has four); an attribute's keys and values followed by the reply it
 *                 annotates; empty otherwise
 * @param isNull   {@code $-1}, {@code *-1} or {@code _}
 */
record Reply(char type, byte[] raw, byte[] payload, List<Reply> elements, boolean isNull) {

    boolean isInteger() {
        return type == ':';
    }

    /** A simple error {@code -} or a RESP3 blob error {@code !}. */
    boolean isError() {
        return type == '-' || type == '!';
    }

    boolean isArray() {
        return type == '*';
    }

    /** A reply made of elements: array, map, set or push (null arrays included). */
    boolean isAggregate() {
        return type == '*' || type == '%' || type == '~' || type == '>';
    }

    long integer() {
        if (!isInteger()) {
            throw new IllegalStateException("not an integer reply: " + show(raw));
        }
        return Long.parseLong(new String(payload, StandardCharsets.US_ASCII));
    }

    Reply element(int i) {
        return elements.get(i);
    }

    /**
     * The reply with its values left out: the type, null-ness and, for aggregates, the element
     * count (pairs for a map) and the shape of each element. Used for replies whose values
     * legitimately differ (TIME, CLIENT ID, INFO, RANDOMKEY).
     */
    String shape() {
        if (isNull) {
            return type + "null";
        }
        if (!isAggregate() && type != '|') {
            return String.valueOf(type);
        }
        int n = type == '%' ? elements.size() / 2 : type == '|' ? (elements.size() - 1) / 2 : elements.size();
        StringBuilder sb = new StringBuilder().append(type).append(n).append('[');
        for (int i = 0; i < elements.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(elements.get(i).shape());
        }
        return sb.append(']').toString();
    }

    @Override
    public String toString() {
        return show(raw);
    }

    /**
     * Bytes as a readable Java-like string literal: printable ASCII as is, CR and LF as
     * {@code \r \n}, everything else as {@code \xHH}. Long texts are shortened in the middle.
     */
    static String show(byte[] b) {
        StringBuilder sb = new StringBuilder("\"");
        int limit = 600;
        for (int i = 0; i < b.length; i++) {
            if (b.length > limit && i == limit / 2) {
                sb.append("...(").append(b.length - limit).append(" bytes)...");
                i = b.length - limit / 2;
            }
            int c = b[i] & 0xFF;
            switch (c) {
                case '\r':
                    sb.append("\\r");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                default:
                    if (c >= 0x20 && c < 0x7F) {
                        sb.append((char) c);
                    } else {
                        sb.append(String.format("\\x%02X", c));
                    }
            }
        }
        return sb.append('"').toString();
    }
}
