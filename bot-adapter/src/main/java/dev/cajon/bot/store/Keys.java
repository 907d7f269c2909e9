package dev.cajon.bot.store;

/**
 * The key layout (see docs/BOT-ADAPTER.md). Every key starts with the adapter's namespace and
 * carries one hash tag, so that every transaction stays in one slot of a Redis Cluster:
 * <pre>
 *   ns:{c:CHAT}:in:MID        an inbound record (journal, lease, state)
 *   ns:{c:CHAT}:lease         the chat's lease: owner, fencing token, deadline
 *   ns:{c:CHAT}:state         the bot's own state of the chat, written with the done commit
 *   ns:{o:KEY}:out            an outbound record, by idempotency key
 *   ns:{w:B}:n / ns:{w:B}:I   the timer wheel: bucket B's counter (or seal) and its entries
 *   ns:{wheel}:cursor         the last bucket swept
 *   ns:{log:NAME}:n / :I / :low   an append-only log with its low-water cursor
 * </pre>
 * Chat ids and keys are used as they are, except that {@code %}, <code>{</code> and
 * <code>}</code> are percent-escaped, so a user's id can never move the hash tag.
 */
public final class Keys {
    private final String ns;

    public Keys(String ns) {
        this.ns = ns;
    }

    static String esc(String s) {
        if (s.indexOf('%') < 0 && s.indexOf('{') < 0 && s.indexOf('}') < 0) {
            return s;
        }
        return s.replace("%", "%25").replace("{", "%7B").replace("}", "%7D");
    }

    public String inbound(String chat, String mid) {
        return ns + ":{c:" + esc(chat) + "}:in:" + esc(mid);
    }

    public String lease(String chat) {
        return ns + ":{c:" + esc(chat) + "}:lease";
    }

    public String state(String chat) {
        return ns + ":{c:" + esc(chat) + "}:state";
    }

    public String outbound(String key) {
        return ns + ":{o:" + esc(key) + "}:out";
    }

    public String bucketCount(long bucket) {
        return ns + ":{w:" + bucket + "}:n";
    }

    public String bucketEntry(long bucket, long i) {
        return ns + ":{w:" + bucket + "}:" + i;
    }

    public String wheelCursor() {
        return ns + ":{wheel}:cursor";
    }

    public String logCount(String log) {
        return ns + ":{log:" + esc(log) + "}:n";
    }

    public String logEntry(String log, long i) {
        return ns + ":{log:" + esc(log) + "}:" + i;
    }

    public String logLow(String log) {
        return ns + ":{log:" + esc(log) + "}:low";
    }
}
