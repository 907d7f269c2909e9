package dev.cajon.server.session;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.command.ArgCursor;
import dev.cajon.server.command.CommandError;
import dev.cajon.storage.namespace.App;
import dev.cajon.storage.namespace.PasswordHash;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The rules of ACL SETUSER, in Redis 7.0's syntax, applied to a user record.
 *
 * <p>Honoured: {@code on}, {@code off}, {@code >pass}, {@code <pass}, {@code #sha256},
 * {@code !sha256}, {@code nopass}, {@code resetpass} and {@code reset}. Accepted and ignored,
 * because an app is isolated by its drawer, not by patterns, and they could only narrow access
 * in Redis: key patterns ({@code ~p}, {@code %R~p}, {@code allkeys}, {@code resetkeys}), channel
 * patterns ({@code &p}, {@code allchannels}, {@code resetchannels}), command rules
 * ({@code +cmd}, {@code -cmd}, {@code +@cat}, {@code allcommands}, {@code nocommands}),
 * {@code sanitize-payload}, {@code skip-sanitize-payload}, selectors and {@code clearselectors}.
 * ACL LIST and GETUSER show what is in force instead. Anything else is refused with Redis's error.
 * Keywords are case-insensitive, as in Redis.
 *
 * <p>Errors are Redis's texts, except that a refused password rule is quoted redacted
 * ({@code '<<redacted>'}), never with the password or hash it holds.
 *
 * <p>As in Redis 7.0, the rules apply to a copy: when one is refused, nothing changes. Parenthesised
 * selectors spread over several arguments are joined before any rule is applied, so an
 * unmatched parenthesis is reported first.
 */
public final class AclRules {
    private AclRules() {
    }

    /** Redis 7.0's ACL categories, in ACL CAT's order. */
    public static final List<String> CATEGORIES = List.of("keyspace", "read", "write", "set", "sortedset", "list", "hash",
            "string", "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking",
            "dangerous", "connection", "transaction", "scripting");
    /** What {@code +@name} may name: a category, or "all". */
    private static final Set<String> CATEGORY_SET = categoryNames();

    private static Set<String> categoryNames() {
        Set<String> s = new java.util.HashSet<>(CATEGORIES);
        s.add("all");
        return Set.copyOf(s);
    }

    /** {@code base} with {@code rules} applied, or a {@link CommandError} with Redis's text. */
    static App apply(App base, List<byte[]> rules) {
        Patterns p = new Patterns();
        App u = base;
        for (byte[] rule : joinSelectors(rules)) {
            u = applyOne(u, rule, p);
        }
        return u;
    }

    /**
     * Whether {@code ~*} (or {@code allkeys}) and {@code &*} (or {@code allchannels}) came earlier
     * in this command: Redis then refuses a narrower pattern. Tracked within one command only, from
     * none, which is where a new Redis user starts (Cajon keeps no patterns to track across
     * commands, so it is lenient where Redis would refuse a pattern after an earlier command's *).
     */
    private static final class Patterns {
        boolean allKeys;
        boolean allChannels;
    }

    private static App applyOne(App u, byte[] r, Patterns p) {
        if (ArgCursor.is(r, "on")) {
            return u.withEnabled(true);
        }
        if (ArgCursor.is(r, "off")) {
            return u.withEnabled(false);
        }
        if (ArgCursor.is(r, "nopass")) {
            return u.withNopass(true).withPasswords(List.of());
        }
        if (ArgCursor.is(r, "resetpass")) {
            return u.withNopass(false).withPasswords(List.of());
        }
        if (ArgCursor.is(r, "reset")) {
            p.allKeys = false;
            p.allChannels = false;
            return u.withEnabled(false).withNopass(false).withPasswords(List.of());
        }
        if (r.length > 0 && (r[0] == '>' || r[0] == '#')) {
            String hex = r[0] == '>' ? sha256Hex(r, 1) : validHash(r);
            for (PasswordHash h : u.passwords()) {
                if (h.matchesSha256Hex(hex)) {
                    return u.withNopass(false); // already one of its passwords
                }
            }
            List<PasswordHash> more = new ArrayList<>(u.passwords());
            more.add(PasswordHash.ofSha256Hex(hex));
            return u.withNopass(false).withPasswords(more);
        }
        if (r.length > 0 && (r[0] == '<' || r[0] == '!')) {
            String hex = r[0] == '<' ? sha256Hex(r, 1) : validHash(r);
            List<PasswordHash> fewer = new ArrayList<>(u.passwords());
            for (int i = 0; i < fewer.size(); i++) {
                if (fewer.get(i).matchesSha256Hex(hex)) {
                    fewer.remove(i);
                    return u.withPasswords(fewer);
                }
            }
            throw new CommandError(RedisErrors.aclRule(redacted(r), RedisErrors.ACL_RULE_NO_SUCH_PASSWORD));
        }
        if (ArgCursor.is(r, "allkeys") || ArgCursor.is(r, "~*")) {
            p.allKeys = true;
            return u;
        }
        if (ArgCursor.is(r, "resetkeys")) {
            p.allKeys = false;
            return u;
        }
        if (ArgCursor.is(r, "allchannels") || ArgCursor.is(r, "&*")) {
            p.allChannels = true;
            return u;
        }
        if (ArgCursor.is(r, "resetchannels")) {
            p.allChannels = false;
            return u;
        }
        if (r.length > 0 && (r[0] == '~' || r[0] == '%')) {
            if (p.allKeys) {
                throw new CommandError(RedisErrors.aclRule(r, RedisErrors.ACL_RULE_KEY_AFTER_ALLKEYS));
            }
            if (r[0] == '%') {
                checkPermissionPattern(r);
            }
            return u;
        }
        if (r.length > 0 && r[0] == '&') {
            if (p.allChannels) {
                throw new CommandError(RedisErrors.aclRule(r, RedisErrors.ACL_RULE_CHANNEL_AFTER_ALLCHANNELS));
            }
            return u;
        }
        if (ignoredKeyword(r) || isSelector(r)) {
            return u;
        }
        if (r.length > 0 && (r[0] == '+' || r[0] == '-')) {
            checkCommandRule(r);
            return u;
        }
        throw new CommandError(RedisErrors.aclRule(r, RedisErrors.ACL_RULE_SYNTAX));
    }

    private static boolean ignoredKeyword(byte[] r) {
        for (String k : new String[] {"allcommands", "nocommands", "sanitize-payload", "skip-sanitize-payload",
                "clearselectors"}) {
            if (ArgCursor.is(r, k)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isSelector(byte[] r) {
        return r.length >= 2 && r[0] == '(' && r[r.length - 1] == ')';
    }

    /**
     * {@code %R~pattern}, {@code %W~}, {@code %RW~}: R and W (any case, each at most once) up to
     * an optional '~' and pattern; at least one of them.
     */
    private static void checkPermissionPattern(byte[] r) {
        boolean read = false;
        boolean write = false;
        for (int i = 1; i < r.length && r[i] != '~'; i++) {
            int ch = Character.toUpperCase(r[i]);
            if (ch == 'R' && !read) {
                read = true;
            } else if (ch == 'W' && !write) {
                write = true;
            } else {
                throw new CommandError(RedisErrors.aclRule(r, RedisErrors.ACL_RULE_SYNTAX));
            }
        }
        if (!(read || write)) {
            throw new CommandError(RedisErrors.aclRule(r, RedisErrors.ACL_RULE_SYNTAX));
        }
    }

    /**
     * {@code +@category} must name one of Redis's categories. {@code +name} and
     * {@code +name|sub} are accepted for any non-empty name: they are ignored, and a command
     * Redis has but Cajon lacks must not break a provisioning script.
     */
    private static void checkCommandRule(byte[] r) {
        String body = new String(r, 1, r.length - 1, StandardCharsets.ISO_8859_1);
        boolean ok;
        if (body.startsWith("@")) {
            ok = CATEGORY_SET.contains(body.substring(1).toLowerCase(Locale.ROOT));
        } else {
            int bar = body.indexOf('|');
            ok = !body.isEmpty() && (bar < 0 || bar > 0 && bar < body.length() - 1);
        }
        if (!ok) {
            throw new CommandError(RedisErrors.aclRule(r, RedisErrors.ACL_RULE_UNKNOWN_COMMAND));
        }
    }

    /**
     * A password rule ({@code <pass}, {@code #hash}, {@code !hash}) as an error shows it: its first
     * character and {@link Accounts#REDACTED}. Redis quotes the whole rule; Cajon never sends a
     * password or a password's hash back, since clients log error messages.
     */
    private static byte[] redacted(byte[] r) {
        return ((char) r[0] + Accounts.REDACTED).getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String validHash(byte[] r) {
        String hex = new String(r, 1, r.length - 1, StandardCharsets.ISO_8859_1);
        if (!PasswordHash.isSha256Hex(hex)) {
            throw new CommandError(RedisErrors.aclRule(redacted(r), RedisErrors.ACL_RULE_BAD_HASH));
        }
        return hex;
    }

    private static String sha256Hex(byte[] r, int from) {
        byte[] pw = java.util.Arrays.copyOfRange(r, from, r.length);
        try {
            return HexFormat.of().formatHex(PasswordHash.sha256(pw));
        } finally {
            java.util.Arrays.fill(pw, (byte) 0);
        }
    }

    /**
     * Redis's ACLMergeSelectorArguments: an argument opening '(' without closing it is joined
     * (with spaces) to those that follow up to one that ends with ')'.
     */
    private static List<byte[]> joinSelectors(List<byte[]> rules) {
        List<byte[]> out = new ArrayList<>(rules.size());
        for (int i = 0; i < rules.size(); i++) {
            byte[] r = rules.get(i);
            if (r.length == 0 || r[0] != '(' || r[r.length - 1] == ')' && r.length > 1) {
                out.add(r);
                continue;
            }
            StringBuilder sb = new StringBuilder(new String(r, StandardCharsets.ISO_8859_1));
            int j = i + 1;
            boolean closed = false;
            for (; j < rules.size(); j++) {
                byte[] next = rules.get(j);
                sb.append(' ').append(new String(next, StandardCharsets.ISO_8859_1));
                if (next.length > 0 && next[next.length - 1] == ')') {
                    closed = true;
                    break;
                }
            }
            if (!closed) {
                throw new CommandError(RedisErrors.aclUnmatchedParenthesis(r));
            }
            out.add(sb.toString().getBytes(StandardCharsets.ISO_8859_1));
            i = j;
        }
        return out;
    }
}
