package dev.cajon.storage;

/**
 * Wall-clock time in milliseconds since the Unix epoch, injected everywhere a deadline is
 * computed or compared (TTLs, the expiry wheel, leases). Tests pass a {@link ManualClock} and move
 * it instead of sleeping.
 */
@FunctionalInterface
public interface Clock {

    /** The real clock. */
    Clock SYSTEM = System::currentTimeMillis;

    long nowMillis();
}
