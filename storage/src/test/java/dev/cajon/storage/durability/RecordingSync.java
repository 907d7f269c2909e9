package dev.cajon.storage.durability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A {@link FileSync} that does the real system calls and records each one, in order. */
final class RecordingSync implements FileSync {
    /** One call: the path, whether it was a directory sync, and whether the file existed. */
    record Call(Path path, boolean directory) { }

    private final List<Call> calls = new ArrayList<>();

    @Override
    public synchronized void force(Path file) throws IOException {
        calls.add(new Call(file.toAbsolutePath().normalize(), false));
        FileSync.SYSTEM.force(file);
    }

    @Override
    public synchronized void forceDirectory(Path dir) throws IOException {
        calls.add(new Call(dir.toAbsolutePath().normalize(), true));
        FileSync.SYSTEM.forceDirectory(dir);
    }

    synchronized List<Call> calls() {
        return new ArrayList<>(calls);
    }

    synchronized void clear() {
        calls.clear();
    }

    /** The file names synced (not directories), in order. */
    synchronized List<String> fileNames() {
        List<String> out = new ArrayList<>();
        for (Call c : calls) {
            if (!c.directory()) {
                out.add(c.path().getFileName().toString());
            }
        }
        return out;
    }

    /** Whether a file under {@code dir} was synced. */
    synchronized boolean syncedUnder(Path dir) {
        Path d = dir.toAbsolutePath().normalize();
        for (Call c : calls) {
            if (!c.directory() && c.path().startsWith(d)) {
                return true;
            }
        }
        return false;
    }

    static boolean isMap(String name) {
        return name.startsWith("keys.g") && name.endsWith(".cmap");
    }

    static boolean exists(Path p) {
        return Files.exists(p);
    }
}
