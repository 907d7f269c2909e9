package dev.cajon.storage.chronicle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The multi-key write in flight on a keyspace (MSET, MSETNX, RENAME), kept in a file so that a
 * process crash cannot leave it half applied.
 *
 * <p>{@link WriteJournal} makes each single overwrite all-or-nothing; a command that writes several
 * keys is several map operations, and a kill between two of them would leave some keys written
 * and others not (or, for RENAME, the value under both names, sharing one blob file). So before
 * such a command touches the map, every key it writes and the complete stored value it gets (or
 * "removed") is written here and the batch is marked pending; once every map operation is done
 * the mark is cleared. Opening the keyspace applies a still-pending batch again, whole: puts and
 * removals are idempotent, so it does not matter how much of it had been applied.
 *
 * <p>One batch at a time per keyspace ({@link #begin} takes a lock that {@link #end} releases; the
 * callers already hold every key's stripe lock, always taken before this one). Batches up to
 * {@value #MAPPED} bytes are copied into a memory-mapped window; a larger one is written through
 * the file channel. Both reach the page cache before the mark is set, which is what survives the
 * process (as with the rest of Cajon's files, not a power loss).
 *
 * <h2>Persisted layout (little-endian; pinned by BatchJournalTest)</h2>
 * <pre>
 * header, 64 bytes: magic "CBATCH01" (8) | state (int: 0 idle, 1 pending) | record count (int)
 *                   | body length (long) | zeros
 * body at 64, per record: key length (int) | value length (int, -1: the key is removed)
 *                   | key | value
 * </pre>
 */
public final class BatchJournal implements AutoCloseable {
    static final byte[] MAGIC = {'C', 'B', 'A', 'T', 'C', 'H', '0', '1'};
    static final int HEADER = 64;
    static final int IDLE = 0;
    static final int PENDING = 1;
    static final int REMOVED = -1;
    /** Bytes of the file that are memory-mapped: the header and bodies up to this size. */
    static final int MAPPED = 1 << 20;

    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final Path file;
    private final FileChannel channel;
    private final MappedByteBuffer buf;
    private final ReentrantLock lock = new ReentrantLock();

    /** One write of a batch: {@code value} null means the key is removed. */
    public record Entry(byte[] key, byte[] value) {
        @Override
        public String toString() {
            return new String(key, java.nio.charset.StandardCharsets.ISO_8859_1) + (value == null ? " removed" : " = "
                    + value.length + " bytes");
        }
    }

    private BatchJournal(Path file, FileChannel channel, MappedByteBuffer buf) {
        this.file = file;
        this.channel = channel;
        this.buf = buf;
    }

    /** Opens (creating if needed) the batch journal at {@code file}. */
    public static BatchJournal open(Path file) {
        FileChannel ch = null;
        try {
            ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            long existing = ch.size();
            if (existing != 0 && existing < HEADER) {
                throw notABatchJournal(file, "size " + existing);
            }
            MappedByteBuffer buf = ch.map(FileChannel.MapMode.READ_WRITE, 0, MAPPED);
            buf.order(ByteOrder.LITTLE_ENDIAN);
            if (existing == 0) {
                buf.put(0, MAGIC);
            } else {
                byte[] magic = new byte[MAGIC.length];
                buf.get(0, magic);
                if (!Arrays.equals(magic, MAGIC)) {
                    throw notABatchJournal(file, "magic " + Arrays.toString(magic));
                }
            }
            return new BatchJournal(file, ch, buf);
        } catch (IOException e) {
            closeQuietly(ch);
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            closeQuietly(ch);
            throw e;
        }
    }

    private static void closeQuietly(FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // already failing
            }
        }
    }

    private static IllegalStateException notABatchJournal(Path file, String why) {
        return new IllegalStateException(file + " is not a batch journal (" + why + ")");
    }

    public Path file() {
        return file;
    }

    /**
     * Records the writes of one multi-key command before any is made, and marks them pending.
     * Takes this journal's lock until {@link #end}; call {@code end} in a finally.
     */
    public void begin(List<Entry> writes) {
        long len = 0;
        for (Entry w : writes) {
            len += 8L + w.key().length + (w.value() == null ? 0 : w.value().length);
        }
        lock.lock();
        boolean ok = false;
        try {
            if (HEADER + len <= MAPPED) {
                int p = HEADER;
                for (Entry w : writes) {
                    buf.putInt(p, w.key().length);
                    buf.putInt(p + 4, w.value() == null ? REMOVED : w.value().length);
                    buf.put(p + 8, w.key());
                    p += 8 + w.key().length;
                    if (w.value() != null) {
                        buf.put(p, w.value());
                        p += w.value().length;
                    }
                }
            } else {
                writeThroughChannel(writes, len);
            }
            buf.putInt(12, writes.size());
            buf.putLong(16, len);
            // the body is complete before it is marked, and marked before the map is touched
            INT.setVolatile(buf, 8, PENDING);
            ok = true;
        } finally {
            if (!ok) {
                lock.unlock();
            }
        }
    }

    private void writeThroughChannel(List<Entry> writes, long len) {
        if (len > Integer.MAX_VALUE - HEADER) {
            throw new IllegalArgumentException("a batch of " + len + " bytes is too large");
        }
        ByteBuffer body = ByteBuffer.allocate((int) len).order(ByteOrder.LITTLE_ENDIAN);
        for (Entry w : writes) {
            body.putInt(w.key().length);
            body.putInt(w.value() == null ? REMOVED : w.value().length);
            body.put(w.key());
            if (w.value() != null) {
                body.put(w.value());
            }
        }
        body.flip();
        try {
            long pos = HEADER;
            while (body.hasRemaining()) {
                pos += channel.write(body, pos);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every write of the batch is done (or none was made): clears the mark, lets go of the lock. */
    public void end() {
        try {
            if (buf.getInt(8) != IDLE) {
                // ordered after every store of the map operations, including Chronicle's checksums
                INT.setRelease(buf, 8, IDLE);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The batch that was in flight when this journal was last used, or an empty list. */
    public List<Entry> pending() {
        try {
            ByteBuffer head = ByteBuffer.allocate(HEADER).order(ByteOrder.LITTLE_ENDIAN);
            readFully(head, 0);
            int state = head.getInt(8);
            if (state == IDLE) {
                return List.of();
            }
            int count = head.getInt(12);
            long len = head.getLong(16);
            if (state != PENDING || count < 0 || len < 0 || len > Integer.MAX_VALUE - HEADER
                    || HEADER + len > channel.size()) {
                throw damaged("state " + state + ", " + count + " records, " + len + " bytes, file " + channel.size());
            }
            ByteBuffer body = ByteBuffer.allocate((int) len).order(ByteOrder.LITTLE_ENDIAN);
            readFully(body, HEADER);
            body.flip();
            List<Entry> out = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                if (body.remaining() < 8) {
                    throw damaged("record " + i + " of " + count + " is cut short");
                }
                int kl = body.getInt();
                int vl = body.getInt();
                if (kl < 0 || vl < REMOVED || (long) kl + Math.max(vl, 0) > body.remaining()) {
                    throw damaged("record " + i + ": key " + kl + " bytes, value " + vl + " bytes");
                }
                byte[] key = new byte[kl];
                body.get(key);
                byte[] value = null;
                if (vl != REMOVED) {
                    value = new byte[vl];
                    body.get(value);
                }
                out.add(new Entry(key, value));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** After {@link #pending} was applied on open: nothing is in flight any more. */
    public void clear() {
        lock.lock();
        end();
    }

    private IllegalStateException damaged(String what) {
        return new IllegalStateException(file + " is damaged: " + what);
    }

    private void readFully(ByteBuffer b, long pos) throws IOException {
        while (b.hasRemaining()) {
            if (channel.read(b, pos + b.position()) < 0) {
                throw new IOException(file + " is shorter than its header says");
            }
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
