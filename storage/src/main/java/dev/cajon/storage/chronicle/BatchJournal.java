package dev.cajon.storage.chronicle;

import dev.cajon.storage.durability.Durability;
import dev.cajon.storage.durability.SyncTarget;
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
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The multi-key writes in flight on a keyspace (MSET, MSETNX, RENAME), kept in a file so that a
 * process crash cannot leave one half applied.
 *
 * <p>{@link WriteJournal} makes each single overwrite all-or-nothing; a command that writes several
 * keys is several map operations, and a kill between two of them would leave some keys written
 * and others not (or, for RENAME, the value under both names, sharing one blob file). So before
 * such a command touches the map, every key it writes and the complete stored value it gets (or
 * "removed") is written here and the batch is marked pending; once every map operation is done
 * the mark is cleared. Opening the keyspace applies every still-pending batch again, whole: puts
 * and removals are idempotent, so it does not matter how much of one had been applied, and
 * batches in flight together never share a key (each holds its keys' stripe locks), so their
 * order does not matter either.
 *
 * <p>One slot per stripe, used by the command whose lowest stripe it is: the command holds that
 * stripe's lock for its whole life, so no two commands in flight share a slot and slots need no
 * lock of their own (a single lock cost MSET half its throughput with two event loops). A batch
 * that does not fit a slot goes to the large area after the slots, written through the file
 * channel under a lock of its own. Slots are memory-mapped; the file is sparse, so only slots
 * ever used take disk. Everything reaches the page cache before the mark is set, which is what
 * survives the process; the fsync policy puts the file on the disk too ({@link Durability}).
 *
 * <h2>Persisted layout (little-endian; pinned by BatchJournalTest)</h2>
 * <pre>
 * header, 64 bytes: magic "CBATCH02" (8) | slot count (int) | slot size (int: 2048 for
 *                   inflight.batch, 16384 for inflight.collections)
 *                   | large area: state (int) | record count (int) | body length (long) | zeros
 * slot i at 64 + i * slot size: state (int: 0 idle, 1 pending) | record count (int)
 *                   | body length (int) | zero (int) | body
 * large area at 64 + slots * slot size: body
 * body, per record: key length (int) | value length (int, -1: the key is removed) | key | value
 * </pre>
 */
public final class BatchJournal implements AutoCloseable {
    static final byte[] MAGIC = {'C', 'B', 'A', 'T', 'C', 'H', '0', '2'};
    static final int HEADER = JournalFile.HEADER;
    /** The slot size of a keyspace's {@code inflight.batch}; {@link #open(Path, int, int)} takes another. */
    static final int SLOT_SIZE = 2048;
    static final int SLOT_HEADER = 16;
    static final int SLOT_BODY = SLOT_SIZE - SLOT_HEADER;
    /** This journal's slot size (its header names it) and the body that fits a slot. */
    private final int slotSize;
    private final int slotBody;
    static final int IDLE = 0;
    static final int PENDING = 1;
    static final int REMOVED = -1;
    /** {@link #begin}'s answer for a batch written to the large area. */
    static final int LARGE = -1;
    private static final int LARGE_STATE = 16;

    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final Path file;
    /** Marked by every record begun; the fsync policy syncs the file (see {@link Durability}). */
    private final SyncTarget dirty;
    private final int slots;
    private final FileChannel channel;
    private final MappedByteBuffer buf;
    private final ReentrantLock largeLock = new ReentrantLock();

    /** One write of a batch: {@code value} null means the key is removed. */
    public record Entry(byte[] key, byte[] value) {
        @Override
        public String toString() {
            return new String(key, java.nio.charset.StandardCharsets.ISO_8859_1)
                    + (value == null ? " removed" : " = " + value.length + " bytes");
        }
    }

    private BatchJournal(Path file, int slots, int slotSize, FileChannel channel, MappedByteBuffer buf) {
        this.slotSize = slotSize;
        this.slotBody = slotSize - SLOT_HEADER;
        this.file = file;
        this.slots = slots;
        this.channel = channel;
        this.buf = buf;
        this.dirty = SyncTarget.ofFile(Durability.forFile(file), SyncTarget.JOURNAL, file);
    }

    /** Opens (creating if needed) the batch journal at {@code file} with {@code slots} slots. */
    public static BatchJournal open(Path file, int slots) {
        return open(file, slots, SLOT_SIZE);
    }

    /**
     * Opens (creating if needed) a batch journal of {@code slots} slots of {@code slotSize} bytes
     * (a multiple of 8, at least 64); an existing file must have been made with the same.
     */
    public static BatchJournal open(Path file, int slots, int slotSize) {
        if (slotSize < 64 || slotSize % 8 != 0) {
            throw new IllegalArgumentException("slot size " + slotSize);
        }
        FileChannel ch = null;
        try {
            ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            MappedByteBuffer buf = JournalFile.mapWithHeader(ch, file, HEADER + (long) slots * slotSize, MAGIC,
                    "a batch journal of " + slots + " slots of " + slotSize + " bytes", slots, slotSize);
            return new BatchJournal(file, slots, slotSize, ch, buf);
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

    public Path file() {
        return file;
    }

    private int slotOffset(int slot) {
        return HEADER + slot * slotSize;
    }

    private long largeOffset() {
        return HEADER + (long) slots * slotSize;
    }

    /**
     * Records the writes of one multi-key command before any is made, and marks them pending.
     * {@code slot} is the lowest stripe the command holds. Returns the token to give {@link #end}
     * (in a finally) once every write is done.
     */
    public int begin(int slot, List<Entry> writes) {
        long len = 0;
        for (Entry w : writes) {
            len += 8L + w.key().length + (w.value() == null ? 0 : w.value().length);
        }
        if (len <= slotBody) {
            int at = slotOffset(slot);
            int p = at + SLOT_HEADER;
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
            buf.putInt(at + 4, writes.size());
            buf.putInt(at + 8, (int) len);
            // the body is complete before it is marked, and marked before the map is touched
            INT.setVolatile(buf, at, PENDING);
            dirty.mark();
            return slot;
        }
        largeLock.lock();
        boolean ok = false;
        try {
            writeLarge(writes, len);
            buf.putInt(LARGE_STATE + 4, writes.size());
            buf.putLong(LARGE_STATE + 8, len);
            INT.setVolatile(buf, LARGE_STATE, PENDING);
            dirty.mark();
            ok = true;
            return LARGE;
        } finally {
            if (!ok) {
                largeLock.unlock();
            }
        }
    }

    private void writeLarge(List<Entry> writes, long len) {
        if (len > Integer.MAX_VALUE) {
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
            long pos = largeOffset();
            while (body.hasRemaining()) {
                pos += channel.write(body, pos);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether a batch of {@code writes} fits a slot of a journal of the default slot size. */
    public static boolean fitsSlot(List<Entry> writes) {
        long len = 0;
        for (Entry w : writes) {
            len += 8L + w.key().length + (w.value() == null ? 0 : w.value().length);
        }
        return len <= SLOT_BODY;
    }

    /** Every write of the batch {@code token} names is done (or none was made): clears its mark. */
    public void end(int token) {
        if (token == LARGE) {
            try {
                INT.setRelease(buf, LARGE_STATE, IDLE);
            } finally {
                largeLock.unlock();
            }
            return;
        }
        // ordered after every store of the map operations, including Chronicle's checksums
        INT.setRelease(buf, slotOffset(token), IDLE);
    }

    /**
     * The batches that were in flight when this journal was last used (none if it stopped
     * cleanly). Reads through the file, so that slots never used stay holes.
     */
    public List<List<Entry>> pending() {
        List<List<Entry>> out = new ArrayList<>();
        try {
            ByteBuffer dense = ByteBuffer.allocate(HEADER + slots * slotSize).order(ByteOrder.LITTLE_ENDIAN);
            JournalFile.readFully(channel, file, dense, 0);
            for (int s = 0; s < slots; s++) {
                int at = slotOffset(s);
                int state = dense.getInt(at);
                if (state == IDLE) {
                    continue;
                }
                int count = dense.getInt(at + 4);
                int len = dense.getInt(at + 8);
                if (state != PENDING || count < 0 || len < 0 || len > slotBody) {
                    throw damaged("slot " + s + ": state " + state + ", " + count + " records, " + len + " bytes");
                }
                out.add(parse(dense.slice(at + SLOT_HEADER, len).order(ByteOrder.LITTLE_ENDIAN), count, "slot " + s));
            }
            int state = dense.getInt(LARGE_STATE);
            if (state != IDLE) {
                int count = dense.getInt(LARGE_STATE + 4);
                long len = dense.getLong(LARGE_STATE + 8);
                if (state != PENDING || count < 0 || len < 0 || len > Integer.MAX_VALUE
                        || largeOffset() + len > channel.size()) {
                    throw damaged("large batch: state " + state + ", " + count + " records, " + len + " bytes");
                }
                ByteBuffer body = ByteBuffer.allocate((int) len).order(ByteOrder.LITTLE_ENDIAN);
                JournalFile.readFully(channel, file, body, largeOffset());
                body.flip();
                out.add(parse(body, count, "large batch"));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<Entry> parse(ByteBuffer body, int count, String where) {
        List<Entry> batch = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            if (body.remaining() < 8) {
                throw damaged(where + ": record " + i + " of " + count + " is cut short");
            }
            int kl = body.getInt();
            int vl = body.getInt();
            if (kl < 0 || vl < REMOVED || (long) kl + Math.max(vl, 0) > body.remaining()) {
                throw damaged(where + ": record " + i + ": key " + kl + " bytes, value " + vl + " bytes");
            }
            byte[] key = new byte[kl];
            body.get(key);
            byte[] value = null;
            if (vl != REMOVED) {
                value = new byte[vl];
                body.get(value);
            }
            batch.add(new Entry(key, value));
        }
        return batch;
    }

    /** After {@link #pending} was applied on open: nothing is in flight any more. */
    public void clearAll() {
        for (int s = 0; s < slots; s++) {
            if (buf.getInt(slotOffset(s)) != IDLE) {
                INT.setRelease(buf, slotOffset(s), IDLE);
            }
        }
        if (buf.getInt(LARGE_STATE) != IDLE) {
            INT.setRelease(buf, LARGE_STATE, IDLE);
        }
    }

    private IllegalStateException damaged(String what) {
        return new IllegalStateException(file + " is damaged: " + what);
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Closes, unmaps and deletes the journal: nothing may be in flight (the caller holds every
     * stripe, or has just applied and cleared what was pending). A keyspace creates its journals
     * again on the first write that needs one, so an idle keyspace keeps no journal.
     */
    public void closeAndDelete() {
        dirty.retire();
        close();
        JournalFile.unmap(buf);
        try {
            java.nio.file.Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
