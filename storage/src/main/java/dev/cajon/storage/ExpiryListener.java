package dev.cajon.storage;

/**
 * Told about every deadline a keyspace persists, so that an expiry index (the wheel) can reclaim
 * the key on time. Called while the key's stripe lock is held: implementations must be quick and
 * must not call back into the keyspace.
 */
public interface ExpiryListener {
    ExpiryListener NONE = (keyspace, key, oldAt, newAt) -> { };

    /**
     * @param oldAt the key's previous deadline, or a value &lt;= 0 when it had none (or did not exist)
     * @param newAt the new deadline in epoch ms
     */
    void deadlineSet(Keyspace keyspace, byte[] key, long oldAt, long newAt);
}
