package dev.cajon.storage;

import dev.cajon.storage.durability.Durability;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which directory holds each logical db of an app. A db's keys live in {@code <app>/db<N>}, N
 * being the db's own number, until SWAPDB swaps two dbs: it swaps no file and moves no map (a
 * mapped Chronicle file must not be renamed), it records that db A is now held by B's directory
 * and B by A's, in this file, then swaps the two keyspaces in the store's tables.
 *
 * <p>The file {@code <app>/dbs}, version 1 (pinned by {@code DbMapTest}):
 * <pre>
 * cajon-dbs 1
 * 0 3
 * 3 0
 * </pre>
 * one line per db whose directory is not its own: the logical db, a space, the number of the
 * directory that holds it. A missing file means every db is in its own directory. The file is
 * replaced whole (written as {@code dbs.tmp}, synced under the fsync policy, renamed over the
 * old one, the directory synced), so a crash leaves the map before the swap or after it, and a
 * SWAPDB is acknowledged only once the new map is in place.
 */
final class DbMap {
    static final String FILE = "dbs";
    static final String HEADER = "cajon-dbs 1";

    /** Logical db to directory number, for the dbs not in their own. */
    private final Map<Integer, Integer> moved;

    private DbMap(Map<Integer, Integer> moved) {
        this.moved = moved;
    }

    static DbMap identity() {
        return new DbMap(new TreeMap<>());
    }

    /** The app's map, or the identity when it has no file. */
    static DbMap read(Path appDir) {
        Path f = appDir.resolve(FILE);
        if (!Files.exists(f)) {
            return identity();
        }
        try {
            List<String> lines = Files.readAllLines(f, StandardCharsets.US_ASCII);
            if (lines.isEmpty() || !lines.get(0).equals(HEADER)) {
                throw new IllegalStateException("unknown db map format in " + f + ": " + (lines.isEmpty() ? "" : lines.get(0)));
            }
            Map<Integer, Integer> m = new TreeMap<>();
            for (String line : lines.subList(1, lines.size())) {
                if (line.isBlank()) {
                    continue;
                }
                String[] parts = line.trim().split(" ");
                if (parts.length != 2) {
                    throw new IllegalStateException("bad line in " + f + ": " + line);
                }
                m.put(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
            }
            DbMap map = new DbMap(m);
            map.check(f);
            return map;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every directory holds exactly one db: the map is a permutation. */
    private void check(Path f) {
        java.util.Set<Integer> dirs = new java.util.HashSet<>(moved.values());
        if (dirs.size() != moved.size() || !dirs.equals(moved.keySet())) {
            throw new IllegalStateException("db map " + f + " is not a permutation: " + moved);
        }
    }

    /** The directory number of logical {@code db}. */
    int directoryOf(int db) {
        return moved.getOrDefault(db, db);
    }

    /** The logical db held by directory {@code dir}. */
    int dbOf(int dir) {
        for (Map.Entry<Integer, Integer> e : moved.entrySet()) {
            if (e.getValue() == dir) {
                return e.getKey();
            }
        }
        return dir;
    }

    /** This map after SWAPDB a b. */
    DbMap swapped(int a, int b) {
        Map<Integer, Integer> m = new TreeMap<>(moved);
        int da = directoryOf(a);
        int db = directoryOf(b);
        put(m, a, db);
        put(m, b, da);
        return new DbMap(m);
    }

    private static void put(Map<Integer, Integer> m, int db, int dir) {
        if (db == dir) {
            m.remove(db);
        } else {
            m.put(db, dir);
        }
    }

    String encode() {
        StringBuilder sb = new StringBuilder(HEADER).append('\n');
        moved.forEach((db, dir) -> sb.append(db).append(' ').append(dir).append('\n'));
        return sb.toString();
    }

    /** Replaces the app's file with this map (see the class comment). */
    void write(Path appDir, Durability durability) throws IOException {
        Files.createDirectories(appDir);
        Path f = appDir.resolve(FILE);
        Path tmp = appDir.resolve(FILE + ".tmp");
        Files.writeString(tmp, encode(), StandardCharsets.US_ASCII);
        durability.forceNow(tmp);
        Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        durability.forceDirectoryNow(appDir);
    }
}
