package dev.cajon.storage;

import dev.cajon.storage.chronicle.ValueHeader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The bit operations on strings of one keyspace (Redis's bitops.c, and LCS from t_string.c):
 * SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD and BITFIELD_RO, LCS. Written on the
 * {@link KeyspaceEngine}'s primitives as {@link StringOps} is: keys mapped with
 * {@link KeyCodec#mapKey}, bodies under {@link KeyspaceEngine#locked}, reads with
 * {@code readLive(key, TYPE_STRING)} (a key of another type is {@link OpStatus#WRONG_TYPE}),
 * writes with {@link KeyspaceEngine#put} / {@link KeyspaceEngine#putEncoded}. Argument parsing
 * and replies are the server's; what comes in here is already numbers.
 *
 * <p>Bit order is Redis's: bit offset 0 is the most significant bit of byte 0. A string read
 * past its end is zeros; a write past its end grows it with zero bytes (Redis's sdsgrowzero).
 *
 * <h2>Large bitmaps</h2>
 * A string longer than {@value Keyspace#BLOB_THRESHOLD} bytes lives in a blob file, and a bit
 * offset may reach 2^32-1 (a 512 MiB string). Reads (GETBIT, BITCOUNT, BITPOS, BITFIELD GET,
 * BITOP's sources) read the file in {@value #CHUNK}-byte pieces, never the whole value onto the
 * heap. A write is a small patch of bytes ({@link Patch}), applied in one of three ways:
 * <ul>
 *   <li>the result fits in the map entry: the new value is built and stored whole (at most
 *       {@value Keyspace#BLOB_THRESHOLD} bytes copied, as SETRANGE does);</li>
 *   <li>every patched byte lies past a blob's published length (a bitmap growing, the usual way
 *       a large one is built): the bytes are written past the end of the same file and the new
 *       length is then published, as APPEND does. O(patch), and a new bitmap's untouched
 *       bytes are a hole in a sparse file. Bytes past the published end that an earlier,
 *       abandoned write left there are zeroed first;</li>
 *   <li>a patched byte lies inside a blob's published length: the blob is copied and the copy
 *       patched and published (copy-on-write). This costs O(length) per write. It is what keeps
 *       {@link dev.cajon.storage.blob.BlobStore}'s promise that bytes inside a published length are
 *       never overwritten: a GET streaming the old value from its open channel, a transaction's
 *       take-back and a crash all see either the old value or the new one, never a mix.</li>
 * </ul>
 * A write that changes nothing (SETBIT to the bit's current value, inside the string) writes
 * nothing and touches no watch, as in Redis.
 */
public final class BitOps {
    /** The largest bit offset Redis takes: the last bit of a proto-max-bulk-len string. */
    public static final long MAX_BIT_OFFSET = Keyspace.MAX_STRING_LENGTH * 8 - 1;
    /** How much of a blob a scan reads at a time. */
    static final int CHUNK = 64 * 1024;

    /** BITOP's operations. */
    public enum BitOp { AND, OR, XOR, NOT }

    /** BITFIELD's OVERFLOW behaviours. */
    public enum Overflow { WRAP, SAT, FAIL }

    /** BITFIELD's subcommands. */
    public enum FieldKind { GET, SET, INCRBY }

    /**
     * One BITFIELD subcommand, parsed: {@code bits} is 1..64 signed or 1..63 unsigned, {@code offset}
     * the bit offset (a {@code #n} offset already multiplied), {@code value} the SET value or the
     * INCRBY increment, {@code overflow} the OVERFLOW in force for it.
     */
    public record FieldOp(FieldKind kind, boolean signed, int bits, long offset, long value, Overflow overflow) {
        boolean writes() {
            return kind != FieldKind.GET;
        }
    }

    /**
     * A status and a number (the bit, the count, the position, the length); {@code found}: the key
     * existed (INFO's keyspace_hits and keyspace_misses count a read command's lookup).
     */
    public record BitResult(OpStatus status, long value, boolean found) {
        static final BitResult WRONG = new BitResult(OpStatus.WRONG_TYPE, 0, true);

        public BitResult(OpStatus status, long value) {
            this(status, value, true);
        }

        static BitResult missing(long value) {
            return new BitResult(OpStatus.OK, value, false);
        }
    }

    /**
     * BITFIELD's replies, one per subcommand: {@code values[i]}, or nil where {@code failed[i]}
     * (OVERFLOW FAIL stopped that write).
     */
    public record FieldResult(OpStatus status, long[] values, boolean[] failed, boolean found) {
    }

    private final KeyspaceEngine e;

    BitOps(KeyspaceEngine e) {
        this.e = e;
    }

    // ------------------------------------------------------------------ probing

    /**
     * Whether the key holds a string: OK, NOT_FOUND or WRONG_TYPE. For the commands whose
     * argument errors Redis reports only after its lookup (BITCOUNT, BITPOS, LCS): the server
     * parses first and asks this when the arguments were bad.
     */
    public OpStatus probe(byte[] userKey) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] v = e.readLive(key, ValueHeader.TYPE_STRING);
            return v == null ? OpStatus.NOT_FOUND : v == KeyspaceEngine.WRONG_TYPE ? OpStatus.WRONG_TYPE : OpStatus.OK;
        });
    }

    // ------------------------------------------------------------------ SETBIT, GETBIT

    /** SETBIT: the bit's previous value. {@code offset} is 0..{@link #MAX_BIT_OFFSET}. */
    public BitResult setBit(byte[] userKey, long offset, boolean on) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] old = e.readLive(key, ValueHeader.TYPE_STRING);
            if (old == KeyspaceEngine.WRONG_TYPE) {
                return BitResult.WRONG;
            }
            long index = offset >>> 3;
            int mask = 1 << (7 - (int) (offset & 7));
            try (Str s = new Str(old)) {
                int cur = index < s.len ? s.byteAt(index) : 0;
                int now = on ? cur | mask : cur & ~mask;
                boolean grows = old == null || index >= s.len;
                if (grows || now != cur) {
                    Patch p = new Patch();
                    p.put(index, now);
                    commit(key, old, s, p, Math.max(s.len, index + 1));
                }
                return new BitResult(OpStatus.OK, (cur & mask) != 0 ? 1 : 0);
            }
        });
    }

    /** GETBIT: the bit, 0 past the end or for a missing key. */
    public BitResult getBit(byte[] userKey, long offset) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] v = e.readLive(key, ValueHeader.TYPE_STRING);
            if (v == KeyspaceEngine.WRONG_TYPE) {
                return BitResult.WRONG;
            }
            if (v == null) {
                return BitResult.missing(0);
            }
            long index = offset >>> 3;
            try (Str s = new Str(v)) {
                int b = index < s.len ? s.byteAt(index) : 0;
                return new BitResult(OpStatus.OK, (b >> (7 - (int) (offset & 7))) & 1);
            }
        });
    }

    // ------------------------------------------------------------------ BITCOUNT, BITPOS

    /**
     * BITCOUNT: the set bits of the whole string, or (when {@code ranged}) of {@code start..end}
     * counted in bytes or, with {@code isBit}, in bits; negative indexes count from the end, as in
     * Redis's bitcountCommand.
     */
    public BitResult bitCount(byte[] userKey, boolean ranged, long start, long end, boolean isBit) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] v = e.readLive(key, ValueHeader.TYPE_STRING);
            if (v == KeyspaceEngine.WRONG_TYPE) {
                return BitResult.WRONG;
            }
            if (v == null) {
                return BitResult.missing(0);
            }
            try (Str s = new Str(v)) {
                long first;
                long last;
                if (!ranged) {
                    first = 0;
                    last = s.len * 8 - 1;
                } else {
                    if (start < 0 && end < 0 && start > end) {
                        return new BitResult(OpStatus.OK, 0);
                    }
                    long total = isBit ? s.len * 8 : s.len;
                    long a = clampStart(start, total);
                    long b = clampEnd(end, total);
                    if (a > b) {
                        return new BitResult(OpStatus.OK, 0);
                    }
                    first = isBit ? a : a * 8;
                    last = isBit ? b : b * 8 + 7;
                }
                return new BitResult(OpStatus.OK, first > last ? 0 : countBits(s, first, last));
            }
        });
    }

    /**
     * BITPOS: the first bit equal to {@code bit} in the whole string or in {@code start..end}
     * ({@code hasStart}, {@code hasEnd}; bytes or, with {@code isBit}, bits), or -1. A missing key
     * is all zeros (0 for a clear bit, -1 for a set one). Looking for a clear bit without an end,
     * the string counts as padded with zeros on the right: the answer is then its bit length.
     */
    public BitResult bitPos(byte[] userKey, int bit, boolean hasStart, long start, boolean hasEnd, long end,
                            boolean isBit) {
        byte[] key = KeyCodec.mapKey(userKey);
        return e.locked(key, userKey, () -> {
            byte[] v = e.readLive(key, ValueHeader.TYPE_STRING);
            if (v == KeyspaceEngine.WRONG_TYPE) {
                return BitResult.WRONG;
            }
            if (v == null) {
                return BitResult.missing(bit == 1 ? -1 : 0);
            }
            try (Str s = new Str(v)) {
                long total = isBit ? s.len * 8 : s.len;
                long a = 0;
                long b = total - 1;
                if (hasStart) {
                    a = clampStart(start, total);
                    b = clampEnd(hasEnd ? end : total - 1, total);
                }
                if (a > b) {
                    return new BitResult(OpStatus.OK, -1);
                }
                long first = isBit ? a : a * 8;
                long last = isBit ? b : b * 8 + 7;
                long pos = findBit(s, bit, first, last);
                if (pos < 0 && bit == 0 && !hasEnd) {
                    // the zero padding on the right: the first bit of the byte after the range
                    pos = (last / 8 + 1) * 8;
                }
                return new BitResult(OpStatus.OK, pos);
            }
        });
    }

    private static long clampStart(long start, long total) {
        if (start < 0) {
            start = total + start;
        }
        return Math.max(0, start);
    }

    private static long clampEnd(long end, long total) {
        if (end < 0) {
            end = total + end;
        }
        end = Math.max(0, end);
        return end >= total ? total - 1 : end;
    }

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /** The set bits of bits {@code first..last} (inclusive, both inside the string). */
    static long countBits(Str s, long first, long last) {
        long firstByte = first >>> 3;
        long lastByte = last >>> 3;
        long count = 0;
        byte[] buf = s.chunkBuffer();
        int size = s.isBlob() ? buf.length : Integer.MAX_VALUE;
        for (long pos = firstByte; pos <= lastByte; ) {
            int n = (int) Math.min(size, lastByte - pos + 1);
            int off = s.readChunk(pos, buf, n);
            byte[] a = s.chunkArray(buf);
            int i = off;
            int stop = off + n;
            for (; i + 8 <= stop; i += 8) {
                count += Long.bitCount((long) LONGS.get(a, i));
            }
            for (; i < stop; i++) {
                count += Integer.bitCount(a[i] & 0xff);
            }
            pos += n;
        }
        // the bits of the edge bytes outside the range
        int head = (int) (first & 7);
        if (head != 0) {
            count -= Integer.bitCount(s.byteAt(firstByte) & ~(0xff >> head) & 0xff);
        }
        int tail = (int) (last & 7);
        if (tail != 7) {
            count -= Integer.bitCount(s.byteAt(lastByte) & (0xff >> (tail + 1)));
        }
        return count;
    }

    /** The first bit equal to {@code bit} among bits {@code first..last} (inside the string), or -1. */
    static long findBit(Str s, int bit, long first, long last) {
        long firstByte = first >>> 3;
        long lastByte = last >>> 3;
        int skip = bit == 1 ? 0 : 0xff; // a byte with no bit of the kind sought
        byte[] buf = s.chunkBuffer();
        int size = s.isBlob() ? buf.length : Integer.MAX_VALUE;
        for (long pos = firstByte; pos <= lastByte; ) {
            int n = (int) Math.min(size, lastByte - pos + 1);
            int off = s.readChunk(pos, buf, n);
            byte[] a = s.chunkArray(buf);
            for (int i = 0; i < n; i++) {
                int b = a[off + i] & 0xff;
                long idx = pos + i;
                if (idx == firstByte || idx == lastByte) {
                    // bits outside the range count as not the kind sought
                    int lo = idx == firstByte ? (int) (first & 7) : 0;
                    int hi = idx == lastByte ? (int) (last & 7) : 7;
                    int inRange = (0xff >> lo) & (0xff << (7 - hi)) & 0xff;
                    b = bit == 1 ? b & inRange : b | ~inRange & 0xff;
                }
                if (b != skip) {
                    int v = bit == 1 ? b : ~b & 0xff;
                    return idx * 8 + Integer.numberOfLeadingZeros(v) - 24;
                }
            }
            pos += n;
        }
        return -1;
    }

    // ------------------------------------------------------------------ BITOP

    /**
     * BITOP: {@code dest} = op over {@code sources} (missing keys are empty strings, shorter ones
     * padded with zeros); the result's length, the longest source's. An empty result deletes
     * {@code dest}. The result clears dest's TTL and overwrites any type, as SET does. Sources and
     * destination are read and written with all their stripes held; only dest is written, so the
     * single-write journal covers the command (a batch is for two writes or more).
     */
    public BitResult bitOp(BitOp op, byte[] userDest, byte[][] userSources) {
        byte[][] uk = new byte[userSources.length + 1][];
        uk[0] = userDest;
        System.arraycopy(userSources, 0, uk, 1, userSources.length);
        byte[][] ks = KeyspaceEngine.mapKeys(uk, 0);
        return e.locked(ks, uk, () -> {
            Str[] src = new Str[userSources.length];
            try {
                long max = 0;
                for (int i = 0; i < src.length; i++) {
                    byte[] v = e.readLive(ks[i + 1], ValueHeader.TYPE_STRING);
                    if (v == KeyspaceEngine.WRONG_TYPE) {
                        return BitResult.WRONG;
                    }
                    src[i] = new Str(v);
                    max = Math.max(max, src[i].len);
                }
                byte[] dest = ks[0];
                byte[] old = e.readLive(dest);
                if (max == 0) {
                    if (old != null) {
                        e.removeStored(dest, old);
                    }
                    return new BitResult(OpStatus.OK, 0);
                }
                if (max <= Keyspace.BLOB_THRESHOLD) {
                    byte[] out = new byte[(int) max];
                    combine(op, src, 0, out, out.length);
                    e.putEncoded(dest, ValueHeader.raw(out, ValueHeader.NO_EXPIRY), old);
                } else {
                    byte[] out = new byte[CHUNK];
                    long id = -1;
                    try {
                        for (long pos = 0; pos < max; pos += CHUNK) {
                            int n = (int) Math.min(CHUNK, max - pos);
                            combine(op, src, pos, out, n);
                            if (id < 0) {
                                id = e.blobs.create(out, 0, n);
                            } else {
                                e.blobs.writeAt(id, pos, out, 0, n);
                            }
                        }
                    } catch (RuntimeException ex) {
                        if (id >= 0) {
                            e.blobs.delete(id);
                        }
                        throw ex;
                    }
                    e.putEncoded(dest, ValueHeader.blob(id, max, ValueHeader.NO_EXPIRY), old);
                }
                return new BitResult(OpStatus.OK, max);
            } finally {
                for (Str s : src) {
                    if (s != null) {
                        s.close();
                    }
                }
            }
        });
    }

    /** {@code out[0..n)} = op over the sources' bytes {@code [pos, pos+n)} (zeros past an end). */
    private static void combine(BitOp op, Str[] src, long pos, byte[] out, int n) {
        byte[] tmp = new byte[n];
        for (int j = 0; j < src.length; j++) {
            Str s = src[j];
            int have = (int) Math.max(0, Math.min(n, s.len - pos));
            if (have > 0) {
                s.read(pos, tmp, 0, have);
            }
            Arrays.fill(tmp, have, n, (byte) 0);
            if (j == 0) {
                if (op == BitOp.NOT) {
                    for (int i = 0; i < n; i++) {
                        out[i] = (byte) ~tmp[i];
                    }
                } else {
                    System.arraycopy(tmp, 0, out, 0, n);
                }
                continue;
            }
            for (int i = 0; i < n; i++) {
                switch (op) {
                    case AND -> out[i] &= tmp[i];
                    case OR -> out[i] |= tmp[i];
                    case XOR -> out[i] ^= tmp[i];
                    default -> throw new IllegalStateException("NOT takes one source");
                }
            }
        }
    }

    // ------------------------------------------------------------------ BITFIELD

    /**
     * BITFIELD and BITFIELD_RO: runs {@code ops} in order on one key, under its stripe lock. With
     * any SET or INCRBY the string first grows to cover the farthest bit a write names (even one
     * OVERFLOW FAIL then stops), as Redis's lookupStringForBitCommand does; with GETs only a
     * missing key stays missing. The string is written once, at the end, if anything changed.
     */
    public FieldResult bitField(byte[] userKey, List<FieldOp> ops) {
        byte[] key = KeyCodec.mapKey(userKey);
        boolean writes = false;
        long highest = 0;
        for (FieldOp op : ops) {
            if (op.writes()) {
                writes = true;
                highest = Math.max(highest, op.offset() + op.bits() - 1);
            }
        }
        boolean anyWrite = writes;
        long farthest = highest;
        return e.locked(key, userKey, () -> {
            byte[] old = e.readLive(key, ValueHeader.TYPE_STRING);
            if (old == KeyspaceEngine.WRONG_TYPE) {
                return new FieldResult(OpStatus.WRONG_TYPE, null, null, true);
            }
            long[] values = new long[ops.size()];
            boolean[] failed = new boolean[ops.size()];
            try (Str s = new Str(old)) {
                Patch p = new Patch();
                long newLen = s.len;
                boolean dirty = false;
                if (anyWrite && (old == null || (farthest >>> 3) >= s.len)) {
                    newLen = Math.max(s.len, (farthest >>> 3) + 1);
                    dirty = true;
                }
                boolean changed = BitFields.apply(s, p, ops, values, failed);
                if (dirty || changed) {
                    commit(key, old, s, p, newLen);
                }
            }
            return new FieldResult(OpStatus.OK, values, failed, old != null);
        });
    }

    // ------------------------------------------------------------------ reading and writing

    /**
     * Stores the string {@code base} (the key's live value {@code old}, or absent) with
     * {@code patch} applied and grown to {@code newLen}, keeping its TTL; see the class comment
     * for the three ways.
     */
    private void commit(byte[] key, byte[] old, Str base, Patch patch, long newLen) {
        long at = old == null ? ValueHeader.NO_EXPIRY : ValueHeader.expireAt(old);
        long oldLen = base.len;
        boolean blob = old != null && ValueHeader.isBlob(old);
        if (!blob && newLen <= Keyspace.BLOB_THRESHOLD) {
            byte[] buf = new byte[(int) newLen];
            base.read(0, buf, 0, (int) oldLen);
            patch.applyTo(buf);
            e.putEncoded(key, ValueHeader.raw(buf, at), old);
            return;
        }
        patch.dropUnchanged(base);
        if (newLen > oldLen && !patch.has(newLen - 1)) {
            patch.put(newLen - 1, 0); // the file reaches the new length
        }
        if (blob && patch.lowest() >= oldLen) {
            long id = ValueHeader.blobId(old);
            zeroPastEnd(id, oldLen, newLen);
            patch.writeTo(e.blobs, id);
            e.put(key, ValueHeader.blob(id, newLen, at), old);
            return;
        }
        long id;
        if (blob) {
            id = e.blobs.copyFrom(e.blobs, ValueHeader.blobId(old), oldLen); // copy-on-write
        } else {
            byte[] cur = new byte[(int) oldLen];
            base.read(0, cur, 0, cur.length);
            id = e.blobs.create(cur, 0, cur.length);
        }
        try {
            patch.writeTo(e.blobs, id);
        } catch (RuntimeException ex) {
            e.blobs.delete(id);
            throw ex;
        }
        e.putEncoded(key, ValueHeader.blob(id, newLen, at), old);
    }

    /**
     * Zeroes what an abandoned write (an APPEND or a growth that ran out of room, a take-back) may
     * have left in blob {@code id} between its published length and {@code newLen}; past the
     * file's end the bytes read as zeros already.
     */
    private void zeroPastEnd(long id, long oldLen, long newLen) {
        long size;
        try (FileChannel ch = e.blobs.open(id)) {
            size = ch.size();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        long stop = Math.min(size, newLen);
        if (stop <= oldLen) {
            return;
        }
        byte[] zeros = new byte[(int) Math.min(CHUNK, stop - oldLen)];
        for (long pos = oldLen; pos < stop; pos += zeros.length) {
            e.blobs.writeAt(id, pos, zeros, 0, (int) Math.min(zeros.length, stop - pos));
        }
    }

    /** The bytes a write changes, by index: read through over the string it patches. */
    static final class Patch {
        private final TreeMap<Long, Integer> bytes = new TreeMap<>();

        void put(long index, int value) {
            bytes.put(index, value & 0xff);
        }

        boolean has(long index) {
            return bytes.containsKey(index);
        }

        long lowest() {
            return bytes.isEmpty() ? Long.MAX_VALUE : bytes.firstKey();
        }

        /** Forgets the entries inside the string that equal its byte (a field's untouched neighbours). */
        void dropUnchanged(Str s) {
            bytes.entrySet().removeIf(en -> en.getKey() < s.len && s.byteAt(en.getKey()) == en.getValue());
        }

        /** The byte at {@code index} as patched: the patch's, else the string's, else zero. */
        int byteAt(Str s, long index) {
            Integer v = bytes.get(index);
            if (v != null) {
                return v;
            }
            return index < s.len ? s.byteAt(index) : 0;
        }

        void applyTo(byte[] buf) {
            for (Map.Entry<Long, Integer> en : bytes.entrySet()) {
                buf[(int) (long) en.getKey()] = (byte) (int) en.getValue();
            }
        }

        /** Writes the patched bytes into blob {@code id}, one write per run of adjacent bytes. */
        void writeTo(dev.cajon.storage.blob.BlobStore blobs, long id) {
            long runStart = -1;
            byte[] run = new byte[16];
            int n = 0;
            for (Map.Entry<Long, Integer> en : bytes.entrySet()) {
                long idx = en.getKey();
                if (n > 0 && idx != runStart + n) {
                    blobs.writeAt(id, runStart, run, 0, n);
                    n = 0;
                }
                if (n == 0) {
                    runStart = idx;
                }
                if (n == run.length) {
                    run = Arrays.copyOf(run, n * 2);
                }
                run[n++] = (byte) (int) en.getValue();
            }
            if (n > 0) {
                blobs.writeAt(id, runStart, run, 0, n);
            }
        }
    }

    /** A live string as a bit operation reads it: the map entry's bytes, or its blob file. */
    final class Str implements AutoCloseable {
        /** Its length in bytes; 0 for a missing key. */
        final long len;
        private final byte[] stored;
        private final int off;
        private final long blobId;
        private FileChannel ch;

        Str(byte[] stored) {
            this.stored = stored;
            if (stored == null) {
                len = 0;
                off = 0;
                blobId = ValueHeader.NO_BLOB;
            } else if (ValueHeader.isBlob(stored)) {
                len = ValueHeader.blobLength(stored);
                off = 0;
                blobId = ValueHeader.blobId(stored);
            } else {
                off = ValueHeader.payloadOffset(stored);
                len = stored.length - off;
                blobId = ValueHeader.NO_BLOB;
            }
        }

        boolean isBlob() {
            return blobId != ValueHeader.NO_BLOB;
        }

        /** The byte at {@code index} (inside the string). */
        int byteAt(long index) {
            if (!isBlob()) {
                return stored[off + (int) index] & 0xff;
            }
            byte[] one = new byte[1];
            read(index, one, 0, 1);
            return one[0] & 0xff;
        }

        /** Copies {@code [pos, pos+n)} (inside the string) into {@code dst}. */
        void read(long pos, byte[] dst, int dOff, int n) {
            if (n == 0) {
                return;
            }
            if (!isBlob()) {
                System.arraycopy(stored, off + (int) pos, dst, dOff, n);
                return;
            }
            try {
                if (ch == null) {
                    ch = e.blobs.open(blobId);
                }
                ByteBuffer bb = ByteBuffer.wrap(dst, dOff, n);
                long p = pos;
                while (bb.hasRemaining()) {
                    int r = ch.read(bb, p);
                    if (r < 0) {
                        throw new IOException("blob " + Long.toHexString(blobId) + " is shorter than its header says");
                    }
                    p += r;
                }
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }

        /** A buffer for {@link #readChunk}: none needed for an inline string, which is read in place. */
        byte[] chunkBuffer() {
            return isBlob() ? new byte[CHUNK] : null;
        }

        /**
         * Makes {@code [pos, pos+n)} readable in {@link #chunkArray}: returns the offset there. An
         * inline string is read in place; a blob's bytes are read into {@code buf}.
         */
        int readChunk(long pos, byte[] buf, int n) {
            if (!isBlob()) {
                return off + (int) pos;
            }
            read(pos, buf, 0, n);
            return 0;
        }

        byte[] chunkArray(byte[] buf) {
            return isBlob() ? buf : stored;
        }

        @Override
        public void close() {
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // read-only channel: nothing to lose
                }
                ch = null;
            }
        }
    }
}
