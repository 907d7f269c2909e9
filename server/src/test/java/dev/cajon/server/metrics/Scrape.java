package dev.cajon.server.metrics;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * One scrape of a Prometheus text page, fetched over HTTP as Prometheus does, parsed into
 * samples: {@code name{label="value",...} number}.
 */
final class Scrape {
    record Sample(String name, Map<String, String> labels, double value) {
    }

    final String text;
    final List<Sample> samples = new ArrayList<>();

    private Scrape(String text) {
        this.text = text;
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            samples.add(parseLine(line));
        }
    }

    /** GET http://at/metrics, gzip accepted; fails unless the answer is 200 in the text format. */
    static Scrape get(InetSocketAddress at) throws IOException {
        HttpURLConnection c = open(at, "/metrics", "GET");
        c.setRequestProperty("Accept-Encoding", "gzip");
        int status = c.getResponseCode();
        if (status != 200) {
            throw new AssertionError("GET /metrics answered " + status);
        }
        String type = c.getContentType();
        if (type == null || !type.startsWith("text/plain; version=0.0.4")) {
            throw new AssertionError("not Prometheus's text format: " + type);
        }
        try (InputStream raw = c.getInputStream();
             InputStream in = "gzip".equals(c.getContentEncoding()) ? new GZIPInputStream(raw) : raw) {
            return new Scrape(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } finally {
            c.disconnect();
        }
    }

    static Scrape parse(String text) {
        return new Scrape(text);
    }

    static HttpURLConnection open(InetSocketAddress at, String path, String method) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL("http", at.getHostString(), at.getPort(), path)
                .openConnection();
        c.setRequestMethod(method);
        c.setConnectTimeout(5_000);
        c.setReadTimeout(30_000);
        return c;
    }

    private static Sample parseLine(String line) {
        int brace = line.indexOf('{');
        int space = line.lastIndexOf(' ');
        Map<String, String> labels = new LinkedHashMap<>();
        String name;
        if (brace >= 0 && brace < space) {
            name = line.substring(0, brace);
            int end = line.lastIndexOf('}');
            String body = line.substring(brace + 1, end);
            int i = 0;
            while (i < body.length()) {
                int eq = body.indexOf('=', i);
                String key = body.substring(i, eq);
                int q = eq + 2; // after ="
                StringBuilder v = new StringBuilder();
                while (body.charAt(q) != '"') {
                    char ch = body.charAt(q);
                    if (ch == '\\') {
                        q++;
                        ch = body.charAt(q) == 'n' ? '\n' : body.charAt(q);
                    }
                    v.append(ch);
                    q++;
                }
                labels.put(key, v.toString());
                i = q + 1;
                if (i < body.length() && body.charAt(i) == ',') {
                    i++;
                }
            }
        } else {
            name = line.substring(0, space);
        }
        return new Sample(name, labels, Double.parseDouble(line.substring(space + 1)));
    }

    /** The sample of {@code name} whose labels include these pairs, or null when there is none. */
    Double value(String name, String... labelPairs) {
        Double found = null;
        for (Sample s : samples) {
            if (s.name.equals(name) && matches(s, labelPairs)) {
                if (found != null) {
                    throw new AssertionError("more than one sample " + name + " " + List.of(labelPairs));
                }
                found = s.value;
            }
        }
        return found;
    }

    /** Every sample of {@code name} whose labels include these pairs. */
    List<Sample> all(String name, String... labelPairs) {
        List<Sample> out = new ArrayList<>();
        for (Sample s : samples) {
            if (s.name.equals(name) && matches(s, labelPairs)) {
                out.add(s);
            }
        }
        return out;
    }

    boolean has(String name) {
        return samples.stream().anyMatch(s -> s.name.equals(name));
    }

    private static boolean matches(Sample s, String... pairs) {
        for (int i = 0; i < pairs.length; i += 2) {
            if (!pairs[i + 1].equals(s.labels.get(pairs[i]))) {
                return false;
            }
        }
        return true;
    }
}
