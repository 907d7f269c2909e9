package dev.cajon.protocol;

/**
 * Emitted by {@link RequestDecoder} when the client broke the protocol. The server replies with
 * {@code -ERR Protocol error: <detail>} and closes the connection, as Redis does.
 */
public record ProtocolError(String detail) {
    public String message() {
        return "ERR Protocol error: " + detail;
    }
}
