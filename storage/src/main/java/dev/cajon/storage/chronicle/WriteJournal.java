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

/**
 * The writes to a keyspace's map that are in flight, kept in a memory-mapped file so that a
 * process crash cannot lose a key that was being overwritten.
 *
 * <p>Why: Chronicle Map writes a replaced value in place and stores the entry's checksum when the
 * operation's context closes. A process killed between the two leaves an entry whose checksum
 * does not match, and {@code recoverPersistedTo} drops it: the key's acknowledged old value is
 * gone and the new one was never complete. So before every overwrite, the key and the complete
 * new stored value are written to the slot of the key's stripe, and the slot is marked pending;
 * after the map operation (context closed, checksum stored) the mark is cleared. On the next
 * open, every slot still pending is applied again, which leaves the key with the value of the
 * write that was in flight. Inserts and removals need no slot: recovery drops a torn entry,
 * which leaves an insert not done (the key was absent) and a removal done.
 *
 * <p>One slot per stripe: a slot is only written by the holder of its stripe lock, so slots need
 * no lock of their own, and at most one write per stripe can be in flight. Small records live
 * inline in a dense array of 512-byte slots (half a MiB for 1024 stripes); a record that does not
 * fit (a long key or a value of up to 16 KiB) goes to the slot's part of a sparse overflow area,
 * whose pages only exist once such a write happened on that stripe. (A sparse 32 KiB slot per
 * stripe for everything cost about 21 MiB of disk on ext4 once every stripe had written.)
 *
 * <h2>Persisted layout (little-endian; pinned by WriteJournalTest)</h2>
 * <pre>
 * header, 64 bytes:  magic "CJOURNL1" (8) | slot count (int) | slot size 512 (int)
 *                    | overflow slot size 32768 (int) | zeros
 * slot i at 64 + i * 512:
 *   state (int: 0 idle, 1 put pending, record inline, 2 put pending, record in overflow slot i)
 *   | key length (int) | value length (int) | key | value   (the last two only when inline)
 * overflow slot i at 64 + slots * 512 + i * 32768:  key | value
 * </pre>
 * The page cache protects against the process dying; against a power cut, the fsync policy
 * syncs the file after each record begun ({@link Durability}), in the same pass as the map and
 * before it.
 */
public final class WriteJournal implements AutoCloseable {
    static final byte[] MAGIC = {'C', 'J', 'O', 'U', 'R', 'N', 'L', '1'};
    static final int HEADER = JournalFile.HEADER;
    static final int SLOT_SIZE = 512;
    /** Room for the largest inline key (8 KiB, escaped) and inline value (16 KiB plus header). */
    public static final int OVERFLOW_SLOT_SIZE = 32 * 1024;
    static final int SLOT_HEADER = 12;
    static final int INLINE_MAX = SLOT_SIZE - SLOT_HEADER;
    static final int IDLE = 0;
    static final int PUT_INLINE = 1;
    static final int PUT_OVERFLOW = 2;

    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final Path file;
    /** Marked by every record begun; the fsync policy syncs the file (see {@link Durability}). */
    private final SyncTarget dirty;
    private final int slots;
    private final MappedByteBuffer buf;

    /** A write that was in flight when the process stopped. */
    public record Pending(int slot, byte[] key, byte[] value) { }

    private WriteJournal(Path file, int slots, MappedByteBuffer buf) {
        this.file = file;
        this.slots = slots;
        this.buf = buf;
        this.dirty = SyncTarget.ofFile(Durability.forFile(file), SyncTarget.JOURNAL, file);
    }

    /** Opens (creating if needed) the journal with {@code slots} slots. */
    public static WriteJournal open(Path file, int slots) {
        long size = HEADER + (long) slots * (SLOT_SIZE + OVERFLOW_SLOT_SIZE);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            MappedByteBuffer buf = JournalFile.mapWithHeader(ch, file, size, MAGIC,
                    "a write journal of " + slots + " slots", slots, SLOT_SIZE, OVERFLOW_SLOT_SIZE);
            return new WriteJournal(file, slots, buf);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path file() {
        return file;
    }

    private static int offset(int slot) {
        return HEADER + slot * SLOT_SIZE;
    }

    private int overflowOffset(int slot) {
        return HEADER + slots * SLOT_SIZE + slot * OVERFLOW_SLOT_SIZE;
    }

    /** Whether a write of a key and value of these lengths fits a slot (see {@link #begin}). */
    public static boolean fits(int keyLength, int valueLength) {
        return (long) keyLength + valueLength <= OVERFLOW_SLOT_SIZE;
    }

    /**
     * Records that {@code value} is about to be stored under {@code key}. The caller holds the
     * lock that owns {@code slot} and calls {@link #end} once the map operation is complete.
     */
    public void begin(int slot, byte[] key, byte[] value) {
        int n = key.length + value.length;
        if (!fits(key.length, value.length)) {
            throw new IllegalArgumentException("write of " + key.length + " + " + value.length
                    + " bytes does not fit a journal slot");
        }
        int at = offset(slot);
        int data = n <= INLINE_MAX ? at + SLOT_HEADER : overflowOffset(slot);
        buf.putInt(at + 4, key.length);
        buf.putInt(at + 8, value.length);
        buf.put(data, key);
        buf.put(data + key.length, value);
        // the record is complete before it is marked, and marked before the map is touched
        INT.setVolatile(buf, at, n <= INLINE_MAX ? PUT_INLINE : PUT_OVERFLOW);
        dirty.mark();
    }

    /**
     * The write of {@code slot} is complete (or did not happen): clears its mark. A slot that is
     * already idle is only read, so callers may end a slot they did not begin without dirtying
     * the journal's page.
     */
    public void end(int slot) {
        int at = offset(slot);
        if (buf.getInt(at) != IDLE) {
            // ordered after every store of the map operation, including Chronicle's checksum
            INT.setRelease(buf, at, IDLE);
        }
    }

    /**
     * The writes that were in flight when this journal was last used. Reads the slots through the
     * file, not the mapping, so that overflow slots never used stay holes.
     */
    public List<Pending> pending() {
        List<Pending> out = new ArrayList<>();
        ByteBuffer dense = ByteBuffer.allocate(slots * SLOT_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            JournalFile.readFully(ch, file, dense, HEADER);
            for (int s = 0; s < slots; s++) {
                int at = s * SLOT_SIZE;
                int state = dense.getInt(at);
                if (state == IDLE) {
                    continue;
                }
                int kl = dense.getInt(at + 4);
                int vl = dense.getInt(at + 8);
                long n = (long) kl + vl;
                boolean inline = state == PUT_INLINE;
                if (state != PUT_INLINE && state != PUT_OVERFLOW || kl < 0 || vl < 0
                        || n > (inline ? INLINE_MAX : OVERFLOW_SLOT_SIZE)) {
                    throw new IllegalStateException(file + ": slot " + s + " is damaged (state " + state
                            + ", key " + kl + " bytes, value " + vl + " bytes)");
                }
                byte[] key = new byte[kl];
                byte[] value = new byte[vl];
                int data = inline ? HEADER + at + SLOT_HEADER : overflowOffset(s);
                buf.get(data, key);
                buf.get(data + kl, value);
                out.add(new Pending(s, key, value));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    @Override
    public void close() {
        // the mapping is released with the buffer; every write has ended by now
    }

    /**
     * Unmaps and deletes the journal: every write has ended (the caller holds every stripe, or
     * has just replayed the journal). See {@link BatchJournal#closeAndDelete}.
     */
    public void closeAndDelete() {
        dirty.retire();
        JournalFile.unmap(buf);
        try {
            java.nio.file.Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
