package dev.cajon.storage;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * Maps a client's key to the key stored in the Chronicle Map. This is a persisted format:
 * {@code KeyCodecTest} pins it.
 *
 * <p>Chronicle keys must fit a map entry, but Redis allows keys up to 512 MiB. So:
 * <ul>
 *   <li>a key of up to {@link #INLINE_MAX} bytes that does not start with {@code 0xFF} is
 *       stored as it is (every key a client is likely to use);</li>
 *   <li>a key of up to {@link #INLINE_MAX} bytes that starts with {@code 0xFF} is stored as
 *       {@code 0xFF 0x00} followed by the key ("escaped");</li>
 *   <li>a longer key is stored as {@code 0xFF 0x01} followed by its SHA-256 (34 bytes, a
 *       "digest key"); the key's bytes live in a file of the keyspace's blob directory named
 *       {@link #fileName}, which is how SCAN and KEYS return it.</li>
 * </ul>
 * The three forms cannot collide: plain stored keys never start with {@code 0xFF}.
 *
 * <p>A fourth form is not a client's key at all: a page of a collection is stored under
 * {@code 0xFF 0x02} + collection id (8 bytes, big-endian) + page id (8 bytes, big-endian), 18
 * bytes ({@link #pageKey}). Walks and counts skip these.
 */
public final class KeyCodec {
    /** Longest key stored inline in the map. */
    public static final int INLINE_MAX = 8 * 1024;
    private static final byte MARK = (byte) 0xFF;
    private static final byte ESCAPED = 0;
    private static final byte DIGEST = 1;
    private static final int DIGEST_KEY_LENGTH = 34;
    private static final byte PAGE = 2;
    /** Length of a page entry's stored key. */
    public static final int PAGE_KEY_LENGTH = 18;

    private KeyCodec() {
    }

    /** The stored form of {@code key}; the same array when it is stored as it is. */
    public static byte[] mapKey(byte[] key) {
        if (key.length <= INLINE_MAX && (key.length == 0 || key[0] != MARK)) {
            return key;
        }
        if (key.length <= INLINE_MAX) {
            byte[] out = new byte[key.length + 2];
            out[0] = MARK;
            out[1] = ESCAPED;
            System.arraycopy(key, 0, out, 2, key.length);
            return out;
        }
        byte[] out = new byte[DIGEST_KEY_LENGTH];
        out[0] = MARK;
        out[1] = DIGEST;
        System.arraycopy(sha256(key), 0, out, 2, 32);
        return out;
    }

    /** Whether a stored key is a digest key (its client key lives in a file). */
    public static boolean isDigest(byte[] mapKey) {
        return mapKey.length == DIGEST_KEY_LENGTH && mapKey[0] == MARK && mapKey[1] == DIGEST;
    }

    /**
     * The client's key for a stored key that is not a digest key (digest keys: read the file
     * named {@link #fileName}).
     */
    public static byte[] userKey(byte[] mapKey) {
        if (mapKey.length >= 2 && mapKey[0] == MARK && mapKey[1] == ESCAPED) {
            return Arrays.copyOfRange(mapKey, 2, mapKey.length);
        }
        return mapKey;
    }

    /** The stored key of page {@code page} of collection {@code collectionId}. */
    public static byte[] pageKey(long collectionId, long page) {
        byte[] out = new byte[PAGE_KEY_LENGTH];
        out[0] = MARK;
        out[1] = PAGE;
        for (int i = 0; i < 8; i++) {
            out[2 + i] = (byte) (collectionId >>> (56 - 8 * i));
            out[10 + i] = (byte) (page >>> (56 - 8 * i));
        }
        return out;
    }

    /** Whether a stored key is a collection's page (not a client's key). */
    public static boolean isPage(byte[] mapKey) {
        return mapKey.length == PAGE_KEY_LENGTH && mapKey[0] == MARK && mapKey[1] == PAGE;
    }

    /** {@link #isPage(byte[])} of an entry's key read in place. */
    public static boolean isPage(net.openhft.chronicle.hash.Data<byte[]> key) {
        if (key.size() != PAGE_KEY_LENGTH) {
            return false;
        }
        net.openhft.chronicle.bytes.RandomDataInput in = key.bytes();
        long off = key.offset();
        return in.readByte(off) == MARK && in.readByte(off + 1) == PAGE;
    }

    /** The collection id a page key names. */
    public static long pageCollection(byte[] pageKey) {
        long v = 0;
        for (int i = 2; i < 10; i++) {
            v = (v << 8) | (pageKey[i] & 0xFF);
        }
        return v;
    }

    /** The name of the file that holds a digest key's bytes. */
    public static String fileName(byte[] digestKey) {
        StringBuilder sb = new StringBuilder("k");
        for (int i = 2; i < digestKey.length; i++) {
            sb.append(Character.forDigit((digestKey[i] >> 4) & 0xF, 16)).append(Character.forDigit(digestKey[i] & 0xF, 16));
        }
        return sb.toString();
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
