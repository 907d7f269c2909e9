package dev.cajon.storage.chronicle;

import dev.cajon.storage.durability.Durability;
import dev.cajon.storage.durability.FileSync;
import dev.cajon.storage.durability.SyncTarget;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.openhft.chronicle.hash.serialization.impl.ByteArraySizedReader;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.CajonSizing;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One persisted Chronicle Map that can grow.
 *
 * <p>A Chronicle Map's capacity is fixed when its file is created. Nobody should have to size a
 * keyspace up front, so a keyspace lives in a chain of generations:
 * {@code keys.g<gen>.e<entries>.k<avgKey>.v<avgValue>.cmap}. The name records the builder
 * settings, so the file is always reopened with exactly the configuration that created it. When
 * the live generation fills up, {@link #grow} writes the next generation as {@code *.tmp},
 * renames it into place and only then deletes the old one. What must stay true:
 * <ul>
 *   <li>At any instant the highest complete generation on disk holds every acknowledged write;
 *       the caller blocks all writers while {@link #grow} runs.</li>
 *   <li>A crash mid-growth leaves either the old generation (the {@code .tmp} is discarded on the
 *       next open) or both (the older is discarded).</li>
 * </ul>
 *
 * <p>Recovery: after an unclean stop, Chronicle's segment locks may still be held inside the
 * file. {@link #open} with {@code recover=true} reopens through {@code recoverPersistedTo}, which
 * is only safe while no other process maps the file; the {@code Store} guarantees that with its
 * exclusive lock on the data directory.
 *
 * <p>Sparse files. A generation is sized for its capacity (four times its keys right after a
 * growth), and Chronicle would {@code fallocate} all of it at creation: 100k small hashes took
 * 103 MB of disk for 28 MB of pages ever written. New generations are sparse instead
 * ({@code sparseFile}): the disk holds the pages written, 34 MB there, with the same layout and
 * the same resident memory (Chronicle would size a sparse file's segments for the bloat factor and
 * double its average sizes, so the builder is given the preallocated file's segments, through
 * {@link CajonSizing}, and half the sizes). A page first written when the file system is full is a SIGBUS; {@code DiskSpace} keeps
 * a floor free against that, and growth checks its room first. Files made before this rule
 * reopen as they were (Chronicle reads its layout from the file's header).
 *
 * <p>Durability (the fsync policy, see {@link Durability}): every change of an entry marks the
 * file dirty through Chronicle's entry operations ({@link DirtyMarking}), and a sync pass
 * fdatasyncs the current generation. A new generation (first creation, growth, FLUSHDB) is
 * synced before it is renamed into place and its directory after, unless the policy is
 * {@code no}: the old generation is deleted only once the new one is on the disk.
 */
public final class MapFile implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(MapFile.class);
    private static final Pattern NAME =
            Pattern.compile("keys\\.g(\\d+)\\.e(\\d+)\\.k(\\d+)\\.v(\\d+)\\.cmap");

    /**
     * Smallest generation: 256 entries in one segment, with room for 512-byte values on average
     * (about 140 KiB of file), so a thousand small apps cost little (16K entries, the size
     * before, took about 1 MiB each). Its one tier holds an app's first hundred KiB without
     * Chronicle's extra tiers (see {@link #tierAdded}): with 48-byte values (a first tier of
     * 18 KiB) a transaction crash test lost a key after a kill -9, 1 run in 2. A keyspace that
     * fills up grows four times per step (256, 1K, 4K, 16K ...).
     */
    public static final long INITIAL_ENTRIES = 256;
    /**
     * Generations up to this size have a single segment: Chronicle's default gives even a small
     * map several segments of preallocated tiers, most of the file. A file records its own
     * segment count, so files made before this rule reopen as they were.
     */
    static final long ONE_SEGMENT_MAX = 1024;
    static final int INITIAL_AVG_KEY = 24;
    static final int INITIAL_AVG_VALUE = 512;
    static final double MAX_BLOAT = 4.0;

    private final Path dir;
    private final String name;
    private volatile ChronicleMap<byte[], byte[]> map;
    /** Chronicle's remaining extra tiers when the map was mapped (see {@link #tierAdded}). */
    private volatile long resizesAtOpen;
    private int gen;
    private long entries;
    private int avgKey;
    private int avgValue;
    private volatile Path file;
    private final Durability durability;
    /** Marked by every change of an entry; a pass syncs the generation live at that time. */
    private final SyncTarget dirty;

    private MapFile(Path dir, String name) {
        this.dir = dir;
        this.name = name;
        this.durability = Durability.forFile(dir);
        this.dirty = new SyncTarget(durability, SyncTarget.MAP) {
            @Override
            protected void sync(FileSync sync) throws IOException {
                sync.force(file);
            }

            @Override
            public String toString() {
                return String.valueOf(file);
            }
        };
    }

    /** What a sync pass syncs for this map (tests look at it). */
    SyncTarget syncTarget() {
        return dirty;
    }

    /** Opens (recovering if asked) the newest generation in {@code dir}, or creates generation 1. */
    public static MapFile open(Path dir, String name, boolean recover) {
        MapFile f = new MapFile(dir, name);
        try {
            Files.createDirectories(dir);
            f.openNewest(recover, true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return f;
    }

    /**
     * Finds the newest generation in {@code dir} without mapping it: the map stays released
     * until {@link #reopen}. Only for a generation that was closed cleanly (its keyspace wrote a
     * clean state after closing it), which needs no recovery. Null if there is none.
     */
    public static MapFile locate(Path dir, String name) {
        if (!exists(dir)) {
            return null;
        }
        MapFile f = new MapFile(dir, name);
        try {
            f.openNewest(false, false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return f;
    }

    /** Whether any generation exists in {@code dir}. */
    public static boolean exists(Path dir) {
        return !generations(dir).isEmpty();
    }

    /** The open map, or null while it is released (see {@link #release}). */
    public ChronicleMap<byte[], byte[]> map() {
        return map;
    }

    /**
     * Whether Chronicle chained an extra segment tier since the map was mapped: the generation is
     * fuller than it was sized for, and the keyspace grows now rather than live on extra tiers.
     * Why: a value that grows and no longer fits its tier is moved to another one, and Chronicle
     * frees its old chunks before it has found room elsewhere (spec/6-queries.md, value update,
     * step 19): if allocating a tier then fails the key's slot points at freed chunks, and a
     * kill -9 in the middle of such a move lost a key that the journals could not bring back.
     */
    public boolean tierAdded() {
        ChronicleMap<byte[], byte[]> m = map;
        return m != null && m.remainingAutoResizes() < resizesAtOpen;
    }

    private ChronicleMap<byte[], byte[]> mapped(ChronicleMap<byte[], byte[]> m) {
        resizesAtOpen = m.remainingAutoResizes();
        return DirtyMarking.withFastGet(m);
    }

    /** Whether the map is mapped now (not released). */
    public boolean isOpen() {
        return map != null;
    }

    /**
     * Closes the map (unmapping its file and giving back its descriptor) but keeps which
     * generation it is, so {@link #reopen} maps the same file again. The caller holds every
     * user of the map out until then.
     */
    public void release() {
        ChronicleMap<byte[], byte[]> m = map;
        map = null;
        if (m != null && !m.isClosed()) {
            m.close();
        }
    }

    /** Maps the released generation again (a clean reopen: it was closed by {@link #release}). */
    public ChronicleMap<byte[], byte[]> reopen() {
        ChronicleMap<byte[], byte[]> m = map;
        if (m != null) {
            return m;
        }
        try {
            m = mapped(builder(entries, avgKey, avgValue).createPersistedTo(file.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        map = m;
        return m;
    }

    /** The number of entries this generation was sized for. */
    public long capacity() {
        return entries;
    }

    public int generation() {
        return gen;
    }

    public Path file() {
        return file;
    }

    private void openNewest(boolean recover, boolean mapIt) throws IOException {
        List<Path> gens = generations(dir);
        try (DirectoryStream<Path> tmp = Files.newDirectoryStream(dir, "*.tmp")) {
            for (Path p : tmp) {
                log.warn("discarding unfinished map generation {}", p);
                Files.deleteIfExists(p);
            }
        }
        if (gens.isEmpty()) {
            create(1, INITIAL_ENTRIES, INITIAL_AVG_KEY, INITIAL_AVG_VALUE);
            return;
        }
        Path newest = gens.get(gens.size() - 1);
        for (Path older : gens.subList(0, gens.size() - 1)) {
            log.warn("discarding superseded map generation {}", older);
            Files.deleteIfExists(older);
        }
        Matcher m = NAME.matcher(newest.getFileName().toString());
        if (!m.matches()) {
            throw new IllegalStateException("bad map file name " + newest);
        }
        gen = Integer.parseInt(m.group(1));
        entries = Long.parseLong(m.group(2));
        avgKey = Integer.parseInt(m.group(3));
        avgValue = Integer.parseInt(m.group(4));
        file = newest;
        if (!mapIt) {
            return;
        }
        ChronicleMapBuilder<byte[], byte[]> b = builder(entries, avgKey, avgValue);
        map = mapped(recover ? b.recoverPersistedTo(newest.toFile(), true) : b.createPersistedTo(newest.toFile()));
        if (recover) {
            dirty.mark(); // recovery rewrote segment headers and dropped torn entries
        }
    }

    private void create(int generation, long ents, int avgKey, int avgValue) throws IOException {
        Path p = dir.resolve(fileName(generation, ents, avgKey, avgValue));
        Path tmp = p.resolveSibling(p.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        builder(ents, avgKey, avgValue, false).createPersistedTo(tmp.toFile()).close();
        durability.forceNow(tmp);
        Files.move(tmp, p, StandardCopyOption.ATOMIC_MOVE);
        // the new name, and for a new keyspace its db directory's and its app directory's names
        Path d = dir.toAbsolutePath();
        for (int up = 0; d != null && up < (generation == 1 ? 3 : 1); up++, d = d.getParent()) {
            durability.forceDirectoryNow(d);
        }
        gen = generation;
        entries = ents;
        this.avgKey = avgKey;
        this.avgValue = avgValue;
        file = p;
        map = reopenRenamed(p, ents, avgKey, avgValue);
    }

    /**
     * Copies every entry for which {@code keep} answers true into a new generation sized for
     * {@code newEntries}, then retires the old one. The caller must hold every writer out.
     */
    public void grow(long newEntries, int avgKey, int avgValue, BiPredicate<byte[], byte[]> keep) {
        ChronicleMap<byte[], byte[]> old = reopen();
        Path oldFile = file;
        int nextGen = gen + 1;
        Path p = dir.resolve(fileName(nextGen, newEntries, avgKey, avgValue));
        Path tmp = p.resolveSibling(p.getFileName() + ".tmp");
        try {
            Files.deleteIfExists(tmp);
            ChronicleMap<byte[], byte[]> next =
                    builder(newEntries, avgKey, avgValue, false).createPersistedTo(tmp.toFile());
            old.forEachEntry(e -> {
                byte[] k = e.key().get();
                byte[] v = e.value().get();
                if (keep.test(k, v)) {
                    next.put(k, v);
                }
            });
            next.close();
            // on the disk before the old generation goes (unless the policy is no)
            durability.forceNow(tmp);
            Files.move(tmp, p, StandardCopyOption.ATOMIC_MOVE);
            durability.forceDirectoryNow(dir);
            map = reopenRenamed(p, newEntries, avgKey, avgValue);
            gen = nextGen;
            entries = newEntries;
            this.avgKey = avgKey;
            this.avgValue = avgValue;
            file = p;
            old.close();
            Files.deleteIfExists(oldFile);
            log.info("{} grew to generation {} ({} entries)", name, nextGen, newEntries);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Opens a generation that was just renamed from its {@code .tmp} name. A map must never stay
     * open across the rename: Chronicle keeps the path it was opened with and uses it again
     * whenever it maps another tier bulk, which then fails with NoSuchFileException.
     */
    private ChronicleMap<byte[], byte[]> reopenRenamed(Path p, long ents, int avgKey, int avgValue)
            throws IOException {
        return mapped(builder(ents, avgKey, avgValue).createPersistedTo(p.toFile()));
    }

    /** Replaces the map with an empty generation 1 of the initial size (FLUSHDB). */
    public void reset() {
        ChronicleMap<byte[], byte[]> old = map;
        Path oldFile = file;
        try {
            if (old != null) {
                old.close();
            }
            Files.deleteIfExists(oldFile);
            create(1, INITIAL_ENTRIES, INITIAL_AVG_KEY, INITIAL_AVG_VALUE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        ChronicleMap<byte[], byte[]> m = map;
        if (m != null && !m.isClosed()) {
            m.close();
        }
    }

    private ChronicleMapBuilder<byte[], byte[]> builder(long ents, int avgKey, int avgValue) {
        return builder(ents, avgKey, avgValue, true);
    }

    /**
     * {@code marking}: changes mark the file dirty (every live generation); a {@code .tmp}
     * generation being filled is synced whole before its rename instead.
     */
    private ChronicleMapBuilder<byte[], byte[]> builder(long ents, int avgKey, int avgValue, boolean marking) {
        ChronicleMapBuilder<byte[], byte[]> b = ChronicleMap.of(byte[].class, byte[].class);
        if (marking && durability != Durability.OFF) {
            b.entryOperations(new DirtyMarking(dirty));
        }
        if (ents <= ONE_SEGMENT_MAX) {
            b.actualSegments(1);
        }
        b.name(name)
                // the same bytes as Chronicle's default access for byte[], without a wrapper
                // object per key and value (see ByteArrayAccess); persisted in the file header
                .keyReaderAndDataAccess(ByteArraySizedReader.INSTANCE, new ByteArrayAccess())
                .valueReaderAndDataAccess(ByteArraySizedReader.INSTANCE, new ByteArrayAccess())
                .entries(ents)
                .averageKeySize(avgKey)
                .averageValueSize(avgValue)
                .maxBloatFactor(MAX_BLOAT)
                // put/remove never deserialize the previous value: Keyspace reads it itself, under
                // the key's lock, when it needs it (one copy per write saved)
                .putReturnsNull(true)
                .removeReturnsNull(true)
                // Cajon closes its maps itself, after in-flight commands finish; Chronicle's own
                // exit hook would close them under running commands at SIGTERM
                .skipCloseOnExitHook(true);
        // sparse (see the class comment), laid out as the preallocated file would be: Chronicle
        // doubles the average sizes of a sparse file and sizes its segments for the bloat factor,
        // so the segments are fixed from the preallocated builder and the sizes halved
        long perSegment = CajonSizing.entriesPerSegment(b);
        int segments = CajonSizing.actualSegments(b);
        return b.sparseFile(true)
                .actualSegments(segments)
                .entriesPerSegment(perSegment)
                .averageKeySize(avgKey / 2.0)
                .averageValueSize(avgValue / 2.0);
    }

    static String fileName(int gen, long ents, int avgKey, int avgValue) {
        return "keys.g" + gen + ".e" + ents + ".k" + avgKey + ".v" + avgValue + ".cmap";
    }

    private static List<Path> generations(Path dir) {
        List<Path> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "keys.g*.cmap")) {
            for (Path p : ds) {
                if (NAME.matcher(p.getFileName().toString()).matches()) {
                    out.add(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.sort((a, b) -> Integer.compare(genOf(a), genOf(b)));
        return out;
    }

    private static int genOf(Path p) {
        Matcher m = NAME.matcher(p.getFileName().toString());
        return m.matches() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** For tests and diagnostics. */
    static File[] files(Path dir) {
        return generations(dir).stream().map(Path::toFile).toArray(File[]::new);
    }
}
