package dev.cajon.server.command;

/**
 * Redis's command flags, as COMMAND reports them. The dispatcher reads NO_AUTH and DENY_OOM; the
 * others are metadata for clients (COMMAND INFO) and for the namespace checks to come.
 */
public enum CommandFlag {
    WRITE("write"),
    READONLY("readonly"),
    DENYOOM("denyoom"),
    ADMIN("admin"),
    PUBSUB("pubsub"),
    NOSCRIPT("noscript"),
    BLOCKING("blocking"),
    LOADING("loading"),
    STALE("stale"),
    SKIP_MONITOR("skip_monitor"),
    SKIP_SLOWLOG("skip_slowlog"),
    ASKING("asking"),
    FAST("fast"),
    NO_AUTH("no_auth"),
    MAY_REPLICATE("may_replicate"),
    SENTINEL("sentinel"),
    ONLY_SENTINEL("only_sentinel"),
    NO_MANDATORY_KEYS("no_mandatory_keys"),
    PROTECTED("protected"),
    MODULE("module"),
    NO_ASYNC_LOADING("no_async_loading"),
    NO_MULTI("no_multi"),
    ALLOW_BUSY("allow_busy"),
    /** The keys are found by parsing the arguments (numkeys: ZUNION, LMPOP ...), not by first/last/step; last, as COMMAND lists it. */
    MOVABLEKEYS("movablekeys");

    private final String redisName;

    CommandFlag(String redisName) {
        this.redisName = redisName;
    }

    public String redisName() {
        return redisName;
    }
}
