package dev.cajon.bot;

/**
 * The channel a real bot talks to (WhatsApp, Telegram, ...): it sends {@code content} to
 * {@code chat} and returns the provider's id of the message it sent. A thrown exception is a
 * failed send, retried with backoff. The adapter calls it at most once per idempotency key,
 * except for a send that was recorded as ambiguous and resent by policy.
 */
@FunctionalInterface
public interface Provider {
    String send(String chat, String content) throws Exception;
}
