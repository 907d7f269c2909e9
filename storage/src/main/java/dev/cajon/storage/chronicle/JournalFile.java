package dev.cajon.storage.chronicle;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * What {@link WriteJournal} and {@link BatchJournal} do alike with their files: map the first
 * {@code size} bytes, and write or check a header of a magic and some int fields.
 */
final class JournalFile {
    /** Both journals' header size; the magic and the fields live in it. */
    static final int HEADER = 64;

    private JournalFile() {
    }

    /**
     * Maps {@code [0, size)} of {@code ch} (little-endian). A new file, or one whose header was
     * never written (a process killed between creating and mapping it and writing the header),
     * gets {@code magic} and then {@code fields} as ints at offsets 8, 12, ...; an existing file
     * must carry exactly those. {@code what} names the expected file in the error, e.g.
     * "a write journal of 1024 slots".
     */
    static MappedByteBuffer mapWithHeader(FileChannel ch, Path file, long size, byte[] magic, String what,
                                          int... fields) throws IOException {
        long existing = ch.size();
        if (existing != 0 && existing < size) {
            // checked before mapping: mapping would grow the file
            throw new IllegalStateException(file + " is not " + what + " (size " + existing + ")");
        }
        MappedByteBuffer buf = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
        buf.order(ByteOrder.LITTLE_ENDIAN);
        if (existing == 0 || isBlank(buf)) {
            buf.put(0, magic);
            for (int i = 0; i < fields.length; i++) {
                buf.putInt(8 + 4 * i, fields[i]);
            }
            return buf;
        }
        byte[] found = new byte[magic.length];
        buf.get(0, found);
        boolean ok = Arrays.equals(found, magic);
        int[] got = new int[fields.length];
        for (int i = 0; i < fields.length; i++) {
            got[i] = buf.getInt(8 + 4 * i);
            ok &= got[i] == fields[i];
        }
        if (!ok) {
            throw new IllegalStateException(file + " is not " + what + " (header "
                    + new String(found, java.nio.charset.StandardCharsets.ISO_8859_1) + " " + Arrays.toString(got) + ")");
        }
        return buf;
    }

    private static boolean isBlank(ByteBuffer buf) {
        for (int i = 0; i < HEADER; i++) {
            if (buf.get(i) != 0) {
                return false;
            }
        }
        return true;
    }

    private static final Object UNSAFE;
    private static final java.lang.reflect.Method INVOKE_CLEANER;

    static {
        Object u = null;
        java.lang.reflect.Method m = null;
        try {
            Class<?> c = Class.forName("sun.misc.Unsafe");
            java.lang.reflect.Field f = c.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            u = f.get(null);
            m = c.getMethod("invokeCleaner", ByteBuffer.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            u = null;
            m = null;
        }
        UNSAFE = u;
        INVOKE_CLEANER = m;
    }

    /**
     * Unmaps {@code buf} now instead of whenever the garbage collector finds it: a closed keyspace
     * must give its journal pages back (a mapping that waits for a GC keeps them in the RSS, and
     * a deleted file's blocks on disk). The caller guarantees that nobody touches the buffer
     * again: any access after this crashes the JVM. Falls back to the GC where the JDK refuses.
     */
    static void unmap(MappedByteBuffer buf) {
        if (buf == null || INVOKE_CLEANER == null) {
            return;
        }
        try {
            INVOKE_CLEANER.invoke(UNSAFE, buf);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // left to the GC
        }
    }

    /** Reads {@code b} full from {@code pos}; a file that ends first is damaged. */
    static void readFully(FileChannel ch, Path file, ByteBuffer b, long pos) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b, pos + b.position()) < 0) {
                throw new IOException(file + " is shorter than its header says");
            }
        }
    }
}
