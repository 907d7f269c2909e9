package dev.cajon.storage.chronicle;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.CheckedOutputStream;

/**
 * What a keyspace knew when it was closed cleanly, so that the next open need not scan the map:
 * its key counts and the expiry records of its keys with a deadline. Written by a clean close
 * (file {@value #FILE} beside the map generations) and deleted by the next open before anything
 * else happens, so after a crash there is none and the open scans as before.
 *
 * <h2>Layout (version 2, big-endian; a persisted format: change the magic to change it)</h2>
 * <pre>
 *   magic      8 bytes  "CCLEAN02" (version 1, without "bytes", is not read: the open scans)
 *   map file   UTF      file name of the map generation it describes
 *   map size   long     that file's length at close
 *   map mtime  long     its last-modified time at close, in ms
 *   keys       long     live keys
 *   volatile   long     live keys with a deadline
 *   deadlines  long     sum of (deadline - base) over those
 *   bytes      long     what the live keys take (keys, stored values, blobs)
 *   records    long     expiry records that follow
 *   record     long at, int key length, key bytes      (repeated)
 *   crc        int      CRC-32 of every byte before it
 * </pre>
 * It is only trusted when the map file still has the size and modification time it had at
 * close, and the CRC matches; anything else (a missing or torn file, another generation, a file
 * touched since) means a scan.
 */
public final class CleanState {
    public static final String FILE = "clean.state";
    static final byte[] MAGIC = "CCLEAN02".getBytes(StandardCharsets.US_ASCII);

    /** One expiry record: the stored key and the time the wheel should look at it. */
    public record Entry(byte[] key, long at) {}

    public final String mapFile;
    public final long mapSize;
    public final long mapMtime;
    public final long keys;
    public final long volatileKeys;
    public final long deadlineSum;
    public final long bytes;
    public final java.util.List<Entry> records;

    public CleanState(String mapFile, long mapSize, long mapMtime, long keys, long volatileKeys,
                      long deadlineSum, long bytes, java.util.List<Entry> records) {
        this.bytes = bytes;
        this.mapFile = mapFile;
        this.mapSize = mapSize;
        this.mapMtime = mapMtime;
        this.keys = keys;
        this.volatileKeys = volatileKeys;
        this.deadlineSum = deadlineSum;
        this.records = records;
    }

    /** Writes the state of the (closed) map file {@code map} to {@code dir}, replacing any. */
    public static void write(Path dir, Path map, long keys, long volatileKeys, long deadlineSum, long bytes,
                             java.util.List<Entry> records) throws IOException {
        BasicFileAttributes a = Files.readAttributes(map, BasicFileAttributes.class);
        Path tmp = dir.resolve(FILE + ".tmp");
        CRC32 crc = new CRC32();
        try (OutputStream raw = Files.newOutputStream(tmp);
             CheckedOutputStream checked = new CheckedOutputStream(new BufferedOutputStream(raw, 1 << 16), crc);
             DataOutputStream out = new DataOutputStream(checked)) {
            out.write(MAGIC);
            out.writeUTF(map.getFileName().toString());
            out.writeLong(a.size());
            out.writeLong(a.lastModifiedTime().toMillis());
            out.writeLong(keys);
            out.writeLong(volatileKeys);
            out.writeLong(deadlineSum);
            out.writeLong(bytes);
            out.writeLong(records.size());
            for (Entry e : records) {
                out.writeLong(e.at());
                out.writeInt(e.key().length);
                out.write(e.key());
            }
            out.flush();
            // the CRC of everything above, itself outside the checksum
            new DataOutputStream(raw).writeInt((int) crc.getValue());
        }
        Files.move(tmp, dir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Reads and deletes {@code dir}'s clean state. Returns it only when it is whole and describes
     * the map file as it is now on disk; null otherwise (none, torn, or stale). Call before the map
     * is opened: opening it may touch the file.
     */
    public static CleanState take(Path dir) throws IOException {
        Path f = dir.resolve(FILE);
        CleanState s;
        try {
            s = read(f);
        } catch (NoSuchFileException e) {
            return null;
        } finally {
            // whatever it said, it must not outlive this open: a crash from now on means a scan
            Files.deleteIfExists(f);
        }
        return s != null && describesMap(dir, s) ? s : null;
    }

    /**
     * Reads {@code dir}'s clean state without deleting it: a keyspace that opens released (its map
     * not mapped yet) keeps it, so that a crash before the map is mapped again still finds it.
     * Null when there is none, or it is torn or stale. {@link #discard} it before the map is
     * opened.
     */
    public static CleanState peek(Path dir) throws IOException {
        CleanState s;
        try {
            s = read(dir.resolve(FILE));
        } catch (NoSuchFileException e) {
            return null;
        }
        return s != null && describesMap(dir, s) ? s : null;
    }

    /** Deletes {@code dir}'s clean state: its map is about to be opened and may change. */
    public static void discard(Path dir) throws IOException {
        Files.deleteIfExists(dir.resolve(FILE));
    }

    private static boolean describesMap(Path dir, CleanState s) throws IOException {
        Path map = dir.resolve(s.mapFile);
        if (!Files.isRegularFile(map)) {
            return false;
        }
        BasicFileAttributes a = Files.readAttributes(map, BasicFileAttributes.class);
        return a.size() == s.mapSize && a.lastModifiedTime().toMillis() == s.mapMtime;
    }

    /** Parses a state file; null when it is torn or not one. */
    static CleanState read(Path f) throws IOException {
        byte[] all = Files.readAllBytes(f);
        if (all.length < MAGIC.length + 4) {
            return null;
        }
        CRC32 crc = new CRC32();
        crc.update(all, 0, all.length - 4);
        int stored = (all[all.length - 4] & 0xFF) << 24 | (all[all.length - 3] & 0xFF) << 16
                | (all[all.length - 2] & 0xFF) << 8 | (all[all.length - 1] & 0xFF);
        if ((int) crc.getValue() != stored || !Arrays.equals(Arrays.copyOf(all, MAGIC.length), MAGIC)) {
            return null;
        }
        try (InputStream raw = new java.io.ByteArrayInputStream(all, MAGIC.length, all.length - 4 - MAGIC.length);
             DataInputStream in = new DataInputStream(raw)) {
            String mapFile = in.readUTF();
            long size = in.readLong();
            long mtime = in.readLong();
            long keys = in.readLong();
            long vol = in.readLong();
            long sum = in.readLong();
            long bytes = in.readLong();
            long n = in.readLong();
            if (n < 0 || n > all.length / 12) {
                return null;
            }
            java.util.List<Entry> records = new java.util.ArrayList<>((int) n);
            for (long i = 0; i < n; i++) {
                long at = in.readLong();
                int len = in.readInt();
                if (len < 0 || len > all.length) {
                    return null;
                }
                byte[] key = new byte[len];
                in.readFully(key);
                records.add(new Entry(key, at));
            }
            if (in.available() != 0) {
                return null;
            }
            return new CleanState(mapFile, size, mtime, keys, vol, sum, bytes, records);
        } catch (EOFException e) {
            return null;
        }
    }
}
