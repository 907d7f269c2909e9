package dev.cajon.protocol;

/**
 * Every error text Cajon sends, byte-identical to Redis 7 (checked against a real redis-server by
 * the comparison tests). Nothing else in the code base spells an error message.
 */
public final class RedisErrors {
    private RedisErrors() {
    }

    public static final String SYNTAX = "ERR syntax error";
    public static final String INVALID_CURSOR = "ERR invalid cursor";
    public static final String NOT_INTEGER = "ERR value is not an integer or out of range";
    public static final String NOT_INT32 =
            "ERR value is out of range, value must between -2147483648 and 2147483647";
    public static final String NOT_FLOAT = "ERR value is not a valid float";
    public static final String OVERFLOW = "ERR increment or decrement would overflow";
    public static final String DECREMENT_OVERFLOW = "ERR decrement would overflow";
    public static final String NAN_OR_INFINITY = "ERR increment would produce NaN or Infinity";
    public static final String WRONG_TYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
    public static final String NO_SUCH_KEY = "ERR no such key";
    public static final String DB_INDEX_OUT_OF_RANGE = "ERR DB index is out of range";
    public static final String STRING_TOO_LONG = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
    public static final String OFFSET_OUT_OF_RANGE = "ERR offset is out of range";
    public static final String NOAUTH = "NOAUTH Authentication required.";
    public static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";
    public static final String NOPROTO = "NOPROTO unsupported protocol version";
    public static final String PROTOCOL_VERSION = "ERR Protocol version is not an integer or out of range";
    public static final String SAME_OBJECT = "ERR source and destination objects are the same";
    public static final String OOM = "OOM command not allowed when used memory > 'maxmemory'.";
    public static final String NX_XX_GT_LT =
            "ERR NX and XX, GT or LT options at the same time are not compatible";
    public static final String GT_AND_LT = "ERR GT and LT options at the same time are not compatible";
    public static final String CLIENT_NAME_SPACES = "ERR Client names cannot contain spaces, newlines or special characters.";
    public static final String LIB_NAME_SPACES = "ERR lib-name cannot contain spaces, newlines or special characters.";
    public static final String LIB_VER_SPACES = "ERR lib-ver cannot contain spaces, newlines or special characters.";
    public static final String AUTH_NO_PASSWORD = "ERR AUTH <password> called without any password configured for "
            + "the default user. Are you sure your configuration is correct?";
    public static final String INVALID_CLIENT_ID = "ERR Invalid client ID";
    public static final String NO_SHUTDOWN_IN_PROGRESS = "ERR No shutdown in progress.";
    public static final String NO_CONFIG_FILE = "ERR The server is running without a config file";
    public static final String NO_SUCH_CLIENT = "ERR No such client";
    public static final String CLIENT_ID_NOT_POSITIVE = "ERR client-id should be greater than 0";
    public static final String PAUSE_MODE = "ERR CLIENT PAUSE mode must be WRITE or ALL";
    public static final String TIMEOUT_NOT_INTEGER = "ERR timeout is not an integer or out of range";
    public static final String TIMEOUT_NEGATIVE = "ERR timeout is negative";
    public static final String TRACKING_REDIRECT_MISSING = "ERR The client ID you want redirect to does not exist";
    public static final String TRACKING_SINGLE_REDIRECT = "ERR A client can only redirect to a single other client";
    /** Not a Redis text: Cajon has no client-side caching, so CLIENT TRACKING ON is refused. */
    public static final String TRACKING_UNSUPPORTED =
            "ERR client-side caching is not supported: CLIENT TRACKING ON is not available";

    // transactions (Redis's multi.c and processCommand)
    public static final String MULTI_NESTED = "ERR MULTI calls can not be nested";
    public static final String EXEC_WITHOUT_MULTI = "ERR EXEC without MULTI";
    public static final String DISCARD_WITHOUT_MULTI = "ERR DISCARD without MULTI";
    public static final String WATCH_INSIDE_MULTI = "ERR WATCH inside MULTI is not allowed";
    public static final String EXECABORT = "EXECABORT Transaction discarded because of previous errors.";
    public static final String NOT_IN_MULTI = "ERR Command not allowed inside a transaction";

    /** The ACL check refused a command: {@code fullName} is "config|set" for a subcommand. */
    public static String noPermission(String fullName) {
        return "NOPERM this user has no permissions to run the '" + fullName + "' command";
    }

    /** A refused EXEC: "EXECABORT Transaction discarded because of: " and the refusal, without "ERR ". */
    public static String execAbortedBecause(String error) {
        return "EXECABORT Transaction discarded because of: " + (error.startsWith("ERR ") ? error.substring(4) : error);
    }

    public static String unrecognizedOption(byte[] opt) {
        return "ERR Unrecognized option '" + cstr(opt) + "'";
    }

    public static String unknownClientType(byte[] type) {
        return "ERR Unknown client type '" + cstr(type) + "'";
    }

    /** Not a Redis text: an unexpected failure inside Cajon, named by its exception class. */
    public static String internalError(Throwable e) {
        return "ERR internal error: " + e.getClass().getSimpleName();
    }

    public static String wrongArity(String fullName) {
        return "ERR wrong number of arguments for '" + fullName + "' command";
    }

    public static String invalidExpireTime(String command) {
        return "ERR invalid expire time in '" + command + "' command";
    }

    /**
     * Redis formats this with {@code %.128s} on C strings: each piece is cut at a NUL byte and
     * at 128 bytes (the arguments together at 128), with a space after every argument.
     */
    public static String unknownCommand(Argv argv) {
        StringBuilder args = new StringBuilder();
        for (int i = 1; i < argv.argc() && args.length() < 128; i++) {
            int room = 128 - args.length();
            args.append('\'').append(cstr(argv.arg(i), room)).append("' ");
        }
        return "ERR unknown command '" + cstr(argv.arg(0), 128) + "', with args beginning with: " + args;
    }

    public static String unknownSubcommand(byte[] sub, String command) {
        return "ERR unknown subcommand '" + cstr(sub, 128) + "'. Try " + command.toUpperCase(java.util.Locale.ROOT)
                + " HELP.";
    }

    public static String unknownConfigOption(byte[] name) {
        return "ERR Unknown option or number of arguments for CONFIG SET - '" + cstr(name) + "'";
    }

    public static String immutableConfig(byte[] name) {
        return "ERR CONFIG SET failed (possibly related to argument '" + cstr(name) + "') - can't set immutable config";
    }

    public static String unsupportedOption(byte[] opt) {
        return "ERR Unsupported option " + cstr(opt);
    }

    public static String helloOption(byte[] opt) {
        return "ERR Syntax error in HELLO option '" + cstr(opt) + "'";
    }

    public static String noSuchUser(byte[] user) {
        return "ERR No such user '" + cstr(user) + "'";
    }

    /**
     * Redis's addReplySubcommandSyntaxError: a subcommand that exists but was given arguments its
     * handler does not take (CLIENT PAUSE with five arguments). The subcommand as the client spelt it.
     */
    public static String subcommandSyntax(byte[] sub, String command) {
        return "ERR unknown subcommand or wrong number of arguments for '" + cstr(sub, 128) + "'. Try "
                + command.toUpperCase(java.util.Locale.ROOT) + " HELP.";
    }

    /** A client argument as C's {@code %s} prints it: up to the first NUL, at most {@code max} bytes. */
    public static String cstr(byte[] b, int max) {
        int n = 0;
        while (n < b.length && n < max && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** {@link #cstr(byte[], int)} without a length cap. */
    public static String cstr(byte[] b) {
        return cstr(b, Integer.MAX_VALUE);
    }
}
