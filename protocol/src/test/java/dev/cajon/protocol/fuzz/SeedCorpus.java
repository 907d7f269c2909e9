package dev.cajon.protocol.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The fuzzers' seed corpus, {@code fuzz/requests.txt} on the test classpath: request streams as
 * real clients send them (redis-cli, Jedis, Lettuce, telnet), one per line, with {@code \r \n \t
 * \\ \xHH} escapes; {@code #} starts a comment line.
 */
public final class SeedCorpus {
    private static final List<byte[]> SEEDS = load();

    private SeedCorpus() {
    }

    public static List<byte[]> seeds() {
        return SEEDS;
    }

    private static List<byte[]> load() {
        try (InputStream in = SeedCorpus.class.getResourceAsStream("/fuzz/requests.txt")) {
            if (in == null) {
                throw new IllegalStateException("fuzz/requests.txt is not on the test classpath");
            }
            List<byte[]> out = new ArrayList<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.ISO_8859_1).split("\n")) {
                if (!line.isEmpty() && !line.startsWith("#")) {
                    out.add(unescape(line));
                }
            }
            return List.copyOf(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] unescape(String s) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 == s.length()) {
                o.write(c);
                continue;
            }
            char e = s.charAt(++i);
            switch (e) {
                case 'r' -> o.write('\r');
                case 'n' -> o.write('\n');
                case 't' -> o.write('\t');
                case 'x' -> {
                    o.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
                    i += 2;
                }
                default -> o.write(e);
            }
        }
        return o.toByteArray();
    }
}
