package dev.cajon.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;

/**
 * A string value read out of a keyspace. Small values are a view of the bytes read from the map;
 * large values are an open channel on their blob file, positioned at a range, so the server can
 * stream them to the socket (sendfile) without loading 512 MiB onto the heap.
 *
 * <p>A blob-backed value owns its channel: whoever consumes it must call {@link #release()}
 * (writing it to a socket as a file region does that).
 */
public final class StringValue {
    private final byte[] array;
    private final int off;
    private final int len;
    private final FileChannel channel;
    private final long position;
    private final long blobLength;

    private StringValue(byte[] array, int off, int len, FileChannel channel, long position, long blobLength) {
        this.array = array;
        this.off = off;
        this.len = len;
        this.channel = channel;
        this.position = position;
        this.blobLength = blobLength;
    }

    public static StringValue of(byte[] array, int off, int len) {
        return new StringValue(array, off, len, null, 0, 0);
    }

    public static StringValue of(byte[] bytes) {
        return of(bytes, 0, bytes.length);
    }

    public static StringValue blob(FileChannel channel, long position, long length) {
        return new StringValue(null, 0, 0, channel, position, length);
    }

    public boolean isBlob() {
        return channel != null;
    }

    public long length() {
        return channel != null ? blobLength : len;
    }

    /** For in-heap values: the backing array (shared, do not modify). */
    public byte[] array() {
        return array;
    }

    public int offset() {
        return off;
    }

    public FileChannel channel() {
        return channel;
    }

    public long position() {
        return position;
    }

    /** The sub-range {@code [start, start+n)}; a blob slice shares (and takes over) the channel. */
    public StringValue slice(long start, long n) {
        if (channel == null) {
            return of(array, off + (int) start, (int) n);
        }
        return blob(channel, position + start, n);
    }

    /** Copies the value into a new array (reads the blob, so only for bounded sizes). */
    public byte[] toBytes() {
        if (channel == null) {
            return off == 0 && len == array.length ? array : Arrays.copyOfRange(array, off, off + len);
        }
        if (blobLength > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("value too large to copy onto the heap");
        }
        byte[] out = new byte[(int) blobLength];
        try {
            ByteBuffer bb = ByteBuffer.wrap(out);
            long pos = position;
            while (bb.hasRemaining()) {
                int n = channel.read(bb, pos);
                if (n < 0) {
                    throw new IOException("blob truncated");
                }
                pos += n;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            release();
        }
        return out;
    }

    /** Closes the blob channel, if any. Idempotent. */
    public void release() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing useful to do
            }
        }
    }
}
