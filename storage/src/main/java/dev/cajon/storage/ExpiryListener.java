package dev.cajon.storage;

/**
 * Receives the expiry records a keyspace files: "look at this key at time {@code at}". Called
 * while the key's stripe lock is held: implementations must be quick and must not call back into
 * the keyspace. The keyspace decides when a record is needed (see {@code Keyspace.put}); the
 * listener (the expiry wheel) only files it.
 */
public interface ExpiryListener {
    ExpiryListener NONE = (keyspace, key, at) -> { };

    void file(Keyspace keyspace, byte[] key, long at);
}
