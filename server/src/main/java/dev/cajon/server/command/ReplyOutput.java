package dev.cajon.server.command;

import io.netty.buffer.ByteBuf;
import java.nio.channels.FileChannel;

/**
 * Where a connection's replies go. Replies are appended to {@link #buffer()}, which the
 * connection writes and flushes once per read batch. Large values are streamed from their blob
 * file with {@link #streamFile} instead of being copied onto the heap.
 */
public interface ReplyOutput {
    /** The buffer to append to now; it changes after {@link #streamFile}. */
    ByteBuf buffer();

    /**
     * Queues {@code length} bytes of {@code file} from {@code position} after what is already in
     * the buffer. Takes ownership of the channel and closes it when done.
     */
    void streamFile(FileChannel file, long position, long length);
}
