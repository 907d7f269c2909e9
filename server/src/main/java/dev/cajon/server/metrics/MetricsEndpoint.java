package dev.cajon.server.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /metrics} in Prometheus's text format, on the JDK's own HTTP server. Bounded: the
 * metrics thread ({@code cajon-metrics}, see {@link ServerMetrics}) answers every scrape in turn,
 * beside the JDK's one dispatcher thread; nothing here runs on an event loop. Anything but GET or HEAD of
 * {@code /metrics} is answered 404 or 405. The body is gzipped when the scraper accepts it, as
 * Prometheus does (a thousand apps make a large page).
 *
 * <p>No authentication: the endpoint binds loopback unless told otherwise, and exposes app names
 * and counts, never keys or values.
 */
public final class MetricsEndpoint implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MetricsEndpoint.class);
    static final String PATH = "/metrics";

    private final ServerMetrics metrics;
    private final HttpServer http;

    private MetricsEndpoint(ServerMetrics metrics, HttpServer http) {
        this.metrics = metrics;
        this.http = http;
    }

    /**
     * Attaches metrics to {@code server} (before its first command, see {@link ServerMetrics#attach})
     * and serves them on {@code bind:port} (0: a free port). Closing the endpoint detaches them.
     */
    public static MetricsEndpoint start(dev.cajon.server.ServerContext server, String bind, int port) {
        InetSocketAddress at = new InetSocketAddress(bind, port);
        HttpServer http;
        try {
            http = HttpServer.create(at, 16);
        } catch (IOException e) {
            throw new UncheckedIOException("metrics endpoint: cannot listen on " + bind + ":" + port + ": "
                    + e.getMessage(), e);
        }
        ServerMetrics metrics;
        try {
            metrics = ServerMetrics.attach(server);
        } catch (RuntimeException e) {
            http.stop(0);
            throw e;
        }
        http.setExecutor(metrics.executor());
        http.createContext("/", exchange -> serve(metrics, exchange));
        http.start();
        return new MetricsEndpoint(metrics, http);
    }

    private static void serve(ServerMetrics metrics, HttpExchange x) throws IOException {
        try (x) {
            if (!x.getRequestURI().getPath().equals(PATH)) {
                x.sendResponseHeaders(404, -1);
                return;
            }
            String method = x.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                x.getResponseHeaders().set("Allow", "GET, HEAD");
                x.sendResponseHeaders(405, -1);
                return;
            }
            String accept = x.getRequestHeaders().getFirst("Accept-Encoding");
            boolean gzip = accept != null && accept.toLowerCase(java.util.Locale.ROOT).contains("gzip");
            ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
            try {
                if (gzip) {
                    try (OutputStream z = new GZIPOutputStream(body)) {
                        metrics.scrape(z);
                    }
                } else {
                    metrics.scrape(body);
                }
            } catch (RuntimeException e) {
                log.warn("metrics scrape failed", e);
                x.sendResponseHeaders(500, -1);
                return;
            }
            x.getResponseHeaders().set("Content-Type", ServerMetrics.CONTENT_TYPE);
            if (gzip) {
                x.getResponseHeaders().set("Content-Encoding", "gzip");
            }
            if (method.equals("HEAD")) {
                x.sendResponseHeaders(200, -1);
                return;
            }
            x.sendResponseHeaders(200, body.size());
            body.writeTo(x.getResponseBody());
        }
    }

    /** Where it listens (the port chosen when started with 0). */
    public InetSocketAddress address() {
        return http.getAddress();
    }

    public ServerMetrics metrics() {
        return metrics;
    }

    /** Stops listening at once (a scrape in flight is cut off) and detaches the metrics. */
    @Override
    public void close() {
        try {
            http.stop(0);
        } finally {
            metrics.close();
        }
    }
}
