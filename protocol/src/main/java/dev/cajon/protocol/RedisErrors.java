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

    public static String wrongArity(String fullName) {
        return "ERR wrong number of arguments for '" + fullName + "' command";
    }

    public static String invalidExpireTime(String command) {
        return "ERR invalid expire time in '" + command + "' command";
    }

    /** Redis caps each quoted piece at 128 characters and puts a space after every argument. */
    public static String unknownCommand(String name, Argv argv) {
        StringBuilder args = new StringBuilder();
        for (int i = 1; i < argv.argc() && args.length() < 128; i++) {
            String a = argv.str(i);
            int room = 128 - args.length();
            args.append('\'').append(a, 0, Math.min(a.length(), room)).append("' ");
        }
        return "ERR unknown command '" + truncate(name, 128) + "', with args beginning with: " + args;
    }

    public static String unsupportedOption(String opt) {
        return "ERR Unsupported option " + opt;
    }

    public static String helloOption(String opt) {
        return "ERR Syntax error in HELLO option '" + opt + "'";
    }

    public static String unknownSubcommand(String sub, String command) {
        return "ERR unknown subcommand '" + truncate(sub, 128) + "'. Try " + command.toUpperCase(java.util.Locale.ROOT)
                + " HELP.";
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }
}
