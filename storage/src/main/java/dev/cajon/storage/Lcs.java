package dev.cajon.storage;

import dev.cajon.storage.chronicle.ValueHeader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * LCS, the longest common subsequence of two strings (Redis's {@code lcsCommand}): the two
 * values read at one moment under their stripes, the dynamic-programming table built after the
 * locks are let go, then Redis's walk back that emits the matching ranges. Storage never speaks
 * RESP: the family turns {@link LcsResult} into LEN, IDX or the string.
 */
public final class Lcs {
    /**
     * LCS's answer: the common subsequence (when asked for), its length, and for IDX the matches
     * {aStart, aEnd, bStart, bEnd, length} from the end of the strings back, as Redis emits them.
     * Statuses: WRONG_TYPE (a key holds another type), TOO_LARGE (the table would exceed
     * proto-max-bulk-len), OOM (the table could not be allocated).
     */
    public record LcsResult(OpStatus status, byte[] lcs, long length, List<long[]> matches, int found) {
    }

    private final KeyspaceEngine e;

    Lcs(KeyspaceEngine e) {
        this.e = e;
    }

    /**
     * LCS of the strings at {@code userA} and {@code userB} (missing keys are empty). Both are read
     * at one moment with their stripes held; the table is built after the locks are let go.
     * {@code lenOnly}: just the length (LEN); {@code idx}: the matches of at least
     * {@code minMatchLen} too (IDX).
     */
    public LcsResult lcs(byte[] userA, byte[] userB, boolean idx, boolean lenOnly, long minMatchLen) {
        byte[][] uk = {userA, userB};
        byte[][] ks = KeyspaceEngine.mapKeys(uk, 0);
        Object read = e.locked(ks, uk, () -> {
            byte[] va = e.readLive(ks[0], ValueHeader.TYPE_STRING);
            byte[] vb = e.readLive(ks[1], ValueHeader.TYPE_STRING);
            if (va == KeyspaceEngine.WRONG_TYPE || vb == KeyspaceEngine.WRONG_TYPE) {
                return OpStatus.WRONG_TYPE;
            }
            long alen = va == null ? 0 : ValueHeader.stringLength(va);
            long blen = vb == null ? 0 : ValueHeader.stringLength(vb);
            OpStatus room = lcsRoom(alen, blen);
            if (room != OpStatus.OK) {
                return room;
            }
            return new Object[] {bytesOf(va), bytesOf(vb), (va != null ? 1 : 0) + (vb != null ? 1 : 0)};
        });
        if (read instanceof OpStatus st) {
            return new LcsResult(st, null, 0, null, 0);
        }
        Object[] got = (Object[]) read;
        byte[][] ab = {(byte[]) got[0], (byte[]) got[1]};
        int found = (Integer) got[2];
        int[] dp;
        try {
            dp = new int[(ab[0].length + 1) * (ab[1].length + 1)];
        } catch (OutOfMemoryError oom) {
            return new LcsResult(OpStatus.OOM, null, 0, null, found);
        }
        LcsResult r = lcs(ab[0], ab[1], dp, idx, lenOnly, minMatchLen);
        return new LcsResult(r.status(), r.lcs(), r.length(), r.matches(), found);
    }

    /**
     * Whether the LCS table of strings this long may be built: TOO_LARGE past proto-max-bulk-len
     * (Redis's limit, 4 bytes a cell), OOM past what this JVM can lend (a quarter of its heap, as a
     * stand-in for Redis's failed ztrymalloc).
     */
    static OpStatus lcsRoom(long alen, long blen) {
        double cells = (double) (alen + 1) * (blen + 1);
        if (cells * 4 > Keyspace.MAX_STRING_LENGTH) {
            return OpStatus.TOO_LARGE;
        }
        long bytes = (alen + 1) * (blen + 1) * 4 + alen + blen;
        if (bytes > Runtime.getRuntime().maxMemory() / 4) {
            return OpStatus.OOM;
        }
        return OpStatus.OK;
    }

    /** Redis's lcsCommand on the two strings: the table, then the walk back that emits the ranges. */
    static LcsResult lcs(byte[] a, byte[] b, int[] dp, boolean idx, boolean lenOnly, long minMatchLen) {
        int alen = a.length;
        int blen = b.length;
        int w = blen + 1;
        for (int i = 0; i <= alen; i++) {
            for (int j = 0; j <= blen; j++) {
                if (i == 0 || j == 0) {
                    dp[i * w + j] = 0;
                } else if (a[i - 1] == b[j - 1]) {
                    dp[i * w + j] = dp[(i - 1) * w + j - 1] + 1;
                } else {
                    int l1 = dp[(i - 1) * w + j];
                    int l2 = dp[i * w + j - 1];
                    dp[i * w + j] = Math.max(l1, l2);
                }
            }
        }
        int length = dp[alen * w + blen];
        boolean compute = idx || !lenOnly;
        byte[] result = compute ? new byte[length] : null;
        List<long[]> matches = idx ? new ArrayList<>() : null;
        int k = length;
        int aStart = alen; // alen: no range open
        int aEnd = 0;
        int bStart = 0;
        int bEnd = 0;
        int i = alen;
        int j = blen;
        while (compute && i > 0 && j > 0) {
            boolean emit = false;
            if (a[i - 1] == b[j - 1]) {
                result[k - 1] = a[i - 1];
                if (aStart == alen) {
                    aStart = i - 1;
                    aEnd = i - 1;
                    bStart = j - 1;
                    bEnd = j - 1;
                } else if (aStart == i && bStart == j) {
                    aStart--;
                    bStart--;
                } else {
                    emit = true;
                }
                if (aStart == 0 || bStart == 0) {
                    emit = true;
                }
                k--;
                i--;
                j--;
            } else {
                int l1 = dp[(i - 1) * w + j];
                int l2 = dp[i * w + j - 1];
                if (l1 > l2) {
                    i--;
                } else {
                    j--;
                }
                if (aStart != alen) {
                    emit = true;
                }
            }
            if (emit) {
                long matchLen = (long) aEnd - aStart + 1;
                if (matches != null && (minMatchLen == 0 || matchLen >= minMatchLen)) {
                    matches.add(new long[] {aStart, aEnd, bStart, bEnd, matchLen});
                }
                aStart = alen;
            }
        }
        return new LcsResult(OpStatus.OK, result, length, matches, 2);
    }

    /** A live string's bytes on the heap (LCS only, after {@link #lcsRoom}); empty when absent. */
    private byte[] bytesOf(byte[] stored) {
        if (stored == null) {
            return new byte[0];
        }
        if (ValueHeader.isBlob(stored)) {
            return e.blobs.read(ValueHeader.blobId(stored), 0, (int) ValueHeader.blobLength(stored));
        }
        int off = ValueHeader.payloadOffset(stored);
        return Arrays.copyOfRange(stored, off, stored.length);
    }
}
