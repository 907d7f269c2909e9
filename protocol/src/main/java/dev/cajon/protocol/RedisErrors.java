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
    public static final String SWAPDB_FIRST_INDEX = "ERR invalid first DB index";
    public static final String SWAPDB_SECOND_INDEX = "ERR invalid second DB index";
    public static final String STRING_TOO_LONG = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
    public static final String OFFSET_OUT_OF_RANGE = "ERR offset is out of range";
    public static final String NOAUTH = "NOAUTH Authentication required.";
    public static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";
    public static final String NOPROTO = "NOPROTO unsupported protocol version";
    public static final String PROTOCOL_VERSION = "ERR Protocol version is not an integer or out of range";
    public static final String SAME_OBJECT = "ERR source and destination objects are the same";
    public static final String OOM = "OOM command not allowed when used memory > 'maxmemory'.";
    /**
     * Cajon's own: a command that adds data while the data directory's disk is under its floor
     * (min-free-disk). The MISCONF code is Redis's for "cannot persist, writes are disabled".
     */
    public static final String DISK_LOW = "MISCONF Cajon is short of disk space for its data directory (less than"
            + " 'min-free-disk' is free). Commands that may add data are disabled until there is room again.";

    /** A write that found too little disk for what it needed ({@code detail}); nothing of it was written. */
    public static String diskFull(String detail) {
        return "MISCONF Cajon is short of disk space for its data directory: " + detail
                + ". Commands that may add data are disabled until there is room again.";
    }
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
    /** SAVE or BGSAVE while a background save runs. */
    public static final String BGSAVE_IN_PROGRESS = "ERR Background save already in progress";
    public static final String FUNCTION_FLUSH_MODE = "ERR FUNCTION FLUSH only supports SYNC|ASYNC option";
    public static final String FUNCTION_LIBRARY_NAME_MISSING = "ERR library name argument was not given";

    /** FUNCTION LIST with an argument it does not know, as the client spelt it. */
    public static String functionUnknownArgument(String arg) {
        return "ERR Unknown argument " + arg;
    }
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

    /** Not a Redis text: APP names an app (ACL user) that does not exist. */
    public static String noSuchApp(String app) {
        return "ERR no such app '" + app + "'";
    }

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

    // ACL, AUTH and HELLO AUTH (Redis 7.0.15's acl.c and networking.c)
    public static final String HELLO_NOAUTH = "NOAUTH HELLO must be called with the client already authenticated, "
            + "otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the "
            + "RESP protocol version at the same time";
    public static final String ACL_USERNAME_SPACES = "ERR Usernames can't contain spaces or null characters";
    public static final String ACL_DEFAULT_UNDELETABLE = "ERR The 'default' user cannot be removed";
    public static final String ACL_GENPASS_BITS = "ERR ACL GENPASS argument must be the number of bits for the "
            + "output password, a positive number up to 4096";
    /** Not a Redis text: a Redis user name that cannot name an app's directory. */
    public static final String ACL_APP_NAME = "ERR Cajon app names (ACL user names) must be 1 to 64 letters, "
            + "digits, '-' or '_', starting with a letter or digit: the name is the app's data directory";

    /** ACL DRYRUN's (bulk string) answer for a command the user may not run. */
    public static String dryRunDenied(String fullName) {
        return "This user has no permissions to run the '" + fullName + "' command";
    }

    /** An ACL SETUSER rule that was refused, with Redis's reason ("Syntax error", ...). */
    public static String aclRule(byte[] rule, String reason) {
        return "ERR Error in ACL SETUSER modifier '" + cstr(rule) + "': " + reason;
    }

    public static final String ACL_RULE_SYNTAX = "Syntax error";
    public static final String ACL_RULE_UNKNOWN_COMMAND = "Unknown command or category name in ACL";
    public static final String ACL_RULE_NO_SUCH_PASSWORD =
            "The password you are trying to remove from the user does not exist";
    public static final String ACL_RULE_KEY_AFTER_ALLKEYS = "Adding a pattern after the * pattern (or the "
            + "'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list "
            + "of patterns";
    public static final String ACL_RULE_CHANNEL_AFTER_ALLCHANNELS = "Adding a pattern after the * pattern (or the "
            + "'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an "
            + "empty list of channels";
    public static final String ACL_RULE_BAD_HASH =
            "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters";

    public static String aclUnmatchedParenthesis(byte[] start) {
        return "ERR Unmatched parenthesis in acl selector starting at '" + cstr(start) + "'.";
    }

    public static String aclUnknownCategory(byte[] category) {
        return "ERR Unknown category '" + cstr(category) + "'";
    }

    public static String aclUserNotFound(byte[] user) {
        return "ERR User '" + cstr(user) + "' not found";
    }

    public static String aclCommandNotFound(byte[] command) {
        return "ERR Command '" + cstr(command) + "' not found";
    }

    /** Not a Redis text: an app whose name differs from an existing one only in case. */
    public static String aclAppNameCase(String existing) {
        return "ERR an app named '" + existing + "' exists: app names must differ in more than letter case";
    }

    /** Not a Redis text: the apps registry could not be written, so nothing changed. */
    public static String appsRegistryWrite(String reason) {
        return "ERR could not save the apps registry: " + reason;
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

    /** CONFIG SET of a value Redis refuses; {@code reason} is Redis's text for the refusal. */
    public static String configSetFailed(byte[] name, String reason) {
        return "ERR CONFIG SET failed (possibly related to argument '" + cstr(name) + "') - " + reason;
    }
    // sorted sets (Redis 7.0.15's t_zset.c and the shared helpers it calls)
    public static final String ZADD_XX_AND_NX = "ERR XX and NX options at the same time are not compatible";
    public static final String ZADD_GT_LT_NX = "ERR GT, LT, and/or NX options at the same time are not compatible";
    public static final String ZADD_INCR_SINGLE_PAIR = "ERR INCR option supports a single increment-element pair";
    public static final String ZSCORE_NAN = "ERR resulting score is not a number (NaN)";
    public static final String ZRANGE_MIN_MAX_NOT_FLOAT = "ERR min or max is not a float";
    public static final String ZRANGE_MIN_MAX_NOT_LEX = "ERR min or max not valid string range item";
    public static final String ZRANGE_LIMIT_NEEDS_BY =
            "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX";
    public static final String ZRANGE_WITHSCORES_BYLEX = "ERR syntax error, WITHSCORES not supported in combination with BYLEX";
    public static final String ZSET_WEIGHT_NOT_FLOAT = "ERR weight value is not a float";

    /** ZUNION, ZINTER, ZDIFF (and STORE forms, ZINTERCARD) with numkeys below 1. */
    public static String atLeastOneInputKey(String command) {
        return "ERR at least 1 input key is needed for '" + command + "' command";
    }

    /** Redis's getRangeLongFromObjectOrReply without a message of its own. */
    public static String outOfRangeBetween(long min, long max) {
        return "ERR value is out of range, value must between " + min + " and " + max;
    }

    // ---- lists and the blocking commands (t_list.c, blocked.c, timeout.c)
    public static final String INDEX_OUT_OF_RANGE = "ERR index out of range";
    public static final String LPOS_RANK_ZERO = "ERR RANK can't be zero: use 1 to start from the first match, "
            + "2 from the second ... or use negative to start from the end of the list";
    public static final String LPOS_COUNT_NEGATIVE = "ERR COUNT can't be negative";
    public static final String LPOS_MAXLEN_NEGATIVE = "ERR MAXLEN can't be negative";
    public static final String NUMKEYS_NOT_POSITIVE = "ERR numkeys should be greater than 0";
    public static final String COUNT_NOT_POSITIVE = "ERR count should be greater than 0";
    public static final String TIMEOUT_NOT_FLOAT = "ERR timeout is not a float or out of range";
    public static final String UNBLOCKED_BY_CLIENT = "UNBLOCKED client unblocked via CLIENT UNBLOCK";
    public static final String UNBLOCK_REASON = "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR";

    // hashes and sets (Redis 7.0.15's t_hash.c, t_set.c and object.c)
    public static final String HASH_NOT_INTEGER = "ERR hash value is not an integer";
    public static final String HASH_NOT_FLOAT = "ERR hash value is not a float";
    public static final String VALUE_NAN_OR_INFINITY = "ERR value is NaN or Infinity";
    public static final String NOT_POSITIVE = "ERR value is out of range, must be positive";
    public static final String OUT_OF_RANGE = "ERR value is out of range";
    /** getRangeLongFromObjectOrReply(-LONG_MAX, LONG_MAX) refusing LLONG_MIN (HRANDFIELD, SRANDMEMBER). */
    public static final String NOT_IN_LONG_RANGE =
            "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807";
    public static final String NUMKEYS_TOO_MANY = "ERR Number of keys can't be greater than number of args";
    public static final String LIMIT_NEGATIVE = "ERR LIMIT can't be negative";

    // bitmaps and LCS (Redis's bitops.c and t_string.c)
    public static final String BIT_OFFSET = "ERR bit offset is not an integer or out of range";
    public static final String BIT_VALUE = "ERR bit is not an integer or out of range";
    public static final String BITFIELD_TYPE =
            "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";
    public static final String BITFIELD_OVERFLOW = "ERR Invalid OVERFLOW type specified";
    public static final String BITFIELD_RO_GET_ONLY = "ERR BITFIELD_RO only supports the GET subcommand";
    public static final String BITOP_NOT_ONE_KEY = "ERR BITOP NOT must be called with a single source key.";
    public static final String BITPOS_BIT = "ERR The bit argument must be 1 or 0.";
    public static final String LCS_WRONG_TYPE = "ERR The specified keys must contain string values";
    public static final String LCS_LEN_AND_IDX = "ERR If you want both the length and indexes, please just use IDX.";
    public static final String LCS_TABLE_TOO_LARGE =
            "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len";
    public static final String LCS_TABLE_ALLOCATION = "ERR Insufficient memory, failed allocating transient memory for LCS";

    /** OBJECT FREQ without an LFU maxmemory policy (Cajon has none). */
    public static final String OBJECT_FREQ_NEEDS_LFU = "ERR An LFU maxmemory policy is not selected, access frequency"
            + " not tracked. Please note that when switching between policies at runtime LRU and LFU data will take"
            + " some time to adjust.";

    /**
     * Cajon's own (Redis has no such limit below 512 MiB): a member, field or list element over
     * 16 KiB, or a field and its value over 128 KiB together. Nothing was written.
     */
    public static final String COLLECTION_ENTRY_TOO_LARGE =
            "ERR collection member too large for Cajon (about 16 KiB at most, 128 KiB with its value)";
}
