package dev.cajon.storage.chronicle;

/**
 * The persisted layout of every value stored in a keyspace map. This is an on-disk format: codes
 * are append-only with explicit numbers, and {@code ValueHeaderTest} pins the bytes.
 *
 * <pre>
 * offset 0  layout version   (1 byte)  = {@link #LAYOUT_V1}
 * offset 1  type             (1 byte)  {@link #TYPE_STRING}
 * offset 2  encoding         (1 byte)  {@link #ENC_RAW} | {@link #ENC_BLOB}
 * offset 3  flags            (1 byte)  bit 0 = {@link #FLAG_EXPIRES}, bit 1 = {@link #FLAG_WHEEL_AT}
 * offset 4  expire-at        (8 bytes, big-endian epoch millis) only when FLAG_EXPIRES is set
 * then      wheel-at         (8 bytes) only when FLAG_WHEEL_AT is set (always with FLAG_EXPIRES):
 *                            the time of the key's one valid expiry-wheel record, when it is
 *                            earlier than expire-at (the deadline was extended since it was filed)
 * then      payload
 *             ENC_RAW : the value bytes
 *             ENC_BLOB: blob id (8 bytes) + length (8 bytes); the bytes live in a blob file
 *             ENC_COLLECTION (types list, set, zset, hash): collection id (8 bytes, big-endian,
 *                       non-zero) + the type's state bytes; the pages live in entries of their own
 *             TYPE_PAGE (always ENC_RAW, never a deadline): one page of a collection, keyed by
 *                       {@code KeyCodec.pageKey}
 * </pre>
 *
 * Keys without a TTL pay 4 bytes of header; keys with one pay 12 (20 while an extension is pending
 * in the expiry wheel).
 */
public final class ValueHeader {
    public static final byte LAYOUT_V1 = 1;

    public static final byte TYPE_STRING = 1;
    /** Collections (Redis's RDB order, plus one). Their payload is {@link #ENC_COLLECTION}. */
    public static final byte TYPE_LIST = 2;
    public static final byte TYPE_SET = 3;
    public static final byte TYPE_ZSET = 4;
    public static final byte TYPE_HASH = 5;
    /**
     * A page of a collection: an internal entry, never a key (walks, counts and TYPE skip it). It
     * carries no deadline, so growth's copy and every expiry check keep it as it is.
     */
    public static final byte TYPE_PAGE = 16;

    public static final byte ENC_RAW = 0;
    public static final byte ENC_BLOB = 1;
    /** A collection: the engine's collection id and the type's state (see storage/collection). */
    public static final byte ENC_COLLECTION = 2;

    public static final byte FLAG_EXPIRES = 1;
    public static final byte FLAG_WHEEL_AT = 2;

    public static final long NO_EXPIRY = -1L;

    static final int BASE_LEN = 4;
    static final int EXPIRE_LEN = 8;
    static final int BLOB_PAYLOAD_LEN = 16;

    private ValueHeader() {
    }

    /** Header length for a value with or without a deadline. */
    public static int headerLength(long expireAt) {
        return expireAt == NO_EXPIRY ? BASE_LEN : BASE_LEN + EXPIRE_LEN;
    }

    public static int headerLength(byte[] stored) {
        int f = stored[3];
        return BASE_LEN + ((f & FLAG_EXPIRES) != 0 ? EXPIRE_LEN : 0) + ((f & FLAG_WHEEL_AT) != 0 ? EXPIRE_LEN : 0);
    }

    /**
     * When the expiry wheel's record for this key fires: the wheel-at field if present, else the
     * deadline itself ({@link #NO_EXPIRY} without a TTL).
     */
    public static long wheelAt(byte[] stored) {
        return (stored[3] & FLAG_WHEEL_AT) != 0 ? getLong(stored, BASE_LEN + EXPIRE_LEN) : expireAt(stored);
    }

    /**
     * The same value with its wheel-at set to {@code wheelAt} (dropped when it equals the
     * deadline). Returns {@code stored} itself when nothing changes.
     */
    public static byte[] withWheelAt(byte[] stored, long wheelAt) {
        long at = expireAt(stored);
        boolean want = at != NO_EXPIRY && wheelAt != at;
        boolean has = (stored[3] & FLAG_WHEEL_AT) != 0;
        if (!want && !has) {
            return stored;
        }
        int oldH = headerLength(stored);
        int newH = BASE_LEN + EXPIRE_LEN + (want ? EXPIRE_LEN : 0);
        byte[] out = new byte[newH + stored.length - oldH];
        System.arraycopy(stored, 0, out, 0, BASE_LEN + EXPIRE_LEN);
        out[3] = (byte) (want ? (stored[3] | FLAG_WHEEL_AT) : (stored[3] & ~FLAG_WHEEL_AT));
        if (want) {
            putLong(out, BASE_LEN + EXPIRE_LEN, wheelAt);
        }
        System.arraycopy(stored, oldH, out, newH, stored.length - oldH);
        return out;
    }

    /** Encodes a raw string value. */
    public static byte[] raw(byte[] value, long expireAt) {
        return raw(value, 0, value.length, expireAt);
    }

    public static byte[] raw(byte[] value, int off, int len, long expireAt) {
        int h = headerLength(expireAt);
        byte[] out = new byte[h + len];
        writeHeader(out, ENC_RAW, expireAt);
        System.arraycopy(value, off, out, h, len);
        return out;
    }

    /** Encodes the decimal form of {@code v} (a counter) without an intermediate array. */
    public static byte[] rawLong(long v, long expireAt) {
        int h = headerLength(expireAt);
        byte[] out = new byte[h + dev.cajon.storage.Numbers.decimalLength(v)];
        writeHeader(out, ENC_RAW, expireAt);
        dev.cajon.storage.Numbers.writeDecimal(v, out, h);
        return out;
    }

    /** Encodes a reference to a blob file holding the value's bytes. */
    public static byte[] blob(long blobId, long length, long expireAt) {
        int h = headerLength(expireAt);
        byte[] out = new byte[h + BLOB_PAYLOAD_LEN];
        writeHeader(out, ENC_BLOB, expireAt);
        putLong(out, h, blobId);
        putLong(out, h + 8, length);
        return out;
    }

    /** Bytes of a collection id at the start of an {@link #ENC_COLLECTION} payload. */
    public static final int COLLECTION_ID_LEN = 8;
    /** Header length of a page entry ({@link #page}). */
    public static final int PAGE_HEADER_LEN = BASE_LEN;

    /** Encodes a collection key's entry: type, deadline, collection id and the type's state. */
    public static byte[] collection(byte type, long collectionId, byte[] state, long expireAt) {
        int h = headerLength(expireAt);
        byte[] out = new byte[h + COLLECTION_ID_LEN + state.length];
        writeHeader(out, ENC_COLLECTION, expireAt);
        out[1] = type;
        putLong(out, h, collectionId);
        System.arraycopy(state, 0, out, h + COLLECTION_ID_LEN, state.length);
        return out;
    }

    /** Whether a stored value is a collection's key entry. */
    public static boolean isCollection(byte[] stored) {
        return stored[2] == ENC_COLLECTION;
    }

    /** A collection key entry's collection id. */
    public static long collectionId(byte[] stored) {
        return getLong(stored, headerLength(stored));
    }

    /** A collection key entry's state (a copy). */
    public static byte[] collectionState(byte[] stored) {
        int from = headerLength(stored) + COLLECTION_ID_LEN;
        return java.util.Arrays.copyOfRange(stored, from, stored.length);
    }

    /** Encodes a page entry: a header of type {@link #TYPE_PAGE} without deadline, then the page. */
    public static byte[] page(byte[] bytes) {
        byte[] out = new byte[BASE_LEN + bytes.length];
        out[0] = LAYOUT_V1;
        out[1] = TYPE_PAGE;
        out[2] = ENC_RAW;
        System.arraycopy(bytes, 0, out, BASE_LEN, bytes.length);
        return out;
    }

    /** A page entry's page bytes (a copy). */
    public static byte[] pageBytes(byte[] stored) {
        return java.util.Arrays.copyOfRange(stored, BASE_LEN, stored.length);
    }

    /** Whether the entry read in place is a collection's key entry. */
    public static boolean isCollection(net.openhft.chronicle.bytes.RandomDataInput in, long off) {
        return in.readByte(off + 2) == ENC_COLLECTION;
    }

    /** Same payload, a new deadline (or none). */
    public static byte[] withExpiry(byte[] stored, long expireAt) {
        int oldH = headerLength(stored);
        int newH = headerLength(expireAt);
        byte[] out = new byte[newH + stored.length - oldH];
        writeHeader(out, stored[2], expireAt);
        out[1] = stored[1];
        System.arraycopy(stored, oldH, out, newH, stored.length - oldH);
        return out;
    }

    private static void writeHeader(byte[] out, byte encoding, long expireAt) {
        out[0] = LAYOUT_V1;
        out[1] = TYPE_STRING;
        out[2] = encoding;
        if (expireAt == NO_EXPIRY) {
            out[3] = 0;
        } else {
            out[3] = FLAG_EXPIRES;
            putLong(out, BASE_LEN, expireAt);
        }
    }

    public static byte type(byte[] stored) {
        return stored[1];
    }

    public static byte encoding(byte[] stored) {
        return stored[2];
    }

    public static boolean isBlob(byte[] stored) {
        return stored[2] == ENC_BLOB;
    }

    /** Deadline in epoch millis, or {@link #NO_EXPIRY}. */
    public static long expireAt(byte[] stored) {
        return (stored[3] & FLAG_EXPIRES) != 0 ? getLong(stored, BASE_LEN) : NO_EXPIRY;
    }

    /**
     * Whether a read at {@code now} must treat the value as gone. As in Redis's keyIsExpired, a
     * key lives through its deadline millisecond and is expired once now is past it. (Writes that
     * set a deadline at or before now delete the key at once, as Redis's checkAlreadyExpired.)
     */
    public static boolean isExpired(byte[] stored, long now) {
        return isPast(expireAt(stored), now);
    }

    /** {@link #isExpired} for a deadline already read ({@link #NO_EXPIRY}: never). */
    public static boolean isPast(long expireAt, long now) {
        return expireAt != NO_EXPIRY && expireAt < now;
    }

    /** Offset of the payload. */
    public static int payloadOffset(byte[] stored) {
        return headerLength(stored);
    }

    public static int rawLength(byte[] stored) {
        return stored.length - headerLength(stored);
    }

    public static long blobId(byte[] stored) {
        return getLong(stored, headerLength(stored));
    }

    public static long blobLength(byte[] stored) {
        return getLong(stored, headerLength(stored) + 8);
    }

    /** Logical string length whatever the encoding. */
    public static long stringLength(byte[] stored) {
        return isBlob(stored) ? blobLength(stored) : rawLength(stored);
    }

    /** Validates the layout byte so a file from a future version is refused rather than misread. */
    public static void checkLayout(byte[] stored) {
        if (stored.length < BASE_LEN || stored[0] != LAYOUT_V1) {
            throw new IllegalStateException("unknown value layout " + (stored.length == 0 ? -1 : stored[0]));
        }
    }

    // ---- the same reads in place, on the bytes of a Chronicle entry (no copy of the value)

    /** {@link #blobIdOrNone}: the value is not a blob. */
    public static final long NO_BLOB = -1L;

    /** {@link #isExpired(byte[], long)} read in place. */
    public static boolean isExpired(net.openhft.chronicle.bytes.RandomDataInput in, long off, long now) {
        return isPast(expireAt(in, off), now);
    }

    public static long expireAt(net.openhft.chronicle.bytes.RandomDataInput in, long off) {
        return (in.readByte(off + 3) & FLAG_EXPIRES) != 0 ? getLong(in, off + BASE_LEN) : NO_EXPIRY;
    }

    public static long wheelAt(net.openhft.chronicle.bytes.RandomDataInput in, long off) {
        return (in.readByte(off + 3) & FLAG_WHEEL_AT) != 0 ? getLong(in, off + BASE_LEN + EXPIRE_LEN)
                : expireAt(in, off);
    }

    public static int headerLength(net.openhft.chronicle.bytes.RandomDataInput in, long off) {
        int f = in.readByte(off + 3);
        return BASE_LEN + ((f & FLAG_EXPIRES) != 0 ? EXPIRE_LEN : 0) + ((f & FLAG_WHEEL_AT) != 0 ? EXPIRE_LEN : 0);
    }

    public static long blobIdOrNone(net.openhft.chronicle.bytes.RandomDataInput in, long off) {
        return in.readByte(off + 2) != ENC_BLOB ? NO_BLOB : getLong(in, off + headerLength(in, off));
    }

    /** A blob value's length read in place, or 0 when the value is stored inline. */
    public static long blobLengthOrZero(net.openhft.chronicle.bytes.RandomDataInput in, long off) {
        return in.readByte(off + 2) != ENC_BLOB ? 0 : getLong(in, off + headerLength(in, off) + 8);
    }

    private static long getLong(net.openhft.chronicle.bytes.RandomDataInput in, long off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (in.readByte(off + i) & 0xFF);
        }
        return v;
    }

    static void putLong(byte[] b, int off, long v) {
        for (int i = 7; i >= 0; i--) {
            b[off + i] = (byte) v;
            v >>>= 8;
        }
    }

    static long getLong(byte[] b, int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[off + i] & 0xFF);
        }
        return v;
    }
}
