package dev.cajon.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link InlineSplitter} against Redis's {@code sdssplitargs}. Each expected argv was read back from
 * redis-server 7.0.15 by sending {@code RPUSH sp <line>} inline and reading {@code LRANGE sp 0 -1};
 * the {@code null} cases are the ones Redis answered with "unbalanced quotes in request". The NUL
 * cases follow the C source ({@code sdssplitargs} stops at NUL); they cannot be sent to a real Redis,
 * which looks for the newline with {@code strchr} and so never finds a line containing NUL.
 * Strings here are ISO-8859-1, so {@code \u00ff} stands for the byte 0xFF.
 */
class InlineSplitterTest {

    private static Arguments c(String line, String... argv) {
        return Arguments.of(line, argv);
    }

    static Stream<Arguments> lines() {
        return Stream.of(
                c("set foo bar", "set", "foo", "bar"),
                c("  set   foo    bar  ", "set", "foo", "bar"),
                c("\tset\tfoo\t", "set", "foo"),
                c("set \"a b\" c", "set", "a b", "c"),
                c("\"double quoted \\\"escapes\\\" \\n \\x41\"", "double quoted \"escapes\" \n A"),
                // every escape: \n \r \t \b \a, \\ and \", any other char stands for itself,
                // \x needs two hex digits (either case) or it is just an escaped 'x'
                c("\"\\n\\r\\t\\b\\a\\\\\\\"\\q\\x4g\\xff\\xAb\\x4\"", "\n\r\t\b\u0007\\\"qx4g\u00ff\u00abx4"),
                c("'single \\' quote'", "single ' quote"),
                c("'no \\n escapes'", "no \\n escapes"),
                c("'a\\\\b'", "a\\\\b"),
                c("foo\"bar baz\"", "foobar baz"),
                c("\"\" x \"\"", "", "x", ""),
                c("''", ""),
                c("x \"\" y", "x", "", "y"),
                // \v and \f separate arguments only around quotes and as leading blanks
                c("a\u000bb", "a\u000bb"),
                c("\u000b\u000ca", "a"),
                c("\"a\"\tb", "a", "b"),
                c("'a'\u000bb", "a", "b"),
                c("\"a\"\u000cb", "a", "b"),
                c("caf\u00c3\u00a9 \u00ff", "caf\u00c3\u00a9", "\u00ff"),
                // empty and blank lines: zero arguments (Redis then skips the line)
                c(""),
                c("   "),
                c("\t\r\n"),
                // a NUL byte ends the line, as for a C string
                c("a\u0000b c", "a"),
                c("get k\u0000 ignored", "get", "k"));
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("lines")
    void splitsLikeSdssplitargs(String line, String[] expected) {
        byte[][] got = InlineSplitter.split(latin1(line), 0, line.length());
        assertNotNull(got, "split returned null (unbalanced quotes)");
        assertEquals(List.of(expected), strings(got));
    }

    static Stream<String> unbalanced() {
        return Stream.of(
                "\"abc\"def", // closing quote followed by a non-space
                "'abc'def",
                "a'b c'd",
                "set k \"abc", // unterminated
                "'abc",
                "\"abc\\", // a backslash cannot escape the end of the line
                "\"a\u0000b\" c", // NUL inside quotes ends the line: unterminated
                "'a\u0000b' c");
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("unbalanced")
    void unbalancedQuotesGiveNull(String line) {
        assertNull(InlineSplitter.split(latin1(line), 0, line.length()));
    }

    @Test
    void honoursTheFromToWindow() {
        byte[] buf = latin1("XXset \"a b\"YYYY");
        // the window ends right after the closing quote: end of line, so the quote is balanced
        byte[][] got = InlineSplitter.split(buf, 2, 11);
        assertEquals(List.of("set", "a b"), strings(got));
        assertEquals(List.of(), strings(InlineSplitter.split(buf, 3, 3)));
    }

    @Test
    void everyByteValueSurvivesUnquotedOrHexEscaped() {
        StringBuilder line = new StringBuilder("\"");
        for (int i = 0; i < 256; i++) {
            line.append(String.format("\\x%02x", i));
        }
        line.append('"');
        byte[][] got = InlineSplitter.split(latin1(line.toString()), 0, line.length());
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) {
            all[i] = (byte) i;
        }
        assertEquals(1, got.length);
        assertArrayEquals(all, got[0]);
    }

    private static byte[] latin1(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static List<String> strings(byte[][] argv) {
        List<String> out = new ArrayList<>();
        for (byte[] a : argv) {
            out.add(new String(a, StandardCharsets.ISO_8859_1));
        }
        return out;
    }
}
