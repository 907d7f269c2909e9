package dev.cajon.protocol;

/**
 * What {@link RequestDecoder} asks its connection while it decodes: Redis's input limits, read
 * at each header so that CONFIG SET and AUTH take effect for the next command.
 */
public interface DecoderLimits {
    /** Redis's {@code proto-max-bulk-len}: a longer bulk is {@code invalid bulk length}. */
    long maxBulk();

    /**
     * Redis's authRequired(c): the connection has not authenticated and must. Then, as in Redis,
     * a multibulk of more than 10 arguments or a bulk of more than 16 KiB is refused, and commands
     * are decoded one at a time, so that an AUTH lifts the limits for the very next command.
     */
    boolean authRequired();

    /**
     * Redis's {@code client-query-buffer-limit}: when the bytes received and not yet made into a
     * command pass it, the connection is closed without a reply.
     */
    long maxQueryBuffer();

    /** Redis's defaults, for a connection that never needs to authenticate. */
    DecoderLimits DEFAULT = new DecoderLimits() {
        @Override
        public long maxBulk() {
            return RequestDecoder.MAX_BULK;
        }

        @Override
        public boolean authRequired() {
            return false;
        }

        @Override
        public long maxQueryBuffer() {
            return 1L << 30;
        }
    };
}
