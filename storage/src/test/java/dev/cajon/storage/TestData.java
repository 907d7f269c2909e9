package dev.cajon.storage;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Small helpers shared by the storage tests: strings to bytes and back, directory listings. */
public final class TestData {
    /** An arbitrary fixed "now" so deadlines in the tests are realistic epoch millis. */
    public static final long T0 = 1_700_000_000_000L;

    private TestData() {
    }

    public static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The value as a string, or null when absent. Releases blob channels. */
    public static String str(StringValue v) {
        return v == null ? null : new String(v.toBytes(), StandardCharsets.UTF_8);
    }

    /** The value's bytes, or null when absent. Releases blob channels. */
    public static byte[] bytes(StringValue v) {
        return v == null ? null : v.toBytes();
    }

    /** Deterministic pseudo-random content, so a mismatch points at an offset. */
    public static byte[] pattern(int len, long seed) {
        byte[] out = new byte[len];
        long x = seed * 0x9E3779B97F4A7C15L + 1;
        for (int i = 0; i < len; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            out[i] = (byte) x;
        }
        return out;
    }

    /** The file names in {@code dir} (empty when it does not exist). */
    public static List<String> list(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Where a keyspace of the default app keeps its blob files. */
    public static Path blobDir(Store store, int db) {
        return store.dir().resolve(Store.DEFAULT_APP).resolve("db" + db).resolve("blobs");
    }

    /**
     * Copies a store's files as they are now, lock files left out: what a {@code kill -9} leaves
     * (the page cache holds every mapped write).
     */
    public static void copyStore(Path from, Path to) {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Path q = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(q);
                } else if (!p.getFileName().toString().endsWith(".lock")) {
                    Files.copy(p, q, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
