package dev.cajon.bench.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A server command line with placeholders, written the way one would type it in a shell.
 *
 * <p>The text is split into argv the way a POSIX shell splits words: blanks separate words,
 * single quotes keep everything literally, double quotes keep blanks and honour {@code \"} and
 * {@code \\}, and {@code ""} is an empty word (redis-server needs {@code --save ""}). Nothing is
 * expanded: no variables, no globs. Then {@code {port}}, {@code {dir}} and {@code {home}} are
 * replaced inside each word. No shell runs, so the pid we start is the server's (or its launcher
 * script's) and not a shell's.
 *
 * <p>Must stay true: a template that does not name 127.0.0.1 is refused by
 * {@link #requireLoopback()}, because the harness must never make a server listen on any other
 * address.
 */
public record CommandTemplate(String text) {

    public static final String LOOPBACK = "127.0.0.1";

    /** Fails unless the template pins the server to the loopback address and takes a port. */
    public CommandTemplate requireLoopback() {
        if (!text.contains(LOOPBACK)) {
            throw new IllegalArgumentException(
                    "command template must bind the server to " + LOOPBACK + ": " + text);
        }
        if (!text.contains("{port}")) {
            throw new IllegalArgumentException("command template must contain {port}: " + text);
        }
        return this;
    }

    /** Splits the template into words and substitutes the placeholders in each. */
    List<String> expand(Map<String, String> vars) {
        List<String> argv = new ArrayList<>();
        for (String word : split(text)) {
            for (Map.Entry<String, String> e : vars.entrySet()) {
                word = word.replace("{" + e.getKey() + "}", e.getValue());
            }
            argv.add(word);
        }
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("empty command template");
        }
        return argv;
    }

    public static List<String> split(String s) {
        List<String> words = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean inWord = false;
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(cur.toString());
                    cur.setLength(0);
                    inWord = false;
                }
                i++;
            } else if (c == '\'') {
                int close = s.indexOf('\'', i + 1);
                if (close < 0) {
                    throw new IllegalArgumentException("unclosed ' in: " + s);
                }
                cur.append(s, i + 1, close);
                inWord = true;
                i = close + 1;
            } else if (c == '"') {
                i++;
                boolean closed = false;
                while (i < s.length()) {
                    char d = s.charAt(i);
                    if (d == '"') {
                        closed = true;
                        i++;
                        break;
                    }
                    if (d == '\\' && i + 1 < s.length()
                            && (s.charAt(i + 1) == '"' || s.charAt(i + 1) == '\\')) {
                        d = s.charAt(++i);
                    }
                    cur.append(d);
                    i++;
                }
                if (!closed) {
                    throw new IllegalArgumentException("unclosed \" in: " + s);
                }
                inWord = true;
            } else if (c == '\\' && i + 1 < s.length()) {
                cur.append(s.charAt(i + 1));
                inWord = true;
                i += 2;
            } else {
                cur.append(c);
                inWord = true;
                i++;
            }
        }
        if (inWord) {
            words.add(cur.toString());
        }
        return words;
    }

    @Override
    public String toString() {
        return text;
    }
}
