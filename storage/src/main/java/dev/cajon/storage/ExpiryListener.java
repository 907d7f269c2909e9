package dev.cajon.storage;

/**
 * Told about every deadline a keyspace persists, so that an expiry index (the wheel) can reclaim
 * the key on time. Called while the key's stripe lock is held: implementations must be quick and
 * must not call back into the keyspace.
 */
public interface ExpiryListener {
    ExpiryListener NONE = (keyspace, key, expireAt) -> { };

    void deadlineSet(Keyspace keyspace, byte[] key, long expireAt);
}
