package dev.cajon.bot.kv;

/** The backend could not do what the port asked (a lost connection, a full disk, a cross-slot transaction). */
public class KvException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public KvException(String message) {
        super(message);
    }

    public KvException(String message, Throwable cause) {
        super(message, cause);
    }
}
