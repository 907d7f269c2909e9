package dev.cajon.bot;

import java.time.Instant;

/** What a {@link Handler} can do while it holds the chat's lease. */
public interface HandlerContext {
    InboundId id();

    /** The fencing token of this claim: strictly greater than every earlier claim of the chat. */
    long fence();

    /** 1 for the first run of the handler on this message, 2 for the first retry, ... */
    int attempt();

    /** Sends through the outbox with the key {@code <inbound id>:<n>}, n counting from 1. */
    SendResult send(String content);

    /** Sends through the outbox under an explicit idempotency key. */
    SendResult send(String content, String key);

    /** Records a send for later; see {@link BotAdapter#enqueue}. */
    SendResult enqueue(String content, String key, Instant notBefore);

    /** The chat's state as of this claim (null at first), e.g. a cart. */
    String state();

    /**
     * Replaces the chat's state. It is written together with the done mark and only if this
     * claim still holds the lease, so a stale worker can never overwrite a newer state.
     */
    void setState(String state);
}
