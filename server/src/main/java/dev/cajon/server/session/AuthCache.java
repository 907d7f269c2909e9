package dev.cajon.server.session;

import dev.cajon.storage.namespace.App;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Remembers the outcome of recent password checks, so that a client opening many connections (a
 * pool of 50, reconnecting after a deploy) pays the slow hash once, not per connection: a
 * PBKDF2 check costs 15-25 ms of an event loop, a remembered one a few microseconds.
 *
 * <p>An entry is keyed by HMAC-SHA256(per-process random key, user name, 0, password) and holds
 * the user record it was checked against. It counts only while that record is still the user's
 * current one: every ACL SETUSER or DELUSER makes a new record (or none), so a changed or removed
 * password, a user turned off or deleted, is never answered from here. Failures are remembered
 * too, in a smaller table, so that a misconfigured client reconnecting in a loop with a wrong
 * password does not cost 20 ms of event loop per attempt (a different wrong password still does).
 * Both tables are bounded (least recently used out).
 *
 * <p>The trade-off: while an entry lives, the server's memory holds a fast keyed hash of a good
 * password. Someone who can read that memory (and so the key) could test guesses at HMAC speed
 * against it instead of PBKDF2 speed; but whoever reads the server's memory already reads every
 * app's data and the passwords clients are sending. What is written to disk is only the slow
 * hash. Nothing here is ever logged.
 */
final class AuthCache {
    static final int SUCCESSES = 1024;
    static final int FAILURES = 256;

    private final SecretKeySpec key;
    private final Map<Key, App> successes = lru(SUCCESSES);
    private final Map<Key, App> failures = lru(FAILURES);

    AuthCache() {
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        key = new SecretKeySpec(k, "HmacSHA256");
    }

    /** The cache key of a (user, password) pair; compute it once per check. */
    Key key(String user, byte[] password) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            mac.update(user.getBytes(StandardCharsets.ISO_8859_1));
            mac.update((byte) 0);
            return new Key(mac.doFinal(password));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    /** TRUE or FALSE when {@code user}'s current record was checked with this password, else null. */
    synchronized Boolean lookup(Key k, App user) {
        if (successes.get(k) == user) {
            return Boolean.TRUE;
        }
        if (failures.get(k) == user) {
            return Boolean.FALSE;
        }
        return null;
    }

    synchronized void remember(Key k, App user, boolean matched) {
        (matched ? successes : failures).put(k, user);
        (matched ? failures : successes).remove(k);
    }

    synchronized int size() {
        return successes.size() + failures.size();
    }

    /** A MAC, compared by content. */
    static final class Key {
        private final byte[] mac;
        private final int hash;

        Key(byte[] mac) {
            this.mac = mac;
            this.hash = Arrays.hashCode(mac);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(k.mac, mac);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private static <K, V> Map<K, V> lru(int max) {
        return new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > max;
            }
        };
    }
}
