package dev.cajon.storage.namespace;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32;

/**
 * The apps that exist and their settings, persisted in {@value #FILE} in the data directory.
 * Every change rewrites the whole file (a few hundred bytes per app) crash-safely: written to
 * {@value #TMP}, fsynced, renamed over the old file, and the directory fsynced, so after a crash
 * or power cut the file is either the old registry or the new one, never a torn mix. A change is
 * acknowledged only once that is done.
 *
 * <h2>Layout (a persisted format: append-only; change the version to change it)</h2>
 * <pre>
 *   magic      8 bytes  "CAJNAPPS"
 *   version    int      1
 *   apps       int      count of records that follow, in name order
 *   record:
 *     name       UTF      (2-byte length, then the ASCII name)
 *     flags      byte     bit 0: on (enabled), bit 1: nopass
 *     passwords  int      count, then per password:
 *       algorithm  byte     1 = PBKDF2WithHmacSHA256 over the hex SHA-256 (see PasswordHash)
 *       iterations int
 *       salt       byte length, bytes
 *       hash       byte length, bytes
 *     maxKeys    long     -1 = the server's default
 *     maxBytes   long     -1 = the server's default
 *     settings   int      count, then per setting: key UTF, value UTF (in key order)
 *   crc        int      CRC-32 of every byte before it
 * </pre>
 * Big-endian throughout. A file that does not check out (bad magic, CRC, an unknown version or
 * algorithm, trailing bytes) stops the server from starting rather than losing every app: the
 * error names the file. Reads are lock-free (an immutable snapshot); changes are serialized.
 */
public final class AppRegistry {
    public static final String FILE = "apps.registry";
    static final String TMP = "apps.registry.tmp";
    static final byte[] MAGIC = "CAJNAPPS".getBytes(StandardCharsets.US_ASCII);
    static final int VERSION = 1;

    private final Path dir;
    /** Name to app, in name order; replaced whole on every change. */
    private volatile Map<String, App> apps;

    private AppRegistry(Path dir, Map<String, App> apps) {
        this.dir = dir;
        this.apps = apps;
    }

    /** Reads the registry of the data directory {@code dir}; an empty one if it has none yet. */
    public static AppRegistry open(Path dir) {
        Path file = dir.resolve(FILE);
        try {
            Files.deleteIfExists(dir.resolve(TMP)); // a write cut short: the old file stands
            Map<String, App> apps = new TreeMap<>();
            if (Files.exists(file)) {
                for (App a : decode(Files.readAllBytes(file), file)) {
                    apps.put(a.name(), a);
                }
            }
            return new AppRegistry(dir, Collections.unmodifiableMap(apps));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the apps registry " + file.toAbsolutePath(), e);
        }
    }

    /** Every app, in name order. */
    public Collection<App> all() {
        return apps.values();
    }

    /** The app named {@code name}, or null. */
    public App get(String name) {
        return apps.get(name);
    }

    /** Adds or replaces {@code app}; returns once it is on disk. */
    public synchronized void put(App app) {
        Map<String, App> next = new TreeMap<>(apps);
        next.put(app.name(), app);
        save(next);
    }

    /** Removes the named apps (names that do not exist are skipped); returns once that is on disk. */
    public synchronized void removeAll(Collection<String> names) {
        Map<String, App> next = new TreeMap<>(apps);
        if (!next.keySet().removeAll(names)) {
            return;
        }
        save(next);
    }

    private void save(Map<String, App> next) {
        byte[] bytes = encode(next.values());
        Path tmp = dir.resolve(TMP);
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer b = ByteBuffer.wrap(bytes);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            Files.move(tmp, dir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true); // the rename itself
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the apps registry " + dir.resolve(FILE).toAbsolutePath(), e);
        }
        apps = Collections.unmodifiableMap(next);
    }

    // ------------------------------------------------------------------ format

    /** The file's bytes for {@code apps} (in the order given; the registry passes name order). */
    public static byte[] encode(Collection<App> apps) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(64 + 160 * apps.size());
        try (DataOutputStream out = new DataOutputStream(buf)) {
            out.write(MAGIC);
            out.writeInt(VERSION);
            out.writeInt(apps.size());
            for (App a : apps) {
                out.writeUTF(a.name());
                out.writeByte((a.enabled() ? 1 : 0) | (a.nopass() ? 2 : 0));
                out.writeInt(a.passwords().size());
                for (PasswordHash p : a.passwords()) {
                    if (p.algorithm() != PasswordHash.PBKDF2_SHA256) {
                        throw new IllegalArgumentException("app " + a.name() + ": only slow password hashes are persisted");
                    }
                    out.writeByte(p.algorithm());
                    out.writeInt(p.iterations());
                    writeBytes(out, p.salt());
                    writeBytes(out, p.hash());
                }
                out.writeLong(a.maxKeys());
                out.writeLong(a.maxBytes());
                out.writeInt(a.settings().size());
                for (Map.Entry<String, String> e : a.settings().entrySet()) {
                    out.writeUTF(e.getKey());
                    out.writeUTF(e.getValue());
                }
            }
            CRC32 crc = new CRC32();
            crc.update(buf.toByteArray());
            out.writeInt((int) crc.getValue());
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return buf.toByteArray();
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        if (b.length > 255) {
            throw new IllegalArgumentException("field of " + b.length + " bytes");
        }
        out.writeByte(b.length);
        out.write(b);
    }

    /** The apps in {@code bytes}; {@code file} only names the source in errors. */
    public static List<App> decode(byte[] bytes, Path file) {
        if (bytes.length < MAGIC.length + 12 || !Arrays.equals(Arrays.copyOf(bytes, MAGIC.length), MAGIC)) {
            throw corrupt(file, "not an apps registry (bad magic)");
        }
        CRC32 crc = new CRC32();
        crc.update(bytes, 0, bytes.length - 4);
        int stored = ByteBuffer.wrap(bytes, bytes.length - 4, 4).getInt();
        if (stored != (int) crc.getValue()) {
            throw corrupt(file, "CRC mismatch");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 0, bytes.length - 4))) {
            in.skipNBytes(MAGIC.length);
            int version = in.readInt();
            if (version != VERSION) {
                throw corrupt(file, "version " + version + " (this Cajon reads version " + VERSION
                        + "; was it written by a newer one?)");
            }
            int n = in.readInt();
            List<App> out = new ArrayList<>(Math.min(n, 1 << 16));
            for (int i = 0; i < n; i++) {
                String name = in.readUTF();
                int flags = in.readUnsignedByte();
                int np = in.readInt();
                List<PasswordHash> pw = new ArrayList<>(Math.min(np, 64));
                for (int j = 0; j < np; j++) {
                    int alg = in.readUnsignedByte();
                    if (alg != PasswordHash.PBKDF2_SHA256) {
                        throw corrupt(file, "app " + name + ": unknown password algorithm " + alg);
                    }
                    int iterations = in.readInt();
                    byte[] salt = readBytes(in);
                    byte[] hash = readBytes(in);
                    pw.add(new PasswordHash(alg, iterations, salt, hash));
                }
                long maxKeys = in.readLong();
                long maxBytes = in.readLong();
                int ns = in.readInt();
                Map<String, String> settings = new LinkedHashMap<>();
                for (int j = 0; j < ns; j++) {
                    settings.put(in.readUTF(), in.readUTF());
                }
                out.add(new App(name, (flags & 1) != 0, (flags & 2) != 0, pw, maxKeys, maxBytes, settings));
            }
            if (in.available() > 0) {
                throw corrupt(file, in.available() + " bytes after the last app");
            }
            return out;
        } catch (EOFException e) {
            throw corrupt(file, "truncated");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        return in.readNBytes(in.readUnsignedByte());
    }

    private static IllegalStateException corrupt(Path file, String what) {
        return new IllegalStateException("the apps registry " + (file == null ? "" : file.toAbsolutePath() + " ")
                + "cannot be read: " + what + ". Cajon will not start without it; restore it from a backup");
    }
}
